/* collector/user_stack.c: a sample's user stack from registers to names,
 * on real samples of this process (DWARF mode) and on callchains the
 * kernel would give (frame-pointer mode). Runtime readers have their own
 * test (test_runtimes.c). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/binary.h"
#include "collector/perf_record.h"
#include "collector/proctable.h"
#include "collector/user_stack.h"
#include "common/strtab.h"
#include "profile/agent_stats.h"
#include "symbolize/symbolizer.h"
#include "unwind/regs.h"

#include "stack_capture.h"

int us_leaf(int x);
int us_mid(int x);
int us_top(int x);

/* Called where the stack was captured, while its frames are still live. */
static void (*at_capture)(void);

__attribute__((noinline, noclone)) int us_leaf(int x)
{
	STACK_CAPTURE();
	if (at_capture)
		at_capture();
	return x + 1;
}

__attribute__((noinline, noclone)) int us_mid(int x)
{
	return us_leaf(x + 1) * 3 + 1;
}

__attribute__((noinline, noclone)) int us_top(int x)
{
	return us_mid(x + 2) * 5 + 2;
}

static struct strtab *names;
static struct binaries *bins;
static struct proctable *pt;
static struct symbolizer *sym;
static struct user_stack *us;

static void setup_stack(int dwarf)
{
	names = strtab__new();
	bins = binaries__new(names);
	pt = proctable__new(names, bins);
	cr_assert_eq(symbolizer__new(names, NULL, 0, &sym), 0);
	cr_assert_eq(user_stack__new(pt, sym, NULL, dwarf, unwind__perf_regs_mask(), 128, false, &us), 0);
}

static void teardown_stack(void)
{
	user_stack__delete(us);
	proctable__delete(pt);
	symbolizer__delete(sym);
	binaries__delete(bins);
	strtab__delete(names);
}

static const char *names_of(size_t nframes, struct process *p)
{
	static char out[8192];
	uint32_t ids[512];
	size_t n = 0, i, off = 0;

	cr_assert_eq(user_stack__append_names(us, p, nframes, 1, ids, 512, &n), 0);
	out[0] = '\0';
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s", i ? ";" : "",
					strtab__str(names, ids[i]));
	return out;
}

Test(user_stack, a_real_sample_is_named_root_first)
{
	struct perf_sample smp;
	struct callchain_parts cc;
	enum unwind_stop why;
	struct process *p;
	uint64_t vals[24];
	const char *s;
	size_t n;

	setup_stack(1);
	us_top(1);
	capture_as_perf_sample(&smp, vals);
	memset(&cc, 0, sizeof(cc));
	p = proctable__get(pt, getpid());
	n = user_stack__unwind(us, p, &smp, &cc, &why);
	cr_assert_eq(why, UNWIND_COMPLETE, "stopped %s", unwind__stop_name(why));
	s = names_of(n, p);
	cr_assert_not_null(strstr(s, "us_top;us_mid;us_leaf"), "%s", s);
	cr_assert_eq(strcmp(s + strlen(s) - strlen("us_leaf"), "us_leaf"), 0, "the leaf last: %s", s);
	teardown_stack();
}

/* A sample whose copy holds 256 bytes: the rest of the stack is read from
 * the thread (process_vm_readv of this very thread, its frames still live),
 * and the reads are counted. */
static struct agent_stats live_st;
static enum unwind_stop live_why;
static size_t live_n;

static void unwind_here(void)
{
	struct perf_sample smp;
	struct callchain_parts cc;
	uint64_t vals[24];

	capture_as_perf_sample(&smp, vals);
	memset(&cc, 0, sizeof(cc));
	live_n = user_stack__unwind(us, proctable__get(pt, getpid()), &smp, &cc, &live_why);
	user_stack__count(us, &live_st);
}

Test(user_stack, a_deep_stack_is_read_on_from_the_thread)
{
	const char *s;

	setup_stack(1);
	memset(&live_st, 0, sizeof(live_st));
	cap_want = 256;
	at_capture = unwind_here;
	us_top(1);
	at_capture = NULL;
	cap_want = sizeof(stackbuf);
	if (live_st.deep_failed)
		cr_skip_test("process_vm_readv not permitted here");
	cr_assert_eq(live_why, UNWIND_COMPLETE, "stopped %s", unwind__stop_name(live_why));
	s = names_of(live_n, proctable__get(pt, getpid()));
	cr_assert_not_null(strstr(s, "us_top;us_mid;us_leaf"), "%s", s);
	cr_assert_eq(live_st.deep_stacks, 1);
	cr_assert_geq(live_st.deep_reads, 1);
	cr_assert_gt(live_st.deep_bytes, 0);
	cr_assert_eq(live_st.deep_stale + live_st.deep_refused + live_st.deep_failed, 0);
	teardown_stack();
}

/* A sample whose ip is in code mapped after the table read the process:
 * /proc/PID/maps is read again and the frame gets its mapping. */
Test(user_stack, an_unknown_pc_reads_the_maps_again)
{
	struct perf_sample smp;
	struct callchain_parts cc;
	enum unwind_stop why;
	struct process *p;
	uint64_t vals[24];
	void *code;
	size_t n;

	setup_stack(1);
	us_top(1);
	p = proctable__get(pt, getpid());
	cr_assert_not_null(p);
	code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(code, MAP_FAILED);
	cr_assert_null(process__find_map(pt, p, (uintptr_t)code + 16), "not read yet");
	cap_regs.val[UNWIND_REG_IP] = (uintptr_t)code + 16;
	capture_as_perf_sample(&smp, vals);
	memset(&cc, 0, sizeof(cc));
	n = user_stack__unwind(us, p, &smp, &cc, &why);
	cr_assert_geq(n, 1);
	cr_assert_not_null(process__find_map(pt, p, (uintptr_t)code + 16), "the maps were read again");
	munmap(code, 4096);
	teardown_stack();
}

/* Frame-pointer mode: the kernel's callchain as it is, return addresses
 * looked up inside their call, and a return address in no mapping ends the
 * stack there rather than adding made-up roots. */
Test(user_stack, callchains_of_old_kernels)
{
	struct perf_sample smp;
	struct callchain_parts cc;
	enum unwind_stop why;
	struct process *p;
	uint64_t user[4];
	const char *s;
	size_t n;

	setup_stack(0);
	memset(&smp, 0, sizeof(smp));
	smp.pid = smp.tid = (uint32_t)getpid();
	memset(&cc, 0, sizeof(cc));
	user[0] = (uintptr_t)us_leaf + 1;   /* the sampled ip */
	user[1] = (uintptr_t)us_mid + 5;    /* return addresses */
	user[2] = (uintptr_t)us_top + 5;
	user[3] = 0x10;                     /* a stale word: no mapping */
	cc.user = user;
	cc.user_nr = 4;
	p = proctable__get(pt, getpid());
	n = user_stack__unwind(us, p, &smp, &cc, &why);
	cr_assert_eq(n, 3);
	cr_assert_eq(why, UNWIND_BAD_PC);
	s = names_of(n, p);
	cr_assert_str_eq(s, "us_top;us_mid;us_leaf");
	teardown_stack();
}
