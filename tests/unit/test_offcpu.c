/* Unit tests of off-CPU intervals and their stacks (collector/offcpu.c). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "collector/offcpu.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "profile/profile.h"

static struct strtab *names;
static struct profile *prof;
static struct offcpu *oc;
static struct profile_key app;  /* the key of the sampled stacks */
static struct profile_key proc; /* what key_of answers */
static uint32_t f_main, f_read, f_lock, f_unsampled;

static uint32_t id(const char *s)
{
	uint32_t i;

	cr_assert_eq(strtab__intern_cstr(names, s, &i), 0);
	return i;
}

/* The key_of of the tests: records whom it was asked about. */
struct keyer {
	int ret;
	int calls;
	int pid, tid;
};
static struct keyer kr;

static int key_of(void *ctx, int pid, int tid, struct profile_key *out)
{
	struct keyer *k = ctx;

	k->calls++;
	k->pid = pid;
	k->tid = tid;
	if (k->ret < 0)
		return k->ret;
	*out = proc;
	return 0;
}

static void setup(void)
{
	names = strtab__new();
	cr_assert_not_null(names);
	prof = profile__new(names);
	cr_assert_not_null(prof);
	memset(&app, 0, sizeof(app));
	app.service_name = id("svc");
	app.exe = id("/bin/app");
	app.comm = id("app");
	app.pid = -1;
	/* a key no field of which is app's, so that a group says whose it is */
	memset(&proc, 0, sizeof(proc));
	proc.service_name = id("other-svc");
	proc.exe = id("/bin/proc");
	proc.comm = id("proc");
	proc.pid = 4242;
	f_main = id("main");
	f_read = id("read");
	f_lock = id("pthread_mutex_lock");
	/* last, so that a remap that visits it first gives it another id */
	f_unsampled = id(OFFCPU_UNSAMPLED_FRAME);
	oc = offcpu__new(f_unsampled);
	cr_assert_not_null(oc);
	memset(&kr, 0, sizeof(kr));
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

static uint64_t unsampled_of(const struct profile *p, const struct profile_key *k)
{
	return count_of(p, k, &f_unsampled, 1, NULL);
}

static struct offcpu_stats stats(void)
{
	struct offcpu_stats s;

	offcpu__take_stats(oc, &s);
	return s;
}

static int cut(struct profile *p, uint64_t t)
{
	return offcpu__cut(oc, p, t, key_of, &kr);
}

/* One wait of tid, [from, to), with no stack. */
static void wait_for(int pid, int tid, uint64_t from, uint64_t to)
{
	cr_assert_eq(offcpu__switch_out(oc, pid, tid, from, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, tid, to), 0);
}

/* One wait of tid, [from, to), whose stack k/frames was sampled just
 * before its switch-out. */
static void sampled_wait(int pid, int tid, uint64_t from, uint64_t to, const struct profile_key *k,
			 const uint32_t *frames, size_t n)
{
	cr_assert_eq(offcpu__stack(oc, tid, from, k, frames, n), 0);
	wait_for(pid, tid, from, to);
}

TestSuite(offcpu, .init = setup, .fini = teardown);

Test(offcpu, new_delete)
{
	uint32_t fr[] = {1, 2, 3};

	offcpu__delete(NULL);
	/* armed stacks, an open sampled wait and a closed one still held for
	 * the window are all freed with it (valgrind) */
	cr_assert_eq(offcpu__stack(oc, 1, 100, &app, fr, 3), 0);
	cr_assert_eq(offcpu__stack(oc, 2, 100, &app, fr, 3), 0);
	cr_assert_eq(offcpu__switch_out(oc, 20, 2, 150, false), 0);
	sampled_wait(20, 3, 100, 200, &app, fr, 3);
}

/* The thread's time is exact; its one sampled wait stands for all. */
Test(offcpu, one_sampled_wait_takes_the_threads_whole_time)
{
	uint32_t fr[] = {f_main, f_read};
	struct offcpu_stats s;
	size_t nst;

	sampled_wait(100, 10, 1000, 1100, &app, fr, 2);
	wait_for(100, 10, 2000, 2300);
	cr_assert_eq(cut(prof, 5000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, &nst), 400);
	cr_assert_eq(nst, 1);
	cr_assert_eq(profile__ngroups(prof), 1);
	cr_assert_eq(profile__total(prof), 400);
	cr_assert_eq(kr.calls, 0, "a sampled thread needs no key");
	s = stats();
	cr_assert_eq(s.switches, 2);
	cr_assert_eq(s.preempted, 0);
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.off_ns, 400);
	cr_assert_eq(s.weighted_ns, 400);
	cr_assert_eq(s.unsampled_ns, 0);
	cr_assert_eq(s.unmatched, 0);
	cr_assert_eq(s.dropped, 0);
	cr_assert_eq(s.threads, 0, "nothing open, nothing armed: forgotten");

	/* the stack went with its window: the next has none */
	profile__reset(prof);
	wait_for(100, 10, 6000, 6100);
	cr_assert_eq(cut(prof, 7000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 0);
	cr_assert_eq(unsampled_of(prof, &proc), 100);
	s = stats();
	cr_assert_eq(s.sampled, 0);
	cr_assert_eq(s.off_ns, 100);
	cr_assert_eq(s.unsampled_ns, 100);
}

Test(offcpu, shares_follow_the_sampled_waits_own_times)
{
	uint32_t a[] = {f_main, f_read}, b[] = {f_main, f_lock};
	struct offcpu_stats s;

	sampled_wait(100, 11, 0, 100, &app, a, 2);
	wait_for(100, 11, 200, 500);
	sampled_wait(100, 11, 600, 900, &app, b, 2);
	wait_for(100, 11, 1000, 1300);
	cr_assert_eq(cut(prof, 2000), 0);
	/* 1000 in all, 1:3 */
	cr_assert_eq(count_of(prof, &app, a, 2, NULL), 250);
	cr_assert_eq(count_of(prof, &app, b, 2, NULL), 750);
	cr_assert_eq(profile__total(prof), 1000);
	s = stats();
	cr_assert_eq(s.sampled, 2);
	cr_assert_eq(s.off_ns, 1000);
	cr_assert_eq(s.weighted_ns, 1000);
	cr_assert_eq(s.unsampled_ns, 0);
}

Test(offcpu, sampled_waits_of_one_stack_add_up)
{
	uint32_t a[] = {f_main, f_read};
	size_t nst;

	sampled_wait(100, 11, 0, 100, &app, a, 2);
	sampled_wait(100, 11, 200, 500, &app, a, 2);
	wait_for(100, 11, 600, 1200);
	cr_assert_eq(cut(prof, 2000), 0);
	cr_assert_eq(count_of(prof, &app, a, 2, &nst), 1000);
	cr_assert_eq(nst, 1);
	cr_assert_eq(stats().sampled, 2);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Each share rounded on its own would lose the remainders: 3 x 333. */
Test(offcpu, shares_add_up_to_the_exact_time)
{
	uint32_t fr[3][2] = {{f_main, f_read}, {f_main, f_lock}, {f_main, id("poll")}};
	uint64_t got[3];
	int k;

	for (k = 0; k < 3; k++)
		sampled_wait(100, 12, (uint64_t)k * 10, (uint64_t)k * 10 + 1, &app, fr[k], 2);
	wait_for(100, 12, 100, 1097);
	cr_assert_eq(cut(prof, 2000), 0);
	for (k = 0; k < 3; k++)
		got[k] = count_of(prof, &app, fr[k], 2, NULL);
	qsort(got, 3, sizeof(got[0]), cmp_u64);
	cr_assert_eq(got[0], 333);
	cr_assert_eq(got[1], 333);
	cr_assert_eq(got[2], 334);
	cr_assert_eq(profile__total(prof), 1000);
	cr_assert_eq(stats().weighted_ns, 1000);

	/* 7:13 of 999: 349.65 and 649.35, rounded so that they make 999 */
	profile__reset(prof);
	sampled_wait(100, 12, 3000, 3007, &app, fr[0], 2);
	sampled_wait(100, 12, 3100, 3113, &app, fr[1], 2);
	wait_for(100, 12, 3200, 4179);
	cr_assert_eq(cut(prof, 5000), 0);
	got[0] = count_of(prof, &app, fr[0], 2, NULL);
	got[1] = count_of(prof, &app, fr[1], 2, NULL);
	cr_assert(got[0] == 349 || got[0] == 350, "got %llu", (unsigned long long)got[0]);
	cr_assert_eq(got[0] + got[1], 999);
	cr_assert_eq(stats().off_ns, 999);
}

/* Times near 2^64: the products of a share must not wrap. */
Test(offcpu, shares_of_huge_times_do_not_overflow)
{
	uint32_t a[] = {f_main, f_read}, b[] = {f_main, f_lock};
	const uint64_t e18 = 1000000000000000000ull;
	struct offcpu_stats s;

	sampled_wait(100, 13, 0, 3 * e18, &app, a, 2);
	sampled_wait(100, 13, 3 * e18, 9 * e18, &app, b, 2);
	wait_for(100, 13, 9 * e18, 18 * e18);
	cr_assert_eq(cut(prof, 18 * e18 + 1), 0);
	cr_assert_eq(count_of(prof, &app, a, 2, NULL), 6 * e18);
	cr_assert_eq(count_of(prof, &app, b, 2, NULL), 12 * e18);
	s = stats();
	cr_assert_eq(s.off_ns, 18 * e18);
	cr_assert_eq(s.weighted_ns, 18 * e18);
}

/* Each thread's time is shared over its own waits' stacks only. */
Test(offcpu, threads_are_shared_out_apart)
{
	uint32_t a[] = {f_main, f_read}, b[] = {f_main, f_lock};

	/* x: a for 100 of its 200 */
	sampled_wait(100, 14, 0, 100, &app, a, 2);
	wait_for(100, 14, 200, 300);
	/* y: a and b for 50 each of its 1000 */
	sampled_wait(100, 15, 0, 50, &app, a, 2);
	sampled_wait(100, 15, 100, 150, &app, b, 2);
	wait_for(100, 15, 200, 1100);
	cr_assert_eq(cut(prof, 2000), 0);
	cr_assert_eq(count_of(prof, &app, a, 2, NULL), 200 + 500);
	cr_assert_eq(count_of(prof, &app, b, 2, NULL), 500);
	cr_assert_eq(stats().off_ns, 1200);
}

Test(offcpu, unsampled_thread_goes_under_its_process_key)
{
	uint32_t fr[] = {f_main, f_read};
	struct offcpu_stats s;
	size_t nst;

	wait_for(130, 16, 100, 300);
	wait_for(130, 16, 400, 700);
	/* a sampled thread beside it keeps to its own stack */
	sampled_wait(100, 17, 100, 150, &app, fr, 2);
	cr_assert_eq(cut(prof, 1000), 0);
	cr_assert_eq(kr.calls, 1, "once per thread, not per wait");
	cr_assert_eq(kr.pid, 130);
	cr_assert_eq(kr.tid, 16);
	cr_assert_eq(count_of(prof, &proc, &f_unsampled, 1, &nst), 500);
	cr_assert_eq(nst, 1);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 50);
	cr_assert_eq(profile__ngroups(prof), 2);
	s = stats();
	cr_assert_eq(s.off_ns, 550);
	cr_assert_eq(s.weighted_ns, 550);
	cr_assert_eq(s.unsampled_ns, 500);
	cr_assert_eq(s.sampled, 1);

	/* a process no one knows: only counted */
	profile__reset(prof);
	kr.ret = -ENOENT;
	kr.calls = 0;
	wait_for(131, 16, 2000, 2700);
	cr_assert_eq(cut(prof, 3000), 0);
	cr_assert_eq(kr.calls, 1);
	cr_assert_eq(kr.pid, 131, "the pid of its last switch-out");
	cr_assert_eq(profile__samples(prof), 0);
	s = stats();
	cr_assert_eq(s.off_ns, 700);
	cr_assert_eq(s.weighted_ns, 0);
	cr_assert_eq(s.unsampled_ns, 0);

	/* and so with no key_of at all */
	wait_for(131, 16, 4000, 4300);
	cr_assert_eq(offcpu__cut(oc, prof, 5000, NULL, NULL), 0);
	cr_assert_eq(profile__samples(prof), 0);
	s = stats();
	cr_assert_eq(s.off_ns, 300);
	cr_assert_eq(s.weighted_ns, 0);
	cr_assert_eq(s.unsampled_ns, 0);
}

Test(offcpu, empty_stack_and_bad_arguments)
{
	cr_assert_eq(offcpu__stack(oc, 9, 10, &app, NULL, 0), 0, "an empty stack");
	cr_assert_eq(offcpu__switch_out(oc, 100, 9, 10, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, 9, 60), 0);
	cr_assert_eq(cut(prof, 100), 0);
	cr_assert_eq(count_of(prof, &app, NULL, 0, NULL), 50);
	cr_assert_eq(stats().weighted_ns, 50);
	cr_assert_eq(offcpu__stack(oc, 9, 100, &app, NULL, 2), -EINVAL);
	cr_assert_eq(offcpu__stack(oc, 9, 100, NULL, &f_main, 1), -EINVAL);
	cr_assert_eq(stats().dropped, 2);
}

Test(offcpu, switch_in_with_nothing_open_changes_nothing)
{
	struct offcpu_stats s;

	cr_assert_eq(offcpu__switch_in(oc, 11, 500), 0);
	cr_assert_eq(offcpu__switch_in(oc, 99, 500), 0);
	wait_for(100, 11, 600, 700);
	cr_assert_eq(offcpu__switch_in(oc, 11, 900), 0);
	cr_assert_eq(cut(prof, 1000), 0);
	s = stats();
	cr_assert_eq(s.off_ns, 100);
	cr_assert_eq(s.switches, 1);
	cr_assert_eq(s.threads, 0);
}

Test(offcpu, preemption_opens_nothing_and_takes_its_stack)
{
	uint32_t fr[] = {f_main, f_lock};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__stack(oc, 12, 1000, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 12, 1100, true), 0);
	cr_assert_eq(offcpu__switch_in(oc, 12, 9000), 0);
	/* within the match window of that stack, yet it is gone */
	wait_for(100, 12, 9100, 9300);
	/* a thread never seen is preempted without being kept */
	cr_assert_eq(offcpu__switch_out(oc, 100, 13, 100, true), 0);
	cr_assert_eq(cut(prof, 10000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 0);
	cr_assert_eq(unsampled_of(prof, &proc), 200);
	s = stats();
	cr_assert_eq(s.switches, 3);
	cr_assert_eq(s.preempted, 2);
	cr_assert_eq(s.sampled, 0);
	cr_assert_eq(s.unmatched, 0, "the stack was the preemption's");
	cr_assert_eq(s.off_ns, 200);
	cr_assert_eq(s.unsampled_ns, 200);
	cr_assert_eq(s.threads, 0);
}

Test(offcpu, a_second_switch_out_closes_the_wait_uncounted)
{
	uint32_t fr[] = {f_main, f_read};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__switch_out(oc, 100, 14, 100, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 14, 200, true), 0);
	cr_assert_eq(offcpu__switch_in(oc, 14, 300), 0);
	cr_assert_eq(cut(prof, 400), 0);
	cr_assert_eq(stats().off_ns, 0);
	/* so does a second voluntary one (its switch-in was lost) */
	cr_assert_eq(offcpu__switch_out(oc, 100, 14, 1000, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 14, 5000, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, 14, 5010), 0);
	cr_assert_eq(cut(prof, 6000), 0);
	cr_assert_eq(stats().off_ns, 10);
	/* a sampled wait so closed counts nothing, and lends the window no
	 * stack: the thread's other wait is unsampled */
	profile__reset(prof);
	cr_assert_eq(offcpu__stack(oc, 14, 7000, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 14, 7000, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 14, 7100, true), 0);
	cr_assert_eq(offcpu__switch_in(oc, 14, 7200), 0);
	wait_for(100, 14, 7300, 7400);
	cr_assert_eq(cut(prof, 8000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 0);
	cr_assert_eq(unsampled_of(prof, &proc), 100);
	s = stats();
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.off_ns, 100);
	cr_assert_eq(s.unsampled_ns, 100);
}

