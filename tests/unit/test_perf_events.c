/* collector/perf_events.c: the attr built for each host's features, and
 * the ring sizes. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector/perf_events.h"

static struct perf_features all_features(void)
{
	struct perf_features f;

	memset(&f, 0, sizeof(f));
	f.open.probed = f.open.ok = 1;
	f.regs_stack_user = f.exclude_callchain_user = f.mmap2 = f.comm_exec = f.open;
	f.clockid = f.sample_id_all = f.kernel = f.cloexec = f.open;
	f.attr_size_used = sizeof(struct perf_event_attr);
	f.mode = PERF_MODE_DWARF;
	f.with_kernel = 1;
	return f;
}

Test(perf_events, build_attr)
{
	struct perf_features f = all_features();
	struct perf_sampling_opts o;
	struct perf_event_attr a, keep;
	long page = sysconf(_SC_PAGESIZE);

	perf_sampling_opts__init(&o);
	cr_assert_eq(perf_events__build_attr(&f, &o, 128, &a), 0);
	cr_assert_eq(a.type, PERF_TYPE_SOFTWARE);
	cr_assert_eq(a.config, PERF_COUNT_SW_CPU_CLOCK);
	cr_assert_eq(a.freq, 1);
	cr_assert_eq(a.sample_freq, 99);
	cr_assert_eq(a.sample_type,
		     PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	cr_assert_eq(a.sample_stack_user, 32768);
	cr_assert_neq(a.sample_regs_user, 0);
	/* the kernel's walk of the user stack too: what the sample proves of
	 * a Go goroutine's stack beyond the copy (runtimes/gojoin.h) */
	cr_assert_eq(a.exclude_callchain_user, 0);
	cr_assert_eq(a.exclude_kernel, 0);
	cr_assert_eq(a.disabled, 1);
	cr_assert_eq(a.mmap, 1);
	cr_assert_eq(a.comm, 1);
	cr_assert_eq(a.task, 1);
	cr_assert_eq(a.sample_id_all, 1);
	cr_assert_eq(a.inherit, 0);
	cr_assert_eq(a.watermark, 1);
	cr_assert(a.wakeup_watermark >= (uint32_t)page && a.wakeup_watermark <= 64u * page);
#ifdef PERF_ATTR_SIZE_VER5 /* headers that name mmap2/comm_exec/use_clockid */
	cr_assert_eq(a.mmap2, 1);
	cr_assert_eq(a.comm_exec, 1);
	cr_assert_eq(a.use_clockid, 1);
	cr_assert_eq(a.clockid, CLOCK_MONOTONIC);
#endif

	/* Frame-pointer mode: no register/stack copies, user callchain kept. */
	f.regs_stack_user.ok = 0;
	f.kernel.ok = 0;
	f.mmap2.ok = f.clockid.ok = 0;
	cr_assert_eq(perf_events__build_attr(&f, &o, 8, &a), 0);
	cr_assert_eq(a.sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER), 0);
	cr_assert(a.sample_type & PERF_SAMPLE_CALLCHAIN);
	cr_assert_eq(a.exclude_callchain_user, 0);
	cr_assert_eq(a.exclude_kernel, 1);
#ifdef PERF_ATTR_SIZE_VER5
	cr_assert_eq(a.mmap2, 0);
	cr_assert_eq(a.use_clockid, 0);
#endif

	keep = a;
	o.mode = PERF_MODE_DWARF;
	cr_assert_eq(perf_events__build_attr(&f, &o, 8, &a), -ENOTSUP);
	o.mode = PERF_MODE_AUTO;
	o.stack_size = 12;
	cr_assert_eq(perf_events__build_attr(&f, &o, 8, &a), -EINVAL);
	o.stack_size = 65536;
	cr_assert_eq(perf_events__build_attr(&f, &o, 8, &a), -EINVAL);
	o.stack_size = 65528;
	o.freq_hz = 0;
	cr_assert_eq(perf_events__build_attr(&f, &o, 8, &a), -EINVAL);
	cr_assert_eq(memcmp(&a, &keep, sizeof(a)), 0, "attr touched on failure");
	o.freq_hz = 99;
	o.event = PERF_EVENT_CYCLES;
	cr_assert_eq(perf_events__build_attr(&f, &o, 8, &a), 0);
	cr_assert_eq(a.type, PERF_TYPE_HARDWARE);
	cr_assert_eq(a.config, PERF_COUNT_HW_CPU_CYCLES);
}

static int is_pow2(size_t v)
{
	return v && !(v & (v - 1));
}

/* Off-cpu's stacks are every Nth switch, N set by the sampler: a fixed
 * period (the kernel's frequency mode starves sparse switchers), and no
 * PERIOD in the samples, with which the kernel samples every switch. */
