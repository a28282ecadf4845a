/* collector/proctable.c: address maps kept from records, the binaries they
 * map, and the threads' names. */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "collector/binary.h"
#include "collector/proctable.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "tests/unit/named_thread.h"

/* [start, end) and file offset of mapping i of p. */
static void map_at(const struct process *p, size_t i, uint64_t *start, uint64_t *end, uint64_t *pgoff)
{
	const struct proc_map *m = process__map(p, i);

	cr_assert_not_null(m, "mapping %zu", i);
	proc_map__range(m, start, end, pgoff);
}

/* The process table keeps non-overlapping sorted maps under MMAP records. */
Test(proctable, mmap_overlaps_split_and_replace)
{
	struct strtab *names = strtab__new();
	struct binaries *bs = binaries__new(names);
	struct proctable *pt = proctable__new(names, bs);
	struct process *p;
	uint64_t start, end, pgoff;
	const int pid = 0x3ffffff1; /* no such process: nothing read from /proc */

	cr_assert_eq(proctable__mmap(pt, pid, 0x1000, 0x9000, 0, 0, 0, "/bin/a", 1), 0);
	/* punch a hole in the middle */
	cr_assert_eq(proctable__mmap(pt, pid, 0x4000, 0x1000, 0, 0, 0, "/bin/b", 1), 0);
	p = proctable__find(pt, pid);
	cr_assert_not_null(p);
	cr_assert_eq(process__nmaps(p), 3);
	map_at(p, 0, &start, &end, &pgoff);
	cr_assert_eq(start, 0x1000);
	cr_assert_eq(end, 0x4000);
	map_at(p, 1, &start, &end, &pgoff);
	cr_assert_eq(start, 0x4000);
	cr_assert_eq(end, 0x5000);
	map_at(p, 2, &start, &end, &pgoff);
	cr_assert_eq(start, 0x5000);
	cr_assert_eq(end, 0xa000);
	cr_assert_eq(pgoff, 0x4000, "the right part keeps its file offset");
	/* non-exec mappings are not tracked */
	cr_assert_eq(proctable__mmap(pt, pid, 0x20000, 0x1000, 0, 0, 0, "/bin/c", 0), 0);
	cr_assert_eq(process__nmaps(p), 3);
	/* exec resets the address space */
	cr_assert_eq(proctable__comm(pt, pid, pid, "newprog", 1), 0);
	cr_assert_eq(process__nmaps(p), 0);
	cr_assert(process__exe_pending(p));
	cr_assert_eq(proctable__mmap(pt, pid, 0x400000, 0x1000, 0, 0, 0, "/usr/bin/newprog", 1), 0);
	cr_assert_str_eq(strtab__str(names, process__exe(p)), "/usr/bin/newprog");
	cr_assert_str_eq(strtab__str(names, process__comm(p)), "newprog");
	proctable__delete(pt);
	binaries__delete(bs);
	strtab__delete(names);
}

Test(proctable, fork_copies_maps_and_exit_reaps_later)
{
	struct strtab *names = strtab__new();
	struct binaries *bs = binaries__new(names);
	struct proctable *pt = proctable__new(names, bs);
	const int parent = 0x3ffffff2, child = 0x3ffffff3;
	struct process *c;

	proctable__mmap(pt, parent, 0x1000, 0x1000, 0, 0, 0, "/bin/a", 1);
	proctable__comm(pt, parent, parent, "parent", 0);
	cr_assert_eq(proctable__fork(pt, child, parent, child, parent), 0);
	c = proctable__find(pt, child);
	cr_assert_not_null(c);
	cr_assert_eq(process__nmaps(c), 1);
	cr_assert_str_eq(strtab__str(names, process__comm(c)), "parent");
	/* a thread of the parent is not a process */
	cr_assert_eq(proctable__fork(pt, parent, parent, parent + 100, parent), 0);
	cr_assert_eq(proctable__count(pt), 2);
	proctable__exit(pt, child, child, 1000);
	proctable__reap(pt, 1500, 1000);
	cr_assert_not_null(proctable__find(pt, child), "kept during the grace period");
	proctable__reap(pt, 3000, 1000);
	cr_assert_null(proctable__find(pt, child));
	cr_assert_not_null(proctable__find(pt, parent));
	proctable__delete(pt);
	binaries__delete(bs);
	strtab__delete(names);
}

/* A mapping of this very test binary resolves to an ELF binary whose bias
 * turns a function address into its ELF vaddr. */
