/* A profile window: samples aggregated into groups (one per process identity)
 * of interned stacks -> counts. Stacks are sequences of frame ids (ids of
 * display strings in the caller's struct strtab), root first. Strings are only
 * built at export time. Adding a stack seen before allocates nothing.
 * The profile accounts for every sample it was given (samples, and those it
 * dropped); what the agent observed about itself while sampling lives beside
 * it, in struct agent_stats (profile/agent_stats.h). Not thread-safe. */
#ifndef SMOLDER_PROFILE_PROFILE_H
#define SMOLDER_PROFILE_PROFILE_H
#include <stddef.h>
#include <stdint.h>

struct mappings;
struct strtab;
struct profile;

/* Identity of a group; string fields are strtab ids (0 = unknown). */
struct profile_key {
	uint32_t service_name;
	uint32_t exe;
	uint32_t comm;
	int32_t pid; /* -1 unless grouping per pid */
	uint32_t thread; /* the sampled thread's name when grouping per thread
	                  * (the id of "" when the name is unknown); 0: not
	                  * grouped per thread */
	uint32_t user;   /* whose the process is (its user's name); 0: root's */
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
	/* the binaries of the frames no symbol named (profile/mappings.h),
	 * borrowed; NULL: none known */
	const struct mappings *mappings;
};

struct profile_group {
	struct profile_key key;
	uint64_t samples;  /* sum of the group's stack counts */
	size_t nstacks;
};

/* The unit of an event's values: "nanoseconds" for off-cpu (the time
 * threads waited), "samples" for the others (cpu-clock, cycles). */
const char *profile_meta__unit_of(const char *event_name);

/* names is borrowed and must outlive the profile. NULL on ENOMEM. */
struct profile *profile__new(struct strtab *names);
void profile__delete(struct profile *p);
/* Empties the window: groups, stacks and counts are cleared, meta is kept;
 * allocations are kept for reuse. */
void profile__reset(struct profile *p);
/* One pass of a compaction of the names table (common/strtab_remap.h), for
 * an empty window only (just after profile__reset: stacks are hashed by
 * their ids). Returns 0, or -EBUSY in the collect pass when the window holds
 * samples; the commit pass switches the profile to r->to. */
struct strtab_remap;
int profile__remap_names(struct profile *p, struct strtab_remap *r);
/* Renames frames: every frame id f of every stack becomes rename(ctx, f),
 * and stacks that become equal are merged. For names found late (JIT code
 * named after its samples were taken). Groups, their order, the samples
 * and the meta are kept. Returns 0, or -ENOMEM (the window unchanged). */
int profile__rename_frames(struct profile *p, uint32_t (*rename)(void *ctx, uint32_t id), void *ctx);
/* Bounds on distinct stacks (default 1,000,000) and on the total frames they
 * hold (default 16M ids = 64 MiB) per window. Past them new stacks are
 * dropped; stacks already in the window keep counting. */
void profile__set_max_stacks(struct profile *p, size_t max_stacks);
void profile__set_max_frames(struct profile *p, size_t max_frames);

/* Adds count samples of stack frames[0..n) (root first) to the key's group.
 * n may be 0 (an empty stack); count 0 is a no-op. Always adds count to
 * the samples, so the invariant sum(group samples) == profile__samples() -
 * profile__dropped() holds by construction. Returns 0; -ENOSPC past the
 * caps, -ENOMEM, or -EINVAL (frames NULL with n > 0): then the samples are
 * counted as dropped and the window is unchanged otherwise. A known stack is
 * a hash lookup and allocates nothing. */
int profile__add(struct profile *p, const struct profile_key *key,
		 const uint32_t *frames, size_t n, uint64_t count);
/* Accounts count decoded samples the caller could not attribute to any group
 * (e.g. a sample record too short to carry a pid, an idle-task sample):
 * adds to both the samples and the dropped ones. */
void profile__drop(struct profile *p, uint64_t count);
/* Samples given to the window (profile__add and profile__drop), and those
 * of them not aggregated into any group. */
uint64_t profile__samples(const struct profile *p);
uint64_t profile__dropped(const struct profile *p);

struct profile_meta *profile__meta(struct profile *p);
const struct profile_meta *profile__meta_const(const struct profile *p);
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
