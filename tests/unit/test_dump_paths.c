/* export/dump_paths: what counts as a dump in a directory, and its order. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/dump_paths.h"
#include "tests/unit/tmpdir.h"

static char dir[64];

static void setup(void)
{
	tmpdir_make(dir, sizeof(dir), "paths");
}

static void teardown(void)
{
	tmpdir_remove(dir);
}

TestSuite(dump_paths, .init = setup, .fini = teardown);

static void touch(const char *name)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
}

Test(dump_paths, names)
{
	cr_assert(dump_paths__is_dump_name("0001-h.json.gz"));
	cr_assert(dump_paths__is_dump_name("x.json"));
	cr_assert_not(dump_paths__is_dump_name(".0001-h.json.gz.tmp"));
	cr_assert_not(dump_paths__is_dump_name(".hidden.json"));
	cr_assert_not(dump_paths__is_dump_name("x.json.gz.reason"));
	cr_assert_not(dump_paths__is_dump_name(".json"));
}

/* Regular dump files directly in the directory, in name order (time order
 * for the spool); not rejected/, not temp files, not symlinks. */
Test(dump_paths, a_directory_in_name_order)
{
	struct dump_paths p = { NULL, 0, 0 };
	char sub[128], link[128], want[256];

	touch("0003-h.json.gz");
	touch("0001-h.json.gz");
	touch("0002-h.json");
	touch(".0004-h.json.gz.tmp");
	touch("notes.txt");
	snprintf(sub, sizeof(sub), "%s/rejected", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	snprintf(link, sizeof(link), "%s/0000-link.json.gz", dir);
	cr_assert_eq(symlink("/etc/passwd", link), 0);
	cr_assert_eq(dump_paths__add(&p, "first-given.json"), 0);
	cr_assert_eq(dump_paths__add_arg(&p, dir), 0);
	cr_assert_eq(p.n, 4);
	cr_assert_str_eq(p.v[0], "first-given.json", "arguments keep their order");
	snprintf(want, sizeof(want), "%s/0001-h.json.gz", dir);
	cr_assert_str_eq(p.v[1], want);
	snprintf(want, sizeof(want), "%s/0002-h.json", dir);
	cr_assert_str_eq(p.v[2], want);
	snprintf(want, sizeof(want), "%s/0003-h.json.gz", dir);
	cr_assert_str_eq(p.v[3], want);
	cr_assert_eq(dump_paths__add_arg(&p, "/nonexistent/dir"), -ENOENT);
	dump_paths__free(&p);
	cr_assert_eq(p.n, 0);
	dump_paths__free(&p);
}