Test(offcpu, stack_too_old_is_unmatched)
{
	uint32_t fr[] = {f_main, f_read};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__stack(oc, 15, 1000, &app, fr, 2), 0);
	wait_for(100, 15, 1000 + OFFCPU_STACK_MATCH_NS + 1, 1000 + OFFCPU_STACK_MATCH_NS + 101);
	cr_assert_eq(cut(prof, 2000000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 0);
	cr_assert_eq(unsampled_of(prof, &proc), 100);
	s = stats();
	cr_assert_eq(s.unmatched, 1);
	cr_assert_eq(s.sampled, 0);
	cr_assert_eq(s.off_ns, 100);
	/* exactly at the bound it still matches */
	profile__reset(prof);
	cr_assert_eq(offcpu__stack(oc, 15, 5000000, &app, fr, 2), 0);
	wait_for(100, 15, 5000000 + OFFCPU_STACK_MATCH_NS, 5000000 + OFFCPU_STACK_MATCH_NS + 7);
	cr_assert_eq(cut(prof, 7000000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 7);
	cr_assert_eq(profile__total(prof), 7);
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
	cr_assert_eq(offcpu__stack(oc, 16, 100, &app, a, 2), 0);
	cr_assert_eq(offcpu__stack(oc, 16, 200, &app, b, 2), 0);
	/* a switch-out older than the stack leaves it for the next one */
	wait_for(100, 16, 150, 180);
	wait_for(100, 16, 250, 260);
	cr_assert_eq(cut(prof, 1000), 0);
	cr_assert_eq(count_of(prof, &app, b, 2, &nst), 40, "the whole thread's time");
	cr_assert_eq(nst, 1);
	cr_assert_eq(count_of(prof, &app, a, 2, NULL), 0);
	cr_assert_eq(kr.calls, 0);
	s = stats();
	cr_assert_eq(s.unmatched, 1);
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.switches, 2);
	cr_assert_eq(s.off_ns, 40);
	cr_assert_eq(s.weighted_ns, 40);
}

