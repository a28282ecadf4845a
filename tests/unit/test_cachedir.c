/* Unit tests: common/cachedir (private directory, atomic files, LRU bound). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/cachedir.h"

static char base[64];

static void make_base(void)
{
	snprintf(base, sizeof(base), "/tmp/smolder-cachedir-XXXXXX");
	cr_assert_not_null(mkdtemp(base));
}

static void sub(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", base, name);
}

static size_t read_all(int fd, char *buf, size_t size)
{
	ssize_t n = read(fd, buf, size);

	cr_assert_geq(n, 0);
	return (size_t)n;
}

/* Sets a file's mtime (the LRU clock) to now - age seconds. */
static void age_file(const char *dir, const char *name, int age)
{
	char p[256];
	struct timeval tv[2];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= age;
	tv[1] = tv[0];
	cr_assert_eq(utimes(p, tv), 0);
}

Test(cachedir, names)
{
	cr_assert(cachedir__name_ok("kallsyms-1.bin"));
	cr_assert(cachedir__name_ok("ab_CD.9"));
	cr_assert_not(cachedir__name_ok(""));
	cr_assert_not(cachedir__name_ok(".hidden"));
	cr_assert_not(cachedir__name_ok("a/b"));
	cr_assert_not(cachedir__name_ok(".."));
	cr_assert_not(cachedir__name_ok("a b"));
	{
		char longname[CACHEDIR_NAME_MAX + 2];

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		cr_assert_not(cachedir__name_ok(longname));
		longname[CACHEDIR_NAME_MAX] = '\0';
		cr_assert(cachedir__name_ok(longname));
	}
}

Test(cachedir, creates_private_dir_and_round_trips)
{
	struct cachedir *c = NULL;
	char dir[128], buf[64];
	struct stat st;
	int fd;

	make_base();
	sub(dir, sizeof(dir), "a/b/cache");
	cr_assert_eq(cachedir__open(dir, 1 << 20, &c), 0);
	cr_assert_eq(stat(dir, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700);
	cr_assert_eq(cachedir__open_file(c, "x"), -ENOENT);
	cr_assert_eq(cachedir__write(c, "x", "hello", 5), 0);
	fd = cachedir__open_file(c, "x");
	cr_assert_geq(fd, 0);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(read_all(fd, buf, sizeof(buf)), 5);
	cr_assert_eq(memcmp(buf, "hello", 5), 0);
	close(fd);
	/* rewriting replaces whole */
	cr_assert_eq(cachedir__write(c, "x", "hi", 2), 0);
	fd = cachedir__open_file(c, "x");
	cr_assert_eq(read_all(fd, buf, sizeof(buf)), 2);
	close(fd);
	cr_assert_eq(cachedir__write(c, "../escape", "no", 2), -EINVAL);
	cr_assert_eq(cachedir__open_file(c, "../x"), -EINVAL);
	cachedir__delete(c);
}

Test(cachedir, refuses_symlinks_and_shared_dirs)
{
	struct cachedir *c = NULL;
	char dir[128], link[128], path[160];

	make_base();
	sub(dir, sizeof(dir), "real");
	sub(link, sizeof(link), "link");
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(symlink(dir, link), 0);
	cr_assert_eq(cachedir__open(link, 1 << 20, &c), -ELOOP);
	cr_assert_null(c);
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_assert_eq(cachedir__open(dir, 1 << 20, &c), -EPERM);
	cr_assert_eq(chmod(dir, 0700), 0);
	cr_assert_eq(cachedir__open(dir, 1 << 20, &c), 0);
	/* a planted symlink, a readable-by-others file, a FIFO: not served */
	snprintf(path, sizeof(path), "%s/l", dir);
	cr_assert_eq(symlink("/etc/passwd", path), 0);
	cr_assert_eq(cachedir__open_file(c, "l"), -EPERM);
	cr_assert_eq(cachedir__write(c, "w", "1", 1), 0);
	snprintf(path, sizeof(path), "%s/w", dir);
	cr_assert_eq(chmod(path, 0644), 0);
	cr_assert_eq(cachedir__open_file(c, "w"), -EPERM);
	snprintf(path, sizeof(path), "%s/f", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(cachedir__open_file(c, "f"), -EPERM);
	cachedir__delete(c);
}

Test(cachedir, trim_drops_least_recently_used)
{
	struct cachedir *c = NULL;
	char dir[128], blob[8192];
	int fd;

	memset(blob, 'z', sizeof(blob));
	make_base();
	sub(dir, sizeof(dir), "c");
	/* room for about three 8 KiB files */
	cr_assert_eq(cachedir__open(dir, 3 * 8192 + 4096, &c), 0);
	cr_assert_eq(cachedir__write(c, "a", blob, sizeof(blob)), 0);
	cr_assert_eq(cachedir__write(c, "b", blob, sizeof(blob)), 0);
	cr_assert_eq(cachedir__write(c, "c", blob, sizeof(blob)), 0);
	age_file(dir, "a", 300);
	age_file(dir, "b", 200);
	age_file(dir, "c", 100);
	/* using a makes it the most recent: b is now the oldest */
	fd = cachedir__open_file(c, "a");
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(cachedir__write(c, "d", blob, sizeof(blob)), 0);
	cr_assert_eq(cachedir__open_file(c, "b"), -ENOENT, "the least recently used goes");
	fd = cachedir__open_file(c, "a");
	cr_assert_geq(fd, 0);
	close(fd);
	fd = cachedir__open_file(c, "d");
	cr_assert_geq(fd, 0);
	close(fd);
	cachedir__delete(c);
}

Test(cachedir, temp_files_abort_and_stale_cleanup)
{
	struct cachedir *c = NULL;
	struct cachedir_tmp t = { .fd = -1 }, young = { .fd = -1 };
	char dir[128], path[256];

	make_base();
	sub(dir, sizeof(dir), "c");
	cr_assert_eq(cachedir__open(dir, 1 << 20, &c), 0);
	cr_assert_eq(cachedir__create(c, &t), 0);
	cr_assert_eq(write(t.fd, "x", 1), 1);
	snprintf(path, sizeof(path), "%s/%s", dir, t.name);
	cr_assert_eq(access(path, F_OK), 0);
	cachedir__abort(c, &t);
	cr_assert_neq(access(path, F_OK), 0, "abort removes the temp file");
	cachedir__abort(c, &t); /* idempotent */
	/* a crashed writer's old temp file goes at the next open, a young one
	 * (maybe another process still writing) stays */
	cr_assert_eq(cachedir__create(c, &t), 0);
	close(t.fd);
	cr_assert_eq(cachedir__create(c, &young), 0);
	close(young.fd);
	age_file(dir, t.name, 3600);
	cachedir__delete(c);
	cr_assert_eq(cachedir__open(dir, 1 << 20, &c), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, t.name);
	cr_assert_neq(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, young.name);
	cr_assert_eq(access(path, F_OK), 0);
	cachedir__delete(c);
}
