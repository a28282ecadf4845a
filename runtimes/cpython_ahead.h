/* The reads of a CPython stack walk: the pages, frames and code heads the
 * walk under way has read, and what each thread's last walk read, read
 * again in the same call as the thread's state (cpython_ahead.c says why).
 *
 * struct cpython_ahead is the reader's (c->ahead: created and deleted by
 * cpython.c) and only cpython_ahead.c knows what it holds. What one walk
 * read is good for that walk only: cpython_ahead__reset forgets it, and
 * every read of a stack starts with it. Not thread-safe, as the reader. */
#ifndef SMOLDER_RUNTIMES_CPYTHON_AHEAD_H
#define SMOLDER_RUNTIMES_CPYTHON_AHEAD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpython;
struct cpython_ahead;
struct cpython_stack;

/* NULL when out of memory. */
struct cpython_ahead *cpython_ahead__new(void);
void cpython_ahead__delete(struct cpython_ahead *a);

/* Forgets what the walk under way read (a new walk, or the thread state
 * read was not the thread's). */
void cpython_ahead__reset(struct cpython_ahead *a);

/* Reads tid's thread state at ts (tsz bytes into b) and, in the same call
 * and after it, what the thread's last walk read (its pages, 2.7-3.10
 * frame objects, code heads, and for 3.11+ the data stack's bounds after
 * the pages), for the walk to come. Returns 0 when the thread state was
 * read whole, else -errno. */
int cpython_ahead__read(struct cpython *c, int tid, uint64_t ts, uint8_t *b, uint32_t tsz);

/* 3.11+: reads the page of innermost frame f for the walk and, in the
 * same call and after it, the data stack bounds of thread state ts (or
 * takes them from what was read ahead). Returns -EAGAIN when they say f
 * had returned by then, else 0 (what could not be read is read by the
 * walk as it goes). */
int cpython_ahead__live(struct cpython *c, uint64_t f, uint64_t ts);

/* len bytes of the frame at f, from what this walk has read when it holds
 * them, else read (the page that holds them, for the frames after it).
 * 2.7-3.10: f is kept for the thread's next read. Returns 0 or -errno. */
int cpython_ahead__frame(struct cpython *c, uint64_t f, uint8_t *buf, size_t len);

/* The heads (l.code_size bytes) of the codes of stack's frames, each
 * distinct code read once: those read ahead, the others now in one call.
 * For frame i, head[i] is its code's head read whole (valid until the next
 * call), else NULL with alone[i] true when the code was not read (it is to
 * be read alone) and false when reading it failed. Returns 0, -EPROTO for
 * a head larger than the reader reads, -ESRCH when the call failed. */
int cpython_ahead__heads(struct cpython *c, const struct cpython_stack *stack, const uint8_t **head,
			 bool *alone);

/* Keeps what the walk of tid into stack read, for its next read. */
void cpython_ahead__keep(struct cpython *c, int tid, const struct cpython_stack *stack);

#endif