void proctable_test_marker(void);
__attribute__((noinline)) void proctable_test_marker(void) { __asm__ volatile(""); }

Test(proctable, resolves_own_binary)
{
	struct strtab *names = strtab__new();
	struct binaries *bs = binaries__new(names);
	struct proctable *pt = proctable__new(names, bs);
	struct process *p;
	struct proc_map *m;
	uint64_t pc = (uint64_t)(uintptr_t)&proctable_test_marker;

	cr_assert_eq(proctable__seed(pt, getpid()), 1);
	p = proctable__find(pt, getpid());
	cr_assert_not_null(p);
	m = process__find_map(pt, p, pc);
	cr_assert_not_null(m);
	cr_assert_not_null(proc_map__binary(m));
	cr_assert(binary__is_elf(proc_map__binary(m)));
	cr_assert_str_eq(binary__module(proc_map__binary(m)), "test_proctable");
	/* the same file through another process path is the same object */
	cr_assert_eq(binaries__count(bs), 1);
	proctable__delete(pt);
	binaries__delete(bs);
	strtab__delete(names);
}

/* Binaries are freed once no live process maps them (after a grace period),
 * so memory follows the binaries in use, not every binary ever seen. The
 * process is a real one (a child of the test, so its exit can be real too:
 * the table checks /proc for threads that outlive the main one). */
Test(proctable, binaries_freed_when_unmapped)
{
	struct strtab *names = strtab__new();
	struct binaries *bs = binaries__new(names);
	struct proctable *pt = proctable__new(names, bs);
	const int child = 0x3ffffff4;
	uint64_t pc = (uint64_t)(uintptr_t)&proctable_test_marker;
	struct process *p;
	pid_t real = fork();

	cr_assert(real >= 0);
	if (real == 0) {
		for (;;)
			pause();
	}
	cr_assert_eq(proctable__seed(pt, real), 1);
	p = proctable__find(pt, real);
	cr_assert_not_null(proc_map__binary(process__find_map(pt, p, pc)));
	cr_assert_eq(binaries__count(bs), 1);

	/* a forked child shares the binary: its exit does not free it */
	cr_assert_eq(proctable__fork(pt, child, real, child, real), 0);
	proctable__exit(pt, child, child, 1000);
	proctable__reap(pt, 10000, 1000);
	cr_assert_null(proctable__find(pt, child));
	cr_assert_eq(binaries__trim(bs, UINT64_MAX / 2, 0, 0), 0, "freed while still mapped");
	cr_assert_eq(binaries__count(bs), 1);

	/* the last process mapping it goes: freed after the grace period only */
	kill(real, SIGKILL);
	waitpid(real, NULL, 0);
	proctable__exit(pt, real, real, 1000);
	proctable__reap(pt, 10000, 1000);
	cr_assert_null(proctable__find(pt, real));
	cr_assert_eq(binaries__trim(bs, 0, UINT64_MAX, 64), 0, "freed during its grace period");
	cr_assert_eq(binaries__count(bs), 1);
	cr_assert_eq(binaries__trim(bs, UINT64_MAX / 2, 1, 64), 1);
	cr_assert_eq(binaries__count(bs), 0);

	/* seen again: opened again */
	cr_assert_eq(proctable__seed(pt, getpid()), 1);
	p = proctable__find(pt, getpid());
	cr_assert_not_null(proc_map__binary(process__find_map(pt, p, pc)));
	cr_assert_eq(binaries__count(bs), 1);
	proctable__delete(pt);
	binaries__delete(bs);
	strtab__delete(names);
}

/* The name proctable__thread_name gives tid, NULL when none. */
static const char *thread_name(struct strtab *names, struct proctable *pt, struct process *p, int tid)
{
	uint32_t id = proctable__thread_name(pt, p, tid);

	return id ? strtab__str(names, id) : NULL;
}

/* Thread names follow the records: a rename names the thread (not the
 * process), a new thread has its creator's name, an exit drops the name, an
 * exec ends every other thread; the main thread's name is the process's. */
