/* JIT symbols from a jitdump file (jit-PID.dump: perf's binary format,
 * written by V8's --perf-prof, the JVM's perf agents, LuaJIT, wasmtime...).
 * The JIT maps the file executable so that profilers see where it is; each
 * JIT_CODE_LOAD record names a code range, JIT_CODE_MOVE moves one. Frames
 * are interned as "name_[j]", like perf maps (symbolize/perfmap.h), into
 * the same kind of table. The file is another user's and is hostile: every
 * size is checked, and reading stops at the first record that does not fit.
 * Not thread-safe. */
#ifndef SMOLDER_SYMBOLIZE_JITDUMP_H
#define SMOLDER_SYMBOLIZE_JITDUMP_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perfmap;
struct strtab;

/* At most this much of a file is read. */
#define JITDUMP_MAX_BYTES (64u << 20)

/* Whether a mapped file's path names a jitdump: its last component is
 * "jit-<digits>.dump". */
int jitdump__is_dump_path(const char *path, size_t len);

/* Parses the jitdump image buf[0..len) into m (perfmap__add, then
 * perfmap__seal). Returns 0 (also for a file cut short: what was complete
 * counts), -EINVAL when it is no jitdump (magic, version, header size),
 * -ENOMEM. */
int jitdump__parse(const void *buf, size_t len, struct strtab *names, struct perfmap *m);

/* Brings *m (NULL: none yet) up to date with the jitdump at path, opened
 * as perfmap__open does (owner_uid or root, regular file): re-read when the
 * file changed since *m was read from it. Returns 1 when (re)loaded, 0 when
 * unchanged, or -errno (then *m is kept). */
int jitdump__refresh(const char *path, uid_t owner_uid, struct strtab *names, struct perfmap **m);
/* The same, path relative to the directory dirfd (openat). */
int jitdump__refresh_at(int dirfd, const char *path, uid_t owner_uid, struct strtab *names,
			struct perfmap **m);

#endif
