/* The spool: atomic writes, names, listing, bounds, rejection, threads. */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/clock.h"
#include "export/spool.h"
#include "tests/unit/tmpdir.h"

static char tmp[256];

static void setup(void)
{
	tmpdir_make(tmp, sizeof(tmp), "spool");
}

static void teardown(void)
{
	tmpdir_remove(tmp);
}

static void path_of(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", tmp, rel);
}

static struct spool *open_spool(const char *rel, uint64_t max_bytes, uint64_t max_age_ns)
{
	char dir[512];
	struct spool_opts o = {0};
	struct spool *s = NULL;

	path_of(dir, sizeof(dir), rel);
	o.dir = dir;
	o.max_bytes = max_bytes;
	o.max_age_ns = max_age_ns;
	cr_assert_eq(spool__open(&o, &s), 0);
	cr_assert_not_null(s);
	return s;
}

static void put(struct spool *s, uint64_t start, size_t len)
{
	char name[128], *buf = malloc(len + 1);
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (char)('a' + i % 26);
	spool__name(name, sizeof(name), start, "host");
	cr_assert_eq(spool__write(s, name, buf, len), 0, "write %s", name);
	free(buf);
}

/* Number of directory entries starting with '.' other than . and .. */
static int dot_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

TestSuite(spool, .init = setup, .fini = teardown);

Test(spool, open_creates_private_dirs)
{
	struct spool *s = open_spool("a/b/spool", 0, 0);
	const char *rels[] = {"a", "a/b", "a/b/spool", "a/b/spool/rejected"};
	char p[512];
	struct stat st;
	size_t i;

	for (i = 0; i < 4; i++) {
		path_of(p, sizeof(p), rels[i]);
		cr_assert_eq(stat(p, &st), 0, "%s", p);
		cr_assert(S_ISDIR(st.st_mode));
		cr_assert_eq(st.st_mode & 07777, 0700, "%s mode %o", rels[i], st.st_mode & 07777);
	}
	cr_assert(spool__dirfd(s) >= 0);
	cr_assert(strstr(spool__path(s), "a/b/spool"));
	spool__close(s);
	/* Reopening an existing spool works. */
	spool__close(open_spool("a/b/spool", 0, 0));
}

Test(spool, refuses_symlinked_and_shared_dirs)
{
	char real[512], link[512], ww[512];
	struct spool_opts o = {0};
	struct spool *s = NULL;

	path_of(real, sizeof(real), "real");
	path_of(link, sizeof(link), "link");
	cr_assert_eq(mkdir(real, 0700), 0);
	cr_assert_eq(symlink(real, link), 0);
	o.dir = link;
	cr_assert_eq(spool__open(&o, &s), -ELOOP);
	cr_assert_null(s);
	/* A trailing slash must not make the symlink acceptable. */
	path_of(link, sizeof(link), "link//");
	cr_assert_eq(spool__open(&o, &s), -ELOOP);
	path_of(link, sizeof(link), "link");

	path_of(ww, sizeof(ww), "ww");
	cr_assert_eq(mkdir(ww, 0700), 0);
	cr_assert_eq(chmod(ww, 0777), 0);
	o.dir = ww;
	cr_assert_eq(spool__open(&o, &s), -EPERM);
	cr_assert_eq(chmod(ww, 0770), 0);
	cr_assert_eq(spool__open(&o, &s), -EPERM);
	cr_assert_null(s);

	/* A symlink planted as rejected/ is refused too. */
	path_of(ww, sizeof(ww), "sp");
	cr_assert_eq(mkdir(ww, 0700), 0);
	path_of(link, sizeof(link), "sp/rejected");
	cr_assert_eq(symlink(real, link), 0);
	o.dir = ww;
	cr_assert_eq(spool__open(&o, &s), -ELOOP);
}

