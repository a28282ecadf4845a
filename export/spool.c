/* The spool directory of finished dumps awaiting delivery (doc/decisions.md: the spool is the queue). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "common/hash.h"
#include "common/privdir.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "export/atomic_file.h"
#include "export/spool.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define HOST_MAX 64
#define DIGITS 20
#define SUFFIX ".json.gz"
#define REJECTED "rejected"
#define REASON_SUFFIX ".reason"
#define NAME_TRIES 64
/* Bound on directory entries looked at per scan: a directory flooded with
 * junk must not make every write quadratic or unbounded. */
#define SCAN_MAX 1000000
/* A temp file younger than this may belong to a live writer (another
 * process, e.g. `smolder upload` opening the spool of a running daemon):
 * only older ones are crash leftovers. */

struct spool {
	pthread_mutex_t lock; /* serialises directory changes and the counters */
	int dirfd, rejfd;
	char *path;
	uint64_t max_bytes, max_age_ns;
	uint64_t files, bytes;                 /* cached depth */
	uint64_t dropped_files, dropped_bytes; /* since the last take */
	uint64_t rng;                          /* seed, set once at open */
	unsigned long counter;                 /* temp names, atomic */
};

struct entry {
	char *name;
	uint64_t size, start_ns;
	int gone;
};

