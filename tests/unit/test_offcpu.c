/* Unit tests of off-CPU intervals and their stacks (collector/offcpu.c). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "collector/offcpu.h"
#include "common/strtab.h"
#include "profile/profile.h"

static struct strtab *names;
static struct profile *prof;
static struct offcpu *oc;
static struct profile_key app; /* the group every test's stacks go to */
static uint32_t f_main, f_read, f_lock;

static uint32_t id(const char *s)
{
	uint32_t i;

	cr_assert_eq(strtab__intern_cstr(names, s, &i), 0);
	return i;
}

static void setup(void)
{
	names = strtab__new();
	cr_assert_not_null(names);
	prof = profile__new(names);
	cr_assert_not_null(prof);
	oc = offcpu__new();
	cr_assert_not_null(oc);
	memset(&app, 0, sizeof(app));
	app.service_name = id("svc");
	app.exe = id("/bin/app");
	app.comm = id("app");
	app.pid = -1;
	f_main = id("main");
	f_read = id("read");
	f_lock = id("pthread_mutex_lock");
}

static void teardown(void)
{
	offcpu__delete(oc);
	profile__delete(prof);
	strtab__delete(names);
}

struct want {
	const uint32_t *frames;
	size_t n;
	uint64_t count; /* found */
	size_t nstacks;
};

static int visit(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct want *w = ctx;

	w->nstacks++;
	if (n == w->n && (n == 0 || memcmp(frames, w->frames, n * sizeof(*frames)) == 0))
		w->count += count;
	return 0;
}

static bool same_key(const struct profile_key *a, const struct profile_key *b)
{
	return a->service_name == b->service_name && a->exe == b->exe && a->comm == b->comm &&
	       a->pid == b->pid && a->thread == b->thread && a->user == b->user;
}

/* What p holds for stack frames[0..n) of group k; *nstacks: the group's
 * distinct stacks. */
static uint64_t count_of(const struct profile *p, const struct profile_key *k,
			 const uint32_t *frames, size_t n, size_t *nstacks)
{
	struct want w = {.frames = frames, .n = n};
	size_t g;

	for (g = 0; g < profile__ngroups(p); g++) {
		struct profile_group pg;

		profile__group(p, g, &pg);
		if (!same_key(&pg.key, k))
			continue;
		cr_assert_eq(profile__foreach_stack(p, g, visit, &w), 0);
	}
	if (nstacks)
		*nstacks = w.nstacks;
	return w.count;
}

static struct offcpu_stats stats(void)
{
	struct offcpu_stats s;

	offcpu__take_stats(oc, &s);
	return s;
}

TestSuite(offcpu, .init = setup, .fini = teardown);

Test(offcpu, new_delete)
{
	uint32_t fr[] = {1, 2, 3};

	offcpu__delete(NULL);
	/* pending stacks and open intervals are freed with it (valgrind) */
	cr_assert_eq(offcpu__stack(oc, 1, 100, 1, &app, fr, 3), 0);
	cr_assert_eq(offcpu__stack(oc, 2, 100, 1, &app, fr, 3), 0);
	cr_assert_eq(offcpu__switch_out(oc, 2, 150, false), 0);
}

Test(offcpu, sampled_interval_gives_its_stack_time_times_period)
{
	uint32_t fr[] = {f_main, f_read};
	struct offcpu_stats s;
	size_t nst;

	cr_assert_eq(offcpu__stack(oc, 10, 1000, 3, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 10, 1500, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 10, 6500), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, &nst), 15000);
	cr_assert_eq(nst, 1);
	cr_assert_eq(profile__total(prof), 15000);
	s = stats();
	cr_assert_eq(s.switches, 1);
	cr_assert_eq(s.preempted, 0);
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.off_ns, 5000);
	cr_assert_eq(s.weighted_ns, 15000);
	cr_assert_eq(s.unmatched, 0);
	cr_assert_eq(s.dropped, 0);
	/* the stack went with its interval: the next wait has none */
	cr_assert_eq(offcpu__switch_out(oc, 10, 7000, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 10, 7100), 0);
	cr_assert_eq(profile__total(prof), 15000);
	s = stats();
	cr_assert_eq(s.off_ns, 100);
	cr_assert_eq(s.sampled, 0);
}

