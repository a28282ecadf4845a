/* Shared library loaded at run time by dlopen_main: dl_outer -> dl_hot. */
#include "wl_time.h"

volatile unsigned long dl_sink;

unsigned long dl_hot(unsigned long n);
void dl_outer(double secs);

WL_NOINLINE unsigned long dl_hot(unsigned long n)
{
	unsigned long x = n;
	unsigned long i;

	for (i = 0; i < n; i++) {
		x = x * 2862933555777941757UL + 3037000493UL;
		x ^= x >> 23;
	}
	return x;
}

WL_NOINLINE void dl_outer(double secs)
{
	double end = wl_now() + secs;

	while (wl_now() < end)
		dl_sink += dl_hot(1000000);
	dl_sink += 1;
}