Test(offcpu, long_wait_is_shared_by_the_windows_it_spans)
{
	uint32_t fr[] = {f_main, f_read};
	struct profile *p2 = profile__new(names), *p3 = profile__new(names);
	struct offcpu_stats s;
	uint64_t total = 0;

	cr_assert(p2 && p3);
	cr_assert_eq(offcpu__stack(oc, 17, 990, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 17, 1000, false), 0);

	cr_assert_eq(cut(prof, 4000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 3000);
	cr_assert_eq(profile__total(prof), 3000);
	s = stats();
	cr_assert_eq(s.off_ns, 3000);
	cr_assert_eq(s.weighted_ns, 3000);
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.threads, 1);
	total += s.weighted_ns;

	cr_assert_eq(cut(p2, 9000), 0);
	cr_assert_eq(count_of(p2, &app, fr, 2, NULL), 5000);
	cr_assert_eq(profile__total(p2), 5000);
	s = stats();
	cr_assert_eq(s.off_ns, 5000);
	cr_assert_eq(s.weighted_ns, 5000);
	cr_assert_eq(s.sampled, 0, "sampled in the window of its switch-out");
	cr_assert_eq(s.switches, 0);
	cr_assert_eq(s.threads, 1);
	total += s.weighted_ns;

	cr_assert_eq(offcpu__switch_in(oc, 17, 10000), 0);
	cr_assert_eq(cut(p3, 12000), 0);
	cr_assert_eq(count_of(p3, &app, fr, 2, NULL), 1000);
	cr_assert_eq(profile__total(p3), 1000);
	s = stats();
	cr_assert_eq(s.off_ns, 1000);
	cr_assert_eq(s.weighted_ns, 1000);
	cr_assert_eq(s.threads, 0, "nothing open, nothing armed: forgotten");
	total += s.weighted_ns;
	cr_assert_eq(total, 10000 - 1000);
	cr_assert_eq(kr.calls, 0);
	profile__delete(p2);
	profile__delete(p3);
}