Test(offcpu, empty_stack_and_period_zero)
{
	struct offcpu_stats s;

	/* n 0 with no frames is an empty stack; period 0 counts as 1 */
	cr_assert_eq(offcpu__stack(oc, 9, 10, 0, &app, NULL, 0), 0);
	cr_assert_eq(offcpu__switch_out(oc, 9, 10, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 9, 60), 0);
	cr_assert_eq(count_of(prof, &app, NULL, 0, NULL), 50);
	s = stats();
	cr_assert_eq(s.weighted_ns, 50);
	/* frames NULL with n > 0 is refused */
	cr_assert_eq(offcpu__stack(oc, 9, 100, 1, &app, NULL, 2), -EINVAL);
	cr_assert_eq(stats().dropped, 1);
}

Test(offcpu, unsampled_interval_counts_only_its_time)
{
	struct offcpu_stats s;

	cr_assert_eq(offcpu__switch_out(oc, 11, 100, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 11, 400), 0);
	cr_assert_eq(profile__ngroups(prof), 0);
	cr_assert_eq(profile__samples(prof), 0);
	s = stats();
	cr_assert_eq(s.switches, 1);
	cr_assert_eq(s.sampled, 0);
	cr_assert_eq(s.off_ns, 300);
	cr_assert_eq(s.weighted_ns, 0);
	/* a switch-in with nothing open changes nothing */
	cr_assert_eq(offcpu__switch_in(oc, prof, 11, 500), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 99, 500), 0);
	s = stats();
	cr_assert_eq(s.off_ns, 0);
	cr_assert_eq(s.switches, 0);
}

Test(offcpu, preemption_opens_nothing_and_takes_its_stack)
{
	uint32_t fr[] = {f_main, f_lock};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__stack(oc, 12, 1000, 5, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 12, 1100, true), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 12, 9000), 0);
	s = stats();
	cr_assert_eq(s.switches, 1);
	cr_assert_eq(s.preempted, 1);
	cr_assert_eq(s.sampled, 0);
	cr_assert_eq(s.unmatched, 0, "the stack was the preemption's");
	cr_assert_eq(s.off_ns, 0);
	/* within the match window of the old stack, yet it is gone */
	cr_assert_eq(offcpu__switch_out(oc, 12, 9100, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 12, 9300), 0);
	cr_assert_eq(profile__samples(prof), 0);
	s = stats();
	cr_assert_eq(s.sampled, 0);
	cr_assert_eq(s.off_ns, 200);
	/* a thread never seen is preempted without being kept */
	cr_assert_eq(offcpu__switch_out(oc, 13, 100, true), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 10000), 0);
	s = stats();
	cr_assert_eq(s.switches, 1);
	cr_assert_eq(s.preempted, 1);
	cr_assert_eq(s.threads, 0);
}

Test(offcpu, preemption_closes_an_open_interval_uncounted)
{
	cr_assert_eq(offcpu__switch_out(oc, 14, 100, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, 14, 200, true), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 14, 300), 0);
	cr_assert_eq(stats().off_ns, 0);
	/* so does a second voluntary one (its switch-in was lost) */
	cr_assert_eq(offcpu__switch_out(oc, 14, 1000, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, 14, 5000, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 14, 5010), 0);
	cr_assert_eq(stats().off_ns, 10);
}

Test(offcpu, stack_too_old_is_unmatched)
{
	uint32_t fr[] = {f_main, f_read};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__stack(oc, 15, 1000, 2, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 15, 1000 + OFFCPU_STACK_MATCH_NS + 1, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 15, 1000 + OFFCPU_STACK_MATCH_NS + 101), 0);
	cr_assert_eq(profile__samples(prof), 0);
	s = stats();
	cr_assert_eq(s.unmatched, 1);
	cr_assert_eq(s.sampled, 0);
	cr_assert_eq(s.off_ns, 100);
	/* exactly at the bound it still matches */
	cr_assert_eq(offcpu__stack(oc, 15, 5000000, 2, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 15, 5000000 + OFFCPU_STACK_MATCH_NS, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 15, 5000000 + OFFCPU_STACK_MATCH_NS + 7), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 14);
	s = stats();
	cr_assert_eq(s.unmatched, 0);
	cr_assert_eq(s.sampled, 1);
}

