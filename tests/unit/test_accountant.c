/* runtimes/accountant.c: what readers may read and name, per process and
 * per user. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/strtab.h"
#include "runtimes/accountant.h"

#define SEC 1000000000ull

static const struct accountant_limits small = { 10, 25, 4, 1u << 20, 0, 0, 0 };

static struct ledger *ledger_of(struct accountant *a, uid_t uid)
{
	struct ledger *l = NULL;

	cr_assert_eq(accountant__ledger(a, uid, &l), 0);
	return l;
}

/* Reads granted in one second to a ledger, each operation reading once. */
static unsigned reads_granted(struct ledger *l, uint64_t now, unsigned tries)
{
	unsigned ok = 0, i;

	for (i = 0; i < tries; i++)
		if (ledger__may_read(l, now)) {
			ledger__charge_read(l, 64);
			ok++;
		}
	return ok;
}

Test(accountant, reads_are_bounded_per_process_and_per_user)
{
	struct strtab *t = strtab__new();
	struct accountant *a = accountant__new(&small, t);
	struct ledger *p1 = ledger_of(a, 1000), *p2 = ledger_of(a, 1000);
	struct ledger *p3 = ledger_of(a, 1000), *other = ledger_of(a, 1001);
	struct ledger_stats st;

	cr_assert_eq(reads_granted(p1, 5 * SEC, 100), 10, "a process has its own share");
	cr_assert_eq(reads_granted(p2, 5 * SEC, 100), 10);
	cr_assert_eq(reads_granted(p3, 5 * SEC, 100), 5, "then its user's share runs out");
	cr_assert_eq(reads_granted(other, 5 * SEC, 100), 10, "another user is not starved");
	cr_assert_eq(reads_granted(p3, 6 * SEC, 100), 10, "the next second reads again");
	ledger__stats(p1, &st);
	cr_assert_eq(st.reads, 10);
	cr_assert_eq(st.bytes, 640);
	cr_assert_eq(st.refused_reads, 90);
	ledger__delete(p1);
	ledger__delete(p2);
	ledger__delete(p3);
	ledger__delete(other);
	accountant__delete(a);
	strtab__delete(t);
}

/* Root's processes are what the host runs: bounded per process only. */
Test(accountant, root_is_bounded_per_process_only)
{
	struct strtab *t = strtab__new();
	struct accountant *a = accountant__new(&small, t);
	struct ledger *l[5];
	unsigned i, total = 0;

	for (i = 0; i < 5; i++) {
		l[i] = ledger_of(a, 0);
		total += reads_granted(l[i], SEC, 100);
	}
	cr_assert_eq(total, 50);
	for (i = 0; i < 5; i++)
		ledger__delete(l[i]);
	accountant__delete(a);
	strtab__delete(t);
}

Test(accountant, names_past_a_users_share_are_the_marker)
{
	struct strtab *t = strtab__new();
	struct accountant *a = accountant__new(&small, t);
	struct ledger *l = ledger_of(a, 1000), *root = ledger_of(a, 0);
	struct ledger_stats st;
	uint32_t id, again;
	char name[32];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		cr_assert_eq(ledger__intern_frame(l, t, name, "_[x]", &id), 0);
		cr_assert_str_eq(strtab__str(t, id), (snprintf(name, sizeof(name), "f%d_[x]", i), name));
	}
	cr_assert_eq(ledger__intern_frame(l, t, "f4", "_[x]", &id), 0);
	cr_assert_str_eq(strtab__str(t, id), ACCOUNTANT_NAMES_MARKER);
	ledger__stats(l, &st);
	cr_assert_eq(st.names, 4);
	cr_assert_eq(st.refused_names, 1);
	cr_assert_gt(st.name_bytes, 4 * 6);
	/* root is not bounded */
	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		cr_assert_eq(ledger__intern_frame(root, t, name, "", &id), 0);
		cr_assert_str_eq(strtab__str(t, id), name);
	}
	/* a new window, a new share */
	accountant__new_window(a);
	cr_assert_eq(ledger__intern_frame(l, t, "f4", "_[x]", &again), 0);
	cr_assert_str_eq(strtab__str(t, again), "f4_[x]");
	ledger__delete(l);
	ledger__delete(root);
	accountant__delete(a);
	strtab__delete(t);
}

/* Without a ledger (tests of readers on images) nothing is bounded. */
Test(accountant, no_ledger_no_bound)
{
	struct strtab *t = strtab__new();
	uint32_t id;

	cr_assert(ledger__may_read(NULL, 0));
	ledger__charge_read(NULL, 10);
	cr_assert_eq(ledger__intern_frame(NULL, t, "x", "_[y]", &id), 0);
	cr_assert_str_eq(strtab__str(t, id), "x_[y]");
	strtab__delete(t);
}

/* Readers' time is a user's to spend, up to a share; all users but root
 * together have a larger one, and root none. */
