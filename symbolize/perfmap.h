/* JIT symbols from /tmp/perf-PID.map ("START SIZE name" lines, hex), the
 * convention of perf, V8, the JVM agents and others. Frames are interned as
 * "name_[j]" when first looked up; the map keeps the text meanwhile. The file is read through /proc/PID/root and ignored unless it
 * is a regular file owned by the process's uid (root's only when the process
 * runs as root). Not thread-safe. */
#ifndef SMOLDER_SYMBOLIZE_PERFMAP_H
#define SMOLDER_SYMBOLIZE_PERFMAP_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct strtab;
struct perfmap;

/* The most text one map is read from. */
#define PERFMAP_MAX_TEXT (16u << 20)

/* Loads `path` (opened by perfmap__open's rules). Returns 0,
 * -ENOENT (no file), -EPERM (wrong owner / not a regular file), -ENOMEM.
 * Malformed lines are skipped; at most 16 MiB and 1,000,000 entries read. */
int perfmap__load(const char *path, uid_t owner_uid, struct strtab *names, struct perfmap **out);
void perfmap__delete(struct perfmap *m);
/* Brings *m (NULL: none yet) up to date with `path`, relative to dirfd
 * (opened by perfmap__open_at's rules). JITs append to their map as they
 * compile, so a pc the map misses may be in it now: when the file is the
 * one *m was read from but grew, only the appended lines are read and
 * merged; when it is another file (device, inode) or shrank, it is loaded
 * whole and replaces *m; a new modification time alone changes nothing.
 * max_text bounds the text the map is read from in all (0: 16 MiB, also
 * the most); past it, lines are not read. Returns 1 when (re)loaded, 0 when
 * the file is unchanged (or the limit left nothing to read), or
 * perfmap__load's -errno: then *m is kept (its code may still be mapped).
 * One open and fstat when unchanged. */
int perfmap__refresh_at(int dirfd, const char *path, uid_t owner_uid, struct strtab *names,
			uint64_t max_text, struct perfmap **m);
/* Opens a JIT symbol file of another user's process (common/userfile.h):
 * a regular file, checked before anything opens it, owned by owner_uid (by
 * root only when owner_uid is root). Returns 0 with *fd (the caller closes
 * it) and *st, -EPERM (not a regular file, a symlink, another owner), or
 * -errno. */
struct stat;
int perfmap__open(const char *path, uid_t owner_uid, int *fd, struct stat *st);
/* The same, path relative to the directory dirfd (openat): a process's
 * root, kept open so that its files can be read after it exited. */
int perfmap__open_at(int dirfd, const char *path, uid_t owner_uid, int *fd, struct stat *st);
/* How the file fd (st: its fstat) relates to what m was read from:
 * another file (device or inode differ, it shrank, or its start or the
 * bytes where the last read ended changed: a rewrite may reuse the freed
 * inode of the file it replaced, with the same size), the same content
 * (size and time unchanged, or only touched), or the same content with
 * bytes appended. Reads at most 4 KiB + 256 bytes, only when the size or
 * time moved. */
enum perfmap_change { PERFMAP_SAME, PERFMAP_GREW, PERFMAP_OTHER };
enum perfmap_change perfmap__change(struct perfmap *m, int fd, const struct stat *st);
/* Remembers what perfmap__change compares, from fd: the file m was just
 * built from (its first st_size bytes for a map built with perfmap__add).
 * 0 or -ENODATA. */
int perfmap__fingerprint(struct perfmap *m, int fd);

/* Building a map from another source of JIT symbols (jitdump): an empty map
 * identified by the file st describes; entries added in order (later wins
 * for the same start); sealed (sorted) before the first lookup. add returns
 * 0, -EINVAL (empty or wrapping range), -ENOSPC past 1,000,000 entries, or
 * -ENOMEM. */
int perfmap__new_empty(const struct stat *st, struct perfmap **out);
int perfmap__add(struct perfmap *m, uint64_t start, uint64_t size, uint32_t id);
/* The source interned a new name of bytes bytes for m's entries: what m
 * holds counts it. */
void perfmap__count_name(struct perfmap *m, uint64_t bytes);
void perfmap__seal(struct perfmap *m);

/* What m holds, for the load budget: its entries plus the text it was
 * parsed from (about the names it interned), or the names its source
 * interned for it (perfmap__count_name). Accepts NULL (0). */
uint64_t perfmap__bytes(const struct perfmap *m);

/* Whether the last refresh left lines unread because of its max_text
 * (below the file cap). */
int perfmap__truncated(const struct perfmap *m);

/* 0 and *id for a covered pc, -ENOENT otherwise. A map read from text
 * interns a symbol's name ("name_[j]") the first time a lookup finds it
 * (then -ENOMEM is possible): only the names samples use take room in the
 * shared table. */
int perfmap__lookup(struct perfmap *m, uint64_t pc, uint32_t *id);
size_t perfmap__count(const struct perfmap *m);
/* One pass of a compaction of the names table (common/strtab_remap.h): every
 * symbol's frame id goes through strtab_remap__id(). Returns 0, or -ENOMEM
 * in the collect pass. */
struct strtab_remap;
int perfmap__remap_names(struct perfmap *m, struct strtab_remap *r);

#endif
