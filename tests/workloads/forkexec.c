/* Workload: for argv[1] seconds, spin in parent_hot for ~100 ms, then fork and
 * exec child_spin (found next to this executable) for 0.15 s and wait for it. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl_time.h"

volatile unsigned long sink;

unsigned long parent_hot(double secs);

WL_NOINLINE unsigned long parent_hot(double secs)
{
	double end = wl_now() + secs;
	unsigned long x = 7, i;

	while (wl_now() < end)
		for (i = 0; i < 200000; i++)
			x = (x ^ (x >> 11)) * 0x9E3779B97F4A7C15UL;
	return x;
}

int main(int argc, char **argv)
{
	double end = wl_now() + wl_seconds(argc, argv, 3.0);
	char path[PATH_MAX];
	ssize_t n;
	char *slash;
	int children = 0;

	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		return 1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) + sizeof("/child_spin") > sizeof(path))
		return 1;
	memcpy(slash, "/child_spin", sizeof("/child_spin"));

	while (wl_now() < end) {
		pid_t pid;
		int status;

		sink += parent_hot(0.1);
		pid = fork();
		if (pid < 0) {
			perror("forkexec: fork");
			return 1;
		}
		if (pid == 0) {
			execl(path, "child_spin", "0.15", (char *)NULL);
			perror("forkexec: exec child_spin");
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "forkexec: child failed\n");
			return 1;
		}
		children++;
	}
	printf("forkexec: ran %d children\n", children);
	return 0;
}
