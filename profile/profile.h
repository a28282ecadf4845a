/* A profile window: samples aggregated into groups (one per process identity)
 * of interned stacks -> counts. Stacks are sequences of frame ids (ids of
 * display strings in the caller's struct strtab), root first. Strings are only
 * built at export time. Adding a stack seen before allocates nothing.
 * Not thread-safe. */
#ifndef SMOLDER_PROFILE_PROFILE_H
#define SMOLDER_PROFILE_PROFILE_H
#include <stddef.h>
#include <stdint.h>

struct strtab;
struct profile;

/* Identity of a group; string fields are strtab ids (0 = unknown). */
struct profile_key {
	uint32_t service_name;
	uint32_t exe;
	uint32_t comm;
	int32_t pid; /* -1 unless grouping per pid */
};

/* Counters of the window, exported as the dump's "stats". */
struct profile_stats {
	uint64_t samples;          /* samples decoded in the window; maintained by
				    * profile__add/profile__drop, do not add to it */
	uint64_t lost;             /* PERF_RECORD_LOST + ring overwrites */
	uint64_t dropped;          /* samples not aggregated (cap, ENOMEM,
				    * profile__drop); maintained by the profile */
	uint64_t throttled;        /* PERF_RECORD_THROTTLE events */
	uint64_t kernel_only;      /* samples with no user stack (kernel threads) */
	uint64_t idle;             /* samples of the idle task (pid 0), dropped */
	uint64_t corrupt;          /* ring corruption events (data skipped) */
	uint64_t unwind_complete;  /* reached the outermost frame */
	uint64_t unwind_truncated; /* ran off the copied stack */
	uint64_t unwind_no_cfi;
	uint64_t unwind_no_map;
	uint64_t unwind_bad_pc;
	uint64_t unwind_depth;
	uint64_t processes;        /* processes known at the window's end */
	uint64_t binaries;         /* distinct binaries loaded */
	uint64_t agent_cpu_ns;     /* agent CPU used during the window */
	uint64_t agent_rss_bytes;
	uint64_t agent_peak_rss_bytes; /* VmHWM: the most the agent has held since start */
	uint64_t spool_dropped;    /* dumps the spool's bounds dropped since the last window */
	uint64_t frequency_configured_hz; /* the configured frequency; event.frequency_hz is
	                            * the one in effect (lower when over cpu_budget) */
	/* caches, cumulative since start: hit rate = hits / lookups */
	uint64_t cfi_lookups, cfi_hits, cfi_evictions;
	uint64_t sym_lookups, sym_hits, sym_evictions;
	uint64_t inline_lookups, inline_hits, inline_evictions; /* units' inline trees */
	uint64_t ksym_lookups, ksym_hits, ksym_evictions;       /* kernel symbols */
	uint64_t names, names_bytes; /* the interned frame names and paths */
	uint64_t names_compactions;  /* since start (sampler__compact_names) */
};

/* Describes the window; strings are borrowed and must outlive the profile. */
struct profile_meta {
	uint64_t start_ns, end_ns; /* wall clock */
	const char *window_id;     /* stable id (host + window start) so a receiver
	                            * can drop a duplicate; NULL: not written */
	const char *hostname, *kernel, *arch;
	const char *event_name;    /* "cpu-clock" */
	const char *event_unit;    /* "samples" */
	uint32_t frequency_hz;
	size_t nlabels;
	const char *const *label_names, *const *label_values; /* global labels */
};

struct profile_group {
	struct profile_key key;
	uint64_t samples;  /* sum of the group's stack counts */
	size_t nstacks;
};

/* names is borrowed and must outlive the profile. NULL on ENOMEM. */
struct profile *profile__new(struct strtab *names);
void profile__delete(struct profile *p);
/* Empties the window: groups, stacks and stats are cleared, meta is kept;
 * allocations are kept for reuse. */
void profile__reset(struct profile *p);
/* One pass of a compaction of the names table (common/strtab_remap.h), for
 * an empty window only (just after profile__reset: stacks are hashed by
 * their ids). Returns 0, or -EBUSY in the collect pass when the window holds
 * samples; the commit pass switches the profile to r->to. */
struct strtab_remap;
int profile__remap_names(struct profile *p, struct strtab_remap *r);
/* Bounds on distinct stacks (default 1,000,000) and on the total frames they
 * hold (default 16M ids = 64 MiB) per window. Past them new stacks are
 * dropped; stacks already in the window keep counting. */
void profile__set_max_stacks(struct profile *p, size_t max_stacks);
void profile__set_max_frames(struct profile *p, size_t max_frames);

/* Adds count samples of stack frames[0..n) (root first) to the key's group.
 * n may be 0 (an empty stack); count 0 is a no-op. Always adds count to
 * stats.samples, so the invariant sum(group samples) == stats.samples -
 * stats.dropped holds by construction. Returns 0; -ENOSPC past the caps,
 * -ENOMEM, or -EINVAL (frames NULL with n > 0): then the samples are counted
 * in stats.dropped and the window is unchanged otherwise. A known stack is a
 * hash lookup and allocates nothing. */
int profile__add(struct profile *p, const struct profile_key *key,
		 const uint32_t *frames, size_t n, uint64_t count);
/* Accounts count decoded samples the caller could not attribute to any group
 * (e.g. a sample record too short to carry a pid): adds to both
 * stats.samples and stats.dropped. */
void profile__drop(struct profile *p, uint64_t count);

struct profile_meta *profile__meta(struct profile *p);
struct profile_stats *profile__stats(struct profile *p);
const struct profile_meta *profile__meta_const(const struct profile *p);
const struct profile_stats *profile__stats_const(const struct profile *p);
const struct strtab *profile__names(const struct profile *p);

size_t profile__ngroups(const struct profile *p);
/* Fills *out for group g < ngroups (groups are numbered in order of first
 * sample; every group has samples > 0). */
void profile__group(const struct profile *p, size_t g, struct profile_group *out);
/* Calls fn for each distinct stack of group g (order unspecified). Stops and
 * returns fn's value when it is non-zero; returns 0 otherwise. */
typedef int (*profile_stack_fn)(void *ctx, const uint32_t *frames, size_t n, uint64_t count);
int profile__foreach_stack(const struct profile *p, size_t g, profile_stack_fn fn, void *ctx);
/* Sum of samples over all groups. */
uint64_t profile__total(const struct profile *p);
/* Distinct stacks over all groups, and approximate bytes held (for stats). */
size_t profile__nstacks(const struct profile *p);
size_t profile__bytes(const struct profile *p);

#endif
