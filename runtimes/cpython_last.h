/* Each thread's Python stack as last placed on one of its samples: what
 * placing a later sample looks back to when the stack read then lacks a
 * code the sample holds, and what a thread that cannot be read any more is
 * taken to run.
 *
 * struct cpython_last is a CPython reader's (c->last: created and deleted
 * by cpython.c) and holds its own copies of the frames. Kept for at most
 * CPYTHON_MAX_THREADS threads. Not thread-safe, as the reader. */
#ifndef SMOLDER_RUNTIMES_CPYTHON_LAST_H
#define SMOLDER_RUNTIMES_CPYTHON_LAST_H
#include <stddef.h>
#include <stdint.h>

struct cpython_frame;
struct cpython_last;
struct cpython_placed;
struct strtab_remap;

/* NULL when out of memory. */
struct cpython_last *cpython_last__new(void);
void cpython_last__delete(struct cpython_last *l);

/* Keeps what was placed on a sample of thread tid (its nev native eval
 * calls, each one's frames ending its group) as the thread's last stack.
 * Out of memory or of room for threads, the thread keeps what it had. */
void cpython_last__keep(struct cpython_last *l, int tid, const struct cpython_placed *pl, size_t nev);

/* Thread tid's last stack, innermost first, *n frames (entry_end: the
 * outermost of its native eval call); NULL when there is none. Valid until
 * the next cpython_last__keep. */
const struct cpython_frame *cpython_last__frames(const struct cpython_last *l, int tid, size_t *n);

/* The names held, through r (common/strtab_remap.h). 0 or -ENOMEM. */
int cpython_last__remap(struct cpython_last *l, struct strtab_remap *r);

#endif
