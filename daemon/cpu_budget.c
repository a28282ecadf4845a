/* cpu_budget: the sampling frequency follows what sampling costs. */
#include "config.h"

#include "daemon/cpu_budget.h"

/* Below this cost (0.001% of a CPU) a window says nothing about the rate:
 * extrapolating from it would jump anywhere. */
#define MIN_MEASURABLE_BP 0.1

void cpu_budget__init(struct cpu_budget *b, unsigned configured_hz, unsigned budget_bp)
{
	b->configured_hz = configured_hz;
	b->hz = configured_hz;
	b->budget_bp = budget_bp;
	b->windows = 0;
}

void cpu_budget__applied(struct cpu_budget *b, unsigned hz)
{
	b->hz = hz;
}

/* Over budget: the rate that costs 90 % of it, at least 1 Hz lower. */
static unsigned lower(const struct cpu_budget *b, double used_bp)
{
	double want = (double)b->hz * ((double)b->budget_bp / used_bp) * 0.9;
	unsigned next = want < 1.0 ? 1 : (unsigned)want;

	if (next >= b->hz)
		next = b->hz > 1 ? b->hz - 1 : 1;
	return next;
}

/* Well under budget: the rate that costs 80 % of it, up to the
 * configuration's. */
static unsigned raise(const struct cpu_budget *b, double used_bp)
{
	double want;

	if (b->budget_bp == 0 || used_bp < MIN_MEASURABLE_BP)
		return b->configured_hz;
	want = (double)b->hz * ((double)b->budget_bp * 0.8 / used_bp);
	if (want >= (double)b->configured_hz)
		return b->configured_hz;
	return (unsigned)want > b->hz ? (unsigned)want : b->hz;
}

unsigned cpu_budget__next_hz(struct cpu_budget *b, uint64_t steady_cpu_ns, uint64_t wall_ns, double *used_bp)
{
	double used, budget = (double)b->budget_bp;

	if (!wall_ns)
		return b->hz;
	used = 10000.0 * (double)steady_cpu_ns / (double)wall_ns;
	if (used_bp)
		*used_bp = used;
	if (b->windows++ == 0)
		return b->hz;
	if (budget > 0 && used > budget)
		return lower(b, used);
	if (b->hz < b->configured_hz && (budget == 0 || used < budget / 2))
		return raise(b, used);
	return b->hz;
}
