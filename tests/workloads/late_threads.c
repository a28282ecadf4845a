/* Workload: for argv[1] seconds, main runs main_work for 1 ms of its own CPU,
 * then starts a thread that runs late_work for 1 ms of that thread's CPU and
 * exits (main joins it), then sleeps 0.5 to 1.5 ms; and again.
 *
 * Each thread lives less than a sampling period at -F 199 (5 ms): an event
 * that follows the thread (per-task, inherited at its creation) counts its
 * period from the thread's start and hardly ever fires, while a CPU's event
 * samples whatever runs there. Main's work is the reference: same CPU time per
 * round, so a recording that sees the threads finds about as many samples
 * in late_work as in main_work, whenever it started. The random pause keeps
 * the rounds from running in step with the sampling period. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wl_time.h"

#define SLICE_NS 1000000ull

volatile unsigned long sink;

unsigned long main_work(void);
unsigned long late_work(void);
void *late_thread(void *arg);

static unsigned long long thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static unsigned long spin(unsigned long x, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* SLICE_NS of the calling thread's CPU, by its own clock: time spent
 * preempted on a busy machine does not count. Inlined: called in tail
 * position, it would take its caller's frame. */
static inline __attribute__((always_inline)) unsigned long burn_slice(unsigned long x)
{
	unsigned long long end = thread_cpu_ns() + SLICE_NS;

	while (thread_cpu_ns() < end)
		x = spin(x, 2000);
	return x;
}

WL_NOINLINE unsigned long main_work(void)
{
	return burn_slice(1);
}

WL_NOINLINE unsigned long late_work(void)
{
	return burn_slice(3);
}

WL_NOINLINE void *late_thread(void *arg)
{
	sink += late_work();
	return arg;
}

int main(int argc, char **argv)
{
	double end = wl_now() + wl_seconds(argc, argv, 3.0);
	unsigned seed = 1;

	while (wl_now() < end) {
		struct timespec pause = { 0, 500000 + (long)(rand_r(&seed) % 1000000) };
		pthread_t t;

		sink += main_work();
		if (pthread_create(&t, NULL, late_thread, NULL) != 0) {
			fprintf(stderr, "late_threads: pthread_create failed\n");
			return 1;
		}
		pthread_join(t, NULL);
		nanosleep(&pause, NULL);
	}
	return 0;
}
