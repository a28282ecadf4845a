/* Go's g0 switch joined as Go's own traceback joins it. Go runs the
 * runtime's work (GC assist, write-barrier flushes, stack growth,
 * scheduling) on each thread's g0 stack, switched to by runtime.systemstack,
 * runtime.mcall and runtime.morestack; a sample there unwinds to the
 * switch and ends (a root: doc/format.md). The goroutine that asked for
 * the work is elsewhere: g.m.curg, whose gobuf g.sched holds the sp, pc
 * and bp it was switched out at. This reads them for a sample whose native
 * stack ended at a switch and unwinds the goroutine's stack from there,
 * read from the process, by the SP deltas of the binary's table, to
 * runtime.goexit: its frames are the sample's root, under the switch
 * ("...;main.worker;runtime.mallocgc;runtime.systemstack;...gcAssistAlloc1",
 * as Go's pprof shows them).
 *
 * How the sample proves the goroutine (doc/format.md, "Proven frames"):
 *  - the thread's g is the sample's R14 (Go 1.17 on): it must be a g0 (its
 *    m's g0 is itself) whose stack holds the sample's sp;
 *  - the switch leaves rbp as the goroutine had it, and the first frame on
 *    g0 saves it: the word the sample's own copy holds below the switch
 *    frame must be curg.sched.bp, which is where the goroutine's frames
 *    are; and curg.sched is read again after its stack and must not have
 *    changed (the goroutine did not run meanwhile; systemstack and gogo
 *    clear sched.sp when it resumes).
 * What fails a check is not joined: the g0 side stays as it was, counted.
 *
 * Reads go through the instance's memsource (charged to the process's
 * ledger); the stack is read in one piece of 8 KiB, more only for a deeper
 * goroutine (unwind/stackmem.h's far source, at most 256 KiB). Not
 * thread-safe: one per instance. */
#ifndef SMOLDER_RUNTIMES_GOJOIN_H
#define SMOLDER_RUNTIMES_GOJOIN_H
#include <stdint.h>

#include "runtimes/gobinary.h"
#include "runtimes/memsource.h"
#include "runtimes/runtime.h"

struct strtab;
struct gojoin;

/* Frames of a goroutine unwound at most. */
#define GOJOIN_MAX_FRAMES 200
/* The first read of a goroutine's stack, and the most of one read. */
#define GOJOIN_FIRST_READ (8u << 10)
#define GOJOIN_MAX_STACK (256u << 10)

struct gojoin_stats {
	uint64_t joined;    /* samples whose goroutine was joined */
	uint64_t unproven;  /* ... that the sample did not prove (not joined) */
	uint64_t failures;  /* ... whose goroutine could not be read */
};

int gojoin__new(struct gojoin **out);
void gojoin__delete(struct gojoin *j);

/* The process the joins read. Borrowed; mem's ledger pays. */
struct gojoin_process {
	const struct gobinary *g;
	uint64_t bias;         /* of the binary in the process */
	struct memsource *mem;
	struct strtab *names;
};

/* Joins sample s (its native frames ended at a switch of the binary) to
 * its goroutine: a splice at s->nframes holding the goroutine's frames,
 * outermost first. 0 (joined, out->confirmed counts it), -ENOENT (the
 * stack did not end at a switch, or no goroutine was switched out: the
 * scheduler's own work), -ESTALE (the sample does not prove what was
 * read), -EAGAIN (the ledger refused), -EPROTO/-EFAULT (unreadable). */
int gojoin__read(struct gojoin *j, const struct gojoin_process *p, const struct runtime_sample *s,
		 struct runtime_stack *out);

void gojoin__stats(const struct gojoin *j, struct gojoin_stats *out);

#endif