Test(spool, write_is_atomic_private_and_exact)
{
	struct spool *s = open_spool("sp", 0, 0);
	char name[128], p[512], buf[64];
	const char data[] = "\x1f\x8b some bytes\0with a nul";
	struct stat st;
	uint64_t files, bytes;
	int fd;

	spool__name(name, sizeof(name), 1763740800000000000ull, "web01");
	cr_assert_str_eq(name, "01763740800000000000-web01.json.gz");
	cr_assert_eq(spool__write(s, name, data, sizeof(data)), 0);
	path_of(p, sizeof(p), "sp/01763740800000000000-web01.json.gz");
	cr_assert_eq(lstat(p, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_mode & 07777, 0600);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	cr_assert_eq(read(fd, buf, sizeof(buf)), (ssize_t)sizeof(data));
	close(fd);
	cr_assert_eq(memcmp(buf, data, sizeof(data)), 0);
	path_of(p, sizeof(p), "sp");
	cr_assert_eq(dot_files(p), 0, "temp files left behind");
	spool__depth(s, &files, &bytes);
	cr_assert_eq(files, 1);
	cr_assert_eq(bytes, sizeof(data));
	/* Rewriting the same window replaces it, depth unchanged in files. */
	cr_assert_eq(spool__write(s, name, "xy", 2), 0);
	spool__depth(s, &files, &bytes);
	cr_assert_eq(files, 1);
	cr_assert_eq(bytes, 2);
	/* Names that would leave the directory or not be listed are refused. */
	cr_assert_eq(spool__write(s, "../escape.json.gz", "x", 1), -EINVAL);
	cr_assert_eq(spool__write(s, ".hidden", "x", 1), -EINVAL);
	cr_assert_eq(spool__write(s, "notadump", "x", 1), -EINVAL);
	spool__close(s);
}

Test(spool, names_sanitize_and_sort_by_time)
{
	char a[128], b[128], c[128], h[200];

	spool__name(a, sizeof(a), 5, "web 01/../x\n");
	cr_assert_str_eq(a, "00000000000000000005-web_01_.._x_.json.gz");
	spool__name(b, sizeof(b), 10, "zzz");
	spool__name(c, sizeof(c), 1000000000000000000ull, "aaa");
	cr_assert(strcmp(a, b) < 0 && strcmp(b, c) < 0);
	spool__name(a, sizeof(a), 0, "");
	cr_assert_str_eq(a, "00000000000000000000-unknown.json.gz");
	memset(h, 'h', 100);
	h[100] = '\0';
	spool__name(a, sizeof(a), 1, h);
	cr_assert_eq(strlen(a), 20 + 1 + 64 + strlen(".json.gz"));
	spool__name(a, sizeof(a), UINT64_MAX, "x");
	cr_assert_str_eq(a, "18446744073709551615-x.json.gz");
}

/* A window's other events: "<start>-<host>.<event>.json.gz", sorting
 * beside the first event's, a spool name however long the host. */
Test(spool, event_names_are_dump_names)
{
	struct spool *s = open_spool("sp", 0, 0);
	char a[160], b[160], h[200];

	spool__name_event(a, sizeof(a), 7, "web01", NULL);
	cr_assert_str_eq(a, "00000000000000000007-web01.json.gz");
	spool__name_event(b, sizeof(b), 7, "web01", "off-cpu");
	cr_assert_str_eq(b, "00000000000000000007-web01.off-cpu.json.gz");
	cr_assert_eq(spool__write(s, b, "x", 1), 0);
	memset(h, 'h', 100);
	h[100] = '\0';
	spool__name_event(b, sizeof(b), 8, h, "off-cpu");
	cr_assert_eq(strlen(b), 20 + 1 + 64 + strlen(".json.gz"), "%s", b);
	cr_assert(strstr(b, "h.off-cpu.json.gz"), "%s", b);
	cr_assert_eq(spool__write(s, b, "x", 1), 0, "a long host's name is still a spool name");
	spool__close(s);
}

Test(spool, list_skips_everything_but_dumps)
{
	struct spool *s = open_spool("sp", 0, 0);
	char p[512], **names = NULL;
	size_t n = 0;
	int fd;

	put(s, 30, 10);
	put(s, 10, 10);
	put(s, 20, 10);
	path_of(p, sizeof(p), "sp/.00000000000000000001-host.json.gz");
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(fd);
	path_of(p, sizeof(p), "sp/garbage.txt");
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(fd);
	path_of(p, sizeof(p), "sp/00000000000000000002-host.json");
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(fd);
	path_of(p, sizeof(p), "sp/0000000000000000003-host.json.gz"); /* 19 digits */
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(fd);
	path_of(p, sizeof(p), "sp/00000000000000000004-host.json.gz");
	cr_assert_eq(mkdir(p, 0700), 0);
	path_of(p, sizeof(p), "sp/00000000000000000005-host.json.gz");
	cr_assert_eq(symlink("/etc/passwd", p), 0);
	path_of(p, sizeof(p), "sp/rejected/00000000000000000006-host.json.gz");
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(fd);

	cr_assert_eq(spool__list(s, &names, &n), 0);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(names[0], "00000000000000000010-host.json.gz");
	cr_assert_str_eq(names[1], "00000000000000000020-host.json.gz");
	cr_assert_str_eq(names[2], "00000000000000000030-host.json.gz");
	spool__free_list(names, n);
	spool__free_list(NULL, 0);
	spool__close(s);
	spool__close(NULL);
}

Test(spool, open_removes_stale_temp_files)
{
	char p[512], q[512];
	struct spool *s = open_spool("sp", 0, 0);
	int fd;

	spool__close(s);
	/* Left by a kill -9 in the middle of a write, a moment ago: the spool
	 * has one writer (it is locked while open), so any temp file is stale. */
	path_of(p, sizeof(p), "sp/.00000000000000000001-host.json.gz.tmp.0123456789ab");
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	cr_assert_eq(write(fd, "partial", 7), 7);
	close(fd);
	/* a dot file that is not a temp file of ours stays */
	path_of(q, sizeof(q), "sp/.keep");
	fd = open(q, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(fd);

	s = open_spool("sp", 0, 0);
	cr_assert_eq(access(p, F_OK), -1, "stale temp file survived");
	cr_assert_eq(access(q, F_OK), 0, "an unrelated dot file was removed");
	spool__close(s);
}

Test(spool, one_writer_at_a_time)
{
	struct spool *s = open_spool("sp", 0, 0), *t = NULL;
	struct spool_opts o;
	char dir[512];

	path_of(dir, sizeof(dir), "sp");
	memset(&o, 0, sizeof(o));
	o.dir = dir;
	cr_assert_eq(spool__open(&o, &t), -EBUSY, "a second writer opened a locked spool");
	cr_assert_null(t);
	spool__close(s);
	cr_assert_eq(spool__open(&o, &t), 0, "the lock is released at close");
	spool__close(t);
}

Test(spool, size_bound_drops_oldest_and_counts)
{
	struct spool *s = open_spool("sp", 300, 0);
	char **names = NULL;
	size_t n = 0;
	uint64_t files, bytes, i;

	for (i = 1; i <= 5; i++) {
		put(s, i, 100);
		spool__depth(s, &files, &bytes);
		cr_assert(bytes <= 300, "spool holds %llu bytes", (unsigned long long)bytes);
	}
	cr_assert_eq(spool__list(s, &names, &n), 0);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(names[0], "00000000000000000003-host.json.gz");
	cr_assert_str_eq(names[2], "00000000000000000005-host.json.gz");
	spool__free_list(names, n);
	spool__take_dropped(s, &files, &bytes);
	cr_assert_eq(files, 2);
	cr_assert_eq(bytes, 200);
	spool__take_dropped(s, &files, &bytes);
	cr_assert_eq(files, 0);
	cr_assert_eq(bytes, 0);
	/* A write never drops itself to make room: an older, larger file goes. */
	put(s, 6, 250);
	cr_assert_eq(spool__list(s, &names, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(names[0], "00000000000000000006-host.json.gz");
	spool__free_list(names, n);
	spool__depth(s, &files, &bytes);
	cr_assert_eq(files, 1);
	cr_assert_eq(bytes, 250);
	/* Tightening the bound applies at the next write. */
	spool__set_limits(s, 100, 0);
	put(s, 7, 50);
	spool__depth(s, &files, &bytes);
	cr_assert_eq(files, 1);
	cr_assert_eq(bytes, 50);
	spool__close(s);
}

Test(spool, age_bound_drops_old_windows)
{
	uint64_t now = clock__real_ns(), hour = 3600ull * 1000000000ull, files, bytes;
	struct spool *s = open_spool("sp", 0, hour);
	char **names = NULL;
	size_t n = 0;

	put(s, now - 3 * hour, 10);
	put(s, now - 2 * hour, 10);
	put(s, now - 10 * 1000000000ull, 10);
	cr_assert_eq(spool__list(s, &names, &n), 0);
	cr_assert_eq(n, 1);
	spool__free_list(names, n);
	spool__take_dropped(s, &files, &bytes);
	cr_assert_eq(files, 2);
	cr_assert_eq(bytes, 20);
	/* Unbounded age keeps everything. */
	spool__set_limits(s, 0, 0);
	put(s, now - 5 * hour, 10);
	put(s, now, 10);
	cr_assert_eq(spool__list(s, &names, &n), 0);
	cr_assert_eq(n, 3);
	spool__free_list(names, n);
	spool__close(s);
}

Test(spool, file_alone_too_big_is_dropped)
{
	struct spool *s = open_spool("sp", 100, 0);
	char name[128], p[512], buf[200] = {0};
	uint64_t files, bytes;

	put(s, 1, 60);
	spool__name(name, sizeof(name), 2, "host");
	cr_assert_eq(spool__write(s, name, buf, sizeof(buf)), -EFBIG);
	path_of(p, sizeof(p), "sp");
	cr_assert_eq(entries(p), 2, "only rejected/ and the older dump may remain");
	spool__depth(s, &files, &bytes);
	cr_assert_eq(files, 1);
	cr_assert_eq(bytes, 60);
	spool__take_dropped(s, &files, &bytes);
	cr_assert_eq(files, 1);
	cr_assert_eq(bytes, 200);
	spool__close(s);
}

Test(spool, reject_moves_with_reason)
{
	struct spool *s = open_spool("sp", 0, 0);
	char name[128], p[512], buf[128] = {0};
	struct stat st;
	uint64_t files, bytes;
	int fd;

	put(s, 42, 10);
	spool__name(name, sizeof(name), 42, "host");
	cr_assert_eq(spool__reject(s, name, "HTTP 400: bad profile"), 0);
	path_of(p, sizeof(p), "sp/00000000000000000042-host.json.gz");
	cr_assert_eq(access(p, F_OK), -1);
	path_of(p, sizeof(p), "sp/rejected/00000000000000000042-host.json.gz");
	cr_assert_eq(stat(p, &st), 0);
	cr_assert_eq(st.st_size, 10);
	path_of(p, sizeof(p), "sp/rejected/00000000000000000042-host.json.gz.reason");
	cr_assert_eq(stat(p, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	cr_assert(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	cr_assert_str_eq(buf, "HTTP 400: bad profile\n");
	path_of(p, sizeof(p), "sp/rejected");
	cr_assert_eq(dot_files(p), 0);
	spool__depth(s, &files, &bytes);
	cr_assert_eq(files, 0);
	cr_assert_eq(bytes, 0);
	/* Rejecting a dump that is gone fails and leaves no lone reason. */
	spool__name(name, sizeof(name), 43, "host");
	cr_assert_eq(spool__reject(s, name, "x"), -ENOENT);
	path_of(p, sizeof(p), "sp/rejected/00000000000000000043-host.json.gz.reason");
	cr_assert_eq(access(p, F_OK), -1);
	spool__close(s);
}

Test(spool, remove_and_depth)
{
	struct spool *s = open_spool("sp", 0, 0);
	char name[128];
	uint64_t files, bytes;

	put(s, 1, 10);
	put(s, 2, 20);
	spool__depth(s, &files, &bytes);
	cr_assert_eq(files, 2);
	cr_assert_eq(bytes, 30);
	spool__name(name, sizeof(name), 1, "host");
	cr_assert_eq(spool__remove(s, name), 0);
	cr_assert_eq(spool__remove(s, name), 0, "a missing file is not an error");
	cr_assert_eq(spool__remove(s, "../../etc/passwd"), -EINVAL);
	spool__depth(s, &files, &bytes);
	cr_assert_eq(files, 1);
	cr_assert_eq(bytes, 20);
	spool__close(s);
	/* Depth is known right after opening. */
	s = open_spool("sp", 0, 0);
	spool__depth(s, &files, &bytes);
	cr_assert_eq(files, 1);
	cr_assert_eq(bytes, 20);
	spool__close(s);
}

#define ITERATIONS 1000

struct race {
	struct spool *s;
	int errors;
	volatile int done;
};

static void *writer(void *arg)
{
	struct race *r = arg;
	char name[128], buf[64];
	int i;

	for (i = 1; i <= ITERATIONS; i++) {
		spool__name(name, sizeof(name), (uint64_t)i, "host");
		memset(buf, 'a' + i % 26, sizeof(buf));
		if (spool__write(r->s, name, buf, sizeof(buf)) != 0)
			r->errors++;
	}
	r->done = 1;
	return NULL;
}

Test(spool, concurrent_writer_and_consumer)
{
	struct race r = {0};
	pthread_t t;
	char **names, buf[128], p[512];
	size_t n, i;
	int removed = 0, read_errors = 0, rounds = 0;
	uint64_t files, bytes, dropped_files, dropped_bytes, t0 = clock__mono_ns();

	/* Small enough that enforcement drops files while we read them. */
	r.s = open_spool("sp", 64 * 20, 0);
	cr_assert_eq(pthread_create(&t, NULL, writer, &r), 0);
	/* Bounded by time: the fsync'ing writer may be slow. */
	while (clock__mono_ns() - t0 < 60ull * 1000000000ull) {
		int last = r.done;

		rounds++;

		cr_assert_eq(spool__list(r.s, &names, &n), 0);
		for (i = 0; i < n && i < 3; i++) {
			int fd = openat(spool__dirfd(r.s), names[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

			if (fd < 0) {
				if (errno != ENOENT)
					read_errors++;
			} else {
				ssize_t got = read(fd, buf, sizeof(buf));

				if (got != 64 || buf[0] != buf[63])
					read_errors++;
				close(fd);
			}
			if (i == 0) {
				cr_assert_eq(spool__remove(r.s, names[i]), 0);
				removed++;
			}
		}
		spool__free_list(names, n);
		if (last && n == 0)
			break;
		if (n == 0)
			usleep(100);
	}
	pthread_join(t, NULL);
	cr_assert_eq(r.errors, 0);
	cr_assert_eq(read_errors, 0, "%d partial or unreadable files", read_errors);
	cr_assert(removed > 0);
	spool__depth(r.s, &files, &bytes);
	cr_assert_eq(files, 0, "files %llu bytes %llu rounds %d", (unsigned long long)files,
		     (unsigned long long)bytes, rounds);
	cr_assert_eq(bytes, 0);
	spool__take_dropped(r.s, &dropped_files, &dropped_bytes);
	cr_assert_eq(dropped_bytes, dropped_files * 64);
	cr_assert(dropped_files <= ITERATIONS);
	path_of(p, sizeof(p), "sp");
	cr_assert_eq(dot_files(p), 0);
	spool__close(r.s);
}

/* Bytes of the dumps in dir right now (files vanishing under us count 0). */
static uint64_t dump_bytes(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* own offset, unlike dup() */
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	struct stat st;
	uint64_t total = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			total += (uint64_t)st.st_size;
	closedir(d);
	return total;
}

/* The bound holds at every instant, not only after a write returns: a
 * watcher summing the directory while dumps stream in never sees it over
 * (room is made before the rename, not after). */
Test(spool, bound_holds_while_writing)
{
	struct race r = {0};
	pthread_t t;
	uint64_t worst = 0, looks = 0, t0 = clock__mono_ns();

	r.s = open_spool("sp", 64 * 5, 0);
	cr_assert_eq(pthread_create(&t, NULL, writer, &r), 0);
	while (!r.done && clock__mono_ns() - t0 < 60ull * 1000000000ull) {
		uint64_t b = dump_bytes(spool__dirfd(r.s));

		worst = b > worst ? b : worst;
		looks++;
	}
	pthread_join(t, NULL);
	cr_assert_eq(r.errors, 0);
	cr_assert(worst <= 64 * 5, "the spool held %llu bytes (bound %d) in one of %llu looks",
		  (unsigned long long)worst, 64 * 5, (unsigned long long)looks);
	spool__close(r.s);
}

/* Bytes under rejected/: dumps and their reasons. */
static uint64_t rejected_bytes(const char *rel, size_t *nfiles)
{
	char dir[512], p[1024];
	DIR *d;
	struct dirent *de;
	uint64_t total = 0;

	path_of(dir, sizeof(dir), rel);
	d = opendir(dir);
	cr_assert_not_null(d);
	*nfiles = 0;
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		cr_assert_eq(stat(p, &st), 0);
		total += (uint64_t)st.st_size;
		(*nfiles)++;
	}
	closedir(d);
	return total;
}

/* F5: every window rejected (a rotated token) must not fill the disk:
 * rejected/ counts toward spool_max_size, holds at most a quarter of it,
 * goes first when room is needed, and its drops are counted. */
Test(spool, rejected_dumps_are_bounded)
{
	struct spool *s = open_spool("sp", 4096, 0);
	uint64_t files, bytes, i;
	size_t nrej = 0, max_rej = 0;
	char name[128];

	for (i = 1; i <= 40; i++) {
		uint64_t rej;

		put(s, i, 200);
		spool__name(name, sizeof(name), i, "host");
		cr_assert_eq(spool__reject(s, name, "HTTP 401: token rotated"), 0);
		rej = rejected_bytes("sp/rejected", &nrej);
		cr_assert(rej <= 1024, "rejected/ holds %llu bytes after %llu windows",
			  (unsigned long long)rej, (unsigned long long)i);
		if (nrej > max_rej)
			max_rej = nrej;
	}
	cr_assert_gt(max_rej, 0, "rejected dumps are kept while there is room");
	spool__take_dropped(s, &files, &bytes);
	cr_assert_gt(files, 30, "the dropped rejected dumps are counted (%llu)", (unsigned long long)files);
	spool__close(s);
}

/* ... and they age out with spool_max_age. */
Test(spool, rejected_dumps_age_out)
{
	uint64_t now = clock__real_ns(), hour = 3600ull * 1000000000ull;
	struct spool *s = open_spool("sp", 0, hour);
	char name[128];
	size_t nrej;

	put(s, now - 2 * hour, 100);
	spool__name(name, sizeof(name), now - 2 * hour, "host");
	cr_assert_eq(spool__reject(s, name, "HTTP 400"), 0);
	cr_assert_eq(rejected_bytes("sp/rejected", &nrej), 0, "a rejected dump past the age goes");
	put(s, now, 100);
	spool__name(name, sizeof(name), now, "host");
	cr_assert_eq(spool__reject(s, name, "HTTP 400"), 0);
	cr_assert_gt(rejected_bytes("sp/rejected", &nrej), 100);
	cr_assert_eq(nrej, 2, "a recent one stays, with its reason");
	spool__close(s);
}