/* Its part of the window makes the long wait one of the window's sampled
 * waits: the thread's other waits there share its stack. */
Test(offcpu, long_wait_stands_for_the_thread_in_the_next_window)
{
	uint32_t fr[] = {f_main, f_read};
	struct profile *p2 = profile__new(names);

	cr_assert_not_null(p2);
	cr_assert_eq(offcpu__stack(oc, 18, 1000, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 18, 1000, false), 0);
	cr_assert_eq(cut(prof, 2000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 1000);
	cr_assert_eq(offcpu__switch_in(oc, 18, 2500), 0);
	wait_for(100, 18, 3000, 4500);
	cr_assert_eq(cut(p2, 5000), 0);
	cr_assert_eq(count_of(p2, &app, fr, 2, NULL), 2000);
	cr_assert_eq(profile__total(p2), 2000);
	cr_assert_eq(kr.calls, 0);
	cr_assert_eq(stats().off_ns, 3000);
	profile__delete(p2);
}

Test(offcpu, unsampled_long_wait_goes_under_its_key_each_window)
{
	struct profile *p2 = profile__new(names);

	cr_assert_not_null(p2);
	cr_assert_eq(offcpu__switch_out(oc, 140, 19, 1000, false), 0);
	cr_assert_eq(cut(prof, 4000), 0);
	cr_assert_eq(unsampled_of(prof, &proc), 3000);
	cr_assert_eq(offcpu__switch_in(oc, 19, 5000), 0);
	cr_assert_eq(cut(p2, 6000), 0);
	cr_assert_eq(unsampled_of(p2, &proc), 1000);
	cr_assert_eq(kr.calls, 2);
	cr_assert_eq(kr.pid, 140);
	cr_assert_eq(kr.tid, 19);
	cr_assert_eq(stats().unsampled_ns, 4000);
	profile__delete(p2);
}

Test(offcpu, cut_never_counts_backwards)
{
	struct offcpu_stats s;

	cr_assert_eq(offcpu__switch_out(oc, 100, 18, 1000, false), 0);
	cr_assert_eq(cut(prof, 2000), 0);
	cr_assert_eq(cut(prof, 1500), 0);
	cr_assert_eq(cut(prof, 500), 0);
	/* a switch-in older than the last cut closes it with nothing more */
	cr_assert_eq(offcpu__switch_in(oc, 18, 1800), 0);
	cr_assert_eq(cut(prof, 3000), 0);
	cr_assert_eq(unsampled_of(prof, &proc), 1000);
	cr_assert_eq(kr.calls, 1, "only a window with time asks for a key");
	s = stats();
	cr_assert_eq(s.off_ns, 1000);
	cr_assert_eq(s.threads, 0);
}

Test(offcpu, switch_in_older_than_switch_out_is_ignored)
{
	cr_assert_eq(offcpu__switch_out(oc, 100, 19, 1000, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, 19, 900), 0);
	cr_assert_eq(cut(prof, 1000), 0);
	cr_assert_eq(stats().off_ns, 0);
	cr_assert_eq(offcpu__switch_in(oc, 19, 1300), 0);
	cr_assert_eq(cut(prof, 2000), 0);
	cr_assert_eq(stats().off_ns, 300, "still open until its own switch-in");
}

Test(offcpu, exit_ends_the_wait_and_ignores_the_last_switch_out)
{
	uint32_t fr[] = {f_main, f_read};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__stack(oc, 20, 90, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 20, 100, false), 0);
	offcpu__exit(oc, 20, 200);
	/* the dead thread's last switch, sampled: neither is kept */
	cr_assert_eq(offcpu__stack(oc, 20, 205, &app, fr, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 20, 210, false), 0);
	/* a switch-in at the exit's own time is not a new thread */
	cr_assert_eq(offcpu__switch_in(oc, 20, 200), 0);
	cr_assert_eq(cut(prof, 1000), 0);
	cr_assert_eq(profile__samples(prof), 0);
	cr_assert_eq(kr.calls, 0);
	s = stats();
	cr_assert_eq(s.switches, 1);
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.off_ns, 0);
	cr_assert_eq(s.weighted_ns, 0);
	cr_assert_eq(s.unmatched, 0);
	cr_assert_eq(s.threads, 0, "its last switch-out came: forgotten");
}

