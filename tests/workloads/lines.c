/* Workload: main -> caller -> hot, hot's loop running step() inlined, for
 * --lines: each call and the loop on lines the test finds by their
 * markers (LINE_*), so that a frame's line can be checked. */
#include "wl_time.h"

volatile unsigned long sink;

unsigned long hot(unsigned long n);
unsigned long caller(unsigned long n);

static inline __attribute__((always_inline)) unsigned long step(unsigned long x)
{
	x = x * 6364136223846793005UL + 1442695040888963407UL; /* LINE_STEP */
	return x ^ (x >> 17);                                  /* LINE_STEP2 */
}

WL_NOINLINE unsigned long hot(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < n; i++)   /* LINE_LOOP */
		x = step(x);      /* LINE_CALL_STEP */
	return x;
}

/* The work after the call keeps it from becoming a tail call. */
WL_NOINLINE unsigned long caller(unsigned long n)
{
	unsigned long r = hot(n); /* LINE_CALL_HOT */

	sink += r;
	return r ^ 1;
}

int main(int argc, char **argv)
{
	double end = wl_now() + wl_seconds(argc, argv, 3.0);

	while (wl_now() < end)
		sink += caller(250000); /* LINE_CALL_CALLER */
	return 0;
}
