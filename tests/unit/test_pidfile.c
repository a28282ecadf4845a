/* daemon/pidfile: the daemon's pid file is its own, or nothing is written. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "daemon/pidfile.h"
#include "tmpdir.h"

static char dir[64];

static void setup(void)
{
	tmpdir_make(dir, sizeof(dir), "pidfile");
}

static void teardown(void)
{
	tmpdir_remove(dir);
}

TestSuite(pidfile, .init = setup, .fini = teardown);

static const char *at(const char *name)
{
	static char buf[2][160];
	static int i;

	i = (i + 1) % 2;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

Test(pidfile, created_locked_and_removed)
{
	char got[32], want[32];
	int fd = pidfile__create(at("p.pid"));

	cr_assert_geq(fd, 0);
	snprintf(want, sizeof(want), "%ld\n", (long)getpid());
	cr_assert_gt(fileio__read_small(at("p.pid"), got, sizeof(got)), 0);
	cr_assert_str_eq(got, want);
	pidfile__remove(at("p.pid"), fd);
	cr_assert_eq(access(at("p.pid"), F_OK), -1);
}

/* A FIFO is refused without waiting for a reader; a symlink is not
 * followed. */
Test(pidfile, fifos_and_symlinks_are_refused)
{
	uint64_t t0 = clock__mono_ns();
	struct stat st;

	cr_assert_eq(mkfifo(at("fifo"), 0666), 0);
	cr_assert_eq(pidfile__create(at("fifo")), -EPERM);
	cr_assert_lt(clock__mono_ns() - t0, NS_PER_S);
	cr_assert_eq(lstat(at("fifo"), &st), 0);
	cr_assert(S_ISFIFO(st.st_mode));

	cr_assert_eq(symlink(at("target"), at("link")), 0);
	cr_assert_eq(pidfile__create(at("link")), -ELOOP);
	cr_assert_eq(access(at("target"), F_OK), -1);
}

/* Another user's file, or a second name of one, is never written: they
 * could change the pid an init script signals. */
Test(pidfile, other_users_files_and_links_are_refused)
{
	char got[32];
	int fd;

	if (geteuid() != 0)
		cr_skip_test("needs root to give a file to another user");
	fd = open(at("theirs.pid"), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "1\n", 2), 2);
	close(fd);
	cr_assert_eq(chown(at("theirs.pid"), 65534, 65534), 0);
	cr_assert_eq(pidfile__create(at("theirs.pid")), -EPERM);
	cr_assert_gt(fileio__read_small(at("theirs.pid"), got, sizeof(got)), 0);
	cr_assert_str_eq(got, "1\n");

	fd = open(at("mine"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(link(at("mine"), at("linked.pid")), 0);
	cr_assert_eq(pidfile__create(at("linked.pid")), -EPERM);
}
