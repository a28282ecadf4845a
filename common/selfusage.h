/* What the agent itself costs: its CPU time and memory, read from the
 * kernel's accounting of this process (for the dump's stats, the stats line
 * and the CPU-budget controller). */
#ifndef SMOLDER_COMMON_SELFUSAGE_H
#define SMOLDER_COMMON_SELFUSAGE_H
#include <stdint.h>

/* CPU time (user + system) this process has used so far, in ns. */
uint64_t selfusage__cpu_ns(void);
/* Resident set size now (VmRSS) and its peak since start (VmHWM), in
 * bytes; 0 when unknown. */
uint64_t selfusage__rss_bytes(void);
uint64_t selfusage__peak_rss_bytes(void);

#endif
