/* export/atomic_file: files replaced whole or not at all. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <dirent.h>

#include "common/strtab.h"
#include "export/atomic_file.h"
#include "export/json_dump.h"
#include "profile/profile.h"

static char dir[64];

static void mkdir_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/smolder-test-af-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	umask(022);
}

static void rm_rf(const char *d)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	cr_assert_eq(system(cmd), 0);
}

static void mkdir_teardown(void)
{
	chmod(dir, 0700);
	rm_rf(dir);
}

static size_t count_entries(const char *d)
{
	DIR *dh = opendir(d);
	struct dirent *e;
	size_t n = 0;

	cr_assert_not_null(dh);
	while ((e = readdir(dh)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dh);
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[4096];
	size_t n;

	cr_assert_not_null(f, "open %s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

TestSuite(atomic_file, .init = mkdir_setup, .fini = mkdir_teardown);

Test(atomic_file, write_overwrite_mode)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/dump.json", dir);
	cr_assert_eq(atomic_file__write(path, "hello\n", 6, 0600), 0);
	cr_assert_str_eq(slurp(path), "hello\n");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	cr_assert_eq(atomic_file__write(path, "bye", 3, 0644), 0);
	cr_assert_str_eq(slurp(path), "bye");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
	cr_assert_eq(atomic_file__write(path, "", 0, 0600), 0);
	cr_assert_str_eq(slurp(path), "");
	cr_assert_eq(count_entries(dir), 1, "temp files left behind");
}

Test(atomic_file, relative_path)
{
	char cwd[4096];

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(atomic_file__write("rel.txt", "r", 1, 0600), 0);
	cr_assert_eq(chdir(cwd), 0);
	cr_assert_eq(count_entries(dir), 1);
}

Test(atomic_file, missing_directory)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/nope/dump.json", dir);
	cr_assert_eq(atomic_file__write(path, "x", 1, 0600), -ENOENT);
	cr_assert_eq(count_entries(dir), 0);
}

Test(atomic_file, unwritable_directory)
{
	char path[128];

	if (geteuid() == 0)
		cr_skip_test("root ignores directory permissions (rename_fails covers cleanup)");
	snprintf(path, sizeof(path), "%s/dump.json", dir);
	cr_assert_eq(chmod(dir, 0500), 0);
	cr_assert_eq(atomic_file__write(path, "x", 1, 0600), -EACCES);
	cr_assert_eq(chmod(dir, 0700), 0);
	cr_assert_eq(count_entries(dir), 0);
}

Test(atomic_file, rename_fails_leaves_nothing)
{
	char path[128], inner[160];

	/* A non-empty directory at path: the temp file is written, the rename
	 * fails, and the temp file must be gone. */
	snprintf(path, sizeof(path), "%s/target", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(inner, sizeof(inner), "%s/keep", path);
	cr_assert_eq(atomic_file__write(inner, "k", 1, 0600), 0);
	cr_assert_lt(atomic_file__write(path, "x", 1, 0600), 0);
	cr_assert_eq(count_entries(dir), 1);
	cr_assert_eq(count_entries(path), 1);
}

Test(atomic_file, symlink_target_replaced_not_followed)
{
	char path[128], other[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/link", dir);
	snprintf(other, sizeof(other), "%s/victim", dir);
	cr_assert_eq(atomic_file__write(other, "victim", 6, 0600), 0);
	cr_assert_eq(symlink(other, path), 0);
	cr_assert_eq(atomic_file__write(path, "new", 3, 0600), 0);
	cr_assert_str_eq(slurp(other), "victim");
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
}

static int write_json(void *ctx, FILE *out)
{
	return json_dump__write(ctx, NULL, out);
}

static int fail_midway(void *ctx, FILE *out)
{
	fputs("partial", out);
	return -EIO;
}

Test(atomic_file, write_with_stream)
{
	char path[128];
	struct strtab *t = strtab__new();
	struct profile *p = profile__new(t);
	char *buf = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/d.json", dir);
	cr_assert_eq(atomic_file__write_with(path, 0600, write_json, p), 0);
	cr_assert_eq(json_dump__to_buffer(p, NULL, &buf, &len), 0);
	cr_assert_str_eq(slurp(path), buf);
	/* A failing producer leaves the previous content and no temp file. */
	cr_assert_eq(atomic_file__write_with(path, 0600, fail_midway, NULL), -EIO);
	cr_assert_str_eq(slurp(path), buf);
	cr_assert_eq(count_entries(dir), 1);
	free(buf);
	profile__delete(p);
	strtab__delete(t);
}

/* A device or a FIFO at the target is never replaced: renaming over
 * /dev/null as root would put a regular file there (out_path writes them
 * in place, when they may be). */
Test(atomic_file, devices_and_fifos_are_never_replaced)
{
	char fifo[128];
	struct stat st;

	cr_assert_eq(atomic_file__write("/dev/null", "hello", 5, 0600), -EEXIST);
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode), "/dev/null is no longer a device");

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(atomic_file__write(fifo, "0123456789", 10, 0600), -EEXIST);
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
	cr_assert_eq(count_entries(dir), 1, "temp files left behind");

	cr_assert_eq(atomic_file__write("/tmp", "x", 1, 0600), -EISDIR);
	cr_assert_eq(atomic_file__write("/tmp/", "x", 1, 0600), -EISDIR);
}