Test(offcpu, exited_threads_earlier_waits_still_count)
{
	uint32_t fr[] = {f_main, f_read};

	sampled_wait(100, 21, 100, 200, &app, fr, 2);
	wait_for(100, 21, 300, 600);
	cr_assert_eq(offcpu__switch_out(oc, 100, 21, 700, false), 0);
	offcpu__exit(oc, 21, 800);
	cr_assert_eq(cut(prof, 1000), 0);
	cr_assert_eq(count_of(prof, &app, fr, 2, NULL), 400);
	cr_assert_eq(stats().off_ns, 400);
}

/* Were the dead thread's switch-out taken, it would open a wait that no
 * switch-in ever closes. */
Test(offcpu, switch_out_after_exit_opens_nothing)
{
	struct offcpu_stats s;

	offcpu__exit(oc, 22, 100);
	cr_assert_eq(offcpu__switch_out(oc, 100, 22, 110, false), 0);
	cr_assert_eq(cut(prof, 200), 0);
	s = stats();
	cr_assert_eq(s.off_ns, 0);
	cr_assert_eq(s.switches, 0);
	cr_assert_eq(s.threads, 0);
	cr_assert_eq(profile__samples(prof), 0);
	/* a late record from before the exit opens nothing either */
	offcpu__exit(oc, 23, 500);
	cr_assert_eq(offcpu__switch_out(oc, 100, 23, 400, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, 23, 450), 0);
	cr_assert_eq(cut(prof, 1000), 0);
	s = stats();
	cr_assert_eq(s.switches, 1);
	cr_assert_eq(s.off_ns, 0);
}

Test(offcpu, tid_reused_after_exit)
{
	struct offcpu_stats s;

	/* a thread never seen exits: kept as a marker until its switch-out */
	offcpu__exit(oc, 24, 100);
	cr_assert_eq(cut(prof, 50), 0);
	cr_assert_eq(stats().threads, 1);
	cr_assert_eq(offcpu__switch_in(oc, 24, 150), 0);
	wait_for(150, 24, 200, 260);
	cr_assert_eq(cut(prof, 300), 0);
	cr_assert_eq(unsampled_of(prof, &proc), 60);
	cr_assert_eq(kr.pid, 150);
	cr_assert_eq(kr.tid, 24);
	s = stats();
	cr_assert_eq(s.switches, 1);
	cr_assert_eq(s.off_ns, 60);
	cr_assert_eq(s.threads, 0);
}

/* An exit just before a cut whose thread's last switch-out comes after it:
 * the marker outlives that cut, so the switch-out opens nothing. */
