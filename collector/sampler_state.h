/* The sampler's state, shared by the files that implement it: sampler.c
 * (the loop: records in, stacks out, windows) and sampler_open.c (probing,
 * opening the events and rings, the parts it is made of). Nothing outside
 * collector/sampler*.c includes this; everyone else sees sampler.h. */
#ifndef SMOLDER_COLLECTOR_SAMPLER_STATE_H
#define SMOLDER_COLLECTOR_SAMPLER_STATE_H
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/batch.h"
#include "collector/perf_events.h"
#include "collector/perf_record.h"
#include "collector/sampler.h"
#include "profile/agent_stats.h"
#include "profile/event_list.h"

struct offcpu;
struct ptree;


/* Frames a stack keeps: deep programs (JVMs, compilers, interpreters) run
 * hundreds deep; what a frame costs is allocated once (user_stack, the
 * sampler's stack of ids), not per sample. */
#define DEFAULT_MAX_FRAMES 512
#define MAX_KERNEL_FRAMES 128
/* inlined frames per pc */
#define MAX_FRAMES_PER_PC SYMBOLIZER_MAX_FRAMES_PER_PC
/* Keep exited processes this long: their samples may sit in other rings. */
#define EXIT_GRACE_NS 2000000000ull
/* A binary no live process maps stays loaded this long (the same program
 * often runs again soon: cron jobs, shells, compilers), and at most this many
 * such binaries are kept; the check runs once a second. */
#define BINARY_IDLE_GRACE_NS (60ull * 1000000000ull)
#define BINARY_IDLE_MAX 64
#define TRIM_INTERVAL_NS 1000000000ull
/* Records of the batch a sample may look ahead through for its exe. */
#define EXE_LOOKAHEAD_MAX 8192

/* One recorded event's window: the profile its samples fill, and their
 * counters. Beside a CPU event, off-cpu has a window of its own. */
struct sampler_window {
	const char *event;        /* "cpu-clock", "off-cpu" */
	struct profile *profile;
	struct agent_stats stats;
};

struct sampler {
	struct sampler_opts opts;
	struct event_list events_asked;
	struct perf_features features;
	struct sample_layout layout;
	char mode[96];

	int mode_dwarf;
	struct perf_events *events;
	/* the same events waking the reader at every sample (writing into
	 * the same rings), enabled instead of events while runtime stacks are
	 * read (runtimes__eager); NULL: none could be opened */
	struct perf_events *eager_events;
	bool eager;               /* eager_events are the enabled set */
	uint64_t eager_until;     /* CLOCK_MONOTONIC: eager at least until then */
	/* The sampler put its thread under SCHED_BATCH (take_batch_policy):
	 * it runs under SCHED_OTHER while runtimes are read (readers_policy),
	 * see pace_wakeups. */
	bool batch_owned;
	bool readers_policy;
	bool enabled;             /* sampler__enable'd */
	/* one ring per CPU; the other events of that CPU write into it */
	struct ring **rings;
	struct pollfd *pfds;      /* fd -1: the ring's events hung up */
	int *ring_cpu;            /* the CPU each ring is for */
	size_t nrings;
	int *tids; /* targets followed by per-thread events: all their threads */
	/* Targets followed as process trees over events on the CPUs: their
	 * processes (NULL: system-wide, or per-thread events) */
	struct ptree *tree;
	int tree_walked;          /* their descendants at start were read */
	int trees_err;            /* why per-thread events instead (errno) */

	struct strtab *names;
	struct binaries *bins;
	struct proctable *procs;
	struct symbolizer *sym;
	struct accountant *accountant; /* what runtime readers may cost */
	struct runtimes *runtimes;     /* runtime readers and their instances */
	struct loadbudget *budget;
	/* One per event, in the order asked. The first's counters are also
	 * the recording's (records lost, the agent's cost, runtime readers'
	 * levels), which the others copy at the window's end. */
	struct sampler_window win[EVENT_LIST_MAX];
	size_t nwin;

