/* The pid file of a detached daemon, locked for the daemon's lifetime. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/pidfile.h"

int pidfile__create(const char *path)
{
	struct stat st;
	char buf[32];
	int fd, len;

	/* O_NONBLOCK and O_NOCTTY: a FIFO or a terminal at path is opened
	 * without waiting or side effect, then refused below. */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0644);
	if (fd < 0)
		return -errno;
	/* A file someone else owns, or another name of it, would let them
	 * change the pid that init scripts signal. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		close(fd);
		return -EPERM;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)len, 0) != len) {
		int err = errno;

		close(fd);
		unlink(path);
		return -err;
	}
	return fd;
}

void pidfile__remove(const char *path, int fd)
{
	if (fd < 0)
		return;
	unlink(path);
	close(fd);
}
