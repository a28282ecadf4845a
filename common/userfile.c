/* Files of other users, opened without letting them choose what opens. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "common/userfile.h"

#ifndef O_PATH
#define O_PATH 010000000 /* Linux 2.6.39; glibc before 2.14 lacks the name */
#endif

struct userfile_rule userfile__owned_by(uid_t uid, uint64_t max_bytes)
{
	struct userfile_rule r;

	r.owner = uid;
	r.root_ok = uid == 0;
	r.max_bytes = max_bytes;
	r.follow = 0;
	return r;
}

static int acceptable(const struct stat *st, const struct userfile_rule *rule)
{
	if (!S_ISREG(st->st_mode))
		return -EPERM;
	if (rule->owner != USERFILE_ANY_OWNER && st->st_uid != rule->owner &&
	    !(rule->root_ok && st->st_uid == 0))
		return -EPERM;
	if (rule->max_bytes && (uint64_t)st->st_size > rule->max_bytes)
		return -EFBIG;
	return 0;
}

int userfile__open(int dirfd, const char *path, const struct userfile_rule *rule, struct stat *st)
{
	struct stat before, after;
	char self[64];
	int handle, fd, err;

	/* 1. a handle on the inode, opening nothing */
	handle = openat(dirfd, path, O_PATH | O_CLOEXEC | (rule->follow ? 0 : O_NOFOLLOW));
	if (handle < 0)
		return -errno;
	/* 2. what it is, before it is opened (a symlink: O_PATH|O_NOFOLLOW
	 * gives a handle on the link itself) */
	if (fstat(handle, &before) < 0) {
		err = -errno;
		goto out_handle;
	}
	if (S_ISLNK(before.st_mode)) {
		err = -ELOOP;
		goto out_handle;
	}
	err = acceptable(&before, rule);
	if (err < 0)
		goto out_handle;
	/* 3. the same inode, opened for reading */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", handle);
	fd = open(self, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out_handle;
	}
	if (fstat(fd, &after) < 0 || after.st_ino != before.st_ino || after.st_dev != before.st_dev ||
	    acceptable(&after, rule) < 0) {
		err = -EPERM;
		close(fd);
		goto out_handle;
	}
	close(handle);
	*st = after;
	return fd;

out_handle:
	close(handle);
	return err;
}
