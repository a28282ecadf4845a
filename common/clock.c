/* Monotonic and wall clocks in nanoseconds. */
#include "config.h"

#include <time.h>

#include "common/clock.h"

static uint64_t ts_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t clock__mono_ns(void) { return ts_ns(CLOCK_MONOTONIC); }
uint64_t clock__real_ns(void) { return ts_ns(CLOCK_REALTIME); }
