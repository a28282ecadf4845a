/* What the agent itself costs: its CPU time and memory, read from the
 * kernel's accounting of this process (for the dump's stats, the stats line
 * and the CPU-budget controller). */
#ifndef SMOLDER_COMMON_SELFUSAGE_H
#define SMOLDER_COMMON_SELFUSAGE_H
#include <stdint.h>

/* CPU time (user + system) this process has used so far, in ns. */
uint64_t selfusage__cpu_ns(void);
/* CPU time of the calling thread so far, in ns: what the modules add up to
 * tell one-off work (loading a binary's symbols, reading a JIT map) from
 * the steady cost of sampling. A system call: for rare events only. */
uint64_t selfusage__thread_cpu_ns(void);
/* Resident set size now (VmRSS) and its peak since start (VmHWM), in
 * bytes; 0 when unknown. */
uint64_t selfusage__rss_bytes(void);
uint64_t selfusage__peak_rss_bytes(void);

#endif
