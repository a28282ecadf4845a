/* daemon/budget: the cpu_budget controller's decisions, window by window. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>

#include "daemon/budget.h"

#define S UINT64_C(1000000000)

/* A window of 10 s that cost pct percent of one CPU. */
static unsigned window(struct budget *b, double pct)
{
	unsigned hz = budget__next_hz(b, (uint64_t)(pct / 100.0 * 10.0 * (double)S), 10 * S, NULL);

	budget__applied(b, hz);
	return hz;
}

Test(budget, first_window_pays_for_start_up)
{
	struct budget b;

	budget__init(&b, 99, 100); /* 1 % */
	cr_assert_eq(window(&b, 50.0), 99, "start-up cost does not lower the rate");
	cr_assert_lt(window(&b, 4.0), 99, "the second window counts");
}

Test(budget, over_budget_lowers_in_proportion)
{
	struct budget b;
	unsigned hz;

	budget__init(&b, 1000, 100);
	window(&b, 0.1);
	hz = window(&b, 2.0); /* twice the budget: 1000 * 1/2 * 0.9 */
	cr_assert_eq(hz, 450);
}

Test(budget, never_below_one_hz_nor_above_the_configuration)
{
	struct budget b;
	int i;

	budget__init(&b, 99, 1);
	window(&b, 0);
	for (i = 0; i < 20; i++)
		cr_assert_geq(window(&b, 90.0), 1);
	cr_assert_eq(b.hz, 1);
	budget__init(&b, 99, 10000);
	window(&b, 0);
	for (i = 0; i < 5; i++)
		cr_assert_eq(window(&b, 0.001), 99);
}

Test(budget, recovers_by_doubling_at_most)
{
	struct budget b;
	unsigned prev, hz;
	int i;

	budget__init(&b, 800, 100);
	window(&b, 0);
	window(&b, 80.0); /* far over: down to the floor of what fits */
	prev = b.hz;
	cr_assert_lt(prev, 20);
	/* The smoothed cost still remembers the expensive window for a few
	 * windows (it may lower further first); then the rate climbs back. */
	for (i = 0; i < 30 && b.hz < 800; i++) {
		hz = window(&b, 0.01); /* nearly free now */
		cr_assert_leq(hz, 2 * prev, "at most doubling per window");
		prev = hz;
	}
	cr_assert_eq(b.hz, 800, "back to the configured frequency");
}

Test(budget, no_budget_climbs_back_whatever_the_cost)
{
	struct budget b;

	budget__init(&b, 99, 0);
	budget__applied(&b, 10);
	window(&b, 0);
	cr_assert_eq(window(&b, 50.0), 20);
	cr_assert_eq(window(&b, 50.0), 40);
	cr_assert_eq(window(&b, 50.0), 80);
	cr_assert_eq(window(&b, 50.0), 99);
}

Test(budget, zero_wall_time_changes_nothing)
{
	struct budget b;

	budget__init(&b, 99, 100);
	cr_assert_eq(budget__next_hz(&b, S, 0, NULL), 99);
	cr_assert_eq(b.windows, 0);
}
