/* Merging validated dumps (export/dump_read.h) into one profile window, for
 * `smolder report`: any number of dumps, filtered by time range, labels and
 * pid. Dumps are added one at a time so a day of spooled windows never has
 * to be held in memory at once. Not thread-safe. */
#ifndef SMOLDER_EXPORT_DUMP_MERGE_H
#define SMOLDER_EXPORT_DUMP_MERGE_H
#include <stddef.h>
#include <stdint.h>

#include "profile/agent_stats.h"

struct dump;
struct profile;
struct strtab;

/* One "--label NAME=VALUE" condition. */
struct dump_merge_label {
	const char *name, *value;
};

/* What to keep. A dump is kept when its window overlaps [from_ns, until_ns)
 * (start < until and end > from; a zero-length window when from <= start <
 * until). A profile of a kept dump is kept when every label condition holds
 * -- conditions on the same name are alternatives (any value matches),
 * conditions on different names must all hold -- and, when pid >= 0, its
 * "pid" label equals pid. A label condition is checked against the
 * profile's labels (service_name, exe, comm, pid) and then the dump's
 * global labels. Strings are borrowed for the merge's lifetime. */
struct dump_merge_filter {
	uint64_t from_ns, until_ns; /* 0 and UINT64_MAX: no bound */
	const struct dump_merge_label *labels;
	size_t nlabels;
	int64_t pid;                /* -1: any */
	const char *event;          /* only the dumps of this event
	                               (event.name); NULL: any;
	                               DUMP_MERGE_WALL: cpu-clock and
	                               off-cpu as one time */
};

/* The event of a merge of CPU time (cpu-clock samples times their
 * period) and off-CPU time into one view of where threads' time went, in
 * nanoseconds. */
#define DUMP_MERGE_WALL "wall"

/* Distinct sampling rates kept in dump_merge_info. */
#define DUMP_MERGE_RATES 8

/* Counters for messages ("N dumps read, none overlaps ...") and titles. */
struct dump_merge_info {
	size_t dumps;               /* dumps added */
	size_t dumps_other_event;   /* ... left out: of another event */
	uint64_t read_start_ns, read_end_ns; /* span of all added dumps' windows */
	size_t dumps_in_range;      /* ... whose window overlaps the range */
	size_t dumps_used;          /* ... of which at least one profile was kept */
	size_t profiles_in_range;   /* profiles of dumps in range */
	size_t profiles_label_ok;   /* ... that pass the label conditions */
	size_t profiles_used;       /* ... that also pass the pid condition */
	size_t profiles_left_out;   /* profiles of the used dumps that the label
				     * or pid conditions left out: then the
				     * used dumps' stats describe more than
				     * the merged samples */
	size_t profiles_threaded;   /* used profiles with a "thread" label */
	uint64_t samples;           /* samples merged */
	uint64_t start_ns, end_ns;  /* span of the used dumps' windows (0 if none) */
	uint64_t cpu_ns;            /* sum of count * (1e9 / frequency_hz) over
				     * merged samples, each with its own dump's
				     * period (0 for frequency 0) */
	uint32_t min_hz, max_hz;    /* frequencies of the used dumps */
	uint32_t rates[DUMP_MERGE_RATES]; /* their distinct nonzero values,
				     * highest first; nrates of them (past
				     * DUMP_MERGE_RATES, the highest and the
				     * lowest are among them) */
	size_t nrates;
	int more_rates;             /* there were more than DUMP_MERGE_RATES */
	struct agent_stats stats;   /* the used dumps' agent counters combined
				     * (profile/agent_stats.h) */
	const char *hosts;          /* distinct hostnames of the used dumps,
				     * ", "-joined in order of first use */
	size_t nhosts;
};

struct dump_merge;

/* A merge into a new profile whose frame and label strings are interned in
 * names (borrowed; share one strtab between two merges to compare their
 * frame ids). filter is copied, its strings borrowed. NULL on ENOMEM. */
struct dump_merge *dump_merge__new(struct strtab *names, const struct dump_merge_filter *filter);
void dump_merge__delete(struct dump_merge *m);

/* Adds the kept profiles of d. Each stack string is split on ';' into
 * frames interned in names (the empty string is a stack without frames);
 * the group key comes from the profile's labels. d may be deleted
 * afterwards: nothing of it is kept. Returns 0, -ENOMEM, -ENOSPC (more
 * distinct stacks or frames than a profile holds), or -EDOM when d's
 * values are in another unit than those merged so far (an off-cpu dump's
 * nanoseconds and a CPU dump's samples: the caller picks one event); on
 * error the merge is unusable. */
int dump_merge__add(struct dump_merge *m, const struct dump *d);

/* Checks the label conditions against every label name seen in the dumps
 * added so far (kept or not). Returns 0, or -ENOENT with *unknown set to the
 * first condition's name that no dump has (borrowed from the filter). */
int dump_merge__check_labels(const struct dump_merge *m, const char **unknown);

/* Keep the profiles' "thread" labels in the group keys (one group per
 * thread name); by default they are merged away, as if the dumps had been
 * grouped per process. Before the first add. */
void dump_merge__set_group_by_thread(struct dump_merge *m, int on);

/* The merged profile, owned by m (valid until dump_merge__delete). Its
 * dropped samples are those of the used dumps whose every profile was kept
 * (profile__samples counts them too, as in a window). Its meta
 * describes the used dumps: the span of their windows; hostname, kernel,
 * arch and event name the common value or the distinct values ", "-joined;
 * frequency_hz the common one or, when they differ, the sample-weighted
 * average; global labels those with one value in every used dump; no
 * window id. Its stats hold only the merged samples (the other counters of
 * the dumps are not merged). Recomputes meta on each call. */
struct profile *dump_merge__profile(struct dump_merge *m);
/* Counters; strings owned by m and valid until the next add or delete. */
const struct dump_merge_info *dump_merge__info(const struct dump_merge *m);
/* The sampling rates of the used dumps as a title says them: "99 Hz"
 * when they agree, "windows at 99, 49 and 25 Hz" when they differ, "windows
 * at 25 to 99 Hz" past DUMP_MERGE_RATES values; "" when no dump gave one.
 * Never an average: no window ran at it. */
void dump_merge__describe_rates(const struct dump_merge_info *in, char *buf, size_t size);

#endif
