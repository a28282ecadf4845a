/* A sampled thread's stack beyond the kernel's copy, read from the live
 * thread for the unwinder (the far source of unwind/stackmem.h): one
 * process_vm_readv of a chunk, more only when the stack is deeper, at most
 * LIVESTACK_MAX_BYTES per stack into a buffer allocated once. Each read is
 * asked of and charged to the process's ledger (runtimes__stack_ledger),
 * so what a user's processes make the agent copy stays within that user's
 * share; a refused read ends the stack there, cut, and is counted. The
 * thread is read by its own id: once it has exited, nothing of another
 * thread that reuses its stack is read. Not thread-safe: the sampling
 * thread owns it. */
#ifndef SMOLDER_COLLECTOR_LIVESTACK_H
#define SMOLDER_COLLECTOR_LIVESTACK_H
#include <stdbool.h>
#include <stdint.h>

/* The most of one stack read beyond the copy: with the default 16 KiB
 * copy, stacks of 256 KiB end at their root. */
#define LIVESTACK_MAX_BYTES (256u << 10)

struct agent_stats;
struct livestack;
struct process;
struct runtimes;
struct unwind_stack;

/* rs is borrowed (NULL: reads are not budgeted, for tests). Returns 0 or
 * -ENOMEM. */
int livestack__new(struct runtimes *rs, struct livestack **out);
void livestack__delete(struct livestack *ls);

/* Makes the live stack of thread tid of process p the far source of
 * stack, for the unwinds of one sample (its counts start from zero). */
void livestack__attach(struct livestack *ls, struct process *p, int tid, struct unwind_stack *stack);

/* Adds to st what the sample's unwinds read beyond the copy, and how the
 * last one (stack) ended there; walk_joined: its stack went on from the
 * sample's frame-pointer walk where the live stack had moved. */
void livestack__count(const struct livestack *ls, const struct unwind_stack *stack, bool walk_joined,
		      struct agent_stats *st);

#endif
