/* A process's ids, from its /proc/PID/status, at the time of use. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/parse.h"
#include "common/proccreds.h"

#ifndef O_PATH
#define O_PATH 010000000 /* Linux 2.6.39; glibc before 2.14 lacks the name */
#endif

/* The Uid: and Gid: lines come after Name, Umask, State, Tgid, Ngid, Pid,
 * PPid and TracerPid: a few hundred bytes. The kernel builds the whole
 * file at the first read anyway; what is not needed is not copied. */
#define STATUS_HEAD 2048

int proccreds__open(int pid)
{
	char path[32];
	int fd;

	if (pid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Four decimal ids separated by tabs or spaces, up to the end of line. */
static int parse_ids(const char *s, const char *end, unsigned ids[4])
{
	size_t k;

	for (k = 0; k < 4; k++) {
		const char *d;
		uint64_t v;

		while (s < end && (*s == '\t' || *s == ' '))
			s++;
		for (d = s; d < end && *d >= '0' && *d <= '9'; d++)
			;
		if (d == s || parse__u64n(s, (size_t)(d - s), 10, &v) < 0 || v > UINT32_MAX)
			return -EINVAL;
		ids[k] = (unsigned)v;
		s = d;
	}
	while (s < end && (*s == '\t' || *s == ' '))
		s++;
	return s == end ? 0 : -EINVAL;
}

int proccreds__parse(const char *text, size_t len, struct proccreds *out)
{
	const char *s = text, *end = text + len;
	unsigned uids[4], gids[4];
	int have_uid = 0, have_gid = 0;

	while (s < end && !(have_uid && have_gid)) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));

		/* a line the read cut short is no line */
		if (!eol)
			break;
		if (!have_uid && eol - s > 4 && memcmp(s, "Uid:", 4) == 0) {
			if (parse_ids(s + 4, eol, uids) < 0)
				return -EINVAL;
			have_uid = 1;
		} else if (!have_gid && eol - s > 4 && memcmp(s, "Gid:", 4) == 0) {
			if (parse_ids(s + 4, eol, gids) < 0)
				return -EINVAL;
			have_gid = 1;
		}
		s = eol + 1;
	}
	if (!have_uid || !have_gid)
		return -EINVAL;
	out->ruid = uids[0];
	out->euid = uids[1];
	out->suid = uids[2];
	out->fsuid = uids[3];
	out->rgid = gids[0];
	out->egid = gids[1];
	out->sgid = gids[2];
	out->fsgid = gids[3];
	return 0;
}

static int read_status(int dirfd, const char *path, struct proccreds *out)
{
	char buf[STATUS_HEAD];
	ssize_t n;
	int fd;

	fd = openat(dirfd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = fileio__read_into(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return (int)n;
	/* a process reaped between the open and the read shows nothing */
	if (n == 0)
		return -ESRCH;
	return proccreds__parse(buf, (size_t)n, out);
}

int proccreds__read(int procfd, struct proccreds *out)
{
	if (procfd < 0)
		return -EBADF;
	return read_status(procfd, "status", out);
}

int proccreds__read_pid(int pid, struct proccreds *out)
{
	char path[48];

	if (pid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return read_status(AT_FDCWD, path, out);
}

int proccreds__owner_pid(int pid, uid_t *euid, gid_t *egid)
{
	char path[32];
	struct stat st;

	if (pid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st) != 0)
		return -errno;
	*euid = st.st_uid;
	*egid = st.st_gid;
	return 0;
}

uid_t proccreds__user(const struct proccreds *c)
{
	return c->euid;
}

bool proccreds__is_root(const struct proccreds *c)
{
	return c->euid == 0;
}
