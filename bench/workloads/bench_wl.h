/* Progress protocol of the bench workloads: a counter of work done, reported
 * as "progress COUNT MONO_NS" on SIGUSR1 and once more before exiting on
 * SIGTERM/SIGINT, so the driver can measure throughput over any interval. */
#ifndef BENCH_WL_H
#define BENCH_WL_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define WL_NOINLINE __attribute__((noinline, noclone))

typedef uint64_t (*wl_count_fn)(void);

static wl_count_fn wl_count;

static uint64_t wl_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void wl_report(void)
{
	printf("progress %llu %llu\n", (unsigned long long)wl_count(),
	       (unsigned long long)wl_mono_ns());
	fflush(stdout);
}

/* The reporter thread: the only one that receives the signals (they are
 * blocked in every other thread, which inherit the mask). */
static void *wl_reporter(void *arg)
{
	sigset_t *set = (sigset_t *)arg;
	int sig;

	for (;;) {
		if (sigwait(set, &sig) != 0)
			continue;
		wl_report();
		if (sig != SIGUSR1)
			_exit(0);
	}
	return NULL;
}

/* Call first in main, before creating threads or children. Children
 * inherit the blocked mask; they are killed by their parent. */
static void wl_start_reporter(wl_count_fn fn)
{
	static sigset_t set;
	pthread_t t;

	wl_count = fn;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, wl_reporter, &set) != 0) {
		perror("pthread_create");
		exit(1);
	}
	pthread_detach(t);
	wl_report(); /* "ready" */
}

static long wl_arg(int argc, char **argv, int i, long def, long max)
{
	char *end;
	long v;

	if (argc <= i)
		return def;
	v = strtol(argv[i], &end, 10);
	if (end == argv[i] || *end != '\0' || v < 1 || v > max)
		return def;
	return v;
}

#endif