Test(offcpu, stack_replaced_or_from_later_switch)
{
	uint32_t a[] = {f_main, f_read}, b[] = {f_main, f_lock};
	struct offcpu_stats s;
	size_t nst;

	/* a second stack before any switch-out: the first had none */
	cr_assert_eq(offcpu__stack(oc, 16, 100, 1, &app, a, 2), 0);
	cr_assert_eq(offcpu__stack(oc, 16, 200, 1, &app, b, 2), 0);
	/* a switch-out older than the stack leaves it for the next one */
	cr_assert_eq(offcpu__switch_out(oc, 16, 150, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 16, 180), 0);
	cr_assert_eq(offcpu__switch_out(oc, 16, 250, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 16, 260), 0);
	cr_assert_eq(count_of(prof, &app, b, 2, &nst), 10);
	cr_assert_eq(nst, 1);
	cr_assert_eq(count_of(prof, &app, a, 2, NULL), 0);
	s = stats();
	cr_assert_eq(s.unmatched, 1);
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.switches, 2);
	cr_assert_eq(s.off_ns, 40);
	cr_assert_eq(s.weighted_ns, 10);
}

Test(offcpu, long_interval_is_shared_by_the_windows_it_spans)
{
	uint32_t fr[] = {f_main, f_read};
	struct profile *p2 = profile__new(names), *p3 = profile__new(names);
	struct offcpu_stats s;
	uint64_t total = 0;

	cr_assert(p2 && p3);
	cr_assert_eq(offcpu__stack(oc, 17, 990, 2, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 17, 1000, false), 0);

	cr_assert_eq(offcpu__cut(oc, prof, 4000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 6000);
	s = stats();
	cr_assert_eq(s.off_ns, 3000);
	cr_assert_eq(s.weighted_ns, 6000);
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.threads, 1);
	total += s.weighted_ns;

	cr_assert_eq(offcpu__cut(oc, p2, 9000), 0);
	cr_assert_eq(count_of(p2, &app, fr, 2, NULL), 10000);
	s = stats();
	cr_assert_eq(s.off_ns, 5000);
	cr_assert_eq(s.weighted_ns, 10000);
	cr_assert_eq(s.sampled, 0, "sampled in the window of its switch-out");
	cr_assert_eq(s.switches, 0);
	cr_assert_eq(s.threads, 1);
	total += s.weighted_ns;

	cr_assert_eq(offcpu__switch_in(oc, p3, 17, 10000), 0);
	/* a cut at or before the last changes nothing */
	cr_assert_eq(offcpu__cut(oc, p3, 10000), 0);
	cr_assert_eq(count_of(p3, &app, fr, 2, NULL), 2000);
	s = stats();
	cr_assert_eq(s.off_ns, 1000);
	cr_assert_eq(s.weighted_ns, 2000);
	cr_assert_eq(s.threads, 0, "nothing open, nothing armed: forgotten");
	total += s.weighted_ns;
	cr_assert_eq(total, (10000 - 1000) * 2);
	cr_assert_eq(profile__total(prof) + profile__total(p2) + profile__total(p3), total);
	profile__delete(p2);
	profile__delete(p3);
}

Test(offcpu, cut_never_counts_backwards)
{
	struct offcpu_stats s;

	cr_assert_eq(offcpu__switch_out(oc, 18, 1000, false), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 2000), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 1500), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 500), 0);
	/* a switch-in older than the last cut closes it with nothing more */
	cr_assert_eq(offcpu__switch_in(oc, prof, 18, 1800), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 3000), 0);
	s = stats();
	cr_assert_eq(s.off_ns, 1000);
	cr_assert_eq(s.threads, 0);
}

Test(offcpu, switch_in_older_than_switch_out_is_ignored)
{
	struct offcpu_stats s;

	cr_assert_eq(offcpu__switch_out(oc, 19, 1000, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 19, 900), 0);
	s = stats();
	cr_assert_eq(s.off_ns, 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 19, 1300), 0);
	s = stats();
	cr_assert_eq(s.off_ns, 300, "still open until its own switch-in");
}