Test(offcpu, exit_marker_outlives_one_cut)
{
	struct offcpu_stats s;

	offcpu__exit(oc, 25, 100);
	offcpu__exit(oc, 26, 100);
	cr_assert_eq(cut(prof, 150), 0);
	cr_assert_eq(stats().threads, 2);
	cr_assert_eq(offcpu__switch_out(oc, 100, 25, 160, false), 0);
	cr_assert_eq(cut(prof, 300), 0);
	s = stats();
	cr_assert_eq(s.switches, 0);
	cr_assert_eq(s.off_ns, 0);
	cr_assert_eq(s.threads, 0, "exited before the previous cut");
}

Test(offcpu, stack_of_an_exited_thread)
{
	uint32_t fr[] = {f_main, f_read};
	struct offcpu_stats s;

	offcpu__exit(oc, 27, 100);
	/* from before the exit: its switch-out went by */
	cr_assert_eq(offcpu__stack(oc, 27, 90, &app, fr, 2), 0);
	/* at the exit: the dead thread's last switch's */
	cr_assert_eq(offcpu__stack(oc, 27, 100, &app, fr, 2), 0);
	s = stats();
	cr_assert_eq(s.unmatched, 1);
	cr_assert_eq(s.dropped, 0);
}

Test(offcpu, frame_ids_bounded)
{
	size_t quarter = OFFCPU_MAX_FRAME_IDS / 4;
	uint32_t *big = calloc(OFFCPU_MAX_FRAME_IDS + 1, sizeof(*big));
	uint32_t fr[] = {f_main};
	struct offcpu_stats s;
	int tid;

	cr_assert_not_null(big);
	cr_assert_eq(offcpu__stack(oc, 30, 10, &app, big, OFFCPU_MAX_FRAME_IDS + 1), -ENOSPC);
	cr_assert_eq(stats().dropped, 1);
	for (tid = 31; tid < 35; tid++)
		cr_assert_eq(offcpu__stack(oc, tid, 10, &app, big, quarter), 0);
	cr_assert_eq(offcpu__stack(oc, 35, 10, &app, fr, 1), -ENOSPC);
	cr_assert_eq(offcpu__stack(oc, 35, 10, &app, NULL, 0), 0, "an empty stack costs none");
	/* a stack taken by its wait still counts */
	cr_assert_eq(offcpu__switch_out(oc, 100, 31, 20, false), 0);
	cr_assert_eq(offcpu__stack(oc, 36, 10, &app, fr, 1), -ENOSPC);
	s = stats();
	cr_assert_eq(s.dropped, 2);
	cr_assert_eq(s.sampled, 1);
	/* an exit frees its thread's stack; a replaced one frees its own */
	offcpu__exit(oc, 32, 30);
	cr_assert_eq(offcpu__stack(oc, 36, 40, &app, big, quarter), 0);
	cr_assert_eq(offcpu__stack(oc, 33, 40, &app, big, quarter), 0);
	cr_assert_eq(offcpu__stack(oc, 37, 40, &app, fr, 1), -ENOSPC);
	/* a closed wait keeps its stack for the window's end */
	cr_assert_eq(offcpu__switch_in(oc, 31, 21), 0);
	cr_assert_eq(offcpu__stack(oc, 37, 40, &app, fr, 1), -ENOSPC);
	cr_assert_eq(cut(prof, 100), 0);
	cr_assert_eq(count_of(prof, &app, big, quarter, NULL), 1);
	/* and gives it back there */
	cr_assert_eq(offcpu__stack(oc, 37, 40, &app, fr, 1), 0);
	s = stats();
	cr_assert_eq(s.dropped, 2);
	cr_assert_eq(s.unmatched, 1);
	free(big);
}

Test(offcpu, threads_bounded)
{
	uint32_t fr[] = {f_main};
	struct offcpu_stats s;
	int tid;

	for (tid = 1; tid <= OFFCPU_MAX_THREADS; tid++)
		cr_assert_eq(offcpu__switch_out(oc, 100, tid, 100, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 0, 100, false), -ENOSPC);
	cr_assert_eq(offcpu__stack(oc, -5, 100, &app, fr, 1), -ENOSPC);
	offcpu__exit(oc, OFFCPU_MAX_THREADS + 1, 100);
	/* a preemption of an unknown thread needs no room */
	cr_assert_eq(offcpu__switch_out(oc, 100, OFFCPU_MAX_THREADS + 2, 100, true), 0);
	/* the threads held go on */
	cr_assert_eq(offcpu__switch_in(oc, 7, 150), 0);
	cr_assert_eq(offcpu__cut(oc, prof, 200, NULL, NULL), 0);
	s = stats();
	cr_assert_eq(s.dropped, 3);
	cr_assert_eq(s.switches, OFFCPU_MAX_THREADS + 1);
	cr_assert_eq(s.preempted, 1);
	cr_assert_eq(s.off_ns, 50 + (uint64_t)(OFFCPU_MAX_THREADS - 1) * 100);
	cr_assert_eq(s.weighted_ns, 0);
	cr_assert_eq(s.threads, OFFCPU_MAX_THREADS - 1);
	/* room again once one is forgotten */
	cr_assert_eq(offcpu__switch_out(oc, 100, 0, 300, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, -1, 300, false), -ENOSPC);
}

