/* runtimes/accountant.c: what readers may read and name, per process and
 * per user. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "common/strtab.h"
#include "runtimes/accountant.h"

#define SEC 1000000000ull

static const struct accountant_limits small = { 10, 25, 4, 1u << 20 };

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
	struct ledger *p1 = accountant__ledger(a, 1000), *p2 = accountant__ledger(a, 1000);
	struct ledger *p3 = accountant__ledger(a, 1000), *other = accountant__ledger(a, 1001);
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
		l[i] = accountant__ledger(a, 0);
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
	struct ledger *l = accountant__ledger(a, 1000), *root = accountant__ledger(a, 0);
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

/* A large copy (a thread's stack) counts as one read per 8 KiB and one for
 * the call, so the per-second shares bound the bytes copied too. */
Test(accountant, large_copies_weigh_by_their_bytes)
{
	struct strtab *t = strtab__new();
	struct accountant_limits lim = { 100, 1000, 4, 1u << 20 };
	struct accountant *a = accountant__new(&lim, t);
	struct ledger *l = accountant__ledger(a, 1000);
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
