/* A sample's user stack, from registers to frame names. In DWARF mode the
 * stack is unwound from the sampled registers and the copied top of the
 * stack with each binary's CFI; on kernels without stack copies the kernel's
 * frame-pointer callchain is taken as it is. Each pc then goes to the
 * symbolizer with what the process table knows of the code holding it.
 * Owns its scratch (allocated once); allocates nothing per sample.
 * Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_USER_STACK_H
#define SMOLDER_COLLECTOR_USER_STACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/unwind.h"

struct agent_stats;
struct callchain_parts;
struct jvms;
struct perf_sample;
struct process;
struct proctable;
struct pythons;
struct symbolizer;
struct user_stack;

/* procs, sym and jvms are borrowed (jvms may be NULL: no runtime
 * readers; a JVM's code is then stepped by frame pointer like any JIT
 * code). dwarf: unwind from registers and stack
 * (regs_mask: the sample's register layout), else frame-pointer callchains.
 * max_frames bounds the user frames of a stack. Returns 0 or -ENOMEM. */
int user_stack__new(struct proctable *procs, struct symbolizer *sym, struct jvms *jvms, int dwarf,
		    uint64_t regs_mask, size_t max_frames, struct user_stack **out);
void user_stack__delete(struct user_stack *u);

/* Names the Python frames CPython interpreters run (collector/pythons.h)
 * in place of their native eval frames, or beside them with keep_eval.
 * ps and st are borrowed (st: where Python samples are counted);
 * mono_times: sample times are CLOCK_MONOTONIC (the read's lag is then
 * counted). Returns 0 or -ENOMEM. */
int user_stack__set_pythons(struct user_stack *u, struct pythons *ps, bool keep_eval,
			    bool mono_times, struct agent_stats *st);

/* Unwinds the user stack of sample smp of process p (cc: its callchain,
 * split). A pc in no mapping the table knows makes it re-read
 * /proc/PID/maps (at most once a second per process) and try again.
 * Returns the number of user frames (0: none) and why the stack ended. */
size_t user_stack__unwind(struct user_stack *u, struct process *p, const struct perf_sample *smp,
			  const struct callchain_parts *cc, enum unwind_stop *why);

/* Appends the names of the nframes frames just unwound to stack[*n..cap),
 * root first, each pc expanded into the frames inlined at it; now_ns paces
 * JIT map reloads. Returns 0, or -ENOSPC when stack is full (what fits is
 * kept). */
int user_stack__append_names(struct user_stack *u, struct process *p, size_t nframes,
			     uint64_t now_ns, uint32_t *stack, size_t cap, size_t *n);

#endif
