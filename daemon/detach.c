/* Detaching from the terminal for SysV init: double fork, setsid, and a
 * pipe through which the parent learns whether start-up succeeded. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/detach.h"

/* The write end of the pipe the waiting parent reads the child's verdict from. */
static int detach_fd = -1;

int detach__start(void)
{
	int p[2];
	pid_t pid;
	char ok = 0;
	int fd;

	if (pipe(p) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = errno;

		close(p[0]);
		close(p[1]);
		return -err;
	}
	if (pid > 0) {
		/* the parent: wait until the daemon is up (or failed), then leave */
		ssize_t n;

		close(p[1]);
		do
			n = read(p[0], &ok, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 && ok ? 0 : 1);
	}
	close(p[0]);
	detach_fd = p[1];
	fcntl(detach_fd, F_SETFD, FD_CLOEXEC);
	if (setsid() < 0)
		return -errno;
	/* a second fork so the daemon can never reacquire a controlling terminal */
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0)
		_exit(0);
	if (chdir("/") < 0)
		return -errno;
	umask(077);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		/* stderr stays until start-up is done, so early errors are seen */
		if (fd > 2)
			close(fd);
	}
	return 0;
}

void detach__done(int ok)
{
	char c = ok ? 1 : 0;
	int fd;

	if (detach_fd < 0)
		return;
	if (write(detach_fd, &c, 1) < 0) {
		/* the parent is gone: nothing to tell */
	}
	close(detach_fd);
	detach_fd = -1;
	if (ok) {
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
	}
}
