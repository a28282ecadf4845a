/* collector/thread_names.c: a process's thread names, bounded, read from
 * /proc at a limited rate, remapped with the names table. */
#include "config.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "collector/thread_names.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "tests/unit/named_thread.h"

#define NS_PER_SEC 1000000000ull

static uint32_t id(struct strtab *names, const char *s)
{
	uint32_t i;

	cr_assert_eq(strtab__intern_cstr(names, s, &i), 0);
	return i;
}

Test(thread_names, set_get_forget_clear)
{
	struct strtab *names = strtab__new();
	struct thread_names *t = thread_names__new();

	cr_assert(names && t);
	cr_assert_eq(thread_names__get(t, 101), 0, "unknown at first");
	cr_assert_eq(thread_names__set(t, 101, id(names, "worker-a")), 0);
	cr_assert_eq(thread_names__set(t, 102, id(names, "worker-b")), 0);
	cr_assert_eq(thread_names__get(t, 101), id(names, "worker-a"));
	/* a rename replaces the name */
	cr_assert_eq(thread_names__set(t, 101, id(names, "renamed")), 0);
	cr_assert_eq(thread_names__get(t, 101), id(names, "renamed"));
	cr_assert_eq(thread_names__count(t), 2);
	/* 0 is no name: nothing kept */
	cr_assert_eq(thread_names__set(t, 103, 0), 0);
	cr_assert_eq(thread_names__count(t), 2);
	thread_names__forget(t, 101);
	cr_assert_eq(thread_names__get(t, 101), 0);
	cr_assert_eq(thread_names__get(t, 102), id(names, "worker-b"));
	thread_names__clear(t);
	cr_assert_eq(thread_names__count(t), 0);
	/* NULL is a table that keeps nothing */
	cr_assert_eq(thread_names__get(NULL, 102), 0);
	thread_names__forget(NULL, 102);
	thread_names__clear(NULL);
	cr_assert_eq(thread_names__count(NULL), 0);
	thread_names__delete(t);
	thread_names__delete(NULL);
	strtab__delete(names);
}

/* A process with more threads than the bound costs the bound: the table is
 * emptied and starts again, never grows past it. */
Test(thread_names, bounded_per_process)
{
	struct strtab *names = strtab__new();
	struct thread_names *t = thread_names__new();
	uint32_t name = id(names, "pool");
	int tid;

	for (tid = 1; tid <= 100000; tid++) {
		cr_assert_eq(thread_names__set(t, tid, name), 0);
		cr_assert_leq(thread_names__count(t), THREAD_NAMES_MAX);
	}
	cr_assert_eq(thread_names__overflows(t), 100000 / THREAD_NAMES_MAX);
	cr_assert_eq(thread_names__count(t), 100000 % THREAD_NAMES_MAX);
	cr_assert_eq(thread_names__get(t, 100000), name, "the latest is kept");
	cr_assert_eq(thread_names__get(t, 1), 0, "the oldest went with the first emptying");
	thread_names__clear(t);
	/* renaming a thread already kept does not empty a full table */
	for (tid = 1; tid <= THREAD_NAMES_MAX; tid++)
		cr_assert_eq(thread_names__set(t, tid, name), 0);
	cr_assert_eq(thread_names__set(t, 7, id(names, "other")), 0);
	cr_assert_eq(thread_names__count(t), THREAD_NAMES_MAX);
	thread_names__delete(t);
	strtab__delete(names);
}

Test(thread_names, reads_are_rate_limited)
{
	struct thread_names *t = thread_names__new();
	const uint64_t t0 = 5 * NS_PER_SEC;
	int i;

	for (i = 0; i < THREAD_NAMES_READS_PER_SEC; i++)
		cr_assert(thread_names__may_read(t, t0 + (uint64_t)i), "read %d", i);
	cr_assert_not(thread_names__may_read(t, t0 + NS_PER_SEC - 1), "past the limit within the second");
	cr_assert(thread_names__may_read(t, t0 + NS_PER_SEC), "a new second");
	/* a clock that went back starts a new second rather than locking out */
	cr_assert(thread_names__may_read(t, 1));
	thread_names__delete(t);
}

/* A thread no record named is read from /proc/PID/task/TID/comm, once. */
Test(thread_names, read_from_proc_and_kept)
{
	struct strtab *names = strtab__new();
	struct thread_names *t = thread_names__new();
	uint64_t load = 0;
	struct named_thread n;
	uint32_t name;

	named_thread__start(&n, "reader-t");
	cr_assert_eq(thread_names__read(names, getpid(), n.tid, &name), 0);
	cr_assert_str_eq(strtab__str(names, name), "reader-t");
	cr_assert_eq(thread_names__lookup(t, names, getpid(), n.tid, &load), name);
	cr_assert_eq(thread_names__get(t, n.tid), name, "kept once read");
	cr_assert_eq(thread_names__lookup(NULL, names, getpid(), n.tid, &load), 0,
		     "nothing kept: nothing read");
	named_thread__stop(&n);
	/* a thread gone: no name, nothing kept */
	cr_assert_lt(thread_names__read(names, getpid(), 0x3ffffff0, &name), 0);
	cr_assert_eq(thread_names__lookup(t, names, getpid(), 0x3ffffff0, &load), 0);
	cr_assert_eq(thread_names__count(t), 1);
	thread_names__delete(t);
	strtab__delete(names);
}

/* Names survive a compaction of the names table under their new ids. */
Test(thread_names, remapped_with_the_names)
{
	struct strtab *from = strtab__new(), *to = strtab__new();
	struct thread_names *t = thread_names__new();
	struct strtab_remap r;

	id(from, "garbage");
	cr_assert_eq(thread_names__set(t, 11, id(from, "worker-a")), 0);
	cr_assert_eq(thread_names__set(t, 12, id(from, "")), 0);
	cr_assert_eq(strtab_remap__init(&r, from, to), 0);
	cr_assert_eq(thread_names__remap(t, &r), 0);
	strtab_remap__commit(&r);
	cr_assert_eq(thread_names__remap(t, &r), 0);
	cr_assert_eq(r.missed, 0);
	cr_assert_str_eq(strtab__str(to, thread_names__get(t, 11)), "worker-a");
	cr_assert_str_eq(strtab__str(to, thread_names__get(t, 12)), "");
	cr_assert_eq(strtab__count(to), 2, "only what the table holds");
	strtab_remap__fini(&r);
	cr_assert_eq(thread_names__remap(NULL, &r), 0);
	thread_names__delete(t);
	strtab__delete(from);
	strtab__delete(to);
}
