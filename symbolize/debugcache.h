/* Plain copies of debug information, kept in the cache directory: of
 * separate debug files, and of the DWARF of users' binaries.
 *
 * Distributions ship debug files (libc6-dbg, *-dbgsym, *-debuginfo) with
 * their DWARF sections zlib-compressed. libdw inflates every one of them
 * when it opens the file: for glibc that is ~30 ms of CPU and ~10 MB of
 * private memory at every start, although inlined frames need only
 * .debug_info, .debug_abbrev and the string/range sections, and only the
 * compilation units that samples land in. A copy with those sections stored
 * plain and the unused ones (locations, line tables, macros) left out is
 * mapped from the page cache instead: no inflating after the first start,
 * and only the pages read count as resident.
 *
 * A user's binary with DWARF in it is never mapped (its owner may cut it
 * short: unwind/elffile.h), and reading its DWARF into memory would hold
 * all of it (libdw reads every section whole: 30 MB for a monolith's) for
 * as long as the binary is loaded. A copy of just that DWARF, in our own
 * directory where no user can change it, is mapped instead, and what the
 * trees' builds touch of it is dropped again (symbolize/inlineindex.c). */
#ifndef SMOLDER_SYMBOLIZE_DEBUGCACHE_H
#define SMOLDER_SYMBOLIZE_DEBUGCACHE_H
#include <stddef.h>
#include <stdint.h>

struct cachedir;

/* Largest decompressed copy made, and at most a quarter of the cache's
 * bound (bigger debug files are used as they are). */
#define DEBUGCACHE_MAX_BYTES (512ull << 20)

/* Given an open separate debug file (fd, not consumed) whose build-id is
 * id[0..len), returns an fd of its decompressed copy from the cache,
 * creating the copy when it is missing. Returns -ENOENT when the file has no
 * compressed sections worth copying, -EOPNOTSUPP for a layout not handled
 * (not a native-endian ELF64, GNU .zdebug sections), -EFBIG beyond
 * DEBUGCACHE_MAX_BYTES or the cache's own bound, or another -errno: the
 * caller then uses fd as it is. */
int debugcache__open(struct cachedir *c, int fd, const unsigned char *id, size_t len);

/* The largest copy c takes (0 for none). */
uint64_t debugcache__limit(const struct cachedir *c);

/* Given an open binary (fd, not consumed; a file its owner may change)
 * whose build-id is id[0..len), returns an fd of a copy of its DWARF (the
 * sections the inline trees read, inflated, and its notes; no code or
 * data) from the cache, creating it when it is missing. Errors as
 * debugcache__open's but -ENOENT, and -EINVAL also for a file cut short
 * while it is copied: the binary's DWARF is then not used. */
int debugcache__open_dwarf(struct cachedir *c, int fd, const unsigned char *id, size_t len);

/* Name of the cache entry for a debug file: "debug-<build-id hex>-<hash of
 * the file's identity (device, inode, size, mtime, owner)>", so that an
 * updated package gets a fresh copy ("dwarf-..." for a binary's DWARF).
 * Writes at most size bytes; returns 0 or -ENAMETOOLONG (a build-id longer
 * than 64 bytes). */
int debugcache__name(int fd, const unsigned char *id, size_t len, char *buf, size_t size);

/* Whether the ELF file open at fd carries the GNU build-id id[0..len). */
int debugcache__build_id_is(int fd, const unsigned char *id, size_t len);

#endif
