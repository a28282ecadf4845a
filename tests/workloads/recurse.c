/* Workload: recursion 5000 deep with ~512-byte frames (2.5 MB of stack, far more
 * than any stack copy), hot at the bottom; repeats for argv[1] seconds. */
#include "wl_time.h"

#define DEPTH 5000

volatile unsigned long sink;

unsigned long bottom(unsigned long n);
unsigned long rec(int depth, unsigned long seed);

WL_NOINLINE unsigned long bottom(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

WL_NOINLINE unsigned long rec(int depth, unsigned long seed)
{
	volatile unsigned char buf[512];
	unsigned long r;

	buf[depth & 511] = (unsigned char)seed;
	if (depth == 0)
		r = bottom(50000000);
	else
		r = rec(depth - 1, seed * 31 + 7);
	/* Using the frame after the call keeps this from being a tail call. */
	return r + buf[depth & 511] + buf[(depth + 1) & 511];
}

int main(int argc, char **argv)
{
	double end = wl_now() + wl_seconds(argc, argv, 3.0);

	while (wl_now() < end)
		sink += rec(DEPTH, 1);
	return 0;
}
