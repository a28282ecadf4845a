/* Workload: 4 threads, two running worker_a -> spin_a and two worker_b -> spin_b,
 * for at least argv[1] seconds; main only waits. Each worker names itself
 * ("worker-a", "worker-b") before it spins, so a profile grouped per
 * thread has one thread per function.
 *
 * The threads end with equal CPU time, not at one wall-clock instant: on a
 * loaded machine the scheduler gives four spinning threads unequal shares of
 * the CPUs, and the tests that compare spin_a's share of the samples with
 * spin_b's (against perf, in a separate run) must see the same ~50/50 split
 * every time. So at the deadline main reads every worker's CPU clock and
 * publishes the largest as a target, and each worker spins on until its own
 * CPU time reaches it. At the end main prints each worker's CPU time
 * ("worker-a cpu_s S"): a test that finds the shares unequal can tell the
 * workload's split from the sampling's. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "wl_time.h"

#define NTHREADS 4

volatile unsigned long sink;
static double end_time;
/* CPU nanoseconds every worker must reach before it returns; 0 until main sets it. */
static unsigned long long cpu_target_ns;
/* each worker's own CPU time as it returns, by its index */
static unsigned long long spent_ns[NTHREADS];

unsigned long spin_a(unsigned long n);
unsigned long spin_b(unsigned long n);
void *worker_a(void *arg);
void *worker_b(void *arg);

WL_NOINLINE unsigned long spin_a(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1;
	return x;
}

WL_NOINLINE unsigned long spin_b(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < n; i++)
		x = (x ^ (x >> 13)) * 0x9E3779B97F4A7C15UL;
	return x;
}

static unsigned long long thread_cpu_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) != 0)
		return 0;
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* True once the deadline has passed and this thread has had its share of CPU. */
static int worker_done(void)
{
	unsigned long long target;

	if (wl_now() < end_time)
		return 0;
	target = __atomic_load_n(&cpu_target_ns, __ATOMIC_ACQUIRE);
	return target > 0 && thread_cpu_ns(CLOCK_THREAD_CPUTIME_ID) >= target;
}

static void *finish(void *arg)
{
	spent_ns[(unsigned long)arg % NTHREADS] = thread_cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	return arg;
}

WL_NOINLINE void *worker_a(void *arg)
{
	pthread_setname_np(pthread_self(), "worker-a");
	while (!worker_done())
		sink += spin_a(500000);
	return finish(arg);
}

WL_NOINLINE void *worker_b(void *arg)
{
	pthread_setname_np(pthread_self(), "worker-b");
	while (!worker_done())
		sink += spin_b(500000);
	return finish(arg);
}

static void sleep_until(double when)
{
	double left;
	struct timespec ts;

	while ((left = when - wl_now()) > 0) {
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];
	unsigned long long most = 0;
	int i;

	end_time = wl_now() + wl_seconds(argc, argv, 3.0);
	for (i = 0; i < NTHREADS; i++) {
		if (pthread_create(&t[i], NULL, (i & 1) ? worker_b : worker_a, (void *)(unsigned long)i) != 0) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	}
	sleep_until(end_time);
	for (i = 0; i < NTHREADS; i++) {
		clockid_t clock;
		unsigned long long used;

		if (pthread_getcpuclockid(t[i], &clock) != 0)
			continue;
		used = thread_cpu_ns(clock);
		if (used > most)
			most = used;
	}
	/* If no clock could be read, a target of 1 ns: the workers just stop. */
	__atomic_store_n(&cpu_target_ns, most > 0 ? most : 1, __ATOMIC_RELEASE);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NTHREADS; i++)
		printf("%s cpu_s %.3f\n", (i & 1) ? "worker-b" : "worker-a", (double)spent_ns[i] / 1e9);
	return 0;
}
