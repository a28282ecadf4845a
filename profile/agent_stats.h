/* What the agent observed about itself during a window, beside the profile
 * it filled: samples it could not take or unwind, and what it cost. A dump's
 * "stats" object is these counters together with the profile's own sample
 * accounting (profile__samples, profile__dropped); doc/format.md describes
 * each. A value type: the collector fills the sampling counters, the daemon
 * the spool and frequency ones, export reads them. */
#ifndef SMOLDER_PROFILE_AGENT_STATS_H
#define SMOLDER_PROFILE_AGENT_STATS_H
#include <stddef.h>
#include <stdint.h>

/* What one runtime reader did (runtimes/runtime.h): its instances, the
 * reads and names its processes' budgets allowed, and the samples whose
 * language frames it read. */
#define AGENT_RUNTIMES_MAX 8
#define AGENT_RUNTIME_NAME_MAX 16
struct agent_runtime_stats {
	char name[AGENT_RUNTIME_NAME_MAX]; /* the reader's ("cpython"); "" unused */
	/* levels and totals since start */
	uint64_t readers;        /* instances open now */
	uint64_t opened;         /* instances opened */
	uint64_t failed;         /* opens that failed (not the runtime, or unreadable) */
	uint64_t reads;          /* reads of processes' memory */
	uint64_t failures;       /* code, frames or stacks not read or named */
	uint64_t refused;        /* operations refused by the read budgets */
	uint64_t names_refused;  /* names past their user's share: the marker */
	uint64_t cpu_ns;         /* time spent reading stacks and opening */
	uint64_t readers_refused; /* opens refused: the user's readers are open */
	uint64_t idle_closed;    /* instances closed after a minute unused */
	/* samples of the window whose native stack ran the runtime's code: */
	uint64_t stacks;         /* named with the language frames they ran */
	uint64_t lag_ns;         /* the sum over stacks of how long after the
	                          * sample it was read (CLOCK_MONOTONIC times) */
	uint64_t lag_max_ns;     /* the longest of them */
	uint64_t no_thread;      /* the thread ran none of the runtime's code
	                          * (any more): native frames only */
	uint64_t unreadable;     /* the runtime could not be read: native only */
	/* native frames of those samples that ran language frames, by how
	 * what they ran was known (window): */
	uint64_t confirmed;      /* the sample's own words prove it */
	uint64_t chained;        /* callers of a proven frame: the read's */
	uint64_t unproven;       /* nothing proves it: "[unproven]" */
	uint64_t image_changed;  /* read from another image than the sample's
	                          * (an exec since): native frames only */
};

