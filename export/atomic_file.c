/* Atomic file replacement for dumps and spool files. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/hash.h"
#include "export/atomic_file.h"

#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define NAME_TRIES 64

struct tmpfile {
	char path[PATH_MAX];
	char dir[PATH_MAX];
	int fd;
};

static unsigned long counter;

/* Splits path into its directory ("." when none) and creates a fresh temp
 * file next to it. The name need not be unpredictable, only unique: O_EXCL
 * and O_NOFOLLOW make a planted file or symlink an EEXIST, not a hijack. */
static int tmp_create(struct tmpfile *t, const char *path, mode_t mode)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	struct timespec ts;
	int i, n;

	t->fd = -1;
	if (!*base)
		return -EISDIR;
	if (!slash) {
		memcpy(t->dir, ".", 2);
	} else if (dlen == 0) {
		memcpy(t->dir, "/", 2);
	} else {
		if (dlen >= sizeof(t->dir))
			return -ENAMETOOLONG;
		memcpy(t->dir, path, dlen);
		t->dir[dlen] = '\0';
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	for (i = 0; i < NAME_TRIES; i++) {
		uint64_t r = hash__mix(hash__mix((uint64_t)getpid(), (uint64_t)ts.tv_nsec ^
						 ((uint64_t)ts.tv_sec << 30)),
				       __sync_fetch_and_add(&counter, 1));

		n = snprintf(t->path, sizeof(t->path), "%.*s.%s" ATOMIC_FILE_TMP_INFIX "%012llx",
			     (int)(slash ? dlen + 1 : 0), path, base,
			     (unsigned long long)(r & 0xffffffffffffull));
		if (n < 0 || (size_t)n >= sizeof(t->path))
			return -ENAMETOOLONG;
		t->fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (t->fd >= 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL && errno != ENOTSUP)
		err = -errno;
	close(fd);
	return err;
}

/* fsync, close, rename, sync the directory; consumes t->fd. On failure
 * before the rename the temp file is removed. */
static int tmp_commit(struct tmpfile *t, const char *path)
{
	int err = 0;

	if (fsync(t->fd) < 0)
		err = -errno;
	/* close() can report a deferred write error (NFS): it counts. */
	if (close(t->fd) < 0 && !err && errno != EINTR)
		err = -errno;
	t->fd = -1;
	if (err)
		goto out_unlink;
	if (rename(t->path, path) < 0) {
		err = -errno;
		goto out_unlink;
	}
	return fsync_dir(t->dir);

out_unlink:
	unlink(t->path);
	return err;
}

static void tmp_abort(struct tmpfile *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	unlink(t->path);
}

/* -o /dev/null, /dev/stdout, a FIFO, a terminal: written in place.
 * Renaming a temp file over them would put a regular file where the device
 * was (as root, /dev/null itself). Returns 1 when path is such a target (and
 * fills *fd), 0 for a regular file or no file (the atomic path), or -errno
 * (-EISDIR for a directory). */
static int open_special(const char *path, int *fd)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	*fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	return 1;
}

int atomic_file__write(const char *path, const void *buf, size_t len, mode_t mode)
{
	struct tmpfile *t;
	int err, fd;

	err = open_special(path, &fd);
	if (err < 0)
		return err;
	if (err == 1) {
		err = fileio__write_all(fd, buf, len);
		if (close(fd) < 0 && !err)
			err = -errno;
		return err;
	}
	t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	err = tmp_create(t, path, mode);
	if (err)
		goto out_free;
	err = fileio__write_all(t->fd, buf, len);
	if (err) {
		tmp_abort(t);
		goto out_free;
	}
	err = tmp_commit(t, path);
out_free:
	free(t);
	return err;
}

int atomic_file__write_with(const char *path, mode_t mode, atomic_file_fn fn, void *ctx)
{
	struct tmpfile *t;
	FILE *f;
	int err, fd2;

	err = open_special(path, &fd2);
	if (err < 0)
		return err;
	if (err == 1) {
		f = fdopen(fd2, "w");
		if (!f) {
			err = -errno;
			close(fd2);
			return err;
		}
		err = fn(ctx, f);
		if (fclose(f) != 0 && !err)
			err = errno ? -errno : -EIO;
		return err > 0 ? -EIO : err;
	}
	t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	err = tmp_create(t, path, mode);
	if (err)
		goto out_free;
	/* fclose() would close t->fd, which tmp_commit still needs for fsync:
	 * give stdio its own descriptor. */
	fd2 = fcntl(t->fd, F_DUPFD_CLOEXEC, 3);
	if (fd2 < 0) {
		err = -errno;
		goto out_abort;
	}
	f = fdopen(fd2, "w");
	if (!f) {
		err = -errno;
		close(fd2);
		goto out_abort;
	}
	err = fn(ctx, f);
	if (fflush(f) != 0 && !err)
		err = errno ? -errno : -EIO;
	if (ferror(f) && !err)
		err = -EIO;
	if (fclose(f) != 0 && !err)
		err = -errno;
	if (err > 0)
		err = -EIO;
	if (err)
		goto out_abort;
	err = tmp_commit(t, path);
	goto out_free;

out_abort:
	tmp_abort(t);
out_free:
	free(t);
	return err;
}
