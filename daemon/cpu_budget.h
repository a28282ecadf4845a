/* The CPU-budget controller: keeps the agent's steady CPU use within
 * cpu_budget by changing the sampling frequency between windows (the
 * steady cost of sampling is roughly proportional to the sample rate).
 * One-off work (loading a new binary's debug data, reading a process or a
 * JIT map for the first time) is left out of the cost it is given: a
 * burst of it must not starve sampling for minutes, which a smoothed cost
 * including it did (a user could blind the profiler by loading a library
 * with heavy debug info every couple of minutes). Each decision takes the
 * last window's cost alone, so the rate recovers in the next window. Pure
 * arithmetic: the caller measures and applies, so the policy is tested
 * without sampling. Not thread-safe. */
#ifndef SMOLDER_DAEMON_CPU_BUDGET_H
#define SMOLDER_DAEMON_CPU_BUDGET_H
#include <stdint.h>

struct cpu_budget {
	unsigned configured_hz; /* what the configuration asks for */
	unsigned hz;            /* in effect: lowered while over budget */
	unsigned budget_bp;     /* hundredths of a percent of one CPU; 0 = none */
	uint64_t windows;       /* windows seen */
};

/* Starts at the configured frequency. */
void cpu_budget__init(struct cpu_budget *b, unsigned configured_hz, unsigned budget_bp);
/* Takes the steady cost of a window that ended (agent CPU minus one-off
 * work, over the window's wall time) and returns the frequency the next
 * window should sample at: when over the budget, the rate that would have
 * cost 90% of it (never below 1 Hz, always lower); when under half of it
 * while lowered, the rate that would cost 80% of it, up to the configured
 * one; else unchanged. The first window is not counted: it pays for the
 * first touch of everything. *used_bp (may be NULL) gets the cost the
 * decision was made on. The caller applies the new frequency and then
 * calls cpu_budget__applied(). */
unsigned cpu_budget__next_hz(struct cpu_budget *b, uint64_t steady_cpu_ns, uint64_t wall_ns, double *used_bp);
/* The sampler now runs at hz. */
void cpu_budget__applied(struct cpu_budget *b, unsigned hz);

#endif
