/* Off-CPU time from context switches (doc/format.md, "Off-CPU time"):
 * where threads wait, weighted by how long.
 *
 * Each thread's switch-outs and switch-ins, given in time order, are the
 * intervals it spent off the CPU. A voluntary switch-out (a sleep, I/O, a
 * lock, a wait) opens one; a preempted thread was still runnable, and its
 * wait is counted apart, never as off-CPU time. Every interval is timed
 * exactly, so each thread's off-CPU time in a window is known exactly.
 *
 * Only some switch-outs have a stack: the kernel samples them under a
 * budget, by count of switches, so a thread's long waits are as likely to
 * be sampled as its short ones. At a window's end each thread's exact
 * time is shared out over its sampled waits' stacks in proportion to
 * their own times (a ratio estimate: the thread's total is exact, its
 * stacks' shares are those of its sampled waits), and a thread none of
 * whose waits was sampled in the window gets its time under one frame
 * saying so, with the group key its process has. Weighting each sampled
 * wait by its period instead would be unbiased too, but one thread asleep
 * for the whole window is sampled once in a thousand windows at a busy
 * host's periods, and then counts for a thousand windows' worth.
 *
 * An interval still open at a window's end counts in that window up to its
 * end, and in the next from there: a thread blocked for 10 s in one call
 * is one stack with 10 s, spread over the windows it spans. Pure
 * bookkeeping: no reads, no clock. Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_OFFCPU_H
#define SMOLDER_COLLECTOR_OFFCPU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct offcpu;
struct profile;
struct profile_key;

/* Threads followed at once; past it a new thread's intervals are not kept
 * (counted in dropped). A host's threads, but bounded: a user spawning
 * threads costs its own profile, not the agent's memory. */
#define OFFCPU_MAX_THREADS 65536
/* Frame ids held by all kept stacks together (16 MiB). */
#define OFFCPU_MAX_FRAME_IDS (4u << 20)
/* How long before its switch-out record a stack may have been sampled
 * and still be that switch's: the kernel writes the sample first, then
 * the record, microseconds apart. */
#define OFFCPU_STACK_MATCH_NS 1000000ull

/* What one window saw; offcpu__take_stats returns and clears it. */
struct offcpu_stats {
	uint64_t switches;    /* switch-outs of followed threads */
	uint64_t preempted;   /* ... that were preemptions: not off-CPU time */
	uint64_t sampled;     /* voluntary switch-outs whose stack was kept */
	uint64_t off_ns;      /* every voluntary interval's time in the window,
	                         exactly (closed in it, or cut at its end) */
	uint64_t weighted_ns; /* what the window's profile was given: off_ns
	                         less what had no key or no room */
	uint64_t unsampled_ns; /* ... of it, threads' time under the frame of
	                         waits with no stack sampled */
	uint64_t unmatched;   /* stacks that no switch-out of theirs followed */
	uint64_t dropped;     /* stacks or threads not kept: the bounds above,
	                         or memory */
	uint64_t threads;     /* threads followed at the window's end */
	uint64_t late_ins;    /* waits ended by offcpu__late_switch_in */
};

/* unsampled_frame: the frame (a strtab id of the caller's) under which a
 * thread's time goes when none of its waits in a window was sampled; the
 * sampler names it so. */
#define OFFCPU_UNSAMPLED_FRAME "[wait not sampled]"
struct offcpu *offcpu__new(uint32_t unsampled_frame);
/* Accepts NULL. */
void offcpu__delete(struct offcpu *o);

/* The stack of tid's switch-out sampled at time t: key and frames[0..n)
 * (root first) are copied. The kernel reports the sample just before the
 * switch-out record of the same switch; the stack belongs to the next
 * switch-out of tid within OFFCPU_STACK_MATCH_NS. Returns 0, or -ENOMEM /
 * -ENOSPC / -EINVAL (the stack is not kept, counted in dropped). */
int offcpu__stack(struct offcpu *o, int tid, uint64_t t, const struct profile_key *key,
		  const uint32_t *frames, size_t n);

/* Thread tid of process pid left the CPU at t; preempted: it was still
 * runnable. A voluntary switch-out opens tid's interval (with the stack
 * sampled for it, if any). Returns 0, or -ENOSPC / -ENOMEM (counted). */
int offcpu__switch_out(struct offcpu *o, int pid, int tid, uint64_t t, bool preempted);

/* tid ran again at t: closes its interval and counts its time (since its
 * switch-out, or the last cut) for the window. A switch-in with no
 * interval open (the thread's first, or after a preemption) changes
 * nothing. Returns 0, or -ENOMEM (the interval's time is counted, its
 * stack not kept for the window: it counts as unsampled). */
int offcpu__switch_in(struct offcpu *o, int tid, uint64_t t);

/* tid is going off the CPU at t, though the switch-in that ended its
 * wait was not reported (the sched_switch tracepoint of the idle task,
 * which some kernels do not deliver): an open wait is counted up to t,
 * with the thread's run time since its unreported switch-in. Returns 1
 * when a wait was open, 0 when none was (the switch-in came), or -ENOMEM
 * as offcpu__switch_in. */
int offcpu__late_switch_in(struct offcpu *o, int tid, uint64_t t);

/* tid exited at t: its interval, if open, ends uncounted (the thread's
 * last switch-out follows its exit: that wait is no one's), and a later
 * switch-out of tid before a switch-in is ignored. A switch-in after t is
 * a new thread that reuses the tid. */
void offcpu__exit(struct offcpu *o, int tid, uint64_t t);

/* The group key of thread tid of process pid, for the time of a thread
 * whose waits had no stack sampled in the window: 0, or negative when the
 * process is not known (its time is then only counted, in off_ns). */
typedef int (*offcpu_key_fn)(void *ctx, int pid, int tid, struct profile_key *out);

/* The window ends at t: open intervals count their time up to t (and go
 * on from t in the next window), then every thread's time in the window
 * goes to p: over its sampled waits' stacks in proportion to their times,
 * or under the unsampled frame with key_of's key. Threads that exited
 * before t, and those with nothing open, are forgotten. Returns 0, or
 * profile__add's first error (the rest is still given). */
int offcpu__cut(struct offcpu *o, struct profile *p, uint64_t t, offcpu_key_fn key_of, void *ctx);

/* The window's counters, which start again from zero. */
void offcpu__take_stats(struct offcpu *o, struct offcpu_stats *out);

/* One pass of a compaction of the names table (common/strtab_remap.h):
 * the stacks kept across windows hold its ids. Returns 0 or -ENOMEM (in
 * the collect pass). */
struct strtab_remap;
int offcpu__remap_names(struct offcpu *o, struct strtab_remap *r);

#endif
