/* Crash-safe file replacement: temp file, fsync, rename, fsync directory. */
#ifndef SMOLDER_EXPORT_ATOMIC_FILE_H
#define SMOLDER_EXPORT_ATOMIC_FILE_H
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Temp files are named ".BASENAME.tmp.XXXXXXXXXXXX" in path's directory; a
 * crash between create and rename can leave one behind, never a partial file
 * at path. Directory scanners (spool, upload) must skip names starting with
 * '.' and may remove stale ones. */
#define ATOMIC_FILE_TMP_INFIX ".tmp."

/* Replaces path with buf[0..len) atomically. When path is a device, a FIFO
 * or a socket (-o /dev/null, /dev/stdout, a pipe), it is written in place
 * instead: renaming over it would replace the device with a regular file. A
 * directory is -EISDIR. Otherwise the temp file is created with
 * O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC and mode (umask applies, as for any
 * file creation), written fully (EINTR and short writes retried), fsync'd,
 * renamed over path, and the directory fsync'd so the rename is durable.
 * Returns 0 or -errno; on failure before the rename the temp file is
 * removed and path is untouched. A failing directory fsync is reported
 * (-errno) although path already holds the complete new content; EINVAL
 * and ENOTSUP from it (filesystems that cannot sync directories) are
 * ignored. Thread-safe (no shared state besides an atomic counter). */
int atomic_file__write(const char *path, const void *buf, size_t len, mode_t mode);

/* Same, with the content produced by fn writing to a stdio stream on the
 * temp file. fn returns 0 or -errno; a non-zero return, or a stream error,
 * aborts the replacement. */
typedef int (*atomic_file_fn)(void *ctx, FILE *out);
int atomic_file__write_with(const char *path, mode_t mode, atomic_file_fn fn, void *ctx);

#endif
