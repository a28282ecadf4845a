/* Opening a file on another user's behalf: their perf map, jitdump or
 * binary, reached through their process's root (/proc/PID/root/...), which
 * they control entirely, mount and user namespaces included. Such a path
 * may lead to a FIFO (an open() that blocks the agent), a terminal (that
 * becomes the daemon's controlling terminal, and ^C on it stops the
 * daemon), any device whose open() has side effects, or a root-only file
 * bind-mounted over their own (whose lines would be exported as frame
 * names). So, in this order:
 *
 *   1. the path is resolved without opening the file for I/O (O_PATH,
 *      O_NOFOLLOW on the last component): no driver's open() runs;
 *   2. the inode is checked: a regular file, not over max_bytes, and owned
 *      by the target's uid, or by root only when root_ok (the target runs
 *      as root, or the file is a binary a process mapped: system
 *      libraries are root's); a bind mount cannot lend another owner;
 *   3. that same inode, not the path again, is opened for reading through
 *      /proc/self/fd (O_RDONLY, O_NOCTTY, O_NONBLOCK, O_CLOEXEC).
 *
 * doc/security.md says why each rule is there. Thread-safe (no state). */
#ifndef SMOLDER_COMMON_USERFILE_H
#define SMOLDER_COMMON_USERFILE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define USERFILE_ANY_OWNER ((uid_t)-1)

struct userfile_rule {
	uid_t owner;      /* the uid the file must belong to; USERFILE_ANY_OWNER:
	                   * any (binaries a process mapped: the mapping proves
	                   * it could open it, and their identity is checked) */
	int root_ok;      /* root-owned files are accepted too */
	uint64_t max_bytes; /* 0: no bound */
	int follow;       /* follow a symlink at the end of path: only for the
	                   * kernel's own links (/proc/PID/map_files/...,
	                   * /proc/self/fd/N), never a path the user controls */
};

/* Opens path (relative to dirfd as openat does; AT_FDCWD for an absolute
 * path) by the rule. Returns the fd (the caller closes it) with *st of the
 * file, or: -ENOENT and the like from resolving the path, -ELOOP (the last
 * component is a symlink), -EPERM (not a regular file, or a wrong owner),
 * -EFBIG (over max_bytes). *st is untouched on failure. */
int userfile__open(int dirfd, const char *path, const struct userfile_rule *rule, struct stat *st);

/* The rule for the files that name another process's code (perf maps,
 * jitdumps): owned by the process's uid (its effective uid, as
 * common/proccreds.h reads it just before the open), root-owned only when
 * it is root; at most max_bytes. */
struct userfile_rule userfile__owned_by(uid_t uid, uint64_t max_bytes);

#endif
