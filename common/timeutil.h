/* Clocks. */
#ifndef SMOLDER_COMMON_TIMEUTIL_H
#define SMOLDER_COMMON_TIMEUTIL_H
#include <stdint.h>

uint64_t time__mono_ns(void);
uint64_t time__real_ns(void);
/* CPU time (user+sys) this process has used so far, in ns. */
uint64_t time__self_cpu_ns(void);
/* Resident set size of this process in bytes (0 if unknown) and its peak. */
uint64_t time__self_rss_bytes(void);
uint64_t time__self_peak_rss_bytes(void);

#endif
