/* The pid file of a detached daemon, locked for the daemon's lifetime. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include "daemon/pidfile.h"

int pidfile__create(const char *path)
{
	char buf[32];
	int fd, len;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
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
