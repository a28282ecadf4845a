/* The path a user names for a command's result (record -o, report -o),
 * written by root on a shared host where anyone may have put something at
 * that name first: in a world-writable sticky directory such as /tmp, any
 * user can plant a FIFO (its reader would receive root's profile of the
 * host, and an open() without a reader blocks forever), a symlink (to a
 * file of root's that the write would fill), a directory, or a hard link.
 * So, in this order:
 *
 *   1. the last component is looked at without being opened or followed
 *      (O_PATH|O_NOFOLLOW, then fstat): no driver's open() runs, no link
 *      is followed, before the decision;
 *   2. a regular file, or nothing, is replaced atomically (atomic_file.h):
 *      no existing file is ever written into, so a hard link to another
 *      user's file never receives the result;
 *   3. a FIFO or a character device is written in place only when the
 *      invoking user (the real uid; SUDO_UID is not a credential) or root
 *      owns it and it has a single name: that same inode, reopened through
 *      /proc/self/fd with O_WRONLY|O_NONBLOCK|O_NOCTTY|O_CLOEXEC and
 *      checked again, its reader waited for and written until a deadline
 *      (fileio__write_until), never inside open() or write();
 *   4. anything else is refused: a symlink, a directory, a FIFO or device
 *      another user owns or that has several names, a socket, a block
 *      device.
 *
 * Standard output is not a path here: "-" and "/dev/stdout" mean the
 * caller's fd 1, which the invoking user opened (out_path__is_stdout).
 * doc/security.md (9) says why each rule is there. No state; thread-safe. */
#ifndef SMOLDER_EXPORT_OUT_PATH_H
#define SMOLDER_EXPORT_OUT_PATH_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "export/atomic_file.h"

/* Why a path was refused (the return is then -EPERM). */
enum out_path_refusal {
	OUT_PATH_OK = 0,
	OUT_PATH_SYMLINK,    /* never followed */
	OUT_PATH_DIRECTORY,
	OUT_PATH_NOT_YOURS,  /* a FIFO or device neither the caller nor root owns */
	OUT_PATH_LINKED,     /* a FIFO or device with more than one name */
	OUT_PATH_OTHER_TYPE, /* a socket or a block device */
};

/* Whether path means standard output: "-" or "/dev/stdout". */
int out_path__is_stdout(const char *path);

/* Whether out_path__write would accept path, without opening or changing
 * what is there: for an error before work whose result could not be
 * written. A FIFO is not required to have a reader yet. Returns 0, -EPERM
 * with *why set, or -errno (the directory missing or not writable). *why is
 * OUT_PATH_OK unless the return is a refusal. */
int out_path__check(const char *path, enum out_path_refusal *why);

/* Writes buf[0..len) to path by the rules above; mode is that of a new
 * file. A FIFO is waited for until a process opens it for reading, and
 * then until it has read everything: deadline_ns (clock__mono_ns(); 0:
 * none) bounds both, and a signal the caller handles ends them. Returns 0,
 * -EPERM with *why set, -ENXIO (no reader came before the deadline, or no
 * such device), -ETIMEDOUT (the reader did not read it all), -EINTR, or
 * -errno. *why as for out_path__check. */
int out_path__write(const char *path, const void *buf, size_t len, mode_t mode,
		    uint64_t deadline_ns, enum out_path_refusal *why);

/* Same, the content produced by fn on a stdio stream: straight into the
 * temp file of a replacement, through memory for a write in place. */
int out_path__write_with(const char *path, mode_t mode, atomic_file_fn fn, void *ctx,
			 uint64_t deadline_ns, enum out_path_refusal *why);

/* What rc and why of the functions above mean, as the end of a sentence
 * naming the path ("-o PATH: ..."): a refusal with what to do instead, the
 * errors of a write in place, else strerror. Static text. */
const char *out_path__strerror(int rc, enum out_path_refusal why);

#endif