Test(proctable, thread_names_from_records)
{
	struct strtab *names = strtab__new();
	struct binaries *bs = binaries__new(names);
	struct proctable *pt = proctable__new(names, bs);
	const int pid = 0x3ffffff5; /* no such process: nothing read from /proc */
	struct process *p;

	proctable__keep_thread_names(pt, 1);
	cr_assert_eq(proctable__comm(pt, pid, pid, "app", 0), 0);
	p = proctable__find(pt, pid);
	cr_assert_not_null(p);
	cr_assert_eq(proctable__fork(pt, pid, pid, pid + 1, pid), 0);
	cr_assert_str_eq(thread_name(names, pt, p, pid + 1), "app", "inherited from main");
	cr_assert_eq(proctable__comm(pt, pid, pid + 1, "worker-a", 0), 0);
	cr_assert_eq(proctable__fork(pt, pid, pid, pid + 2, pid + 1), 0);
	cr_assert_str_eq(thread_name(names, pt, p, pid + 2), "worker-a", "inherited from its creator");
	cr_assert_eq(proctable__comm(pt, pid, pid + 2, "worker-b", 0), 0);
	/* the main thread renamed: the process's comm, and its name */
	cr_assert_eq(proctable__comm(pt, pid, pid, "app2", 0), 0);
	cr_assert_eq(proctable__fork(pt, pid, pid, pid + 3, pid), 0);
	cr_assert_str_eq(strtab__str(names, process__comm(p)), "app2", "threads do not rename the process");
	cr_assert_str_eq(thread_name(names, pt, p, pid), "app2");
	cr_assert_str_eq(thread_name(names, pt, p, pid + 1), "worker-a");
	cr_assert_str_eq(thread_name(names, pt, p, pid + 2), "worker-b");
	cr_assert_str_eq(thread_name(names, pt, p, pid + 3), "app2");
	cr_assert_null(thread_name(names, pt, p, pid + 9), "never named, not in /proc: unknown");
	proctable__exit(pt, pid, pid + 1, 100);
	cr_assert_null(thread_name(names, pt, p, pid + 1), "dropped at its exit");
	cr_assert_not(process__exited(p));
	/* exec: the thread that called it is the main one, the others end */
	cr_assert_eq(proctable__comm(pt, pid, pid, "newprog", 1), 0);
	cr_assert_null(thread_name(names, pt, p, pid + 2));
	cr_assert_null(thread_name(names, pt, p, pid + 3));
	cr_assert_str_eq(thread_name(names, pt, p, pid), "newprog");
	proctable__delete(pt);
	binaries__delete(bs);
	strtab__delete(names);
}

/* Without keep_thread_names nothing per thread is kept. */
Test(proctable, thread_names_off_by_default)
{
	struct strtab *names = strtab__new();
	struct binaries *bs = binaries__new(names);
	struct proctable *pt = proctable__new(names, bs);
	const int pid = 0x3ffffff6;
	struct process *p;

	cr_assert_eq(proctable__comm(pt, pid, pid, "app", 0), 0);
	p = proctable__find(pt, pid);
	cr_assert_eq(proctable__fork(pt, pid, pid, pid + 1, pid), 0);
	cr_assert_eq(proctable__comm(pt, pid, pid + 1, "worker-a", 0), 0);
	cr_assert_null(thread_name(names, pt, p, pid + 1));
	cr_assert_str_eq(thread_name(names, pt, p, pid), "app");
	proctable__delete(pt);
	binaries__delete(bs);
	strtab__delete(names);
}

/* A thread no record named (it predates the table) is read from /proc;
 * its name is remapped when the names table is compacted. */
Test(proctable, thread_names_from_proc_and_remapped)
{
	struct strtab *names = strtab__new(), *to = strtab__new();
	struct binaries *bs = binaries__new(names);
	struct proctable *pt = proctable__new(names, bs);
	struct strtab_remap r;
	struct process *p;
	struct named_thread n;

	named_thread__start(&n, "before-us");
	proctable__keep_thread_names(pt, 1);
	cr_assert_eq(proctable__seed(pt, getpid()), 1);
	p = proctable__find(pt, getpid());
	cr_assert_str_eq(thread_name(names, pt, p, n.tid), "before-us");
	named_thread__stop(&n);
	cr_assert_str_eq(thread_name(names, pt, p, n.tid), "before-us", "kept until its EXIT record");

	cr_assert_eq(strtab_remap__init(&r, names, to), 0);
	cr_assert_eq(proctable__remap_names(pt, &r), 0);
	strtab_remap__commit(&r);
	cr_assert_eq(proctable__remap_names(pt, &r), 0);
	cr_assert_eq(r.missed, 0);
	strtab_remap__fini(&r);
	cr_assert_str_eq(strtab__str(to, proctable__thread_name(pt, p, n.tid)), "before-us");
	proctable__delete(pt);
	binaries__delete(bs);
	strtab__delete(names);
	strtab__delete(to);
}
