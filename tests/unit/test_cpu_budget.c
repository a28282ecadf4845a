/* daemon/cpu_budget: the cpu_budget controller's decisions, window by window. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>

#include "daemon/cpu_budget.h"

#define S UINT64_C(1000000000)

/* A window of 10 s whose steady cost was pct percent of one CPU. */
static unsigned window(struct cpu_budget *b, double pct)
{
	unsigned hz = cpu_budget__next_hz(b, (uint64_t)(pct / 100.0 * 10.0 * (double)S), 10 * S, NULL);

	cpu_budget__applied(b, hz);
	return hz;
}

Test(budget, first_window_pays_for_start_up)
{
	struct cpu_budget b;

	cpu_budget__init(&b, 99, 100); /* 1 % */
	cr_assert_eq(window(&b, 50.0), 99, "start-up cost does not lower the rate");
	cr_assert_lt(window(&b, 4.0), 99, "the second window counts");
}

Test(budget, over_budget_lowers_in_proportion)
{
	struct cpu_budget b;

	cpu_budget__init(&b, 1000, 100);
	window(&b, 0.1);
	cr_assert_eq(window(&b, 2.0), 450); /* twice the budget: 1000 * 1/2 * 0.9 */
	cr_assert_eq(window(&b, 1.5), 270, "still over: lower again, from the last window alone");
}

Test(budget, never_below_one_hz_nor_above_the_configuration)
{
	struct cpu_budget b;
	int i;

	cpu_budget__init(&b, 99, 1);
	window(&b, 0);
	for (i = 0; i < 20; i++)
		cr_assert_geq(window(&b, 90.0), 1);
	cr_assert_eq(b.hz, 1);
	cpu_budget__init(&b, 99, 10000);
	window(&b, 0);
	for (i = 0; i < 5; i++)
		cr_assert_eq(window(&b, 0.001), 99);
}

/* One expensive window (a steady cost, say a storm of samples) lowers the
 * rate; the next cheap window brings it back: no memory of the spike. */
Test(budget, recovers_in_the_next_window)
{
	struct cpu_budget b;

	cpu_budget__init(&b, 99, 100);
	window(&b, 0);
	cr_assert_lt(window(&b, 40.0), 5, "far over: down to what fits");
	cr_assert_eq(window(&b, 0.002), 99, "cheap again: back at the configured rate");
}

/* Raising takes the rate that costs 80 % of the budget, not more. */
Test(budget, raises_to_what_fits)
{
	struct cpu_budget b;

	cpu_budget__init(&b, 1000, 100);
	cpu_budget__applied(&b, 100);
	window(&b, 0);
	cr_assert_eq(window(&b, 0.2), 400); /* 100 Hz cost 0.2 %: 400 Hz costs 0.8 % */
	cr_assert_eq(window(&b, 0.6), 400, "between half and all of the budget: kept");
}

Test(budget, no_budget_restores_at_once)
{
	struct cpu_budget b;

	cpu_budget__init(&b, 99, 0);
	cpu_budget__applied(&b, 10);
	window(&b, 0);
	cr_assert_eq(window(&b, 50.0), 99);
}

Test(budget, zero_wall_time_changes_nothing)
{
	struct cpu_budget b;

	cpu_budget__init(&b, 99, 100);
	cr_assert_eq(cpu_budget__next_hz(&b, S, 0, NULL), 99);
	cr_assert_eq(b.windows, 0);
}