Test(accountant, reader_time_is_bounded_per_user_and_for_all_users)
{
	struct accountant_limits lim = { 1000, 1000, 4, 1u << 20, 30, 50, 0 };
	struct strtab *t = strtab__new();
	struct accountant *a = accountant__new(&lim, t);
	struct ledger *u1 = ledger_of(a, 1000), *u2 = ledger_of(a, 1001), *u3 = ledger_of(a, 1002);
	struct ledger *root = ledger_of(a, 0);
	int i;

	cr_assert(ledger__may_read(u1, SEC));
	ledger__charge_cpu(u1, 30);
	cr_assert_not(ledger__may_read(u1, SEC), "the user's share is spent");
	cr_assert(ledger__may_read(u2, SEC), "another user's is not");
	ledger__charge_cpu(u2, 20);
	cr_assert_not(ledger__may_read(u3, SEC), "all users' share is spent");
	for (i = 0; i < 10; i++) {
		cr_assert(ledger__may_read(root, SEC), "root is bounded by reads only");
		ledger__charge_cpu(root, 1000);
	}
	cr_assert(ledger__may_read(u1, 2 * SEC), "the next second has time again");
	cr_assert(ledger__may_read(u3, 2 * SEC));
	/* every ns charged is the readers' time, past their ledgers too */
	cr_assert_eq(accountant__cpu_ns(a), 30 + 20 + 10 * 1000);
	ledger__delete(u1);
	ledger__delete(u2);
	ledger__charge_cpu(u3, 7);
	cr_assert_eq(accountant__cpu_ns(a), 30 + 20 + 10 * 1000 + 7);
	cr_assert_eq(accountant__cpu_ns(NULL), 0);
	ledger__delete(u3);
	ledger__delete(root);
	accountant__delete(a);
	strtab__delete(t);
}

Test(accountant, readers_open_at_once_are_bounded_per_user)
{
	struct accountant_limits lim = { 10, 25, 4, 1u << 20, 0, 0, 3 };
	struct strtab *t = strtab__new();
	struct accountant *a = accountant__new(&lim, t);
	struct ledger *l[4], *other, *root[5], *again = NULL;
	int i;

	for (i = 0; i < 3; i++)
		l[i] = ledger_of(a, 1000);
	cr_assert_eq(accountant__ledger(a, 1000, &l[3]), -EDQUOT);
	other = ledger_of(a, 1001);
	for (i = 0; i < 5; i++)
		root[i] = ledger_of(a, 0);
	ledger__delete(l[0]);
	cr_assert_eq(accountant__ledger(a, 1000, &again), 0, "a closed reader gives its place back");
	ledger__delete(again);
	for (i = 1; i < 3; i++)
		ledger__delete(l[i]);
	for (i = 0; i < 5; i++)
		ledger__delete(root[i]);
	ledger__delete(other);
	accountant__delete(a);
	strtab__delete(t);
}

Test(accountant, defaults)
{
	struct strtab *t = strtab__new();
	struct accountant *a = accountant__new(NULL, t);
	const struct accountant_limits *lim = accountant__limits(a);

	cr_assert_eq(lim->user_readers, ACCOUNTANT_USER_READERS);
	cr_assert_eq(lim->user_cpu_ns_per_sec, ACCOUNTANT_USER_CPU_NS_PER_SEC);
	cr_assert_lt(lim->user_cpu_ns_per_sec, lim->users_cpu_ns_per_sec);
	accountant__delete(a);
	strtab__delete(t);
}

/* A large copy (a thread's stack) counts as one read per 8 KiB and one for
 * the call, so the per-second shares bound the bytes copied too. */
Test(accountant, large_copies_weigh_by_their_bytes)
{
	struct strtab *t = strtab__new();
	struct accountant_limits lim = { 100, 1000, 4, 1u << 20, 0, 0, 0 };
	struct accountant *a = accountant__new(&lim, t);
	struct ledger *l = ledger_of(a, 1000);
	struct ledger_stats st;
	unsigned ok = 0;

	/* 64 KiB: 1 + 8 reads' worth; 100 a second allow 12 such copies */
	while (ledger__may_read(l, 3 * SEC) && ok < 1000) {
		ledger__charge_copy(l, 64u << 10);
		ok++;
	}
	cr_assert_eq(ok, 12);
	ledger__stats(l, &st);
	cr_assert_eq(st.reads, 12, "calls, not their weight");
	cr_assert_eq(st.bytes, 12ull * (64u << 10));
	cr_assert_eq(st.refused_reads, 1);
	/* a short read or none still costs the call */
	cr_assert(ledger__may_read(l, 4 * SEC));
	ledger__charge_copy(l, 0);
	ledger__charge_copy(NULL, 100);
	ledger__delete(l);
	accountant__delete(a);
	strtab__delete(t);
}