Test(offcpu, take_stats_zeroes_but_keeps_the_threads)
{
	uint32_t fr[] = {f_main};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__stack(oc, 40, 0, &app, fr, 1), 0);
	cr_assert_eq(offcpu__stack(oc, 40, 1, &app, fr, 1), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 40, 10, false), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 41, 10, true), 0);
	wait_for(100, 42, 5, 12);
	cr_assert_eq(offcpu__stack(oc, 43, 1, NULL, fr, 1), -EINVAL);
	cr_assert_eq(cut(prof, 20), 0);
	s = stats();
	cr_assert_eq(s.switches, 3);
	cr_assert_eq(s.preempted, 1);
	cr_assert_eq(s.sampled, 1);
	cr_assert_eq(s.unmatched, 1);
	cr_assert_eq(s.off_ns, 17);
	cr_assert_eq(s.weighted_ns, 17);
	cr_assert_eq(s.unsampled_ns, 7);
	cr_assert_eq(s.dropped, 1);
	cr_assert_eq(s.threads, 1);
	s = stats();
	cr_assert_eq(s.switches, 0);
	cr_assert_eq(s.preempted, 0);
	cr_assert_eq(s.sampled, 0);
	cr_assert_eq(s.unmatched, 0);
	cr_assert_eq(s.off_ns, 0);
	cr_assert_eq(s.weighted_ns, 0);
	cr_assert_eq(s.unsampled_ns, 0);
	cr_assert_eq(s.dropped, 0);
	cr_assert_eq(s.threads, 1, "a gauge, set at each cut");
	/* the open wait and its stack are still there */
	profile__reset(prof);
	cr_assert_eq(offcpu__switch_in(oc, 40, 50), 0);
	cr_assert_eq(cut(prof, 60), 0);
	cr_assert_eq(count_of(prof, &app, fr, 1, NULL), 30);
	s = stats();
	cr_assert_eq(s.off_ns, 30);
	cr_assert_eq(s.threads, 0);
}

Test(offcpu, cut_returns_profile_error_and_still_counts)
{
	uint32_t a[] = {f_main, f_read}, b[] = {f_main, f_lock};
	struct offcpu_stats s;

	profile__set_max_stacks(prof, 1);
	cr_assert_eq(offcpu__stack(oc, 50, 0, &app, a, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 50, 0, false), 0);
	cr_assert_eq(offcpu__stack(oc, 51, 0, &app, b, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 51, 0, false), 0);
	cr_assert_eq(cut(prof, 100), -ENOSPC);
	s = stats();
	cr_assert_eq(s.off_ns, 200);
	/* given, as the profile's samples count it, dropped or not */
	cr_assert_eq(s.weighted_ns, 200);
	cr_assert_eq(profile__samples(prof), 200);
	cr_assert_eq(profile__dropped(prof), 100);
}

/* A group's key and a stack, as strings ("" for id 0). */
struct strkey {
	const char *service, *exe, *comm, *thread, *user;
};

struct strcheck {
	const struct strtab *t;
	const char *const *want;
	size_t n;
	uint64_t count;
};

static const char *str_or_empty(const struct strtab *t, uint32_t i)
{
	const char *s = i ? strtab__str(t, i) : "";

	return s ? s : "(bad id)";
}

static int visit_strings(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct strcheck *c = ctx;
	size_t k;

	if (n != c->n)
		return 0;
	for (k = 0; k < n; k++)
		if (strcmp(str_or_empty(c->t, frames[k]), c->want[k]) != 0)
			return 0;
	c->count += count;
	return 0;
}

/* What p, on table t, holds for the stack of frames want[0..n) in the
 * group of key k, all compared by their strings. */
static uint64_t count_by_strings(const struct profile *p, const struct strtab *t,
				 const struct strkey *k, const char *const *want, size_t n)
{
	struct strcheck c = {.t = t, .want = want, .n = n};
	size_t g;

	for (g = 0; g < profile__ngroups(p); g++) {
		struct profile_group pg;

		profile__group(p, g, &pg);
		if (strcmp(str_or_empty(t, pg.key.service_name), k->service) != 0 ||
		    strcmp(str_or_empty(t, pg.key.exe), k->exe) != 0 ||
		    strcmp(str_or_empty(t, pg.key.comm), k->comm) != 0 ||
		    strcmp(str_or_empty(t, pg.key.thread), k->thread) != 0 ||
		    strcmp(str_or_empty(t, pg.key.user), k->user) != 0)
			continue;
		cr_assert_eq(profile__foreach_stack(p, g, visit_strings, &c), 0);
	}
	return c.count;
}

static uint32_t id_in(struct strtab *t, const char *s)
{
	uint32_t i;

	cr_assert_eq(strtab__intern_cstr(t, s, &i), 0);
	return i;
}

