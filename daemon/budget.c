/* cpu_budget: the sampling frequency follows what the agent costs. */
#include "config.h"

#include "daemon/budget.h"

void budget__init(struct budget *b, unsigned configured_hz, unsigned budget_bp)
{
	b->configured_hz = configured_hz;
	b->hz = configured_hz;
	b->budget_bp = budget_bp;
	b->cost_bp = 0;
	b->windows = 0;
}

void budget__applied(struct budget *b, unsigned hz)
{
	b->hz = hz;
}

/* Over budget: scale the rate down to 90 % of what fits, by at least 1 Hz. */
static unsigned lower(const struct budget *b, double used_bp)
{
	double want = (double)b->hz * ((double)b->budget_bp / used_bp) * 0.9;
	unsigned next = want < 1.0 ? 1 : (unsigned)want;

	if (next >= b->hz)
		next = b->hz > 1 ? b->hz - 1 : 1;
	return next;
}

/* Well under budget: climb back to 80 % of it, at most doubling. */
static unsigned raise(const struct budget *b, double used_bp)
{
	double want = b->budget_bp == 0 ? (double)b->configured_hz :
		      (double)b->hz * ((double)b->budget_bp * 0.8 / (used_bp > 1.0 ? used_bp : 1.0));

	if (want > 2.0 * (double)b->hz)
		want = 2.0 * (double)b->hz;
	if (want > (double)b->configured_hz)
		return b->configured_hz;
	return (unsigned)want > b->hz ? (unsigned)want : b->hz;
}

unsigned budget__next_hz(struct budget *b, uint64_t cpu_ns, uint64_t wall_ns, double *used_bp)
{
	double used, budget = (double)b->budget_bp;

	if (!wall_ns)
		return b->hz;
	used = 10000.0 * (double)cpu_ns / (double)wall_ns;
	/* The first window pays for start-up (probing, the first symbol and CFI
	 * loads). After it, the cost is smoothed over windows so that one
	 * expensive window (a burst of new binaries) does not halve the
	 * sampling on its own. */
	if (b->windows++ == 0) {
		if (used_bp)
			*used_bp = used;
		return b->hz;
	}
	b->cost_bp = b->windows == 2 ? used : 0.5 * b->cost_bp + 0.5 * used;
	if (used_bp)
		*used_bp = b->cost_bp;
	if (budget > 0 && b->cost_bp > budget)
		return lower(b, b->cost_bp);
	if (b->hz < b->configured_hz && (budget == 0 || b->cost_bp < budget / 2))
		return raise(b, b->cost_bp);
	return b->hz;
}
