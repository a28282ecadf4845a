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

struct agent_stats {
	uint64_t lost;             /* PERF_RECORD_LOST + ring overwrites */
	uint64_t throttled;        /* PERF_RECORD_THROTTLE events */
	uint64_t kernel_only;      /* samples with no user stack (kernel threads) */
	uint64_t idle;             /* samples of the idle task (pid 0), dropped */
	uint64_t corrupt;          /* ring corruption events (data skipped) */
	uint64_t handled_late;     /* records of a record -d run whose handling
	                            * ended past its processing deadline: at
	                            * most the one in hand when it passed */
	/* why each user stack ended */
	uint64_t unwind_complete;  /* reached the outermost frame */
	uint64_t unwind_truncated; /* ran off the copied stack */
	uint64_t unwind_no_cfi;
	uint64_t unwind_no_map;
	uint64_t unwind_bad_pc;
	uint64_t unwind_depth;
	uint64_t processes;        /* processes known at the window's end */
	uint64_t binaries;         /* distinct binaries loaded */
	uint64_t agent_cpu_ns;     /* agent CPU used during the window */
	uint64_t agent_load_cpu_ns; /* of it, one-off work: reading processes,
	                            * loading binaries' CFI, symbols and debug
	                            * info, reading JIT files */
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
	uint64_t jvms;             /* HotSpot JVMs being read now */
	uint64_t jvm_reads;        /* reads of JVMs' memory, since start */
	uint64_t jvm_failures;     /* JVM code or frames that could not be read
	                            * or named, since start */
	uint64_t pythons;          /* CPython interpreters being read now */
	uint64_t python_reads;     /* reads of interpreters' memory, since start */
	uint64_t python_failures;  /* Python stacks that could not be read,
	                            * since start */
	/* samples whose native stack ran CPython's eval loop (window): */
	uint64_t python_stacks;    /* named with the Python frames they ran */
	uint64_t python_last_known; /* ... with the thread's last stack read,
	                            * the process having exited since */
	uint64_t python_lag_ns;    /* the sum over python_stacks of how long
	                            * after the sample its stack was read
	                            * (when sample times are CLOCK_MONOTONIC) */
	uint64_t python_lag_max_ns; /* the longest of them */
	uint64_t python_no_thread; /* the thread had no Python thread state
	                            * (any more): native frames only */
	uint64_t python_unreadable; /* the interpreter could not be read (exiting,
	                            * changing, unknown version): native only */
	/* native eval calls of those samples, by how their innermost Python
	 * frame was known (window): */
	uint64_t python_confirmed; /* the sample's own registers and stack
	                            * slots held the code the late read found */
	uint64_t python_corrected; /* ... held another code: taken instead */
	uint64_t python_unanchored; /* ... held no code known: the late read */
	uint64_t debug_bytes;      /* inflated debug data and inline trees held */
	uint64_t debug_refused;    /* binaries' debug data refused by the global
	                            * budgets (bytes, per-user share, load time),
	                            * since start */
	uint64_t names, names_bytes; /* the interned frame names and paths */
	uint64_t names_compactions;  /* since start (sampler__compact_names) */
	uint64_t names_cut;        /* frame names longer than FRAME_NAME_MAX,
	                            * cut in the middle with a marker (window) */
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

/* Adds window `w` into the running combination `acc`. */
void agent_stats__merge(struct agent_stats *acc, const struct agent_stats *w);

/* User stacks unwound in the window, whatever ended them. */
static inline uint64_t agent_stats__user_stacks(const struct agent_stats *s)
{
	return s->unwind_complete + s->unwind_truncated + s->unwind_no_cfi + s->unwind_no_map +
	       s->unwind_bad_pc + s->unwind_depth;
}

#endif
