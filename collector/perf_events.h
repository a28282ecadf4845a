/* perf_event_open: probing what this kernel supports, building the sampling
 * attr from that, sizing rings, and opening one event per CPU (and pid). */
#ifndef SMOLDER_COLLECTOR_PERF_EVENTS_H
#define SMOLDER_COLLECTOR_PERF_EVENTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "collector/perf_features.h"

enum perf_event_kind {
	PERF_EVENT_CPU_CLOCK = 0,  /* PERF_COUNT_SW_CPU_CLOCK: works without a PMU */
	PERF_EVENT_CYCLES,         /* PERF_COUNT_HW_CPU_CYCLES */
	PERF_EVENT_OFF_CPU,        /* PERF_COUNT_SW_CONTEXT_SWITCHES: switch-outs
	                              sampled at freq_hz, and a
	                              PERF_RECORD_SWITCH for every switch
	                              (collector/offcpu.h); needs 4.3 */
};

#define PERF_DEFAULT_FREQ 99
#define PERF_DEFAULT_STACK 32768u
#define PERF_MAX_STACK 65528u
/* How long the reader sleeps between drains when the rings do not wake it
 * first (each ring wakes it once it holds about this much, at most half of
 * it). Every wakeup costs the agent ~40 us of CPU (two context switches and
 * the poll) whatever it carries, and stacks are only ever used in windows
 * of seconds: 100 -> 250 ms took a third of the agent's steady CPU at 99 Hz
 * off, 250 -> 500 ms a fifth of what was left. */
#define PERF_DEFAULT_POLL_MS 500
#define PERF_MIN_RING_PAGES 8u
#define PERF_MAX_RING_PAGES 8192u
/* Seconds of samples a ring holds, and the cap on all rings' bytes together. */
#define PERF_RING_SECONDS 1u
#define PERF_MAX_RING_TOTAL (64ull << 20)

struct perf_sampling_opts {
	enum perf_event_kind event;
	unsigned freq_hz;            /* 1..100000; off-cpu: switch-outs sampled
	                                a second per CPU (at most) */
	/* beside a CPU event: off-cpu's rate (a twin set of events,
	 * perf_events__off_cpu_attr, writing into the same rings, its samples
	 * told apart by their id); 0: no off-cpu beside it */
	unsigned off_cpu_freq_hz;
	unsigned stack_size;         /* multiple of 8, 8..PERF_MAX_STACK */
	unsigned poll_interval_ms;   /* how often the consumer drains the rings */
	enum perf_unwind_mode mode;  /* AUTO: dwarf when the features allow */
	int user_only;               /* exclude kernel even when permitted */
};

/* Defaults: cpu-clock, 99 Hz, 16 KiB stacks, 100 ms, auto, kernel if permitted. */
void perf_sampling_opts__init(struct perf_sampling_opts *o);

/* The mode and kernel inclusion these options give on this host.
 * Returns 0, or -ENOTSUP when DWARF was asked for and is unsupported. */
int perf_events__resolve_mode(const struct perf_features *f, const struct perf_sampling_opts *o,
			      enum perf_unwind_mode *mode, int *with_kernel);

/* Data pages per CPU ring: the power of two nearest to PERF_RING_SECONDS of
 * samples, at least PERF_MIN_RING_PAGES,
 * at most PERF_MAX_RING_PAGES and PERF_MAX_RING_TOTAL over all CPUs, and
 * when mlock limits apply at most what
 * perf_event_mlock_kb allows per CPU (the kernel scales that sysctl by the
 * number of online CPUs, and counts the metadata page). */
size_t perf_events__ring_pages(const struct perf_features *f, const struct perf_sampling_opts *o);

/* Builds the sampling attr: disabled, sample_id_all,
 * mmap/mmap2/comm/comm_exec/task side-band, clock per features, and a wakeup
 * watermark of about one poll interval (bounded by half of the data_pages
 * ring). inherit is left 0 (perf_events__open sets it for pids). Returns 0,
 * -EINVAL for bad options, -ENOTSUP as perf_events__resolve_mode. *out
 * untouched on failure. */
int perf_events__build_attr(const struct perf_features *f, const struct perf_sampling_opts *o,
			    size_t data_pages, struct perf_event_attr *out);

/* The off-cpu twin of a CPU event's attr (built with off_cpu_freq_hz):
 * context-switch samples of a fixed period, 1 until the sampler paces it
 * to about hz stacks a second, with a switch record for every switch,
 * and no side-band of its own (the CPU event's MMAP, COMM and FORK are
 * enough once); the same sample layout, so that the twin can write into
 * the CPU event's rings. Returns 0, or -ENOTSUP when this kernel has no
 * switch records, -EINVAL when attr carries no sample id. */
