/* Workload: a process tree that changes while it is recorded. For argv[1]
 * seconds (T):
 * - a child forked at start runs early_work until T (a descendant that
 *   predates a recording attached later);
 * - main, round after round, forks a child that runs forked_work for 20 ms
 *   of CPU and exits, then forks a child that execs child_spin (next to this
 *   executable; child_hot for 30 ms), waiting for each;
 * - at T, main forks an heir that runs heir_work for 1.5 s, prints its pid,
 *   and returns without waiting for it: the tree lives on after its root. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wl_time.h"

volatile unsigned long sink;

unsigned long early_work(double until);
unsigned long forked_work(void);
unsigned long heir_work(double until);

static unsigned long spin(unsigned long x, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		x = (x ^ (x >> 11)) * 0x9E3779B97F4A7C15UL;
	return x;
}

/* Inlined: called in tail position, it would take its caller's frame. */
static inline __attribute__((always_inline)) unsigned long spin_until(unsigned long x, double until)
{
	while (wl_now() < until)
		x = spin(x, 100000);
	return x;
}

WL_NOINLINE unsigned long early_work(double until)
{
	return spin_until(5, until);
}

WL_NOINLINE unsigned long forked_work(void)
{
	clock_t end = clock() + CLOCKS_PER_SEC / 50;
	unsigned long x = 7;

	while (clock() < end)
		x = spin(x, 20000);
	return x;
}

WL_NOINLINE unsigned long heir_work(double until)
{
	return spin_until(9, until);
}

/* The path of child_spin, next to this executable. */
static int child_spin_path(char *path, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", path, size - 1);
	char *slash;

	if (n <= 0)
		return -1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) + sizeof("/child_spin") > size)
		return -1;
	memcpy(slash, "/child_spin", sizeof("/child_spin"));
	return 0;
}

static void wait_for(pid_t pid)
{
	int status;

	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
}

int main(int argc, char **argv)
{
	double end = wl_now() + wl_seconds(argc, argv, 3.0);
	struct timespec pause = { 0, 20000000 };
	char path[PATH_MAX];
	pid_t early, pid;

	if (child_spin_path(path, sizeof(path)) < 0)
		return 1;
	early = fork();
	if (early == 0) {
		sink += early_work(end);
		_exit(0);
	}
	while (wl_now() < end) {
		pid = fork();
		if (pid == 0) {
			sink += forked_work();
			_exit(0);
		}
		wait_for(pid);
		pid = fork();
		if (pid == 0) {
			execl(path, "child_spin", "0.03", (char *)NULL);
			_exit(127);
		}
		wait_for(pid);
		nanosleep(&pause, NULL);
	}
	pid = fork();
	if (pid == 0) {
		sink += heir_work(wl_now() + 1.5);
		_exit(0);
	}
	printf("%d\n", (int)pid);
	fflush(stdout);
	wait_for(early);
	return 0;
}
