/* The cache directory: private, bounded in size, least recently used out. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "common/cachedir.h"
#include "common/fileio.h"
#include "common/hash.h"
#include "common/privdir.h"
#include "common/clock.h"

/* Temp files are ".tmp.<random>": invisible to lookups (names may not start
 * with '.') and removed at open once older than this (a live writer in
 * another process may still be filling a young one). */
#define TMP_PREFIX ".tmp."
#define TMP_STALE_S 600
/* Bound on directory entries looked at by a scan. */
#define SCAN_MAX 100000
#define NAME_TRIES 16

struct cachedir {
	char *path;
	int dirfd;
	uint64_t max_bytes;
	uint64_t rng;
	uint64_t counter;
};

int cachedir__name_ok(const char *name)
{
	size_t i;

	if (!name || !*name || name[0] == '.')
		return 0;
	for (i = 0; name[i]; i++) {
		char ch = name[i];

		if (i >= CACHEDIR_NAME_MAX)
			return 0;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
			return 0;
	}
	return 1;
}

/* Calls fn for each regular entry (name, stat); stops early on non-zero. */
static int scan(struct cachedir *c, int (*fn)(struct cachedir *, const char *,
					       const struct stat *, void *),
		void *ctx)
{
	struct dirent *de;
	size_t seen = 0;
	DIR *d;
	int fd, err = 0;

	fd = openat(c->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	while (!err && seen++ < SCAN_MAX && (de = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		err = fn(c, de->d_name, &st, ctx);
	}
	closedir(d);
	return err;
}

static int remove_stale_tmp(struct cachedir *c, const char *name, const struct stat *st,
			    void *ctx)
{
	time_t now = *(const time_t *)ctx;

	if (strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0 &&
	    (now - st->st_mtime > TMP_STALE_S || st->st_mtime > now + TMP_STALE_S))
		unlinkat(c->dirfd, name, 0);
	return 0;
}

int cachedir__open(const char *path, uint64_t max_bytes, struct cachedir **out)
{
	struct cachedir *c;
	time_t now = time(NULL);
	size_t n;
	int err;

	if (!path || !*path || !out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->dirfd = -1;
	c->max_bytes = max_bytes;
	c->path = strdup(path);
	if (!c->path) {
		err = -ENOMEM;
		goto out_free;
	}
	/* "dir/" would make O_NOFOLLOW follow a symlinked dir */
	for (n = strlen(c->path); n > 1 && c->path[n - 1] == '/'; n--)
		c->path[n - 1] = '\0';
	err = privdir__mkdirs(c->path);
	if (err)
		goto out_free;
	c->dirfd = privdir__open_at(AT_FDCWD, c->path);
	if (c->dirfd < 0) {
		err = c->dirfd;
		goto out_free;
	}
	c->rng = privdir__tmp_seed(c);
	scan(c, remove_stale_tmp, &now);
	*out = c;
	return 0;

out_free:
	cachedir__delete(c);
	return err;
}

void cachedir__delete(struct cachedir *c)
{
	if (!c)
		return;
	if (c->dirfd >= 0)
		close(c->dirfd);
	free(c->path);
	free(c);
}

const char *cachedir__path(const struct cachedir *c)
{
	return c->path;
}

uint64_t cachedir__max_bytes(const struct cachedir *c)
{
	return c->max_bytes;
}

int cachedir__open_file(struct cachedir *c, const char *name)
{
	struct stat st;
	int fd;

	if (!cachedir__name_ok(name))
		return -EINVAL;
	/* O_NONBLOCK: a FIFO planted under the name must not hang us */
	fd = openat(c->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -EPERM : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	/* the mtime is the LRU clock of trim: a used file is recent */
	futimens(fd, NULL);
	return fd;
}

int cachedir__create(struct cachedir *c, struct cachedir_tmp *t)
{
	int i, n, fd = -1;

	for (i = 0; i < NAME_TRIES; i++) {
		uint64_t r = hash__mix(c->rng, ++c->counter) ^ clock__mono_ns();

		n = snprintf(t->name, sizeof(t->name), TMP_PREFIX "%016llx", (unsigned long long)r);
		if (n < 0 || (size_t)n >= sizeof(t->name))
			return -ENAMETOOLONG;
		fd = openat(c->dirfd, t->name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return i == NAME_TRIES ? -EEXIST : -errno;
	/* umask may have widened nothing, but a narrower one must not leave
	 * group bits that open_file would then refuse: set exactly 0600 */
	if (fchmod(fd, 0600) < 0) {
		int err = -errno;

		close(fd);
		unlinkat(c->dirfd, t->name, 0);
		return err;
	}
	t->fd = fd;
	return 0;
}

void cachedir__abort(struct cachedir *c, struct cachedir_tmp *t)
{
	if (t->fd >= 0) {
		close(t->fd);
		unlinkat(c->dirfd, t->name, 0);
	}
	t->fd = -1;
}

int cachedir__commit(struct cachedir *c, struct cachedir_tmp *t, const char *name)
{
	int err = 0;

	if (!cachedir__name_ok(name)) {
		cachedir__abort(c, t);
		return -EINVAL;
	}
	/* A reader validates content, but after a power cut a renamed file
	 * could hold zeros; syncing first keeps that from being common. */
	if (fdatasync(t->fd) < 0 && errno != EINVAL && errno != ENOTSUP)
		err = -errno;
	if (close(t->fd) < 0 && !err && errno != EINTR)
		err = -errno;
	t->fd = -1;
	if (!err && renameat(c->dirfd, t->name, c->dirfd, name) < 0)
		err = -errno;
	if (err) {
		unlinkat(c->dirfd, t->name, 0);
		return err;
	}
	cachedir__trim(c);
	return 0;
}

int cachedir__write(struct cachedir *c, const char *name, const void *buf, size_t len)
{
	struct cachedir_tmp t = { .fd = -1 };
	int err = cachedir__create(c, &t);

	if (err)
		return err;
	err = fileio__write_all(t.fd, buf, len);
	if (err) {
		cachedir__abort(c, &t);
		return err;
	}
	return cachedir__commit(c, &t, name);
}

struct trim_entry {
	char name[CACHEDIR_NAME_MAX + 1];
	struct timespec used;
	uint64_t bytes;
};

struct trim_list {
	struct trim_entry *e;
	size_t n, cap;
	uint64_t total;
};

static int collect(struct cachedir *c, const char *name, const struct stat *st, void *ctx)
{
	struct trim_list *l = ctx;

	(void)c;
	if (!cachedir__name_ok(name))
		return 0; /* temp files and strangers are not ours to count */
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		struct trim_entry *ne = realloc(l->e, ncap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		l->e = ne;
		l->cap = ncap;
	}
	snprintf(l->e[l->n].name, sizeof(l->e[l->n].name), "%s", name);
	l->e[l->n].used = st->st_mtim;
	/* what the disk holds, not the apparent size */
	l->e[l->n].bytes = (uint64_t)st->st_blocks * 512;
	l->total += l->e[l->n].bytes;
	l->n++;
	return 0;
}

static int cmp_used(const void *a, const void *b)
{
	const struct trim_entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cachedir__trim(struct cachedir *c)
{
	struct trim_list l = { 0 };
	size_t i;
	int err, removed = 0;

	err = scan(c, collect, &l);
	if (err) {
		free(l.e);
		return err;
	}
	if (l.total > c->max_bytes) {
		qsort(l.e, l.n, sizeof(*l.e), cmp_used);
		for (i = 0; i < l.n && l.total > c->max_bytes; i++) {
			if (unlinkat(c->dirfd, l.e[i].name, 0) == 0) {
				l.total -= l.e[i].bytes;
				removed++;
			}
		}
	}
	free(l.e);
	return removed;
}
