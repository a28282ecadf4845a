/* Unit tests: /proc/PID/maps parsing and the process table's address maps. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/binary.h"
#include "collector/procmaps.h"
#include "collector/proctable.h"
#include "common/strtab.h"

static int parse(const char *line, struct procmaps_entry *e)
{
	return procmaps__parse_line(line, strlen(line), e);
}

Test(procmaps, file_mapping)
{
	struct procmaps_entry e;

	cr_assert_eq(parse("7f0e1c000000-7f0e1c022000 r-xp 00002000 fd:01 1234567    "
			   "/usr/lib/x86_64-linux-gnu/libc.so.6\n", &e), 0);
	cr_assert_eq(e.start, 0x7f0e1c000000ull);
	cr_assert_eq(e.end, 0x7f0e1c022000ull);
	cr_assert_eq(e.pgoff, 0x2000);
	cr_assert_eq(e.maj, 0xfd);
	cr_assert_eq(e.min, 1);
	cr_assert_eq(e.ino, 1234567);
	cr_assert(e.readable && e.executable && !e.writable);
	cr_assert_eq(e.path_len, strlen("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	cr_assert_eq(memcmp(e.path, "/usr/lib/x86_64-linux-gnu/libc.so.6", e.path_len), 0);
	cr_assert_not(e.deleted);
}

Test(procmaps, anonymous_pseudo_deleted_and_spaces)
{
	struct procmaps_entry e;

	cr_assert_eq(parse("7ffd1000-7ffd3000 rw-p 00000000 00:00 0 ", &e), 0);
	cr_assert_eq(e.path_len, 0);
	cr_assert_eq(parse("7ffd1000-7ffd3000 r-xp 00000000 00:00 0                  [vdso]", &e), 0);
	cr_assert_eq(e.path_len, 6);
	cr_assert_eq(parse("400000-401000 r-xp 00000000 08:02 99 /tmp/my prog (deleted)", &e), 0);
	cr_assert(e.deleted);
	cr_assert_eq(e.path_len, strlen("/tmp/my prog"));
}

Test(procmaps, malformed_lines_rejected)
{
	static const char *bad[] = {
		"",
		"garbage",
		"1000-0fff r-xp 00000000 08:02 1 /x",          /* end before start */
		"1000-2000 r-x 00000000 08:02 1 /x",            /* short perms */
		"1000-2000 r-xp 0000000g 08:02 1 /x",           /* bad offset */
		"1000-2000 r-xp 00000000 0802 1 /x",            /* no colon */
		"1000-2000 r-xp 00000000 08:02 x /x",           /* bad inode */
		"10000000000000000-10000000000000001 r-xp 0 0:0 0", /* overflow */
		"1000-2000",
	};
	struct procmaps_entry e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(parse(bad[i], &e), -EINVAL, "line %zu accepted: '%s'", i, bad[i]);
}

static int count_cb(void *ctx, const struct procmaps_entry *e)
{
	(void)e;
	(*(int *)ctx)++;
	return 0;
}

Test(procmaps, reading_skips_bad_and_overlong_lines)
{
	char path[] = "/tmp/smolder-maps-XXXXXX";
	int fd = mkstemp(path), n = 0;
	size_t bad = 0, i;
	FILE *f;

	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "1000-2000 r-xp 00000000 08:02 1 /bin/a\n");
	fprintf(f, "not a maps line\n");
	for (i = 0; i < PROCMAPS_LINE_MAX * 2; i++)
		fputc('x', f);
	fputc('\n', f);
	fprintf(f, "3000-4000 r-xp 00000000 08:02 2 /bin/b\n");
	fclose(f);
	fd = open(path, O_RDONLY);
	cr_assert_eq(procmaps__read_fd(fd, count_cb, &n, &bad), 0);
	unlink(path);
	cr_assert_eq(n, 2);
	cr_assert_eq(bad, 2);
}

Test(procmaps, own_process)
{
	int n = 0;

	cr_assert_eq(procmaps__read(getpid(), count_cb, &n, NULL), 0);
	cr_assert_gt(n, 3);
	cr_assert_eq(procmaps__read(0x3ffffff0, count_cb, &n, NULL), -ENOENT);
}

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
void procmaps_test_marker(void);
__attribute__((noinline)) void procmaps_test_marker(void) { __asm__ volatile(""); }

Test(proctable, resolves_own_binary)
{
	struct strtab *names = strtab__new();
	struct binaries *bs = binaries__new(names);
	struct proctable *pt = proctable__new(names, bs);
	struct process *p;
	struct proc_map *m;
	uint64_t pc = (uint64_t)(uintptr_t)&procmaps_test_marker;

	cr_assert_eq(proctable__seed(pt, getpid()), 1);
	p = proctable__find(pt, getpid());
	cr_assert_not_null(p);
	m = process__find_map(pt, p, pc);
	cr_assert_not_null(m);
	cr_assert_not_null(proc_map__binary(m));
	cr_assert(binary__is_elf(proc_map__binary(m)));
	cr_assert_str_eq(binary__module(proc_map__binary(m)), "test_procmaps");
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
	uint64_t pc = (uint64_t)(uintptr_t)&procmaps_test_marker;
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
