/* Workload: 4 threads, two running worker_a -> spin_a and two worker_b -> spin_b,
 * for argv[1] seconds; main only waits. */
#include <pthread.h>
#include <stdio.h>

#include "wl_time.h"

volatile unsigned long sink;
static double end_time;

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

WL_NOINLINE void *worker_a(void *arg)
{
	while (wl_now() < end_time)
		sink += spin_a(500000);
	return arg;
}

WL_NOINLINE void *worker_b(void *arg)
{
	while (wl_now() < end_time)
		sink += spin_b(500000);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	int i;

	end_time = wl_now() + wl_seconds(argc, argv, 3.0);
	for (i = 0; i < 4; i++) {
		if (pthread_create(&t[i], NULL, (i & 1) ? worker_b : worker_a, NULL) != 0) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
