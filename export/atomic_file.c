/* Atomic file replacement for dumps, reports and spool files. */
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
#ifndef NAME_MAX
#define NAME_MAX 255
#endif

#define NAME_TRIES 64

struct tmpfile {
	char name[NAME_MAX + 1];
	int dirfd;
	int fd;
};

static unsigned long counter;

int atomic_file__open_dir(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	char dir[PATH_MAX];
	int fd;

	if (!*base)
		return -EISDIR;
	if (!slash) {
		memcpy(dir, ".", 2);
	} else if (dlen == 0) {
		memcpy(dir, "/", 2);
	} else {
		if (dlen >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, path, dlen);
		dir[dlen] = '\0';
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*name = base;
	return fd;
}

/* What may be replaced: renaming over a FIFO or a device would put a
 * regular file in its place (as root, over /dev/null itself). */
static int replaceable(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return -EEXIST;
	return 0;
}

/* Creates a fresh temp file next to name. The name need not be
 * unpredictable, only unique: O_EXCL and O_NOFOLLOW make a planted file or
 * symlink an EEXIST, not a hijack. */
static int tmp_create(struct tmpfile *t, int dirfd, const char *name, mode_t mode)
{
	struct timespec ts;
	int i, n, err;

	t->dirfd = dirfd;
	t->fd = -1;
	err = replaceable(dirfd, name);
	if (err)
		return err;
	clock_gettime(CLOCK_REALTIME, &ts);
	for (i = 0; i < NAME_TRIES; i++) {
		uint64_t r = hash__mix(hash__mix((uint64_t)getpid(), (uint64_t)ts.tv_nsec ^
						 ((uint64_t)ts.tv_sec << 30)),
				       __sync_fetch_and_add(&counter, 1));

		n = snprintf(t->name, sizeof(t->name), ".%s" ATOMIC_FILE_TMP_INFIX "%012llx", name,
			     (unsigned long long)(r & 0xffffffffffffull));
		if (n < 0 || (size_t)n >= sizeof(t->name))
			return -ENAMETOOLONG;
		t->fd = openat(dirfd, t->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (t->fd >= 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* fsync, close, rename, sync the directory; consumes t->fd. On failure
 * before the rename the temp file is removed. */
static int tmp_commit(struct tmpfile *t, const char *name)
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
	if (renameat(t->dirfd, t->name, t->dirfd, name) < 0) {
		err = -errno;
		goto out_unlink;
	}
	if (fsync(t->dirfd) < 0 && errno != EINVAL && errno != ENOTSUP)
		return -errno;
	return 0;

out_unlink:
	unlinkat(t->dirfd, t->name, 0);
	return err;
}

static void tmp_abort(struct tmpfile *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	unlinkat(t->dirfd, t->name, 0);
}

int atomic_file__write_at(int dirfd, const char *name, const void *buf, size_t len, mode_t mode)
{
	struct tmpfile t;
	int err;

	err = tmp_create(&t, dirfd, name, mode);
	if (err)
		return err;
	err = fileio__write_all(t.fd, buf, len);
	if (err) {
		tmp_abort(&t);
		return err;
	}
	return tmp_commit(&t, name);
}

int atomic_file__write_with_at(int dirfd, const char *name, mode_t mode, atomic_file_fn fn, void *ctx)
{
	struct tmpfile t;
	FILE *f;
	int err, fd2;

	err = tmp_create(&t, dirfd, name, mode);
	if (err)
		return err;
	/* fclose() would close t.fd, which tmp_commit still needs for fsync:
	 * give stdio its own descriptor. */
	fd2 = fcntl(t.fd, F_DUPFD_CLOEXEC, 3);
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
	return tmp_commit(&t, name);

out_abort:
	tmp_abort(&t);
	return err;
}

int atomic_file__write(const char *path, const void *buf, size_t len, mode_t mode)
{
	const char *name;
	int dirfd = atomic_file__open_dir(path, &name), err;

	if (dirfd < 0)
		return dirfd;
	err = atomic_file__write_at(dirfd, name, buf, len, mode);
	close(dirfd);
	return err;
}

int atomic_file__write_with(const char *path, mode_t mode, atomic_file_fn fn, void *ctx)
{
	const char *name;
	int dirfd = atomic_file__open_dir(path, &name), err;

	if (dirfd < 0)
		return dirfd;
	err = atomic_file__write_with_at(dirfd, name, mode, fn, ctx);
	close(dirfd);
	return err;
}
