/* runtimes/procmem: reading another process's memory, and what a hostile
 * or vanished address gives. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtimes/memsource.h"
#include "runtimes/procmem.h"

static const char text[] = "hello from the target";

/* A child whose memory holds what the parent knows the address of (fork
 * keeps the layout); it waits until killed. */
static pid_t spawn_target(void)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void end_target(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int can_read(pid_t pid)
{
	char c;

	return procmem__read(pid, (uint64_t)(uintptr_t)text, &c, 1) != -EPERM;
}

Test(procmem, reads_a_child)
{
	pid_t pid = spawn_target();
	char buf[sizeof(text)];

	if (!can_read(pid)) {
		end_target(pid);
		cr_skip_test("process_vm_readv not permitted here (ptrace_scope, no CAP_SYS_PTRACE)");
	}
	memset(buf, 0, sizeof(buf));
	cr_assert_eq(procmem__read(pid, (uint64_t)(uintptr_t)text, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, text);
	end_target(pid);
}

/* Strings are read through a process memsource (runtimes/memsource.h). */
static ssize_t str_of(pid_t pid, uint64_t addr, char *buf, size_t size)
{
	struct memsource m;

	memsource__process(&m, pid);
	return memsource__str(&m, addr, buf, size);
}

Test(procmem, string_and_bounds)
{
	pid_t pid = spawn_target();
	char buf[64];

	if (!can_read(pid)) {
		end_target(pid);
		cr_skip_test("process_vm_readv not permitted here (ptrace_scope, no CAP_SYS_PTRACE)");
	}
	cr_assert_eq(str_of(pid, (uint64_t)(uintptr_t)text, buf, sizeof(buf)),
		     (ssize_t)strlen(text));
	cr_assert_str_eq(buf, text);
	/* too small a buffer: what fits, terminated, and said so */
	cr_assert_eq(str_of(pid, (uint64_t)(uintptr_t)text, buf, 6), -ENAMETOOLONG);
	cr_assert_str_eq(buf, "hello");
	/* nothing mapped at page 0, and a range that wraps */
	cr_assert_eq(procmem__read(pid, 0, buf, 8), -EFAULT);
	cr_assert_eq(procmem__read(pid, UINT64_MAX - 2, buf, 8), -EINVAL);
	cr_assert_eq(procmem__read(pid, 16, buf, 0), 0);
	end_target(pid);
}

/* A string that ends right before an unmapped page reads; one that runs
 * into it fails without crashing anything. */
Test(procmem, string_at_the_edge_of_a_mapping)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char buf[64];
	pid_t pid;

	cr_assert(m != MAP_FAILED);
	cr_assert_eq(munmap(m + page, (size_t)page), 0);
	memcpy(m + page - 4, "abc", 4);
	pid = spawn_target();
	if (!can_read(pid)) {
		end_target(pid);
		cr_skip_test("process_vm_readv not permitted here (ptrace_scope, no CAP_SYS_PTRACE)");
	}
	cr_assert_eq(str_of(pid, (uint64_t)(uintptr_t)(m + page - 4), buf, sizeof(buf)), 3);
	cr_assert_str_eq(buf, "abc");
	memset(m + page - 4, 'x', 4);
	end_target(pid);
	pid = spawn_target();
	cr_assert_eq(str_of(pid, (uint64_t)(uintptr_t)(m + page - 4), buf, sizeof(buf)), -EFAULT);
	end_target(pid);
}

Test(procmem, a_gone_process)
{
	pid_t pid = spawn_target();
	char c;

	end_target(pid);
	cr_assert_eq(procmem__read(pid, (uint64_t)(uintptr_t)text, &c, 1), -ESRCH);
}

/* Many ranges in one read: each says whether it was read, one unmapped
 * range in the middle failing alone, and a process memsource counting one
 * read for all. */
Test(procmem, many_ranges_at_once)
{
	static const char other[] = "another string";
	char *gap = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	char a[sizeof(text)], b[8], c[sizeof(other)];
	uint64_t addrs[3];
	size_t lens[3] = { sizeof(text), sizeof(b), sizeof(other) };
	void *bufs[3] = { a, b, c };
	bool ok[3];
	struct memsource m;

	cr_assert(gap != MAP_FAILED);
	cr_assert_eq(munmap(gap, 4096), 0); /* unmapped in the child too */
	pid = spawn_target();
	if (!can_read(pid)) {
		end_target(pid);
		cr_skip_test("process_vm_readv not permitted here (ptrace_scope, no CAP_SYS_PTRACE)");
	}
	addrs[0] = (uint64_t)(uintptr_t)text;
	addrs[1] = (uint64_t)(uintptr_t)gap;
	addrs[2] = (uint64_t)(uintptr_t)other;
	cr_assert_eq(procmem__readv(pid, addrs, lens, bufs, ok, 3), 2);
	cr_assert(ok[0] && !ok[1] && ok[2]);
	cr_assert_str_eq(a, text);
	cr_assert_str_eq(c, other);
	memsource__process(&m, pid);
	memset(a, 0, sizeof(a));
	cr_assert_eq(memsource__readv(&m, addrs, lens, bufs, ok, 3), 2);
	cr_assert_str_eq(a, text);
	cr_assert_eq(m.reads, 1);
	end_target(pid);
	cr_assert_eq(procmem__readv(pid, addrs, lens, bufs, ok, 3), -ESRCH);
}

/* A read that runs past the end of a mapping reads what is mapped (a
 * stack read beyond its top), in one call. */
Test(procmem, some_up_to_the_end_of_a_mapping)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char buf[3 * 4096];
	pid_t pid;

	cr_assert(m != MAP_FAILED);
	cr_assert_leq(page, 4096);
	cr_assert_eq(munmap(m + 2 * page, (size_t)page), 0);
	memset(m, 'a', (size_t)page * 2);
	pid = spawn_target();
	if (!can_read(pid)) {
		end_target(pid);
		cr_skip_test("process_vm_readv not permitted here (ptrace_scope, no CAP_SYS_PTRACE)");
	}
	cr_assert_eq(procmem__read_some(pid, (uint64_t)(uintptr_t)(m + 16), buf, (size_t)page * 3),
		     2 * page - 16);
	cr_assert_eq(buf[2 * page - 17], 'a');
	cr_assert_eq(procmem__read_some(pid, (uint64_t)(uintptr_t)m, buf, 64), 64);
	/* nothing mapped at all, and a range that wraps */
	cr_assert_eq(procmem__read_some(pid, (uint64_t)(uintptr_t)(m + 2 * page), buf, 64), 0);
	cr_assert_eq(procmem__read_some(pid, UINT64_MAX - 2, buf, 8), -EINVAL);
	end_target(pid);
	cr_assert_eq(procmem__read_some(pid, (uint64_t)(uintptr_t)m, buf, 64), -ESRCH);
	munmap(m, (size_t)page * 2);
}
