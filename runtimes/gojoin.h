/* Go's g0 switch joined as Go's own traceback joins it. Go runs the
 * runtime's work (GC assist, write-barrier flushes, stack growth,
 * scheduling) on each thread's g0 stack, switched to by runtime.systemstack,
 * runtime.mcall and runtime.morestack; a sample there unwinds to the
 * switch and ends (a root: doc/format.md). The goroutine that asked for
 * the work is elsewhere, on its own stack; its frames become the sample's
 * root, under the switch ("...;main.worker;runtime.mallocgc;
 * runtime.systemstack;...gcAssistAlloc1", as Go's pprof shows them).
 *
 * Where they come from, each proven by the sample (doc/format.md, "Proven
 * frames"):
 *  - the kernel's frame-pointer walk of the user stack, taken at the sample
 *    (runtime_sample.user_chain): the switch leaves rbp as the goroutine had
 *    it, the first g0 frame saves it, and the walk follows it onto the
 *    goroutine's frame records: past the switch frame's return address, the
 *    walk's return addresses in the binary's code are the goroutine's, to
 *    runtime.goexit. The function that called the switch made no frame
 *    record the walk could see: it is the callee of the direct call before
 *    the first of them. Nothing is read from the process;
 *  - else (no walk, or one that stayed on g0) a read: the thread's g is the
 *    sample's R14 (Go 1.17 on), which must be a g0 (its m's g0 is itself)
 *    whose stack holds the sample's sp; its m's curg; curg.sched (sp, pc,
 *    bp where it was switched out). Joined only when the word the first g0
 *    frame saved in the sample's own copy is curg.sched.bp, and curg.sched
 *    reads the same after its stack was read (the goroutine did not run:
 *    systemstack and gogo clear sched.sp when it resumes); its stack is then
 *    unwound by the binary's SP deltas to runtime.goexit.
 * What fails a check is not joined: the g0 side stays as it was, counted.
 *
 * Reads go through the instance's memsource (charged to the process's
 * ledger, asked once per sample); the stack is read in one piece of 8 KiB,
 * more only for a deeper goroutine (unwind/stackmem.h's far source, at most
 * 256 KiB). Not thread-safe: one per instance. */
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
	uint64_t chained;   /* ... by the kernel's frame-pointer walk */
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
