/* Workload: main starts 2 threads running worker -> w_outer -> w_spin, then
 * returns through pthread_exit while they run on for argv[1] seconds (a
 * daemon's main often does this). The process lives as long as its last
 * thread, with a zombie leader: /proc/PID/maps of the leader is then empty. */
#include <pthread.h>
#include <stdio.h>

#include "wl_time.h"

#define NTHREADS 2

volatile unsigned long sink;
static double end_time;

unsigned long w_spin(unsigned long n);
unsigned long w_outer(unsigned long n);
void *worker(void *arg);

WL_NOINLINE unsigned long w_spin(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1;
	return x;
}

WL_NOINLINE unsigned long w_outer(unsigned long n)
{
	return w_spin(n) ^ n;
}

void *worker(void *arg)
{
	(void)arg;
	while (wl_now() < end_time)
		sink += w_outer(200000);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];
	int i;

	end_time = wl_now() + wl_seconds(argc, argv, 3.0);
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0) {
			perror("pthread_create");
			return 1;
		}
	pthread_exit(NULL);
}
