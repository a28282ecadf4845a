/* Shared helpers of the workload programs: argument parsing and a monotonic clock. */
#ifndef WL_TIME_H
#define WL_TIME_H

#include <stdlib.h>
#include <time.h>

static inline double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* argv[1] as a positive number of seconds, else the default. */
static inline double wl_seconds(int argc, char **argv, double def)
{
	char *end;
	double v;

	if (argc < 2)
		return def;
	v = strtod(argv[1], &end);
	if (end == argv[1] || *end != '\0' || !(v > 0) || v > 3600)
		return def;
	return v;
}

#define WL_NOINLINE __attribute__((noinline, noclone))

#endif
