/* collector/binary.c: a binary's name is the one the files have in our
 * view. A process in its own mount namespace can give a shared file any
 * name (a bind mount); that name is provisional, and the first process of
 * our view that maps the file renames it, for everyone. */
#define _GNU_SOURCE
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/binary.h"
#include "common/strtab.h"

#include "tmpdir.h"

static char dir[64], real_path[128], other_path[128];
static struct stat real_st;

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	cr_assert(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

/* A child that sees real_path also at other_path, in a mount namespace of
 * its own, and waits to be killed. */
static pid_t child_with_other_name(void)
{
	int ready[2];
	pid_t pid;
	char c;

	cr_assert_eq(pipe(ready), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(ready[0]);
		if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    mount(real_path, other_path, NULL, MS_BIND, NULL) != 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		cr_skip_test("cannot make a mount namespace here");
	}
	close(ready[0]);
	return pid;
}

static void setup(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root for a mount namespace");
	tmpdir_make(dir, sizeof(dir), "binnames");
	snprintf(real_path, sizeof(real_path), "%s/libreal.so", dir);
	snprintf(other_path, sizeof(other_path), "%s/chosen_by_user", dir);
	copy_file("/bin/true", real_path);
	close(open(other_path, O_WRONLY | O_CREAT, 0644)); /* the mount point */
	cr_assert_eq(stat(real_path, &real_st), 0);
}

static void teardown(void)
{
	if (dir[0])
		tmpdir_remove(dir);
}

TestSuite(binary_names, .init = setup, .fini = teardown);

Test(binary_names, another_namespaces_name_gives_way_to_ours)
{
	struct strtab *names = strtab__new();
	struct binaries *bs = binaries__new(names);
	struct binary *b, *again, *third;
	uint32_t first_frame;
	pid_t child = child_with_other_name();

	/* the user's process maps it first, by the name it chose */
	cr_assert_eq(binaries__get(bs, child, other_path, real_st.st_dev, real_st.st_ino, 0, 0, &b), 0);
	cr_assert_str_eq(binary__module(b), "chosen_by_user");
	first_frame = binary__unknown_frame(b);
	cr_assert_str_eq(strtab__str(names, first_frame), "[chosen_by_user]");

	/* then one of ours: the same file, our name for it */
	cr_assert_eq(binaries__get(bs, getpid(), real_path, real_st.st_dev, real_st.st_ino, 0, 0, &again), 0);
	cr_assert_eq(again, b);
	cr_assert_str_eq(binary__module(b), "libreal.so");
	cr_assert_str_eq(binary__path(b), real_path);
	cr_assert_str_eq(strtab__str(names, binary__unknown_frame(b)), "[libreal.so]");

	/* and the user's name never comes back */
	cr_assert_eq(binaries__get(bs, child, other_path, real_st.st_dev, real_st.st_ino, 0, 0, &third), 0);
	cr_assert_str_eq(binary__module(third), "libreal.so");

	binaries__put(bs, b, 0);
	binaries__put(bs, again, 0);
	binaries__put(bs, third, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	binaries__delete(bs);
	strtab__delete(names);
}

Test(binary_names, ours_first_stays)
{
	struct strtab *names = strtab__new();
	struct binaries *bs = binaries__new(names);
	struct binary *b, *again;
	pid_t child = child_with_other_name();

	cr_assert_eq(binaries__get(bs, getpid(), real_path, real_st.st_dev, real_st.st_ino, 0, 0, &b), 0);
	cr_assert_eq(binaries__get(bs, child, other_path, real_st.st_dev, real_st.st_ino, 0, 0, &again), 0);
	cr_assert_eq(again, b);
	cr_assert_str_eq(binary__module(b), "libreal.so");
	binaries__put(bs, b, 0);
	binaries__put(bs, again, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	binaries__delete(bs);
	strtab__delete(names);
}