Test(offcpu, remap_names_rewrites_every_kept_id)
{
	static const char *const s_closed[] = {"r_main", "r_read"};
	static const char *const s_open[] = {"r_main", "r_lock"};
	static const char *const s_armed[] = {"r_read"};
	static const char *const s_unsampled[] = {OFFCPU_UNSAMPLED_FRAME};
	static const struct strkey k_plain = {"r_svc", "r_exe", "r_app", "", ""};
	static const struct strkey k_named = {"r_svc", "r_exe", "r_app", "worker", "alice"};
	struct profile_key plain, named;
	struct strtab *to = strtab__new();
	struct strtab_remap r;
	struct profile *p2;
	uint32_t a[2], b[2], c[1];
	char junk[32];
	int i;

	cr_assert_not_null(to);
	/* Strings no one holds, before the held ones: the old ids of these
	 * are all past what the new table can number, so an id left as it
	 * was cannot pass for its string. */
	for (i = 0; i < 100; i++) {
		snprintf(junk, sizeof(junk), "unused %d", i);
		id(junk);
	}
	memset(&plain, 0, sizeof(plain));
	plain.service_name = id("r_svc");
	plain.exe = id("r_exe");
	plain.comm = id("r_app");
	plain.pid = -1;
	named = plain;
	named.thread = id("worker");
	named.user = id("alice");
	a[0] = b[0] = id("r_main");
	a[1] = c[0] = id("r_read");
	b[1] = id("r_lock");

	/* a wait closed in the window, its stack held for the window's end */
	sampled_wait(100, 1, 100, 200, &named, a, 2);
	/* an open one, with its stack */
	cr_assert_eq(offcpu__stack(oc, 2, 150, &plain, b, 2), 0);
	cr_assert_eq(offcpu__switch_out(oc, 100, 2, 150, false), 0);
	/* a stack armed for a switch-out still to come */
	cr_assert_eq(offcpu__stack(oc, 3, 300, &plain, c, 1), 0);
	/* a wait with no stack: the unsampled frame */
	wait_for(100, 4, 100, 400);

	cr_assert_eq(strtab_remap__init(&r, names, to), 0);
	cr_assert_eq(offcpu__remap_names(oc, &r), 0);
	strtab_remap__commit(&r);
	cr_assert_eq(offcpu__remap_names(oc, &r), 0);
	cr_assert_eq(r.missed, 0, "every id of the commit pass was collected");
	strtab_remap__fini(&r);
	/* exactly the strings held: the unsampled frame, the keys' five,
	 * three frames */
	cr_assert_eq(strtab__count(to), 9);
	cr_assert_gt(f_unsampled, 9);

	cr_assert_eq(offcpu__switch_out(oc, 100, 3, 350, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, 3, 450), 0);
	cr_assert_eq(offcpu__switch_in(oc, 2, 650), 0);
	/* key_of answers in the new table's ids too */
	memset(&proc, 0, sizeof(proc));
	proc.service_name = id_in(to, "r_svc");
	proc.exe = id_in(to, "r_exe");
	proc.comm = id_in(to, "r_app");
	proc.pid = -1;
	cr_assert_eq(strtab__count(to), 9, "lookups, not new strings");
	p2 = profile__new(to);
	cr_assert_not_null(p2);
	cr_assert_eq(cut(p2, 1000), 0);
	cr_assert_eq(count_by_strings(p2, to, &k_named, s_closed, 2), 100);
	cr_assert_eq(count_by_strings(p2, to, &k_plain, s_open, 2), 500);
	cr_assert_eq(count_by_strings(p2, to, &k_plain, s_armed, 1), 100);
	cr_assert_eq(count_by_strings(p2, to, &k_plain, s_unsampled, 1), 300);
	cr_assert_eq(profile__total(p2), 1000);
	cr_assert_eq(kr.calls, 1);
	cr_assert_eq(kr.tid, 4);
	profile__delete(p2);
	strtab__delete(to);
}

/* The sched_switch tracepoint's order (before 4.3): the switch-out comes
 * first and the sampled stack of the same switch just after it; the stack
 * is the open wait's. Later than OFFCPU_STACK_MATCH_NS after the switch-out
 * it is armed for the next one, as with switch records. */
Test(offcpu, stack_just_after_its_switch_out_is_the_waits)
{
	uint32_t a[] = {f_main, f_read}, b[] = {f_main, f_lock};
	struct offcpu_stats s;

	cr_assert_eq(offcpu__switch_out(oc, 100, 12, 1000, false), 0);
	cr_assert_eq(offcpu__stack(oc, 12, 1003, &app, a, 2), 0);
	cr_assert_eq(offcpu__switch_in(oc, 12, 1300), 0);
	/* a second stack for the same wait is not taken in its place */
	cr_assert_eq(offcpu__switch_out(oc, 100, 12, 2000, false), 0);
	cr_assert_eq(offcpu__stack(oc, 12, 2001, &app, b, 2), 0);
	cr_assert_eq(offcpu__stack(oc, 12, 2002, &app, a, 2), 0);
	cr_assert_eq(offcpu__switch_in(oc, 12, 2100), 0);
	cr_assert_eq(cut(prof, 5000), 0);
	cr_assert_eq(count_of(prof, &app, a, 2, NULL), 300);
	cr_assert_eq(count_of(prof, &app, b, 2, NULL), 100);
	s = stats();
	cr_assert_eq(s.sampled, 2);
	cr_assert_eq(s.off_ns, 400);
	cr_assert_eq(s.unmatched, 0, "the armed one is still waiting for its switch-out");
}

/* A switch-in the kernel did not report: the thread's next switch-out
 * ends its wait there (counted), once; with the switch-in seen there is
 * nothing to end. */
Test(offcpu, late_switch_in_ends_the_wait_at_the_next_switch_out)
{
	struct offcpu_stats s;

	cr_assert_eq(offcpu__late_switch_in(oc, 13, 500), 0, "an unknown thread");
	cr_assert_eq(offcpu__switch_out(oc, 100, 13, 1000, false), 0);
	cr_assert_eq(offcpu__late_switch_in(oc, 13, 900), 0, "before its switch-out");
	cr_assert_eq(offcpu__late_switch_in(oc, 13, 1500), 1);
	cr_assert_eq(offcpu__switch_out(oc, 100, 13, 1500, false), 0);
	cr_assert_eq(offcpu__switch_in(oc, 13, 1600), 0);
	cr_assert_eq(offcpu__late_switch_in(oc, 13, 1700), 0, "its switch-in came");
	cr_assert_eq(cut(prof, 5000), 0);
	s = stats();
	cr_assert_eq(s.off_ns, 600);
	cr_assert_eq(s.late_ins, 1);
	cr_assert_eq(s.switches, 2);
}
