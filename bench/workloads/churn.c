/* Bench workload: process churn. Starts argv[2] (a tiny dynamically linked
 * program) with fork+exec at argv[1] processes per second (default 200) and
 * reaps them; counts processes that ran to completion. */
#include "bench_wl.h"

#include <errno.h>
#include <sys/wait.h>

static uint64_t completed;

static uint64_t count(void)
{
	return __atomic_load_n(&completed, __ATOMIC_RELAXED);
}

static void reap(void)
{
	int status;

	while (waitpid(-1, &status, WNOHANG) > 0)
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			__atomic_fetch_add(&completed, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	long rate = wl_arg(argc, argv, 1, 200, 100000);
	const char *prog = argc > 2 ? argv[2] : "./churn_child";
	uint64_t period = 1000000000u / (uint64_t)rate;
	struct timespec next;

	wl_start_reporter(count);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		pid_t pid = fork();

		if (pid == 0) {
			sigset_t none;

			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
			execl(prog, prog, (char *)NULL);
			_exit(127);
		}
		if (pid < 0 && errno != EAGAIN) {
			perror("fork");
			return 1;
		}
		reap();
		next.tv_nsec += (long)period;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	return 0;
}
