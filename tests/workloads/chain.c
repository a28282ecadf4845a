/* Workload: main -> a -> b -> c, hot in c. Known call chain for unwinding tests. */
#include <stdio.h>
#include <sys/resource.h>

#include "wl_time.h"

volatile unsigned long sink;

unsigned long a(unsigned long n);
unsigned long b(unsigned long n);
unsigned long c(unsigned long n);

WL_NOINLINE unsigned long c(unsigned long n)
{
	unsigned long x = n;
	unsigned long i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		x ^= x >> 17;
	}
	return x;
}

/* The work after each call keeps it from becoming a tail call. */
WL_NOINLINE unsigned long b(unsigned long n)
{
	unsigned long r = c(n);

	sink += r;
	return r ^ 1;
}

WL_NOINLINE unsigned long a(unsigned long n)
{
	unsigned long r = 0;
	int i;

	for (i = 0; i < 4; i++)
		r += b(n);
	sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	double secs = wl_seconds(argc, argv, 3.0);
	double end = wl_now() + secs;

	while (wl_now() < end)
		sink += a(250000);
	/* CPU time consumed, so tests can compare the sample count with it. */
	{
		struct rusage ru;

		if (getrusage(RUSAGE_SELF, &ru) == 0)
			fprintf(stderr, "chain: cpu %.3f s\n",
				ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	}
	return 0;
}
