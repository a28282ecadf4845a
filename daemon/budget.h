/* The CPU-budget controller: keeps the agent's own CPU use within
 * cpu_budget by changing the sampling frequency between windows (the cost
 * of sampling is roughly proportional to the sample rate). Pure arithmetic
 * on what each window cost: the caller measures and applies, so the policy
 * can be tested without sampling. Not thread-safe. */
#ifndef SMOLDER_DAEMON_BUDGET_H
#define SMOLDER_DAEMON_BUDGET_H
#include <stdint.h>

struct budget {
	unsigned configured_hz; /* what the configuration asks for */
	unsigned hz;            /* in effect: lowered while over budget */
	unsigned budget_bp;     /* hundredths of a percent of one CPU; 0 = none */
	double cost_bp;         /* smoothed cost of the windows seen */
	uint64_t windows;       /* windows seen */
};

/* Starts at the configured frequency. */
void budget__init(struct budget *b, unsigned configured_hz, unsigned budget_bp);
/* Takes the cost of a window that ended (agent CPU over its wall time) and
 * returns the frequency the next window should sample at: lower when the
 * smoothed cost is over the budget (never below 1 Hz), higher (at most
 * doubling per window, never above the configured frequency) when it is well
 * under half of it, else unchanged. The first window is not counted: it pays
 * for start-up, which no frequency can change. *used_bp (may be NULL) gets
 * the smoothed cost the decision was made on. The caller applies the new
 * frequency and then calls budget__applied(). */
unsigned budget__next_hz(struct budget *b, uint64_t cpu_ns, uint64_t wall_ns, double *used_bp);
/* The sampler now runs at hz. */
void budget__applied(struct budget *b, unsigned hz);

#endif
