/* common/userfile: what a file of another user may be before it is opened. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/userfile.h"

static char dir[] = "/tmp/smolder-userfile-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0) {
		/* best effort */
	}
}

TestSuite(userfile, .init = setup, .fini = teardown);

static const char *at(const char *name)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static void make(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static int try_open(const char *path, struct userfile_rule r)
{
	struct stat st;
	int fd = userfile__open(AT_FDCWD, path, &r, &st);

	if (fd >= 0) {
		char c;

		cr_assert_eq(read(fd, &c, 1) >= 0, 1, "readable");
		cr_assert(S_ISREG(st.st_mode));
		close(fd);
		return 0;
	}
	return fd;
}

Test(userfile, a_regular_file_of_its_owner)
{
	make("map", "1000 10 f\n");
	cr_assert_eq(try_open(at("map"), userfile__owned_by(geteuid(), 0)), 0);
	cr_assert_eq(try_open(at("map"), userfile__owned_by(geteuid(), 4)), -EFBIG, "over the cap");
}

/* root's files pass only for root: a bind mount cannot lend an owner */
Test(userfile, owners)
{
	make("map", "x\n");
	if (geteuid() != 0)
		cr_skip_test("chown needs root");
	cr_assert_eq(try_open(at("map"), userfile__owned_by(1000, 0)), -EPERM, "root's file, user 1000");
	cr_assert_eq(try_open(at("map"), userfile__owned_by(0, 0)), 0);
	cr_assert_eq(chown(at("map"), 1000, 1000), 0);
	cr_assert_eq(try_open(at("map"), userfile__owned_by(1000, 0)), 0);
	cr_assert_eq(try_open(at("map"), userfile__owned_by(1001, 0)), -EPERM);
	cr_assert_eq(try_open(at("map"), userfile__owned_by(0, 0)), -EPERM, "root reads root's only");
	{
		struct userfile_rule any = { USERFILE_ANY_OWNER, 1, 0, 0 };

		cr_assert_eq(try_open(at("map"), any), 0);
	}
}

/* A FIFO would block open(), a device's open() has side effects: neither
 * is opened at all, and the call returns at once. */
Test(userfile, never_a_fifo_a_device_a_directory_or_a_symlink, .timeout = 5)
{
	struct userfile_rule any = { USERFILE_ANY_OWNER, 1, 0, 0 };

	cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
	cr_assert_eq(try_open(at("fifo"), any), -EPERM);
	cr_assert_eq(try_open("/dev/null", any), -EPERM);
	cr_assert_eq(try_open("/dev/ptmx", any), -EPERM);
	cr_assert_eq(try_open(dir, any), -EPERM);
	make("real", "x\n");
	{
		char target[256];

		snprintf(target, sizeof(target), "%s", at("real"));
		cr_assert_eq(symlink(target, at("link")), 0);
	}
	cr_assert_eq(try_open(at("link"), any), -ELOOP);
	any.follow = 1; /* the kernel's own links */
	cr_assert_eq(try_open(at("link"), any), 0);
	cr_assert_eq(try_open(at("nothing"), any), -ENOENT);
}

/* Relative to a directory kept open: a process's root. */
Test(userfile, relative_to_a_directory)
{
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	make("map", "x\n");
	cr_assert(dfd >= 0);
	{
		struct userfile_rule r = userfile__owned_by(geteuid(), 0);
		struct stat st;
		int fd = userfile__open(dfd, "map", &r, &st);

		cr_assert(fd >= 0);
		close(fd);
	}
	close(dfd);
}