Test(perf_events, off_cpu_fixed_period)
{
	struct perf_features f = all_features();
	struct perf_sampling_opts o;
	struct perf_event_attr a, twin;

	f.context_switch = f.open;
	perf_sampling_opts__init(&o);
	o.event = PERF_EVENT_OFF_CPU;
	cr_assert_eq(perf_events__build_attr(&f, &o, 128, &a), 0);
	cr_assert_eq(a.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	cr_assert_eq(a.freq, 0);
	cr_assert_eq(a.sample_period, 1);
	cr_assert_eq(a.sample_type & PERF_SAMPLE_PERIOD, 0);
	cr_assert_eq(a.context_switch, 1);

	perf_sampling_opts__init(&o);
	o.off_cpu_freq_hz = 99;
	cr_assert_eq(perf_events__build_attr(&f, &o, 128, &a), 0);
	cr_assert_eq(a.freq, 1);
	cr_assert_eq(perf_events__off_cpu_attr(&f, &a, 99, &twin), 0);
	cr_assert_eq(twin.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	cr_assert_eq(twin.freq, 0);
	cr_assert_eq(twin.sample_period, 1);
	cr_assert_eq(twin.sample_type, a.sample_type);
	cr_assert_eq(twin.sample_type & PERF_SAMPLE_PERIOD, 0);
}

/* The eager twin wakes the reader at every sample, so it takes none of
 * the idle task's (dropped unread): cpu-clock leaves them out; a
 * hardware event, which some PMUs refuse the bit for, is left as it is. */
Test(perf_events, eager_twin_wakes_for_every_sample_but_idle_ones)
{
	struct perf_features f = all_features();
	struct perf_sampling_opts o;
	struct perf_event_attr a, e;

	perf_sampling_opts__init(&o);
	cr_assert_eq(perf_events__build_attr(&f, &o, 128, &a), 0);
	cr_assert_eq(a.exclude_idle, 0, "the batch set counts idle samples");
	perf_events__eager_attr(&a, &e);
	cr_assert_eq(e.watermark, 0);
	cr_assert_eq(e.wakeup_events, 1);
	cr_assert_eq(e.exclude_idle, 1);
	cr_assert_eq(e.sample_type, a.sample_type);

	o.event = PERF_EVENT_CYCLES;
	cr_assert_eq(perf_events__build_attr(&f, &o, 128, &a), 0);
	perf_events__eager_attr(&a, &e);
	cr_assert_eq(e.wakeup_events, 1);
	cr_assert_eq(e.exclude_idle, 0);
}

Test(perf_events, ring_pages)
{
	struct perf_features f = all_features();
	struct perf_sampling_opts o;
	long page = sysconf(_SC_PAGESIZE);
	size_t p;

	perf_sampling_opts__init(&o);
	o.stack_size = 16384;
	f.caps_known = 1;
	f.cap_eff = 1ull << PERF_CAP_IPC_LOCK;
	p = perf_events__ring_pages(&f, &o);
	cr_assert(is_pow2(p));
	/* the power of two nearest to a second of samples, (16384 + 600) *
	 * 99 Hz * 1 s = ~1.68 MB: 2 MiB */
	cr_assert_eq((long)p * page, 2L << 20);
	/* 999 Hz: 16.96 MB a second, 16 MiB, not 32 */
	o.freq_hz = 999;
	cr_assert_eq((long)perf_events__ring_pages(&f, &o) * page, 16L << 20);
	o.freq_hz = 99;
	o.freq_hz = 1;
	o.stack_size = 8;
	cr_assert_eq(perf_events__ring_pages(&f, &o), PERF_MIN_RING_PAGES);
	o.freq_hz = 100000;
	o.stack_size = 65528;
	f.ncpus = 1;
	cr_assert_eq(perf_events__ring_pages(&f, &o), PERF_MAX_RING_PAGES);
	/* many CPUs: all rings together stay within PERF_MAX_RING_TOTAL */
	f.ncpus = 64;
	p = perf_events__ring_pages(&f, &o);
	cr_assert(is_pow2(p));
	cr_assert_leq((uint64_t)p * (uint64_t)page * 64, PERF_MAX_RING_TOTAL);
	f.ncpus = 1;

	/* Unprivileged: the mlock budget per CPU (516 KiB, meta page included). */
	f.cap_eff = 0;
	f.paranoid_known = 1;
	f.paranoid = 2;
	f.mlock_kb_known = 1;
	f.mlock_kb = 516;
	p = perf_events__ring_pages(&f, &o);
	cr_assert(is_pow2(p));
	cr_assert_leq((p + 1) * (size_t)page, 516 * 1024);
	f.mlock_kb = 0;
	cr_assert_eq(perf_events__ring_pages(&f, &o), 1);
}

/* Keeps the compiler from folding the burn loop and gives the stack depth. */
