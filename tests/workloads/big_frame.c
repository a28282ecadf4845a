/* Workload: a thread whose stack holds, as HotSpot's C2 compiler threads'
 * does, a frame larger than the kernel's stack copy, which its code keeps
 * writing while it calls a hot leaf. At a sample in the leaf the copy
 * (16 KiB by default) ends inside that frame, and by the time the agent
 * reads the stack beyond it the bytes where the two meet have changed:
 * the seam no longer proves what lies beyond. Built with frame pointers,
 * as HotSpot is, so the kernel's frame-pointer walk taken with each sample
 * can. Every sample of the thread is
 * clone3;start_thread;worker;outer_a;outer_b;churn;leaf (or ends in churn).
 * Runs argv[1] seconds. */
#include <pthread.h>

#include "wl_time.h"

/* churn's frame: 24 KiB, more than the copy holds past the leaf's frame */
#define WORDS 3072

volatile unsigned long sink;
static double end;

unsigned long leaf(unsigned long n);
unsigned long churn(unsigned long seed);
unsigned long outer_b(unsigned long seed);
unsigned long outer_a(unsigned long seed);

WL_NOINLINE unsigned long leaf(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < 20000; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		x ^= x >> 17;
	}
	return x;
}

WL_NOINLINE unsigned long churn(unsigned long seed)
{
	volatile unsigned long frame[WORDS];
	unsigned long r = seed;
	int k;

	while (wl_now() < end) {
		/* every word of the frame, the seam's among them, changes
		 * between two calls of the leaf */
		for (k = 0; k < WORDS; k++)
			frame[k] = r + (unsigned long)k;
		r = leaf(r + frame[r % WORDS]);
	}
	return r + frame[0];
}

WL_NOINLINE unsigned long outer_b(unsigned long seed)
{
	return churn(seed * 3) + 1;
}

WL_NOINLINE unsigned long outer_a(unsigned long seed)
{
	return outer_b(seed * 5) + 1;
}

WL_NOINLINE static void *worker(void *arg)
{
	sink = outer_a((unsigned long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	end = wl_now() + wl_seconds(argc, argv, 3.0);
	if (pthread_create(&t, NULL, worker, (void *)7UL) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;
}
