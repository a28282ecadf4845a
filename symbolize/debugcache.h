/* Decompressed copies of separate debug files, kept in the cache directory.
 *
 * Distributions ship debug files (libc6-dbg, *-dbgsym, *-debuginfo) with
 * their DWARF sections zlib-compressed. libdw inflates every one of them
 * when it opens the file: for glibc that is ~30 ms of CPU and ~10 MB of
 * private memory at every start, although inlined frames need only
 * .debug_info, .debug_abbrev and the string/range sections, and only the
 * compilation units that samples land in. A copy with those sections stored
 * plain and the unused ones (locations, line tables, macros) left out is
 * mapped from the page cache instead: no inflating after the first start,
 * and only the pages read count as resident. */
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

/* Name of the cache entry for a debug file: "debug-<build-id hex>-<hash of
 * the file's identity (device, inode, size, mtime)>", so that an updated
 * package gets a fresh copy. Writes at most size bytes; returns 0 or
 * -ENAMETOOLONG (a build-id longer than 64 bytes). */
int debugcache__name(int fd, const unsigned char *id, size_t len, char *buf, size_t size);

/* Whether the ELF file open at fd carries the GNU build-id id[0..len). */
int debugcache__build_id_is(int fd, const unsigned char *id, size_t len);

#endif
