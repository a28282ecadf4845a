/* collector/ptree.c: members by birth, their ends and reused pids, and the
 * descendants at start read from a /proc laid out in a directory, and from
 * the real one. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "collector/ptree.h"
#include "tmpdir.h"

/* Writes the file DIR/REL (REL formatted), creating its directories. */
static void put(const char *dir, const char *text, const char *fmt, ...)
{
	char rel[256], path[512];
	va_list ap;
	size_t i;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (i = strlen(dir) + 1; path[i]; i++)
		if (path[i] == '/') {
			path[i] = '\0';
			mkdir(path, 0700);
			path[i] = '/';
		}
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* A process of the fake /proc: its stat (parent ppid) and a task entry. */
static void proc_stat(const char *dir, int pid, const char *comm, int ppid)
{
	char stat[256];

	snprintf(stat, sizeof(stat), "%d (%s) S %d %d %d 0 -1\n", pid, comm, ppid, pid, pid);
	put(dir, stat, "%d/stat", pid);
	put(dir, "", "%d/task/%d/stat", pid, pid);
}

static int alive_count(const struct ptree *t)
{
	size_t pos = 0;
	int pid, n = 0;

	while (ptree__next_alive(t, &pos, &pid))
		n++;
	return n;
}

Test(ptree, members_by_birth)
{
	struct ptree *t = ptree__new();

	cr_assert_not_null(t);
	cr_assert_eq(ptree__add(t, 0), -EINVAL);
	cr_assert_eq(ptree__add(t, 100), 0);
	cr_assert(ptree__member(t, 100, 5));
	cr_assert_not(ptree__member(t, 0, 5), "the idle task is no member");
	/* a child of a member is one, and its children too */
	cr_assert_eq(ptree__fork(t, 101, 100, 10), 1);
	cr_assert_eq(ptree__fork(t, 102, 101, 11), 1);
	cr_assert(ptree__member(t, 102, 12));
	/* another process's child is not */
	cr_assert_eq(ptree__fork(t, 200, 999, 12), 0);
	cr_assert_not(ptree__member(t, 200, 13));
	/* threads belong where their process does */
	cr_assert_eq(ptree__fork(t, 100, 100, 14), 1);
	cr_assert_eq(ptree__fork(t, 999, 999, 14), 0);
	cr_assert_eq(ptree__count(t), 3);
	cr_assert_eq(alive_count(t), 3);
	ptree__delete(t);
	ptree__delete(NULL);
}

/* A process's records up to its end are the tree's, a later process's with
 * the same pid are not; once the end is old, the pid is forgotten. */
Test(ptree, ends_and_reused_pids)
{
	struct ptree *t = ptree__new();

	cr_assert_eq(ptree__add(t, 100), 0);
	cr_assert_eq(ptree__fork(t, 101, 100, 10), 1);
	cr_assert_eq(ptree__fork(t, 102, 100, 10), 1);
	ptree__exit(t, 101, 20);
	cr_assert(ptree__member(t, 101, 19));
	cr_assert(ptree__member(t, 101, 20));
	cr_assert_not(ptree__member(t, 101, 21), "a sample after the end belongs to a reused pid");
	cr_assert_eq(alive_count(t), 2);
	/* an end inferred later does not move the real one */
	ptree__exit(t, 101, 30);
	cr_assert_not(ptree__member(t, 101, 25));
	/* ... and the real one corrects an inferred one */
	ptree__exit(t, 102, 40);
	ptree__exit(t, 102, 35);
	cr_assert_not(ptree__member(t, 102, 36));
	/* the pid reused by another process's child: no longer a member at all */
	cr_assert_eq(ptree__fork(t, 101, 999, 25), 0);
	cr_assert_not(ptree__member(t, 101, 15));
	/* reused by a member's child: a member again, alive */
	cr_assert_eq(ptree__fork(t, 102, 100, 50), 1);
	cr_assert(ptree__member(t, 102, 60));
	cr_assert_eq(alive_count(t), 2);
	/* a member whose EXIT was missed, its pid reused by an outsider */
	cr_assert_eq(ptree__fork(t, 102, 999, 70), 0);
	cr_assert_not(ptree__member(t, 102, 71));
	ptree__exit(t, 100, 80);
	cr_assert_eq(alive_count(t), 0);
	cr_assert_eq(ptree__fork(t, 103, 100, 90), 0, "a process that ended forks nothing");
	ptree__reap(t, 85, 10);
	cr_assert(ptree__member(t, 100, 80), "reaped before its grace");
	ptree__reap(t, 91, 10);
	cr_assert_not(ptree__member(t, 100, 80));
	cr_assert_eq(ptree__count(t), 0);
	ptree__delete(t);
}

/* Descendants through every thread's children file; a member named by a
 * thread id stands for its process. */
Test(ptree, descendants_from_children_files)
{
	char dir[64];
	struct ptree *t = ptree__new();

	tmpdir_make(dir, sizeof(dir), "ptree");
	put(dir, "101 102 ", "100/task/100/children");
	put(dir, "103\n", "100/task/105/children"); /* a child of another thread */
	put(dir, "Name:\tx\nTgid:\t100\nPid:\t105\n", "105/status");
	put(dir, "104 ", "101/task/101/children");
	put(dir, "", "102/task/102/children");
	put(dir, "", "103/task/103/children");
	put(dir, "", "104/task/104/children");
	put(dir, "301 ", "300/task/300/children");
	put(dir, "", "301/task/301/children");
	cr_assert_eq(ptree__add(t, 105), 0);
	cr_assert_eq(ptree__add_descendants(t, dir), 4);
	cr_assert(ptree__member(t, 100, 1));
	cr_assert_not(ptree__member(t, 105, 1), "a thread id is not a process");
	for (int pid = 101; pid <= 104; pid++)
		cr_assert(ptree__member(t, pid, 1), "pid %d", pid);
	cr_assert_not(ptree__member(t, 300, 1));
	cr_assert_not(ptree__member(t, 301, 1));
	cr_assert_eq(ptree__count(t), 5);
	ptree__delete(t);
	tmpdir_remove(dir);
}

/* Without children files: the parent in every stat, generation after
 * generation, whatever the command names hold. */
Test(ptree, descendants_from_parents)
{
	char dir[64];
	struct ptree *t = ptree__new();

	tmpdir_make(dir, sizeof(dir), "ptree");
	proc_stat(dir, 100, "root", 1);
	proc_stat(dir, 104, "grand) S 1 (x", 102); /* a name that mimics fields */
	proc_stat(dir, 102, "child", 100);
	proc_stat(dir, 103, "other", 1);
	proc_stat(dir, 105, "other's child", 103);
	proc_stat(dir, 106, "great", 104);
	put(dir, "garbage", "107/stat");
	cr_assert_eq(ptree__add(t, 100), 0);
	cr_assert_eq(ptree__add_descendants(t, dir), 3);
	cr_assert(ptree__member(t, 102, 1));
	cr_assert(ptree__member(t, 104, 1));
	cr_assert(ptree__member(t, 106, 1));
	cr_assert_not(ptree__member(t, 103, 1));
	cr_assert_not(ptree__member(t, 105, 1));
	cr_assert_not(ptree__member(t, 107, 1));
	ptree__delete(t);
	tmpdir_remove(dir);
}

/* The real /proc: this process's child and grandchild, started before. */
Test(ptree, descendants_of_this_process)
{
	struct ptree *t = ptree__new();
	int fds[2];
	pid_t child, grandchild = 0;

	cr_assert_eq(pipe(fds), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		pid_t g = fork();

		if (g == 0) {
			pause();
			_exit(0);
		}
		if (write(fds[1], &g, sizeof(g)) != (ssize_t)sizeof(g))
			_exit(1);
		pause();
		_exit(0);
	}
	cr_assert_eq(read(fds[0], &grandchild, sizeof(grandchild)), (ssize_t)sizeof(grandchild));
	cr_assert_eq(ptree__add(t, getpid()), 0);
	cr_assert_geq(ptree__add_descendants(t, "/proc"), 2);
	cr_assert(ptree__member(t, child, 1));
	cr_assert(ptree__member(t, grandchild, 1));
	kill(grandchild, SIGKILL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fds[0]);
	close(fds[1]);
	ptree__delete(t);
}
