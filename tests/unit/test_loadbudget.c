/* symbolize/loadbudget: the bytes and the time users' debug data may take. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>

#include "symbolize/loadbudget.h"

#define MB (1ull << 20)
#define S 1000000000ull

Test(loadbudget, total_and_user_shares)
{
	struct loadbudget *b;
	struct loadbudget_stats st;

	cr_assert_eq(loadbudget__new(400 * MB, 0, &b), 0);
	/* a user gets a quarter: 100 MB */
	cr_assert_eq(loadbudget__charge(b, 1000, 60 * MB), 0);
	cr_assert_eq(loadbudget__charge(b, 1000, 50 * MB), -ENOSPC, "past the user's share");
	cr_assert_eq(loadbudget__charge(b, 1000, 40 * MB), 0);
	cr_assert_eq(loadbudget__charge(b, 1001, 100 * MB), 0, "another user has their own share");
	/* root's files share the rest: 400 - 200 */
	cr_assert_eq(loadbudget__charge(b, 0, 250 * MB), -ENOSPC, "past the total");
	cr_assert_eq(loadbudget__charge(b, 0, 200 * MB), 0);
	loadbudget__stats(b, &st);
	cr_assert_eq(st.bytes, 400 * MB);
	/* released: room again */
	loadbudget__release(b, 1000, 60 * MB);
	cr_assert_eq(loadbudget__charge(b, 1000, 60 * MB), 0);
	loadbudget__release(b, 1000, 1000 * MB); /* more than held: clamped */
	loadbudget__stats(b, &st);
	cr_assert_eq(st.bytes, 300 * MB);
	loadbudget__delete(b);
}

Test(loadbudget, time_bucket_empties_and_refills)
{
	struct loadbudget *b;
	struct loadbudget_stats st;
	uint64_t t = 100 * S;

	cr_assert_eq(loadbudget__new(0, 20000, &b), 0); /* 2% */
	cr_assert(loadbudget__may_load(b, 0, t));
	loadbudget__spent(b, 0, 3 * S, t); /* a 3 s load: the 2 s burst is spent and more */
	cr_assert_not(loadbudget__may_load(b, 0, t + S), "1 s later: 20 ms back, still in debt");
	cr_assert(loadbudget__may_load(b, 0, t + 60 * S), "after a minute: 1.2 s back, out of debt");
	loadbudget__stats(b, &st);
	cr_assert_eq(st.refused_time, 1);
	loadbudget__delete(b);
}

/* One user's loads spend their own quarter of the time, not everyone's. */
Test(loadbudget, a_user_cannot_spend_the_others_time)
{
	struct loadbudget *b;
	uint64_t t = 100 * S;

	cr_assert_eq(loadbudget__new(0, 20000, &b), 0); /* 2%, 2 s burst */
	cr_assert(loadbudget__may_load(b, 1000, t));
	loadbudget__spent(b, 1000, 600 * 1000000ull, t); /* past the user's 0.5 s */
	cr_assert_not(loadbudget__may_load(b, 1000, t), "the user's bucket is empty");
	cr_assert(loadbudget__may_load(b, 1001, t), "another user still loads");
	cr_assert(loadbudget__may_load(b, 0, t), "and so do root's binaries");
	/* the user's bucket refills at 0.5%: 100 ms of debt takes 20 s */
	cr_assert_not(loadbudget__may_load(b, 1000, t + 10 * S));
	cr_assert(loadbudget__may_load(b, 1000, t + 30 * S));
	loadbudget__delete(b);
}