	/* off-cpu (collector/offcpu.h): its window and accounting, NULL when
	 * not recorded. Alone, its events are `events`; beside a CPU event
	 * they are off_events, writing into the same rings, and a sample is
	 * off-cpu's when its id is one of off_ids (sorted). */
	struct sampler_window *off;
	struct offcpu *offcpu;
	struct perf_events *off_events;
	uint64_t *off_ids;
	size_t noff_ids;
	unsigned off_freq_hz;     /* off_events' configured rate */
	/* Off-cpu's stacks every Nth switch, N per event (index as in its
	 * perf_events; alone, eager_events share it), set from the switches
	 * each event counted since it was last paced, to about off_pace_hz
	 * stacks a second (sampler_offcpu__pace). */
	unsigned off_pace_hz;
	uint64_t off_paced_ns;
	bool off_looked;
	uint64_t *off_counts, *off_periods;
	size_t noff_paced;
	/* off-cpu without switch records (before 4.3): the sched_switch
	 * tracepoint at every switch, into the same rings, its samples the
	 * ones whose raw record is not empty; NULL otherwise */
	struct perf_events *tp_events;

	struct batch batch;
	size_t batch_pos; /* the record being handled */
	uint64_t last_time;

	struct user_stack *user;
	uint32_t *stack; /* a sample's frame ids, root first; allocated once */
	size_t stack_cap;

	size_t names_live_bytes;   /* strtab__bytes after the last compaction */
	uint64_t names_compactions;
	uint64_t last_trim_ns;
	uint64_t end_ns;          /* sampler__set_deadline; 0: none */
	uint64_t process_by_ns;
	int late;                 /* process_by_ns passed */
	uint64_t window_cpu_start;
	uint64_t window_load_start; /* one-off CPU so far at the window's start */
	uint64_t window_cuts_start; /* frame_name__cuts() at the window's start */
};

/* One-off CPU so far: loading binaries, reading processes and JIT files. */
uint64_t sampler__load_cpu_ns(const struct sampler *s);
/* Whether a side-band record of process pid (at the time of the record
 * being handled) is the recording's (sampler.c). */
int sampler__wanted(const struct sampler *s, uint32_t pid);
/* The group a sample of thread tid of p goes to (sampler.c). */
struct process;
struct profile_key;
void sampler__group_key(struct sampler *s, struct process *p, int tid, struct profile_key *key);
/* The events of s->events once more with attr (a twin set: eager, or
 * off-cpu's), each redirected into its CPU's ring (sampler_open.c).
 * Returns 0, or -errno with *out NULL and e (when not NULL) saying what
 * failed, as `what`. */
int sampler__open_twin(struct sampler *s, const struct perf_event_attr *attr, struct perf_events **out,
		       struct sampler_error *e, const char *what);
/* Fills e (sampler_open.c). */
void sampler__set_error(struct sampler_error *e, int err, int cpu, int pid, const char *what);

/* A thread whose pid the kernel reports as -1 has left its process: a
 * dying thread's last switch-out, which is no wait (and they would all
 * share that id). */
#define DEAD_TASK_ID UINT32_MAX

/* --event off-cpu (sampler_offcpu.c): its accounting, made with the
 * names table once the events are open; a switch record; the window's
 * end. */
int sampler_offcpu__new(struct sampler *s, struct sampler_window *w, struct sampler_error *e);
/* Beside a CPU event: off-cpu's own events, redirected into the rings
 * (attr is the CPU event's). */
int sampler_offcpu__open_twin(struct sampler *s, const struct perf_event_attr *attr,
			      struct sampler_error *e);
/* Whether a sample of this id is off-cpu's. */
bool sampler_offcpu__owns(const struct sampler *s, uint64_t id);
/* Before 4.3: the sched_switch tracepoint's events, redirected into the
 * rings (attr is the events' whose layout they share). */
int sampler_offcpu__open_tracepoint(struct sampler *s, const struct perf_event_attr *attr,
				    struct sampler_error *e);
/* Whether the sample is the tracepoint's (a raw record), and then the
 * switch it tells. */
bool sampler_offcpu__is_tracepoint(const struct sampler *s, const struct perf_sample *smp);
void sampler_offcpu__tracepoint(struct sampler *s, const struct perf_sample *smp);
void sampler_offcpu__switch(struct sampler *s, const struct perf_event_header *h);
void sampler_offcpu__finish_window(struct sampler *s);
/* Off-cpu's stack events paced to off_pace_hz stacks a second
 * (sampler_offcpu_pace.c): set up by sampler_offcpu__new once they are
 * open (0 or -ENOMEM), the rate changed by set_pace, looked at from the
 * loop at now. */
int sampler_offcpu__pace_init(struct sampler *s);
void sampler_offcpu__set_pace(struct sampler *s, unsigned hz);
void sampler_offcpu__pace(struct sampler *s, uint64_t now);

#endif
