/* A sample's user stack, from registers to frame names. In DWARF mode the
 * stack is unwound from the sampled registers and the copied top of the
 * stack (and beyond it, the thread's live stack where it continues the
 * copy: collector/livestack.h) with each binary's CFI, stepping over code
 * runtime readers describe (collector/runtimes.h); the language frames the
 * readers read are then placed on the native frames that ran them. On kernels without stack
 * copies the kernel's frame-pointer callchain is taken as it is. Each pc
 * then goes to the symbolizer with what the process table and the readers
 * know of the code holding it. Owns its scratch (allocated once);
 * allocates nothing per sample. Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_USER_STACK_H
#define SMOLDER_COLLECTOR_USER_STACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/unwind.h"

struct agent_stats;
struct callchain_parts;
struct perf_sample;
struct process;
struct proctable;
struct runtimes;
struct symbolizer;
struct user_stack;

/* procs, sym and rs are borrowed (rs may be NULL: no runtime readers; JIT
 * code is then stepped by frame pointer). dwarf: unwind from registers
 * and stack (regs_mask: the sample's register layout), else frame-pointer
 * callchains. max_frames bounds the user frames of a stack. mono_times:
 * sample times are CLOCK_MONOTONIC (readers are told how late they read).
 * Returns 0 or -ENOMEM. */
int user_stack__new(struct proctable *procs, struct symbolizer *sym, struct runtimes *rs, int dwarf,
		    uint64_t regs_mask, size_t max_frames, bool mono_times, struct user_stack **out);
void user_stack__delete(struct user_stack *u);

/* Unwinds the user stack of sample smp of process p (cc: its callchain,
 * split). A pc in no mapping the table knows makes it re-read
 * /proc/PID/maps (at most once a second per process) and try again.
 * Returns the number of user frames (0: none) and why the stack ended. */
size_t user_stack__unwind(struct user_stack *u, struct process *p, const struct perf_sample *smp,
			  const struct callchain_parts *cc, enum unwind_stop *why);

/* Adds to st what the last unwind read beyond the stack copy (DWARF mode:
 * collector/livestack.h). */
void user_stack__count(const struct user_stack *u, struct agent_stats *st);

/* Appends the names of the nframes frames just unwound to stack[*n..cap),
 * root first, each pc expanded into the frames inlined at it, and the
 * language frames a native frame ran in its place (or beside it, with the
 * registry's keep_native); now_ns paces JIT map reloads. Returns 0, or
 * -ENOSPC when stack is full (what fits is kept). */
int user_stack__append_names(struct user_stack *u, struct process *p, size_t nframes,
			     uint64_t now_ns, uint32_t *stack, size_t cap, size_t *n);

#endif
