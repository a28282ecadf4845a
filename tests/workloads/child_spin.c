/* Workload: the child program of forkexec; child_hot spins for argv[1] seconds. */
#include "wl_time.h"

volatile unsigned long sink;

unsigned long child_hot(double secs);

WL_NOINLINE unsigned long child_hot(double secs)
{
	double end = wl_now() + secs;
	unsigned long x = 1, i;

	while (wl_now() < end)
		for (i = 0; i < 200000; i++)
			x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

int main(int argc, char **argv)
{
	sink += child_hot(wl_seconds(argc, argv, 0.2));
	return 0;
}
