/* What this kernel and this process allow of perf_event_open: a value type
 * probed once at start (collector/perf_features.c), which the sampler,
 * `smolder probe` and the start-up messages read. */
#ifndef SMOLDER_COLLECTOR_PERF_FEATURES_H
#define SMOLDER_COLLECTOR_PERF_FEATURES_H
#include <stddef.h>
#include <stdint.h>

#include "collector/sched_switch.h"

/* Capability numbers (linux/capability.h; CAP_PERFMON is 5.8+). */
#define PERF_CAP_DAC_READ_SEARCH 2
#define PERF_CAP_IPC_LOCK 14
#define PERF_CAP_SYS_PTRACE 19
#define PERF_CAP_SYS_ADMIN 21
#define PERF_CAP_PERFMON 38

/* One probed feature: ok, or the errno the kernel answered (err > 0), or
 * not probed because an earlier probe made it moot (probed == 0). */
struct perf_feature {
	int probed;
	int ok;
	int err;
};

enum perf_unwind_mode {
	PERF_MODE_AUTO = 0,       /* options only: dwarf when supported */
	PERF_MODE_DWARF,          /* REGS_USER + STACK_USER, userspace unwinding */
	PERF_MODE_FRAME_POINTER,  /* user frames from the kernel's CALLCHAIN */
};

/* What this host supports. A value type filled by perf_features__probe().
 * Sysctls hold the value read; *_known says whether it could be read. */
struct perf_features {
	char kernel_release[65];
	int paranoid_known, paranoid;        /* /proc/sys/kernel/perf_event_paranoid */
	int kptr_restrict_known, kptr_restrict;
	int mlock_kb_known;
	long mlock_kb;                       /* /proc/sys/kernel/perf_event_mlock_kb */
	int caps_known;
	uint64_t cap_eff;                    /* CapEff bits from /proc/self/status */
	int ncpus;                           /* online CPUs, 0 when unknown */
	int first_cpu;

	/* The base event (software cpu-clock, user only, this thread). When this
	 * fails nothing else is probed: perf_event_open is unusable. */
	struct perf_feature open;
	/* attr.size: the size we pass (ours, or the kernel's after E2BIG). */
	struct perf_feature attr_size;
	uint32_t attr_size_used;
	uint32_t attr_size_ours;
	uint32_t attr_size_kernel;          /* 0 when the kernel did not say */
	struct perf_feature cloexec;        /* PERF_FLAG_FD_CLOEXEC, 3.14 */
	struct perf_feature sample_id_all;  /* 2.6.38 */
	struct perf_feature regs_stack_user;/* REGS_USER + STACK_USER, 3.7 */
	struct perf_feature exclude_callchain_user; /* 3.7 */
	struct perf_feature mmap2;          /* 3.16 */
	struct perf_feature comm_exec;      /* 3.16 */
	struct perf_feature clockid;        /* use_clockid + CLOCK_MONOTONIC, 4.1 */
	struct perf_feature context_switch; /* PERF_RECORD_SWITCH records, 4.3 */
	/* The sched:sched_switch tracepoint with its raw record (2.6.31+, a
	 * tracefs or debugfs to find it in): off-cpu's timing without switch
	 * records. err ENOENT: no tracing directory or no such tracepoint. */
	struct perf_feature sched_switch_tp;
	struct sched_switch_format sched_switch;
	struct perf_feature kernel;         /* exclude_kernel = 0 with kernel callchain */
	struct perf_feature system_wide;    /* pid = -1 on one CPU */
	/* The final sampling attr (default options) opened on this thread:
	 * probed apart, by perf_events__probe_attr (it is built from these
	 * features). */
	struct perf_feature sampling_attr;

	/* Derived. */
	enum perf_unwind_mode mode;         /* DWARF or FRAME_POINTER */
	int with_kernel;                    /* kernel frames will be sampled */
};

/* Probes by opening and closing test events on the calling thread (pid 0,
 * cpu -1), one on the first online CPU for system-wide, and reading /proc and
 * /sys. Never fails: what could not be probed is recorded as such. Takes a
 * few milliseconds; call once at start. Not thread-safe with respect to
 * concurrent setrlimit/capset of the caller. */
void perf_features__probe(struct perf_features *out);

/* Whether capability `cap` is in the effective set (0 when unknown). */
int perf_features__has_cap(const struct perf_features *f, int cap);
/* /proc/sys/kernel/perf_event_paranoid: 0, or -errno (*level untouched). */
int perf_features__paranoid(int *level);
/* Whether mlock limits do not apply (CAP_IPC_LOCK, or paranoid == -1). */
int perf_features__mlock_unlimited(const struct perf_features *f);
/* "EINVAL", "EACCES", ... for errnos the kernel returns from
 * perf_event_open; NULL for others. Static strings. */
const char *perf_features__errname(int err);

#endif
