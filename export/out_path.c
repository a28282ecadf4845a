/* Output paths named by the invoking user, written without trusting what
 * another user may have put there. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "export/out_path.h"

#ifndef O_PATH
#define O_PATH 010000000 /* Linux 2.6.39; glibc before 2.14 lacks the name */
#endif

/* How often a FIFO without a reader is tried again. */
#define READER_RETRY_NS (20 * NS_PER_MS)

/* What is at the path: its directory, and a handle on the last component
 * that opened nothing (-1 when nothing is there). */
struct target {
	int dirfd;
	const char *name;
	int handle;
	struct stat st;
};

int out_path__is_stdout(const char *path)
{
	return strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0;
}

/* A FIFO or device is the caller's to name only when they or root own it
 * (nobody else can give an inode to root) and it has one name: a hard link
 * is how another user's, or a daemon's, would appear at a name of ours. */
static enum out_path_refusal judge(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return OUT_PATH_OK;
	if (S_ISLNK(st->st_mode))
		return OUT_PATH_SYMLINK;
	if (S_ISDIR(st->st_mode))
		return OUT_PATH_DIRECTORY;
	if (!S_ISFIFO(st->st_mode) && !S_ISCHR(st->st_mode))
		return OUT_PATH_OTHER_TYPE;
	if (st->st_uid != getuid() && st->st_uid != 0)
		return OUT_PATH_NOT_YOURS;
	if (st->st_nlink > 1)
		return OUT_PATH_LINKED;
	return OUT_PATH_OK;
}

static void release(struct target *t)
{
	if (t->handle >= 0)
		close(t->handle);
	close(t->dirfd);
}

/* Opens path's directory and looks at its last component. Returns 0, or
 * -EPERM with *why, or -errno (nothing to release then). */
static int resolve(const char *path, struct target *t, enum out_path_refusal *why)
{
	int err;

	*why = OUT_PATH_OK;
	t->handle = -1;
	t->dirfd = atomic_file__open_dir(path, &t->name);
	if (t->dirfd == -EISDIR)
		*why = OUT_PATH_DIRECTORY;
	if (t->dirfd < 0)
		return *why ? -EPERM : t->dirfd;
	/* O_PATH|O_NOFOLLOW: a handle on a symlink itself, on a FIFO without
	 * blocking, on a device without its driver's open() */
	t->handle = openat(t->dirfd, t->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (t->handle < 0 && errno == ENOENT)
		return 0;
	if (t->handle < 0 || fstat(t->handle, &t->st) < 0) {
		err = -errno;
		goto out_release;
	}
	*why = judge(&t->st);
	if (!*why)
		return 0;
	err = -EPERM;
out_release:
	release(t);
	return err;
}

int out_path__check(const char *path, enum out_path_refusal *why)
{
	struct target t;
	int err = resolve(path, &t, why);

	if (err)
		return err;
	if ((t.handle < 0 || S_ISREG(t.st.st_mode)) && faccessat(t.dirfd, ".", W_OK, 0) < 0)
		err = -errno;
	release(&t);
	return err;
}

/* The FIFO or device t judged, reopened for writing: the inode of the
 * handle, not the path again, which a rename could have changed since. */
static int open_in_place(const struct target *t, enum out_path_refusal *why)
{
	char self[64];
	struct stat st;
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", t->handle);
	fd = open(self, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_dev != t->st.st_dev || st.st_ino != t->st.st_ino) {
		close(fd);
		return -ESTALE;
	}
	*why = judge(&st);
	if (*why) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* A FIFO whose reader has not opened it yet is waited for, as any writer
 * of a FIFO does, but never inside open(): until the deadline, and a
 * signal the caller handles ends the wait (-EINTR). */
static int open_when_read(const struct target *t, uint64_t deadline_ns, enum out_path_refusal *why)
{
	for (;;) {
		struct timespec ts = { 0, (long)READER_RETRY_NS };
		int fd = open_in_place(t, why);

		if (fd != -ENXIO || !S_ISFIFO(t->st.st_mode))
			return fd;
		if (deadline_ns && clock__mono_ns() + READER_RETRY_NS > deadline_ns)
			return -ENXIO;
		if (nanosleep(&ts, NULL) < 0)
			return -errno;
	}
}

static int write_in_place(const struct target *t, const void *buf, size_t len,
			  uint64_t deadline_ns, enum out_path_refusal *why)
{
	int fd = open_when_read(t, deadline_ns, why), err;

	if (fd < 0)
		return fd;
	err = fileio__write_until(fd, buf, len, deadline_ns);
	if (close(fd) < 0 && !err && errno != EINTR)
		err = -errno;
	return err;
}

int out_path__write(const char *path, const void *buf, size_t len, mode_t mode,
		    uint64_t deadline_ns, enum out_path_refusal *why)
{
	struct target t;
	int err = resolve(path, &t, why);

	if (err)
		return err;
	if (t.handle < 0 || S_ISREG(t.st.st_mode))
		err = atomic_file__write_at(t.dirfd, t.name, buf, len, mode);
	else
		err = write_in_place(&t, buf, len, deadline_ns, why);
	release(&t);
	return err;
}

/* fn's output in memory, for a write in place that a deadline bounds. */
static int produce(atomic_file_fn fn, void *ctx, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int err;

	if (!f)
		return -errno;
	err = fn(ctx, f);
	if (fclose(f) != 0 && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err > 0 ? -EIO : err;
}

int out_path__write_with(const char *path, mode_t mode, atomic_file_fn fn, void *ctx,
			 uint64_t deadline_ns, enum out_path_refusal *why)
{
	struct target t;
	char *buf = NULL;
	size_t len = 0;
	int err = resolve(path, &t, why);

	if (err)
		return err;
	if (t.handle < 0 || S_ISREG(t.st.st_mode)) {
		err = atomic_file__write_with_at(t.dirfd, t.name, mode, fn, ctx);
	} else {
		err = produce(fn, ctx, &buf, &len);
		if (!err)
			err = write_in_place(&t, buf, len, deadline_ns, why);
		free(buf);
	}
	release(&t);
	return err;
}

const char *out_path__strerror(int rc, enum out_path_refusal why)
{
	if (rc == -EPERM && why) {
		switch (why) {
		case OUT_PATH_SYMLINK:
			return "is a symbolic link, which is never followed: name the file it points to, "
			       "or remove the link";
		case OUT_PATH_DIRECTORY:
			return "is a directory: give a file name";
		case OUT_PATH_NOT_YOURS:
			return "is a FIFO or device that belongs to another user, which is never written "
			       "(another user may have put it there): remove it or choose another name";
		case OUT_PATH_LINKED:
			return "is a FIFO or device with more than one name, which is never written (a "
			       "hard link is how another's can appear at a name of yours)";
		case OUT_PATH_OTHER_TYPE:
			return "is neither a regular file, a FIFO nor a character device: not written";
		case OUT_PATH_OK:
			break;
		}
	}
	switch (rc) {
	case -ENXIO:
		return "no process opened the FIFO for reading before the deadline (or the device is "
		       "absent): nothing written";
	case -ETIMEDOUT:
		return "its reader did not take the result before the deadline";
	case -EPIPE:
		return "its reader went away before the end";
	case -EINTR:
		return "interrupted";
	case -ESTALE:
		return "was replaced while being opened: nothing written";
	}
	return strerror(-rc);
}
