/* Detaching, pidfile and systemd readiness notification. */
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

#include "collector/daemon.h"

/* The write end of the pipe the waiting parent reads the child's verdict from. */
static int detach_fd = -1;

int daemon__detach(void)
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

void daemon__detach_done(int ok)
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

int daemon__pidfile_create(const char *path)
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

void daemon__pidfile_remove(const char *path, int fd)
{
	if (fd < 0)
		return;
	unlink(path);
	close(fd);
}

int daemon__notify(const char *state)
{
	const char *sock = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	socklen_t salen;
	size_t len;
	int fd, rc = 0;

	if (!sock || !*sock)
		return 0;
	len = strlen(sock);
	if ((sock[0] != '/' && sock[0] != '@') || len >= sizeof(sa.sun_path))
		return -EINVAL;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, sock, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract namespace */
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen) < 0)
		rc = -errno;
	close(fd);
	return rc;
}
