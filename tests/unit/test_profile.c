/* Unit tests of the profile window (collector/profile.c). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "profile/profile.h"
#include "common/strtab.h"

static struct strtab *names;
static struct profile *prof;

static void setup(void)
{
	names = strtab__new();
	cr_assert_not_null(names);
	prof = profile__new(names);
	cr_assert_not_null(prof);
}

static void teardown(void)
{
	profile__delete(prof);
	strtab__delete(names);
}

static struct profile_key key(uint32_t svc, uint32_t exe, uint32_t comm, int32_t pid)
{
	struct profile_key k;

	memset(&k, 0, sizeof(k));
	k.service_name = svc;
	k.exe = exe;
	k.comm = comm;
	k.pid = pid;
	return k;
}

struct seen {
	size_t nstacks;
	uint64_t sum;
	uint64_t count_of_ab; /* count of the stack {1, 2} */
	uint64_t count_empty;
	int saw_empty;
};

static int visit(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct seen *s = ctx;

	s->nstacks++;
	s->sum += count;
	if (n == 2 && frames[0] == 1 && frames[1] == 2)
		s->count_of_ab += count;
	if (n == 0) {
		s->saw_empty = 1;
		s->count_empty += count;
	}
	return 0;
}

/* Checks sum(stack counts) == group samples for every group, and
 * profile__total == stats.samples - stats.dropped. */
static void assert_consistent(void)
{
	size_t g;
	uint64_t total = 0;

	for (g = 0; g < profile__ngroups(prof); g++) {
		struct profile_group grp;
		struct seen s;

		memset(&s, 0, sizeof(s));
		profile__group(prof, g, &grp);
		cr_assert_eq(profile__foreach_stack(prof, g, visit, &s), 0);
		cr_assert_eq(s.sum, grp.samples, "group %zu: stacks sum %llu != samples %llu", g,
			     (unsigned long long)s.sum, (unsigned long long)grp.samples);
		cr_assert_eq(s.nstacks, grp.nstacks);
		cr_assert_gt(grp.samples, 0);
		total += grp.samples;
	}
	cr_assert_eq(total, profile__total(prof));
	cr_assert_eq(total, profile__samples(prof) - profile__dropped(prof));
}

TestSuite(profile, .init = setup, .fini = teardown);

Test(profile, empty)
{
	cr_assert_eq(profile__ngroups(prof), 0);
	cr_assert_eq(profile__total(prof), 0);
	cr_assert_eq(profile__names(prof), names);
	cr_assert_str_eq(profile__meta(prof)->event_unit, "samples");
	assert_consistent();
}

Test(profile, same_stack_merges)
{
	struct profile_key k = key(1, 2, 3, -1);
	uint32_t st[] = {1, 2};
	uint32_t copy[] = {1, 2};
	struct profile_group grp;
	struct seen s;

	cr_assert_eq(profile__add(prof, &k, st, 2, 1), 0);
	/* Same content from a different buffer: keyed by value, not pointer. */
	cr_assert_eq(profile__add(prof, &k, copy, 2, 4), 0);
	cr_assert_eq(profile__ngroups(prof), 1);
	profile__group(prof, 0, &grp);
	cr_assert_eq(grp.nstacks, 1);
	cr_assert_eq(grp.samples, 5);
	cr_assert_eq(grp.key.service_name, 1);
	cr_assert_eq(grp.key.exe, 2);
	cr_assert_eq(grp.key.comm, 3);
	cr_assert_eq(grp.key.pid, -1);
	memset(&s, 0, sizeof(s));
	profile__foreach_stack(prof, 0, visit, &s);
	cr_assert_eq(s.count_of_ab, 5);
	cr_assert_eq(profile__samples(prof), 5);
	cr_assert_eq(profile__nstacks(prof), 1);
	assert_consistent();
}

Test(profile, prefix_and_order_are_distinct)
{
	struct profile_key k = key(1, 2, 3, -1);
	uint32_t a[] = {1, 2}, b[] = {2, 1}, c[] = {1}, d[] = {1, 2, 2};

	cr_assert_eq(profile__add(prof, &k, a, 2, 1), 0);
	cr_assert_eq(profile__add(prof, &k, b, 2, 1), 0);
	cr_assert_eq(profile__add(prof, &k, c, 1, 1), 0);
	cr_assert_eq(profile__add(prof, &k, d, 3, 1), 0);
	cr_assert_eq(profile__nstacks(prof), 4);
	assert_consistent();
}