struct agent_stats {
	uint64_t lost;             /* PERF_RECORD_LOST + ring overwrites */
	uint64_t throttled;        /* PERF_RECORD_THROTTLE events */
	uint64_t kernel_only;      /* samples with no user stack (kernel threads) */
	uint64_t idle;             /* samples of the idle task (pid 0), dropped */
	uint64_t filtered;         /* samples of processes outside the recorded
	                            * process trees (record -p, a command), left
	                            * out: not part of the samples */
	uint64_t corrupt;          /* ring corruption events (data skipped) */
	uint64_t handled_late;     /* records of a record -d run whose handling
	                            * ended past its processing deadline: at
	                            * most the one in hand when it passed */
	/* why each user stack ended */
	uint64_t unwind_complete;  /* reached the outermost frame */
	uint64_t unwind_truncated; /* ran off the stack that could be read */
	uint64_t unwind_no_cfi;
	uint64_t unwind_no_map;
	uint64_t unwind_bad_pc;
	uint64_t unwind_depth;
	/* user stacks deeper than the kernel's copy, unwound on from the
	 * thread's live stack (window) */
	uint64_t deep_stacks;      /* stacks fed bytes from beyond the copy */
	uint64_t deep_reads;       /* process_vm_readv calls for them */
	uint64_t deep_bytes;       /* ... and the bytes they read */
	uint64_t deep_refused;     /* stacks cut: the process's read budget
	                            * refused a read */
	uint64_t deep_stale;       /* ... the live stack no longer held what
	                            * the copy held where they meet, and the
	                            * sample's frame-pointer walk did not
	                            * prove the frames beyond */
	uint64_t deep_walk_proved; /* stacks whose frames beyond a seam that
	                            * moved the frame-pointer walk proved */
	uint64_t deep_failed;      /* ... the read failed (thread gone,
	                            * memory unmapped) */
	uint64_t processes;        /* processes known at the window's end */
	uint64_t binaries;         /* distinct binaries loaded */
	uint64_t agent_cpu_ns;     /* agent CPU used during the window */
	uint64_t agent_load_cpu_ns; /* of it, one-off work: reading processes,
	                            * loading binaries' CFI, symbols and debug
	                            * info, reading JIT files, and runtime
	                            * readers' work (charged to the users whose
	                            * processes caused it) */
	uint64_t agent_rss_bytes;
	uint64_t agent_peak_rss_bytes; /* VmHWM: the most the agent has held since start */
	uint64_t spool_dropped;    /* dumps the spool's bounds dropped since the last window */
	uint64_t frequency_configured_hz; /* the configured frequency; the dump's
	                            * event.frequency_hz is the one in effect (lower
	                            * when over cpu_budget) */
	/* caches, cumulative since start: hit rate = hits / lookups */
	uint64_t cfi_lookups, cfi_hits, cfi_evictions;
	uint64_t sym_lookups, sym_hits, sym_evictions;
	uint64_t inline_lookups, inline_hits, inline_evictions; /* units' inline trees */
	uint64_t inline_builds;    /* units' trees built from DWARF */
	uint64_t inline_loads;     /* ... taken from the cache directory instead */
	uint64_t inline_index_bytes; /* the trees held and the cache files mapped */
	uint64_t inline_rejected;  /* cache files or trees in them found damaged */
	uint64_t ksym_lookups, ksym_hits, ksym_evictions;       /* kernel symbols */
	uint64_t debug_bytes;      /* inflated debug data and inline trees held */
	uint64_t debug_refused;    /* binaries' debug data refused by the global
	                            * budgets (bytes, per-user share, load time),
	                            * since start */
	uint64_t names, names_bytes; /* the interned frame names and paths */
	uint64_t names_compactions;  /* since start (sampler__compact_names) */
	uint64_t names_cut;        /* frame names longer than FRAME_NAME_MAX,
	                            * cut in the middle with a marker (window) */
	/* --event off-cpu (collector/offcpu.h's struct offcpu_stats); 0 with
	 * the CPU events */
	uint64_t off_cpu_switches, off_cpu_preempted, off_cpu_sampled;
	uint64_t off_cpu_ns;          /* every voluntary wait, exactly */
	uint64_t off_cpu_weighted_ns; /* what the profile was given */
	uint64_t off_cpu_unsampled_ns; /* ... of it, under the frame of waits
	                               * with no stack sampled */
	uint64_t off_cpu_unmatched, off_cpu_dropped;
	uint64_t off_cpu_threads;     /* followed at the window's end */
	uint64_t off_cpu_late_ins;    /* waits whose end the kernel did not
	                               * report, ended at the thread's next
	                               * switch-out (the tracepoint path) */
	/* one block per runtime reader, in the registry's order; unused
	 * blocks have an empty name */
	struct agent_runtime_stats runtimes[AGENT_RUNTIMES_MAX];
};

/* Every counter by its name in a dump's "stats" ("unwind.complete" for
 * the nested ones), and how counters of several windows combine: per-window
 * counts add up; levels (RSS, processes) and cumulative-since-start
 * counters (caches) take the largest. Ends with a NULL name. */
enum agent_stat_merge { AGENT_STAT_SUM, AGENT_STAT_MAX };
struct agent_stat_field {
	const char *name;
	size_t offset;
	enum agent_stat_merge merge;
};
extern const struct agent_stat_field agent_stats__fields[];

/* The counters of a runtime block by their names in the dump's
 * stats.runtimes.NAME, and how they combine; ends with a NULL name. */
extern const struct agent_stat_field agent_runtime_stats__fields[];
/* Counters of earlier dumps now in a runtime block: the flat key (e.g.
 * "python_stacks") and the block and counter it became ("cpython",
 * "stacks"); ends with a NULL key. Dumps are read with either. */
struct agent_stat_former {
	const char *key, *runtime, *counter;
};
extern const struct agent_stat_former agent_stats__former[];
/* The block named name in s: found, else the first unused one (named
 * then), else NULL (all AGENT_RUNTIMES_MAX in use). */
struct agent_runtime_stats *agent_stats__runtime(struct agent_stats *s, const char *name);

/* Adds window `w` into the running combination `acc`. */
void agent_stats__merge(struct agent_stats *acc, const struct agent_stats *w);

/* User stacks unwound in the window, whatever ended them. */
static inline uint64_t agent_stats__user_stacks(const struct agent_stats *s)
{
	return s->unwind_complete + s->unwind_truncated + s->unwind_no_cfi + s->unwind_no_map +
	       s->unwind_bad_pc + s->unwind_depth;
}

#endif