/* Parses a dump name; returns 1 and the window start when it is one. */
static int parse_name(const char *name, uint64_t *start_ns)
{
	size_t len = strlen(name), slen = sizeof(SUFFIX) - 1, hlen, i;
	uint64_t v = 0;

	if (len < DIGITS + 1 + 1 + slen)
		return 0;
	for (i = 0; i < DIGITS; i++) {
		unsigned d;

		if (name[i] < '0' || name[i] > '9')
			return 0;
		d = (unsigned)(name[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	if (name[DIGITS] != '-' || strcmp(name + len - slen, SUFFIX) != 0)
		return 0;
	hlen = len - slen - DIGITS - 1;
	if (hlen < 1 || hlen > HOST_MAX)
		return 0;
	for (i = DIGITS + 1; i < DIGITS + 1 + hlen; i++) {
		char c = name[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return 0;
	}
	if (start_ns)
		*start_ns = v;
	return 1;
}

void spool__name(char *buf, size_t size, uint64_t start_ns, const char *host)
{
	spool__name_event(buf, size, start_ns, host, NULL);
}

void spool__name_event(char *buf, size_t size, uint64_t start_ns, const char *host,
		       const char *event)
{
	char h[HOST_MAX + 1];
	size_t i, max = HOST_MAX;

	if (!host || !*host)
		host = "unknown";
	/* ".off-cpu" is part of the name's host field, within its bound */
	if (event)
		max = HOST_MAX > strlen(event) + 2 ? HOST_MAX - strlen(event) - 1 : 1;
	for (i = 0; i < max && host[i]; i++) {
		char c = host[i];

		h[i] = ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			c == '.' || c == '_' || c == '-') ? c : '_';
	}
	h[i] = '\0';
	if (size && event)
		snprintf(buf, size, "%020llu-%s.%s" SUFFIX, (unsigned long long)start_ns, h, event);
	else if (size)
		snprintf(buf, size, "%020llu-%s" SUFFIX, (unsigned long long)start_ns, h);
}

static int is_stale_tmp(const char *name)
{
	return name[0] == '.' && strstr(name, ATOMIC_FILE_TMP_INFIX) != NULL;
}

/* A name the caller hands us must stay inside the directory. */
static int valid_name(const char *name)
{
	return name && parse_name(name, NULL) && !strchr(name, '/');
}

/* Called from both threads: the seed is read-only, the counter atomic. */
static uint64_t next_rand(struct spool *s)
{
	return hash__mix(hash__mix(s->rng, __sync_fetch_and_add(&s->counter, 1)), clock__mono_ns());
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static void free_entries(struct entry *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}

/* Lists the dumps (sorted) with their sizes; with remove_tmp also removes
 * temp files (leftovers of a crash: the spool is locked by its one writer).
 * Caller holds the lock (or is open). */
static int scan_dir(struct spool *s, int dirfd, struct entry **out, size_t *nout, int remove_tmp)
{
	struct entry *e = NULL;
	size_t n = 0, cap = 0, seen = 0;
	struct dirent *de;
	DIR *d;
	int fd, err = 0;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	while (seen++ < SCAN_MAX) {
		struct stat st;
		uint64_t start;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				err = -errno;
			break;
		}
		if (de->d_name[0] == '.') {
			if (remove_tmp && is_stale_tmp(de->d_name) &&
			    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    !S_ISDIR(st.st_mode))
				unlinkat(dirfd, de->d_name, 0);
			continue;
		}
		if (!parse_name(de->d_name, &start))
			continue;
		/* Vanished meanwhile, or not a regular file: not a dump. */
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			struct entry *ne = realloc(e, ncap * sizeof(*e));

			if (!ne) {
				err = -ENOMEM;
				break;
			}
			e = ne;
			cap = ncap;
		}
		e[n].name = strdup(de->d_name);
		if (!e[n].name) {
			err = -ENOMEM;
			break;
		}
		e[n].gone = 0;
		e[n].size = (uint64_t)st.st_size;
		e[n].start_ns = start;
		n++;
	}
	closedir(d);
	if (err) {
		free_entries(e, n);
		return err;
	}
	if (n > 1)
		qsort(e, n, sizeof(*e), cmp_entry);
	*out = e;
	*nout = n;
	return 0;
}

static int scan(struct spool *s, struct entry **out, size_t *nout, int remove_tmp)
{
	return scan_dir(s, s->dirfd, out, nout, remove_tmp);
}

/* The rejected dumps, each with the size of its reason file added. */
static int scan_rejected(struct spool *s, struct entry **out, size_t *nout)
{
	size_t i;
	int err = scan_dir(s, s->rejfd, out, nout, 1);

	for (i = 0; err == 0 && i < *nout; i++) {
		char reason[NAME_MAX + 1];
		struct stat st;

		if (snprintf(reason, sizeof(reason), "%s" REASON_SUFFIX, (*out)[i].name) <
			    (int)sizeof(reason) &&
		    fstatat(s->rejfd, reason, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			(*out)[i].size += (uint64_t)st.st_size;
	}
	return err;
}

static void drop(struct spool *s, int dirfd, struct entry *e)
{
	char reason[NAME_MAX + 1];

	if (unlinkat(dirfd, e->name, 0) < 0)
		return;
	if (dirfd == s->rejfd &&
	    snprintf(reason, sizeof(reason), "%s" REASON_SUFFIX, e->name) < (int)sizeof(reason))
		unlinkat(dirfd, reason, 0);
	s->dropped_files++;
	s->dropped_bytes += e->size;
	e->gone = 1;
}

/* rejected/ is bounded like the spool, and first to go: its dumps will not
 * be delivered (a rotated token could send every window there, forever).
 * Drops what is past spool_max_age, then oldest first while rejected/ holds
 * more than a quarter of spool_max_size or than `room` bytes. Returns the
 * bytes rejected/ keeps. Lock held. */
static uint64_t trim_rejected(struct spool *s, uint64_t room)
{
	uint64_t total = 0, cap = s->max_bytes ? s->max_bytes / 4 : UINT64_MAX, now = clock__real_ns();
	struct entry *e;
	size_t n, i;

	if (cap > room)
		cap = room;
	if (scan_rejected(s, &e, &n) != 0)
		return 0;
	for (i = 0; i < n; i++)
		total += e[i].size;
	for (i = 0; i < n; i++) {
		int old = s->max_age_ns && e[i].start_ns < now && now - e[i].start_ns > s->max_age_ns;

		if (!old && total <= cap)
			continue;
		drop(s, s->rejfd, &e[i]);
		if (e[i].gone)
			total -= e[i].size;
	}
	free_entries(e, n);
	return total;
}

static void set_depth(struct spool *s, const struct entry *e, size_t n)
{
	uint64_t bytes = 0;
	size_t i;

	for (i = 0; i < n; i++)
		bytes += e[i].size;
	s->files = n;
	s->bytes = bytes;
}

int spool__open(const struct spool_opts *o, struct spool **out)
{
	struct spool *s;
	struct entry *e = NULL;
	size_t n = 0;
	int err;

	if (!o || !o->dir || !*o->dir || !out)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->dirfd = s->rejfd = -1;
	if (pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s);
		return -ENOMEM;
	}
	s->path = strdup(o->dir);
	if (!s->path) {
		err = -ENOMEM;
		goto out_free;
	}
	/* "dir/" would make O_NOFOLLOW follow a symlinked dir. */
	for (n = strlen(s->path); n > 1 && s->path[n - 1] == '/'; n--)
		s->path[n - 1] = '\0';
	s->max_bytes = o->max_bytes;
	s->max_age_ns = o->max_age_ns;
	s->rng = privdir__tmp_seed(s);
	err = privdir__mkdirs(s->path);
	if (err)
		goto out_free;
	s->dirfd = privdir__open_at(AT_FDCWD, s->path);
	if (s->dirfd < 0) {
		err = s->dirfd;
		goto out_free;
	}
	/* One writer per spool: with the directory locked for our lifetime,
	 * every temp file found is a crash's leftover, whatever its age. */
	if (flock(s->dirfd, LOCK_EX | LOCK_NB) < 0) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto out_free;
	}
	if (mkdirat(s->dirfd, REJECTED, 0700) < 0 && errno != EEXIST) {
		err = -errno;
		goto out_free;
	}
	s->rejfd = privdir__open_at(s->dirfd, REJECTED);
	if (s->rejfd < 0) {
		err = s->rejfd;
		goto out_free;
	}
	err = scan(s, &e, &n, 1);
	if (err)
		goto out_free;
	set_depth(s, e, n);
	free_entries(e, n);
	*out = s;
	return 0;

out_free:
	spool__close(s);
	return err;
}

void spool__close(struct spool *s)
{
	if (!s)
		return;
	if (s->rejfd >= 0)
		close(s->rejfd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->path);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int spool__dirfd(const struct spool *s)
{
	return s->dirfd;
}

const char *spool__path(const struct spool *s)
{
	return s->path;
}

void spool__set_limits(struct spool *s, uint64_t max_bytes, uint64_t max_age_ns)
{
	pthread_mutex_lock(&s->lock);
	s->max_bytes = max_bytes;
	s->max_age_ns = max_age_ns;
	pthread_mutex_unlock(&s->lock);
}

static int fsync_dirfd(int fd)
{
	/* Some filesystems cannot sync directories; that is not a failure. */
	if (fsync(fd) < 0 && errno != EINVAL && errno != ENOTSUP)
		return -errno;
	return 0;
}

/* Creates a fresh temp file for `name` in dirfd holding buf, fsync'd and
 * closed; its name goes to tmp. The caller renames it into place (or
 * unlinks it). */
static int write_tmp(struct spool *s, int dirfd, const char *name, const void *buf, size_t len,
		     char *tmp, size_t tmpsize)
{
	int fd = -1, i, n, err;

	for (i = 0; i < NAME_TRIES; i++) {
		n = snprintf(tmp, tmpsize, ".%s" ATOMIC_FILE_TMP_INFIX "%012llx", name,
			     (unsigned long long)(next_rand(s) & 0xffffffffffffull));
		if (n < 0 || (size_t)n >= tmpsize)
			return -ENAMETOOLONG;
		fd = openat(dirfd, tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return i == NAME_TRIES ? -EEXIST : -errno;
	err = fileio__write_all(fd, buf, len);
	if (!err && fsync(fd) < 0)
		err = -errno;
	/* close() can report a deferred write error (NFS): it counts. */
	if (close(fd) < 0 && !err && errno != EINTR)
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	return err;
}

/* Makes room for a dump of `len` bytes about to be renamed to `name`: drops
 * dumps past spool_max_age and, oldest first, as many as it takes for the
 * spool plus the newcomer to fit spool_max_size. Runs before the rename, so
 * the spool never holds more than the bound, not even for an instant (a
 * watcher sampling its size, or a disk quota, never sees it over). A file
 * already called `name` is being replaced: it neither counts nor is dropped.
 * Then refreshes the cached depth as if the rename had happened. Lock held. */
static void make_room(struct spool *s, const char *name, uint64_t len)
{
	struct entry *e;
	size_t n, i;
	uint64_t total = len, now = clock__real_ns();

	/* The scan also corrects the cached depth after outside changes. */
	if (scan(s, &e, &n, 0) != 0)
		return;
	for (i = 0; i < n; i++)
		if (strcmp(e[i].name, name) != 0)
			total += e[i].size;
	/* rejected/ counts too, and goes first */
	total += trim_rejected(s, s->max_bytes && total < s->max_bytes ? s->max_bytes - total : 0);
	for (i = 0; i < n; i++) {
		int old = s->max_age_ns && e[i].start_ns < now && now - e[i].start_ns > s->max_age_ns;
		int big = s->max_bytes && total > s->max_bytes;

		if (!old && !big)
			continue;
		if (strcmp(e[i].name, name) == 0)
			continue;
		drop(s, s->dirfd, &e[i]);
		if (e[i].gone)
			total -= e[i].size;
	}
	s->files = 1;
	s->bytes = len;
	for (i = 0; i < n; i++) {
		if (e[i].gone || strcmp(e[i].name, name) == 0)
			continue;
		s->files++;
		s->bytes += e[i].size;
	}
	free_entries(e, n);
}

/* Forgets a file leaving the spool. Lock held. */
static void account_gone(struct spool *s, uint64_t size)
{
	if (s->files)
		s->files--;
	s->bytes -= size < s->bytes ? size : s->bytes;
}

/* The spool directory was removed under us (rm -rf): every openat() in the
 * old dirfd fails with ENOENT for good. Recreates it at the configured path,
 * locks it and puts the new directory's fds in place of the old ones with
 * dup3(), so a reader using spool__dirfd() concurrently sees the old or the
 * new directory, never a closed or reused fd number. 0 when the spool was
 * recreated (the caller retries), else a negative errno. Lock held. */
static int reopen_removed(struct spool *s)
{
	struct stat st;
	int dfd = -1, rfd = -1, err;

	if (fstat(s->dirfd, &st) < 0)
		return -errno;
	if (st.st_nlink > 0)
		return -ENOENT; /* still linked: not our case */
	err = privdir__mkdirs(s->path);
	if (err)
		return err;
	dfd = privdir__open_at(AT_FDCWD, s->path);
	if (dfd < 0)
		return dfd;
	if (flock(dfd, LOCK_EX | LOCK_NB) < 0) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto out;
	}
	if (mkdirat(dfd, REJECTED, 0700) < 0 && errno != EEXIST) {
		err = -errno;
		goto out;
	}
	rfd = privdir__open_at(dfd, REJECTED);
	if (rfd < 0) {
		err = rfd;
		goto out;
	}
	if (dup3(dfd, s->dirfd, O_CLOEXEC) < 0 || dup3(rfd, s->rejfd, O_CLOEXEC) < 0) {
		err = -errno;
		goto out;
	}
	s->files = s->bytes = 0;
	err = 0;
out:
	if (rfd >= 0)
		close(rfd);
	if (dfd >= 0)
		close(dfd);
	return err;
}

void spool__make_room(struct spool *s, const char *name, size_t len)
{
	if (!valid_name(name))
		return;
	pthread_mutex_lock(&s->lock);
	if (!s->max_bytes || len <= s->max_bytes)
		make_room(s, name, len);
	pthread_mutex_unlock(&s->lock);
}

int spool__write(struct spool *s, const char *name, const void *buf, size_t len)
{
	char tmp[NAME_MAX + 1];
	int err;

	if (!valid_name(name) || (!buf && len))
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	if (s->max_bytes && len > s->max_bytes) {
		/* Keeping it would mean dropping everything else and still
		 * being over the bound: drop it instead, counted. */
		s->dropped_files++;
		s->dropped_bytes += len;
		pthread_mutex_unlock(&s->lock);
		return -EFBIG;
	}
	pthread_mutex_unlock(&s->lock);
	/* The slow part (write, fsync) runs unlocked: the uploader may list
	 * meanwhile and never sees the dot file. */
	err = write_tmp(s, s->dirfd, name, buf, len, tmp, sizeof(tmp));
	if (err == -ENOENT) {
		int rc;

		pthread_mutex_lock(&s->lock);
		rc = reopen_removed(s);
		pthread_mutex_unlock(&s->lock);
		if (rc == 0)
			err = write_tmp(s, s->dirfd, name, buf, len, tmp, sizeof(tmp));
		else if (rc != -ENOENT)
			err = rc; /* why the spool cannot be recreated */
	}
	if (err)
		return err;
	pthread_mutex_lock(&s->lock);
	/* Room is made before the rename: if the rename then failed, older
	 * dumps were dropped for nothing, but the written and fsynced temp file
	 * makes that all but impossible, and the bound is the operator's. */
	make_room(s, name, len);
	if (renameat(s->dirfd, tmp, s->dirfd, name) < 0) {
		err = -errno;
		account_gone(s, len);
		pthread_mutex_unlock(&s->lock);
		unlinkat(s->dirfd, tmp, 0);
		return err;
	}
	/* A failed directory fsync leaves the dump complete and visible (only
	 * the rename's durability across a power loss is in doubt): reporting
	 * it as a lost window would be wrong, and the next write's fsync will
	 * fail loudly if the disk is really going. */
	fsync_dirfd(s->dirfd);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

int spool__list(struct spool *s, char ***names, size_t *n)
{
	struct entry *e = NULL;
	size_t ne = 0, i;
	char **v;
	int err;

	pthread_mutex_lock(&s->lock);
	err = scan(s, &e, &ne, 0);
	if (!err)
		set_depth(s, e, ne);
	pthread_mutex_unlock(&s->lock);
	if (err)
		return err;
	v = malloc((ne ? ne : 1) * sizeof(*v));
	if (!v) {
		free_entries(e, ne);
		return -ENOMEM;
	}
	for (i = 0; i < ne; i++)
		v[i] = e[i].name; /* moves the strings */
	free(e);
	*names = v;
	*n = ne;
	return 0;
}

void spool__free_list(char **names, size_t n)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int spool__remove(struct spool *s, const char *name)
{
	struct stat st;
	int err = 0, have;

	if (!valid_name(name))
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	have = fstatat(s->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (unlinkat(s->dirfd, name, 0) < 0) {
		if (errno != ENOENT)
			err = -errno;
	} else if (have && S_ISREG(st.st_mode)) {
		account_gone(s, (uint64_t)st.st_size);
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

int spool__reject(struct spool *s, const char *name, const char *msg)
{
	char reason[NAME_MAX + 1], tmp[NAME_MAX + 1], *text;
	size_t mlen;
	struct stat st;
	int err, n, have;

	if (!valid_name(name))
		return -EINVAL;
	n = snprintf(reason, sizeof(reason), "%s" REASON_SUFFIX, name);
	if (n < 0 || (size_t)n >= sizeof(reason))
		return -ENAMETOOLONG;
	if (!msg)
		msg = "";
	mlen = strlen(msg);
	text = malloc(mlen + 2);
	if (!text)
		return -ENOMEM;
	memcpy(text, msg, mlen);
	text[mlen] = '\n';
	text[mlen + 1] = '\0';
	/* Reason first: a crash before the move leaves the dump in the spool
	 * (it is retried and rejected again), never a dump without a reason. */
	err = write_tmp(s, s->rejfd, reason, text, mlen + 1, tmp, sizeof(tmp));
	free(text);
	if (err)
		return err;
	if (renameat(s->rejfd, tmp, s->rejfd, reason) < 0) {
		err = -errno;
		unlinkat(s->rejfd, tmp, 0);
		return err;
	}
	pthread_mutex_lock(&s->lock);
	have = fstatat(s->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (renameat(s->dirfd, name, s->rejfd, name) < 0) {
		err = -errno;
		pthread_mutex_unlock(&s->lock);
		/* Dropped meanwhile: the reason must not stand alone. */
		unlinkat(s->rejfd, reason, 0);
		return err;
	}
	if (have && S_ISREG(st.st_mode))
		account_gone(s, (uint64_t)st.st_size);
	/* rejected/ within its bounds, the newcomer included */
	(void)trim_rejected(s, UINT64_MAX);
	pthread_mutex_unlock(&s->lock);
	err = fsync_dirfd(s->rejfd);
	if (!err)
		err = fsync_dirfd(s->dirfd);
	return err;
}

void spool__depth(struct spool *s, uint64_t *files, uint64_t *bytes)
{
	pthread_mutex_lock(&s->lock);
	if (files)
		*files = s->files;
	if (bytes)
		*bytes = s->bytes;
	pthread_mutex_unlock(&s->lock);
}

void spool__take_dropped(struct spool *s, uint64_t *files, uint64_t *bytes)
{
	pthread_mutex_lock(&s->lock);
	if (files)
		*files = s->dropped_files;
	if (bytes)
		*bytes = s->dropped_bytes;
	s->dropped_files = 0;
	s->dropped_bytes = 0;
	pthread_mutex_unlock(&s->lock);
}