Test(profile, groups_are_separate)
{
	struct profile_key k1 = key(1, 2, 3, -1), k2 = key(1, 2, 4, -1);
	struct profile_key k3 = key(1, 2, 3, 100), k4 = key(1, 2, 3, 101);
	uint32_t st[] = {1, 2};
	size_t g;
	struct profile_group grp;

	cr_assert_eq(profile__add(prof, &k1, st, 2, 1), 0);
	cr_assert_eq(profile__add(prof, &k2, st, 2, 2), 0);
	cr_assert_eq(profile__add(prof, &k3, st, 2, 3), 0);
	cr_assert_eq(profile__add(prof, &k4, st, 2, 4), 0);
	cr_assert_eq(profile__add(prof, &k1, st, 2, 10), 0);
	cr_assert_eq(profile__ngroups(prof), 4);
	cr_assert_eq(profile__nstacks(prof), 4);
	/* Groups are numbered in order of first sample. */
	for (g = 0; g < 4; g++) {
		profile__group(prof, g, &grp);
		cr_assert_eq(grp.samples, g == 0 ? 11 : g + 1);
	}
	profile__group(prof, 3, &grp);
	cr_assert_eq(grp.key.pid, 101);
	cr_assert_eq(profile__total(prof), 20);
	assert_consistent();
}

/* The thread's name is part of a group's identity; 0 is no thread. */
Test(profile, thread_names_separate_groups)
{
	struct profile_key k1 = key(1, 2, 3, -1), k2 = key(1, 2, 3, -1), k3 = key(1, 2, 3, -1);
	uint32_t st[] = {1, 2};
	struct profile_group grp;

	k2.thread = 7;
	k3.thread = 8;
	cr_assert_eq(profile__add(prof, &k1, st, 2, 1), 0);
	cr_assert_eq(profile__add(prof, &k2, st, 2, 2), 0);
	cr_assert_eq(profile__add(prof, &k3, st, 2, 3), 0);
	cr_assert_eq(profile__add(prof, &k2, st, 2, 4), 0);
	cr_assert_eq(profile__ngroups(prof), 3);
	profile__group(prof, 1, &grp);
	cr_assert_eq(grp.key.thread, 7);
	cr_assert_eq(grp.samples, 6);
	profile__group(prof, 0, &grp);
	cr_assert_eq(grp.key.thread, 0);
	assert_consistent();
}

Test(profile, empty_stack_is_valid)
{
	struct profile_key k = key(1, 2, 3, -1);
	uint32_t st[] = {7};
	struct seen s;

	cr_assert_eq(profile__add(prof, &k, NULL, 0, 2), 0);
	cr_assert_eq(profile__add(prof, &k, st, 0, 3), 0); /* same empty stack */
	cr_assert_eq(profile__add(prof, &k, st, 1, 1), 0);
	memset(&s, 0, sizeof(s));
	profile__foreach_stack(prof, 0, visit, &s);
	cr_assert(s.saw_empty);
	cr_assert_eq(s.count_empty, 5);
	cr_assert_eq(s.nstacks, 2);
	assert_consistent();
}

Test(profile, zero_count_and_bad_args)
{
	struct profile_key k = key(1, 2, 3, -1);
	uint32_t st[] = {1};

	cr_assert_eq(profile__add(prof, &k, st, 1, 0), 0);
	cr_assert_eq(profile__ngroups(prof), 0);
	cr_assert_eq(profile__add(prof, &k, NULL, 3, 2), -EINVAL);
	cr_assert_eq(profile__dropped(prof), 2);
	cr_assert_eq(profile__ngroups(prof), 0);
	profile__drop(prof, 3);
	cr_assert_eq(profile__samples(prof), 5);
	cr_assert_eq(profile__dropped(prof), 5);
	assert_consistent();
}

static int stop_at_first(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	(*(int *)ctx)++;
	return 42;
}

Test(profile, foreach_returns_callback_value)
{
	struct profile_key k = key(1, 2, 3, -1);
	uint32_t a[] = {1}, b[] = {2};
	int calls = 0;

	profile__add(prof, &k, a, 1, 1);
	profile__add(prof, &k, b, 1, 1);
	cr_assert_eq(profile__foreach_stack(prof, 0, stop_at_first, &calls), 42);
	cr_assert_eq(calls, 1);
	/* Out-of-range group: nothing to visit. */
	cr_assert_eq(profile__foreach_stack(prof, 5, stop_at_first, &calls), 0);
	cr_assert_eq(calls, 1);
}

Test(profile, reset_empties_and_reuses)
{
	struct profile_key k = key(1, 2, 3, -1);
	uint32_t st[64];
	size_t i, bytes;

	profile__meta(prof)->frequency_hz = 99;
	for (i = 0; i < 64; i++)
		st[i] = (uint32_t)i + 1;
	for (i = 0; i < 5000; i++) {
		st[0] = (uint32_t)i + 1;
		cr_assert_eq(profile__add(prof, &k, st, 64, 1), 0);
	}
	profile__drop(prof, 9);
	cr_assert_eq(profile__nstacks(prof), 5000);
	bytes = profile__bytes(prof);
	profile__reset(prof);
	cr_assert_eq(profile__ngroups(prof), 0);
	cr_assert_eq(profile__nstacks(prof), 0);
	cr_assert_eq(profile__total(prof), 0);
	cr_assert_eq(profile__samples(prof), 0);
	cr_assert_eq(profile__dropped(prof), 0);
	cr_assert_eq(profile__meta(prof)->frequency_hz, 99, "meta survives a reset");
	/* Refill the same amount: allocations are reused, nothing grows. */
	for (i = 0; i < 5000; i++) {
		st[0] = (uint32_t)i + 1;
		cr_assert_eq(profile__add(prof, &k, st, 64, 2), 0);
	}
	cr_assert_eq(profile__bytes(prof), bytes);
	cr_assert_eq(profile__total(prof), 10000);
	/* Old stacks are really gone: re-adding one creates no duplicate. */
	st[0] = 1;
	cr_assert_eq(profile__add(prof, &k, st, 64, 1), 0);
	cr_assert_eq(profile__nstacks(prof), 5000);
	assert_consistent();
}

