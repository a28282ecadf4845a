/* Off-CPU time from context switches (doc/format.md, "off-cpu"): where
 * threads wait, weighted by how long.
 *
 * Each thread's switch-outs and switch-ins, given in time order, are the
 * intervals it spent off the CPU. A voluntary switch-out (a sleep, I/O, a
 * lock, a wait) opens one; a preempted thread was still runnable, and its
 * wait is counted apart, never as off-CPU time. The switch-outs whose
 * stacks were sampled (every Nth switch of a CPU, N the period the kernel
 * reports with the sample) give their interval's stack, weighted by its
 * nanoseconds times N, so that the window's totals estimate all of the
 * threads' off-CPU time without bias; the exact time of every interval is
 * counted beside them (struct offcpu_stats), and the two say how good the
 * estimate is. An interval still open at a window's end gives that window
 * its time up to the end, and the next one the rest: a thread blocked for
 * 10 s in one call is one stack with 10 s, spread over the windows it
 * spans. Pure bookkeeping: no reads, no clock. Not thread-safe. */
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
/* Frame ids held by all pending stacks together (16 MiB). */
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
	uint64_t weighted_ns; /* what the window's stacks were given: sampled
	                         intervals' time times their period */
	uint64_t unmatched;   /* stacks that no switch-out of theirs followed */
	uint64_t dropped;     /* stacks or threads not kept: the bounds above,
	                         or memory */
	uint64_t threads;     /* threads followed at the window's end */
};

struct offcpu *offcpu__new(void);
/* Accepts NULL. */
void offcpu__delete(struct offcpu *o);

/* The stack of tid's switch-out sampled at time t with period (switches
 * of its CPU per sample, >= 1): key and frames[0..n) (root first) are
 * copied. The kernel reports the sample just before the switch-out record
 * of the same switch; the stack belongs to the next switch-out of tid
 * within OFFCPU_STACK_MATCH_NS. Returns 0, or -ENOMEM / -ENOSPC (the
 * stack is not kept, counted in dropped). */
int offcpu__stack(struct offcpu *o, int tid, uint64_t t, uint64_t period,
		  const struct profile_key *key, const uint32_t *frames, size_t n);

/* tid left the CPU at t; preempted: it was still runnable. A voluntary
 * switch-out opens tid's interval (with the stack sampled for it, if
 * any). Returns 0, or -ENOSPC past OFFCPU_MAX_THREADS (counted). */
int offcpu__switch_out(struct offcpu *o, int tid, uint64_t t, bool preempted);

/* tid ran again at t: closes its interval, counting its time, and gives p
 * a sampled interval's time (since its switch-out, or the last cut) times
 * its period, to its stack. A switch-in with no interval open (the
 * thread's first, or after a preemption) changes nothing. Returns 0, or
 * profile__add's error. */
int offcpu__switch_in(struct offcpu *o, struct profile *p, int tid, uint64_t t);

/* tid exited at t: its interval, if open, ends uncounted (the thread's
 * last switch-out follows its exit: that wait is no one's), and a later
 * switch-out of tid before a switch-in is ignored. A switch-in after t is
 * a new thread that reuses the tid. */
void offcpu__exit(struct offcpu *o, int tid, uint64_t t);

/* The window ends at t: each open interval counts its time up to t, a
 * sampled one gives p its share, and goes on from t in the next window.
 * Threads that exited before t are forgotten. Returns 0, or profile__add's
 * first error (the others are still counted). */
int offcpu__cut(struct offcpu *o, struct profile *p, uint64_t t);

/* The window's counters, which start again from zero. */
void offcpu__take_stats(struct offcpu *o, struct offcpu_stats *out);

#endif
