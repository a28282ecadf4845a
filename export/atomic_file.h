/* Crash-safe file replacement: temp file, fsync, rename, fsync directory. */
#ifndef SMOLDER_EXPORT_ATOMIC_FILE_H
#define SMOLDER_EXPORT_ATOMIC_FILE_H
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Temp files are named ".NAME.tmp.XXXXXXXXXXXX" in the target's directory; a
 * crash between create and rename can leave one behind, never a partial file
 * at the target. Directory scanners (spool, upload) must skip names starting
 * with '.' and may remove stale ones. */
#define ATOMIC_FILE_TMP_INFIX ".tmp."

/* Opens the directory that holds path (".", "/", or what precedes the last
 * '/') with O_RDONLY|O_DIRECTORY|O_CLOEXEC, and points *name at path's last
 * component. Returns the fd (the caller closes it), -EISDIR when path ends
 * with '/' (it names a directory), -ENAMETOOLONG, or -errno of open(). */
int atomic_file__open_dir(const char *path, const char **name);

/* Replaces name in dirfd (from atomic_file__open_dir) with buf[0..len)
 * atomically: a temp file created with O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC
 * and mode (umask applies, as for any file creation), written fully (EINTR
 * and short writes retried), fsync'd, renamed over name, and the directory
 * fsync'd so the rename is durable. Only a regular file, a symlink (the
 * link itself: nothing is followed) or nothing is replaced: a directory is
 * -EISDIR, and a FIFO, device or socket -EEXIST (renaming over it would
 * put a regular file where /dev/null was; out_path.h writes those in
 * place). Returns 0 or -errno; on failure before the rename the temp file
 * is removed and name is untouched. A failing directory fsync is reported
 * (-errno) although name already holds the complete new content; EINVAL
 * and ENOTSUP from it (filesystems that cannot sync directories) are
 * ignored. Thread-safe (no shared state besides an atomic counter). */
int atomic_file__write_at(int dirfd, const char *name, const void *buf, size_t len, mode_t mode);

/* Same, with the content produced by fn writing to a stdio stream on the
 * temp file. fn returns 0 or -errno; a non-zero return, or a stream error,
 * aborts the replacement. */
typedef int (*atomic_file_fn)(void *ctx, FILE *out);
int atomic_file__write_with_at(int dirfd, const char *name, mode_t mode, atomic_file_fn fn, void *ctx);

/* The two above on a path, its directory opened by atomic_file__open_dir. */
int atomic_file__write(const char *path, const void *buf, size_t len, mode_t mode);
int atomic_file__write_with(const char *path, mode_t mode, atomic_file_fn fn, void *ctx);

#endif