int perf_events__off_cpu_attr(const struct perf_features *f, const struct perf_event_attr *attr,
			      unsigned hz, struct perf_event_attr *out);

/* Where the kernel writes no switch records (before 4.3), off-cpu times
 * waits by the sched_switch tracepoint: the events then carry RAW. */
bool perf_events__off_cpu_by_tracepoint(const struct perf_features *f);
/* The tracepoint twin of an off-cpu attr on such a kernel: a sample at
 * every switch with its raw record (which task went out, whether it was
 * runnable, which came in), no stack or callchain, no side-band, the same
 * sample layout so that it writes into the same rings. Returns 0,
 * -ENOTSUP (switch records exist, or no tracepoint), -EINVAL. */
int perf_events__sched_switch_attr(const struct perf_features *f, const struct perf_event_attr *attr,
				   struct perf_event_attr *out);

/* Opens and closes the attr the sampler would build with default options
 * on the calling thread, recording in f->sampling_attr whether this host
 * takes it (smolder probe says so). */
void perf_events__probe_attr(struct perf_features *f);

/* Opened events: one per online CPU (system-wide), or one per (pid, CPU)
 * with inherit = 1 so children and new threads are followed. Opaque; owns
 * its fds (O_CLOEXEC). Not thread-safe. */
struct perf_events;

/* Where an open failed, for the CLI's message. */
struct perf_open_error {
	int err;      /* positive errno */
	int cpu;      /* -1 when not CPU-specific */
	int pid;      /* -1 for system-wide */
	const char *call; /* "perf_event_open", "read cpu list", ... */
};

/* Opens `attr` (copied; inherit set when npids > 0) for every online CPU and
 * every pid in pids[0..npids) (npids == 0: system-wide, pid = -1). Uses
 * PERF_FLAG_FD_CLOEXEC when f says it works, else fcntl(FD_CLOEXEC).
 * Returns 0, or negative errno with *err filled (when err != NULL); nothing
 * stays open on failure. ESRCH: a pid is gone. */
int perf_events__open(const struct perf_features *f, const struct perf_event_attr *attr,
		      const int *pids, size_t npids, struct perf_events **out,
		      struct perf_open_error *err);
/* The events of `like` once more, for the same (pid, CPU) pairs, with attr
 * (copied; inherit as like's): a second set that the caller redirects into
 * the first's rings and enables in its place, e.g. one that wakes the
 * reader at every sample (perf_events__eager_attr). Same contract as
 * perf_events__open; an event whose thread has exited since is left out. */
int perf_events__open_like(const struct perf_features *f, const struct perf_events *like,
			   const struct perf_event_attr *attr, struct perf_events **out,
			   struct perf_open_error *err);
/* attr, but waking the reader at every sample rather than at its
 * watermark: for samples a runtime reader must read at once. A cpu-clock
 * event also leaves the idle task out (stats.idle counts only the batch
 * set's idle samples). */
void perf_events__eager_attr(const struct perf_event_attr *attr, struct perf_event_attr *out);
/* Closes every fd and frees. Accepts NULL. */
void perf_events__delete(struct perf_events *ev);

size_t perf_events__count(const struct perf_events *ev);
/* i < count. The fd stays owned by ev. */
int perf_events__fd(const struct perf_events *ev, size_t i);
int perf_events__cpu(const struct perf_events *ev, size_t i);
int perf_events__pid(const struct perf_events *ev, size_t i);
/* The kernel's id of event i, which its samples carry (PERF_SAMPLE_ID or
 * IDENTIFIER; the events it is inherited by carry their parent's), by
 * PERF_EVENT_IOC_ID (3.12) or, before, by reading an event opened with
 * read_format PERF_FORMAT_ID: 0, or -errno. */
int perf_events__id(const struct perf_events *ev, size_t i, uint64_t *id);

/* ioctl ENABLE/DISABLE on every fd; enable after all rings are mapped so no
 * early records are lost. Returns 0 or the first negative errno (the other
 * fds are still attempted). */
int perf_events__enable(struct perf_events *ev);
int perf_events__disable(struct perf_events *ev);
/* Changes the sampling frequency of every event (frequency mode), e.g. to
 * keep the agent within its CPU budget. Not for off-cpu's events, whose
 * fixed period perf_events__set_period sets. Returns 0 or the first
 * -errno. */
int perf_events__set_frequency(struct perf_events *ev, unsigned hz);
/* Event i's count so far (read(2): the value comes first whatever the
 * read_format), and its sampling period (events of a fixed period:
 * off-cpu's). 0 or -errno. */
int perf_events__read_count(const struct perf_events *ev, size_t i, uint64_t *count);
int perf_events__set_period(struct perf_events *ev, size_t i, uint64_t period);

#endif
