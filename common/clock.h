/* The two clocks the agent reads: monotonic for intervals and deadlines,
 * real (wall) time for window boundaries and dump timestamps. */
#ifndef SMOLDER_COMMON_CLOCK_H
#define SMOLDER_COMMON_CLOCK_H
#include <stdint.h>

#define NS_PER_MS UINT64_C(1000000)
#define NS_PER_S UINT64_C(1000000000)
#define NS_PER_MIN (60 * NS_PER_S)
#define NS_PER_H (3600 * NS_PER_S)
#define NS_PER_D (86400 * NS_PER_S)

uint64_t clock__mono_ns(void);
uint64_t clock__real_ns(void);

#endif
