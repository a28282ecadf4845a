/* Workload: a stable base of 300 recursive frames of about 240 bytes each
 * (some 70 KiB of stack: more than the default stack copy, and more frames
 * than the former default cap) under a hot leaf; runs argv[1] seconds, then
 * sleeps a second on the same stack before it exits, so that the samples of
 * its last poll interval are handled while it lives: the stack beyond the
 * copy is read from the live thread. Every sample's stack is
 * _start;...;main;base x 300;leaf. */
#include <time.h>

#include "wl_time.h"

#define DEPTH 300
#define PAD 160

volatile unsigned long sink;
static double end;

unsigned long leaf(unsigned long n);
unsigned long base(int depth, unsigned long seed);

WL_NOINLINE unsigned long leaf(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < 200000; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		x ^= x >> 17;
	}
	return x;
}

WL_NOINLINE unsigned long base(int depth, unsigned long seed)
{
	volatile unsigned char pad[PAD];
	unsigned long r = 0;

	pad[depth % PAD] = (unsigned char)seed;
	if (depth == 1) {
		/* the hot part: the base below stays as it is while it runs */
		struct timespec idle = { 1, 0 };

		while (wl_now() < end)
			r += leaf(seed + r);
		nanosleep(&idle, NULL);
	} else {
		r = base(depth - 1, seed * 31 + 7);
	}
	/* using the frame after the call keeps this from being a tail call */
	return r + pad[depth % PAD] + pad[(depth + 1) % PAD];
}

int main(int argc, char **argv)
{
	end = wl_now() + wl_seconds(argc, argv, 3.0);
	sink = base(DEPTH, 1);
	return 0;
}