Test(offcpu, exit_ends_the_interval_and_ignores_the_last_switch_out)
{
	uint32_t fr[] = {f_main, f_read};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__stack(oc, 20, 90, 4, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 20, 100, false), 0);
	offcpu__exit(oc, 20, 200);
	/* the dead thread's last switch, sampled: neither is kept */
	cr_assert_eq(offcpu__stack(oc, 20, 205, 4, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 20, 210, false), 0);
	/* a switch-in at the exit's own time is not a new thread */
	cr_assert_eq(offcpu__switch_in(oc, prof, 20, 200), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 1000), 0);
	cr_assert_eq(profile__samples(prof), 0);
	s = stats();
	cr_assert_eq(s.switches, 1);
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.off_ns, 0);
	cr_assert_eq(s.weighted_ns, 0);
	cr_assert_eq(s.unmatched, 0);
	cr_assert_eq(s.threads, 0, "its last switch-out came: forgotten");
}

Test(offcpu, tid_reused_after_exit)
{
	struct offcpu_stats s;

	/* a thread never seen exits: kept as a marker until its switch-out */
	offcpu__exit(oc, 21, 100);
	cr_assert_eq(offcpu__cut(oc, prof, 50), 0);
	cr_assert_eq(stats().threads, 1);
	cr_assert_eq(offcpu__switch_in(oc, prof, 21, 150), 0);
	cr_assert_eq(offcpu__switch_out(oc, 21, 200, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 21, 260), 0);
	s = stats();
	cr_assert_eq(s.switches, 1);
	cr_assert_eq(s.off_ns, 60);
}

/* An exit just before a cut whose thread's last switch-out comes after it:
 * the marker outlives that cut, so the switch-out opens nothing. */
Test(offcpu, exit_marker_outlives_one_cut)
{
	struct offcpu_stats s;

	offcpu__exit(oc, 22, 100);
	offcpu__exit(oc, 23, 100);
	cr_assert_eq(offcpu__cut(oc, prof, 150), 0);
	cr_assert_eq(stats().threads, 2);
	cr_assert_eq(offcpu__switch_out(oc, 22, 160, false), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 300), 0);
	s = stats();
	cr_assert_eq(s.switches, 0);
	cr_assert_eq(s.off_ns, 0);
	cr_assert_eq(s.threads, 0, "exited before the previous cut");
}

Test(offcpu, period_capped_and_products_saturate)
{
	uint32_t fr[] = {f_main};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__stack(oc, 24, 0, UINT64_MAX, &app, fr, 1), 0);
	cr_assert_eq(offcpu__switch_out(oc, 24, 0, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 24, 1000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 1, NULL), 1000ull * 1000000ull);
	s = stats();
	cr_assert_eq(s.weighted_ns, 1000ull * 1000000ull);

	profile__reset(prof);
	cr_assert_eq(offcpu__stack(oc, 24, 2000, 1000, &app, fr, 1), 0);
	cr_assert_eq(offcpu__switch_out(oc, 24, 2000, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, prof, 24, UINT64_MAX), 0);
	cr_assert_eq(count_of(prof, &app, fr, 1, NULL), UINT64_MAX);
	s = stats();
	cr_assert_eq(s.off_ns, UINT64_MAX - 2000);
	cr_assert_eq(s.weighted_ns, UINT64_MAX);
}

Test(offcpu, frame_ids_bounded)
{
	size_t quarter = OFFCPU_MAX_FRAME_IDS / 4;
	uint32_t *big = calloc(OFFCPU_MAX_FRAME_IDS + 1, sizeof(*big));
	uint32_t fr[] = {f_main};
	struct offcpu_stats s;
	int tid;

	cr_assert_not_null(big);
	cr_assert_eq(offcpu__stack(oc, 30, 10, 1, &app, big, OFFCPU_MAX_FRAME_IDS + 1), -ENOSPC);
	cr_assert_eq(stats().dropped, 1);
	for (tid = 31; tid < 35; tid++)
		cr_assert_eq(offcpu__stack(oc, tid, 10, 1, &app, big, quarter), 0);
	cr_assert_eq(offcpu__stack(oc, 35, 10, 1, &app, fr, 1), -ENOSPC);
	cr_assert_eq(offcpu__stack(oc, 35, 10, 1, &app, NULL, 0), 0, "an empty stack costs none");
	/* a stack taken by its interval still counts */
	cr_assert_eq(offcpu__switch_out(oc, 31, 20, false), 0);
	cr_assert_eq(offcpu__stack(oc, 36, 10, 1, &app, fr, 1), -ENOSPC);
	s = stats();
	cr_assert_eq(s.dropped, 2);
	cr_assert_eq(s.sampled, 1);
	/* an exit frees its thread's stack; a replaced one frees its own */
	offcpu__exit(oc, 32, 30);
	cr_assert_eq(offcpu__stack(oc, 36, 40, 1, &app, big, quarter), 0);
	cr_assert_eq(offcpu__stack(oc, 33, 40, 1, &app, big, quarter), 0);
	cr_assert_eq(offcpu__stack(oc, 37, 40, 1, &app, fr, 1), -ENOSPC);
	/* a closed interval frees its stack */
	cr_assert_eq(offcpu__switch_in(oc, prof, 31, 21), 0);
	cr_assert_eq(count_of(prof, &app, big, quarter, NULL), 1);
	cr_assert_eq(offcpu__stack(oc, 37, 40, 1, &app, fr, 1), 0);
	s = stats();
	cr_assert_eq(s.dropped, 1);
	cr_assert_eq(s.unmatched, 1);
	free(big);
}

