/* Workload: time reads through the vDSO (clock_gettime), which is no file:
 * its frames must still be symbolized and unwound through to _start. */
#include <time.h>

#include "wl_time.h"

volatile long sink;

long read_clocks(int n);

WL_NOINLINE long read_clocks(int n)
{
	struct timespec ts;
	long s = 0;
	int i;

	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s += ts.tv_nsec;
	}
	return s + 1; /* work after the loop: no tail call */
}

int main(int argc, char **argv)
{
	double end = wl_now() + wl_seconds(argc, argv, 3.0);

	while (wl_now() < end)
		sink += read_clocks(1000);
	return 0;
}
