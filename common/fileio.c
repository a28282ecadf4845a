/* The read and write loops, once. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"

/* Moves past what one write() took; 0, or its error (-EIO: no progress). */
static int advance(ssize_t w, const char **p, size_t *len)
{
	if (w < 0)
		return -errno;
	if (w == 0)
		return -EIO;
	*p += w;
	*len -= (size_t)w;
	return 0;
}

/* write() when off is NULL, pwrite() at *off otherwise. */
static int write_loop(int fd, const char *p, size_t len, uint64_t *off)
{
	while (len) {
		ssize_t w = off ? pwrite(fd, p, len, (off_t)*off) : write(fd, p, len);
		int err;

		if (w < 0 && errno == EINTR)
			continue;
		err = advance(w, &p, &len);
		if (err)
			return err;
		if (off)
			*off += (uint64_t)w;
	}
	return 0;
}

int fileio__write_all(int fd, const void *buf, size_t len)
{
	return write_loop(fd, buf, len, NULL);
}

/* poll()'s timeout until deadline_ns: -1 without one, 0 once past it. */
static int timeout_ms(uint64_t deadline_ns)
{
	uint64_t now, ms;

	if (!deadline_ns)
		return -1;
	now = clock__mono_ns();
	if (now >= deadline_ns)
		return 0;
	ms = (deadline_ns - now + NS_PER_MS - 1) / NS_PER_MS;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

int fileio__write_until(int fd, const void *buf, size_t len, uint64_t deadline_ns)
{
	const char *p = buf;
	struct stat st;
	size_t chunk = PIPE_BUF;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode))
		return write_loop(fd, p, len, NULL);
	if (fl & O_NONBLOCK)
		chunk = len;
	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		int n = poll(&pfd, 1, timeout_ms(deadline_ns));
		ssize_t w;
		int err;

		if (n < 0)
			return -errno;
		if (n == 0)
			return -ETIMEDOUT;
		/* POLLERR (no reader left) is for write() to say as EPIPE */
		w = write(fd, p, len < chunk ? len : chunk);
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		err = advance(w, &p, &len);
		if (err)
			return err;
	}
	return 0;
}

int fileio__pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	return write_loop(fd, buf, len, &off);
}

int fileio__pread_exact(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t r = pread(fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ENODATA;
		p += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int fileio__read_upto(int fd, uint64_t off, size_t max, char **out, size_t *len)
{
	/* grown as data comes: a size from fstat is only a hint, and files
	 * that lie about it (/proc) read as empty at size 0 */
	size_t cap = max < 65536 ? max : 65536, got = 0;
	char *buf = malloc(cap + 1), *nb;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (got == cap) {
			if (cap == max)
				break;
			cap = cap > max / 2 ? max : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = pread(fd, buf + got, cap - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	if (got < cap) {
		nb = realloc(buf, got + 1);
		if (nb)
			buf = nb;
	}
	*out = buf;
	*len = got;
	return 0;
}

ssize_t fileio__read_into(int fd, void *buf, size_t size)
{
	char *p = buf;
	size_t got = 0;

	while (got < size) {
		ssize_t n = read(fd, p + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

ssize_t fileio__read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if (size == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	n = fileio__read_into(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}