Test(offcpu, threads_bounded)
{
	uint32_t fr[] = {f_main};
	struct offcpu_stats s;
	int tid;

	for (tid = 1; tid <= OFFCPU_MAX_THREADS; tid++)
		cr_assert_eq(offcpu__switch_out(oc, tid, 100, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, 0, 100, false), -ENOSPC);
	cr_assert_eq(offcpu__stack(oc, -5, 100, 1, &app, fr, 1), -ENOSPC);
	offcpu__exit(oc, OFFCPU_MAX_THREADS + 1, 100);
	/* a preemption of an unknown thread needs no room */
	cr_assert_eq(offcpu__switch_out(oc, OFFCPU_MAX_THREADS + 2, 100, true), 0);
	/* the threads held go on */
	cr_assert_eq(offcpu__switch_in(oc, prof, 7, 150), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 200), 0);
	s = stats();
	cr_assert_eq(s.dropped, 3);
	cr_assert_eq(s.switches, OFFCPU_MAX_THREADS + 1);
	cr_assert_eq(s.preempted, 1);
	cr_assert_eq(s.off_ns, 50 + (uint64_t)(OFFCPU_MAX_THREADS - 1) * 100);
	cr_assert_eq(s.threads, OFFCPU_MAX_THREADS - 1);
	/* room again once one is forgotten */
	cr_assert_eq(offcpu__switch_out(oc, 0, 300, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, -1, 300, false), -ENOSPC);
}

Test(offcpu, take_stats_zeroes_but_keeps_the_gauge)
{
	uint32_t fr[] = {f_main};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__stack(oc, 40, 0, 2, &app, fr, 1), 0);
	cr_assert_eq(offcpu__stack(oc, 40, 1, 2, &app, fr, 1), 0);
	cr_assert_eq(offcpu__switch_out(oc, 40, 10, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, 41, 10, true), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 20), 0);
	s = stats();
	cr_assert_eq(s.switches, 2);
	cr_assert_eq(s.preempted, 1);
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.unmatched, 1);
	cr_assert_eq(s.off_ns, 10);
	cr_assert_eq(s.weighted_ns, 20);
	cr_assert_eq(s.threads, 1);
	s = stats();
	cr_assert_eq(s.switches, 0);
	cr_assert_eq(s.preempted, 0);
	cr_assert_eq(s.sampled, 0);
	cr_assert_eq(s.unmatched, 0);
	cr_assert_eq(s.off_ns, 0);
	cr_assert_eq(s.weighted_ns, 0);
	cr_assert_eq(s.dropped, 0);
	cr_assert_eq(s.threads, 1, "a gauge, set at each cut");
}

Test(offcpu, cut_returns_profile_error_and_still_counts)
{
	uint32_t a[] = {f_main, f_read}, b[] = {f_main, f_lock};
	struct offcpu_stats s;

	profile__set_max_stacks(prof, 1);
	cr_assert_eq(offcpu__stack(oc, 50, 0, 1, &app, a, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 50, 0, false), 0);
	cr_assert_eq(offcpu__stack(oc, 51, 0, 1, &app, b, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 51, 0, false), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 100), -ENOSPC);
	s = stats();
	cr_assert_eq(s.off_ns, 200);
	cr_assert_eq(s.weighted_ns, 200);
	cr_assert_eq(profile__samples(prof), 200);
	cr_assert_eq(profile__dropped(prof), 100);
}