Test(profile, many_groups_and_stacks_grow)
{
	size_t i;

	for (i = 0; i < 20000; i++) {
		struct profile_key k = key(1, 2, 3, (int32_t)(i % 300));
		uint32_t st[3] = {1, (uint32_t)(i % 97) + 2, (uint32_t)(i % 5) + 200};

		cr_assert_eq(profile__add(prof, &k, st, 3, 1), 0);
	}
	cr_assert_eq(profile__ngroups(prof), 300);
	cr_assert_eq(profile__total(prof), 20000);
	assert_consistent();
}

Test(profile, stack_cap_counts_dropped)
{
	struct profile_key k = key(1, 2, 3, -1), k2 = key(9, 9, 9, -1);
	uint32_t st[2] = {1, 0};
	uint32_t i;

	profile__set_max_stacks(prof, 3);
	for (i = 0; i < 3; i++) {
		st[1] = i + 10;
		cr_assert_eq(profile__add(prof, &k, st, 2, 1), 0);
	}
	st[1] = 99;
	cr_assert_eq(profile__add(prof, &k, st, 2, 5), -ENOSPC);
	/* A new group needs a new stack too: dropped, and no empty group. */
	cr_assert_eq(profile__add(prof, &k2, st, 2, 7), -ENOSPC);
	cr_assert_eq(profile__ngroups(prof), 1);
	/* Known stacks still count past the cap. */
	st[1] = 10;
	cr_assert_eq(profile__add(prof, &k, st, 2, 2), 0);
	cr_assert_eq(profile__dropped(prof), 12);
	cr_assert_eq(profile__samples(prof), 17);
	cr_assert_eq(profile__total(prof), 5);
	assert_consistent();
	/* The cap is per window. */
	profile__reset(prof);
	st[1] = 99;
	cr_assert_eq(profile__add(prof, &k, st, 2, 1), 0);
	cr_assert_eq(profile__dropped(prof), 0);
}

Test(profile, frame_cap_counts_dropped)
{
	struct profile_key k = key(1, 2, 3, -1);
	uint32_t st[4] = {1, 2, 3, 4};

	profile__set_max_frames(prof, 6);
	cr_assert_eq(profile__add(prof, &k, st, 4, 1), 0);
	cr_assert_eq(profile__add(prof, &k, st, 3, 1), -ENOSPC);
	cr_assert_eq(profile__add(prof, &k, st, 2, 1), 0);
	cr_assert_eq(profile__add(prof, &k, NULL, 0, 1), 0);
	cr_assert_eq(profile__dropped(prof), 1);
	assert_consistent();
}

Test(profile, delete_null)
{
	profile__delete(NULL);
}

/* 7 and 8 become 2: stacks that become equal merge, the rest stay. */
static uint32_t rename_to_2(void *ctx, uint32_t id)
{
	(void)ctx;
	return id == 7 || id == 8 ? 2 : id;
}

Test(profile, rename_merges_stacks_that_become_equal)
{
	struct profile_key k1 = key(1, 2, 3, -1), k2 = key(4, 5, 6, -1);
	uint32_t a[] = { 1, 7 }, b[] = { 1, 8 }, c[] = { 1, 2 }, d[] = { 9 };
	struct profile_group g;
	struct seen s;

	cr_assert_eq(profile__add(prof, &k1, a, 2, 3), 0);
	cr_assert_eq(profile__add(prof, &k2, d, 1, 1), 0);
	cr_assert_eq(profile__add(prof, &k1, b, 2, 4), 0);
	cr_assert_eq(profile__add(prof, &k1, c, 2, 5), 0);
	profile__drop(prof, 2);
	profile__meta(prof)->frequency_hz = 99;
	cr_assert_eq(profile__rename_frames(prof, rename_to_2, NULL), 0);
	cr_assert_eq(profile__ngroups(prof), 2, "groups are kept, in order");
	profile__group(prof, 0, &g);
	cr_assert_eq(g.key.service_name, 1);
	cr_assert_eq(g.nstacks, 1);
	cr_assert_eq(g.samples, 12);
	memset(&s, 0, sizeof(s));
	profile__foreach_stack(prof, 0, visit, &s);
	cr_assert_eq(s.count_of_ab, 12, "{1,7} {1,8} {1,2} are all {1,2} now");
	profile__group(prof, 1, &g);
	cr_assert_eq(g.key.service_name, 4);
	cr_assert_eq(g.samples, 1);
	cr_assert_eq(profile__samples(prof), 15);
	cr_assert_eq(profile__dropped(prof), 2);
	cr_assert_eq(profile__meta(prof)->frequency_hz, 99);
	assert_consistent();
}
