/* Workload: spawns short-lived processes at a target rate. Usage:
 *   spawner RATE SECONDS PROGRAM [ARGS...]
 * posix_spawn()s PROGRAM ARGS about RATE times a second for SECONDS, keeping at
 * most 64 children alive (reaped as they exit), and reports on stdout how many
 * it started and the rate achieved. Fails if a child fails. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#include "wl_time.h"

#define MAX_ALIVE 64

extern char **environ;

static int reap(int *alive, int block, unsigned long *failed)
{
	int status;
	pid_t p;

	while ((p = waitpid(-1, &status, block ? 0 : WNOHANG)) > 0) {
		(*alive)--;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			(*failed)++;
		block = 0;
	}
	if (p < 0 && errno != ECHILD && errno != EINTR)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	double rate, secs, t0, now;
	unsigned long started = 0, failed = 0;
	int alive = 0, err;
	struct timespec tick = { 0, 1000000 };

	if (argc < 4) {
		fprintf(stderr, "usage: spawner RATE SECONDS PROGRAM [ARGS...]\n");
		return 2;
	}
	rate = strtod(argv[1], NULL);
	secs = wl_seconds(3, argv + 1, 1.0);
	if (!(rate > 0)) {
		fprintf(stderr, "spawner: bad rate %s\n", argv[1]);
		return 2;
	}
	t0 = wl_now();
	while ((now = wl_now()) < t0 + secs) {
		while (now < t0 + secs && started < (unsigned long)((now - t0) * rate)) {
			pid_t pid;

			if (alive >= MAX_ALIVE && reap(&alive, 1, &failed) < 0)
				break;
			err = posix_spawn(&pid, argv[3], NULL, NULL, argv + 3, environ);
			if (err) {
				fprintf(stderr, "spawner: posix_spawn %s: error %d\n", argv[3], err);
				return 1;
			}
			started++;
			alive++;
			now = wl_now();
		}
		reap(&alive, 0, &failed);
		nanosleep(&tick, NULL);
	}
	while (alive > 0 && reap(&alive, 1, &failed) == 0)
		;
	now = wl_now();
	printf("spawner: %lu children in %.1f s (%.0f/s), %lu failed\n", started, now - t0,
	       started / (now - t0), failed);
	return failed ? 1 : 0;
}
