/* The CPython interpreters among the processes sampled, each with its
 * reader (runtimes/cpython.h), and the Python half of a sample: its native
 * eval-loop frames found, the thread's Python stack read and placed on
 * them. A process is looked at when a sample of it runs the eval loop of a
 * binary that exports CPython's state (collector/binary.h); a process whose
 * interpreter cannot be read is looked at again at most once every
 * PYTHONS_RETRY_NS. A reader lives as long as the process image. Not
 * thread-safe. */
#ifndef SMOLDER_COLLECTOR_PYTHONS_H
#define SMOLDER_COLLECTOR_PYTHONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtimes/cpython.h"
#include "unwind/unwind.h"

struct agent_stats;
struct process;
struct proc_map;
struct proctable;
struct pythons;
struct strtab;
struct strtab_remap;

#define PYTHONS_RETRY_NS 1000000000ull
/* Bytes of a native eval frame's own stack looked at for what it ran. */
#define PYTHONS_FRAME_WORDS_MAX 2048

/* names (borrowed) is where frame names are interned; lines: Python
 * frames carry their line (cpython__open). */
struct pythons *pythons__new(struct strtab *names, bool lines);
void pythons__delete(struct pythons *ps);

/* Whether pc (a frame's) is in the eval loop of an interpreter binary
 * mapped by m. */
bool pythons__is_eval(struct proc_map *m, uint64_t pc);

/* The Python frames of one sample, ready to be named. */
struct python_sample {
	size_t neval;
	size_t eval_frame[CPYTHON_MAX_FRAMES]; /* unwound frame index of each
	                                          native eval call, innermost first */
	struct cpython_placed placed;
	struct cpython_stack stack;            /* scratch */
};

/* Finds the sample's native eval frames among frames[0..n) (unwound from
 * regs and stack; those whose registers the unwinder kept, having been
 * told by pythons__is_eval), reads thread tid's Python stack and places it on them.
 * sample_ns: when the sample was taken (CLOCK_MONOTONIC; 0 unknown), for
 * the lag of the read in st.
 * Returns the number of native eval frames that have Python frames (0:
 * name the stack natively), counting what happened in st. */
size_t pythons__sample(struct pythons *ps, struct proctable *pt, struct process *p, int tid,
		       const struct unwind_frame *frames, size_t n, bool rooted,
		       const struct unwind_regs *regs, const struct unwind_stack *stack,
		       uint64_t sample_ns, uint64_t now_ns, struct python_sample *out,
		       struct agent_stats *st);

/* The image of pid went (exec, exit): its reader is closed. */
void pythons__forget(struct pythons *ps, int pid);
int pythons__remap_names(struct pythons *ps, struct strtab_remap *r);

struct pythons_stats {
	uint64_t pythons;   /* readers open now */
	uint64_t opened;    /* since start */
	uint64_t failed;    /* interpreters that could not be read */
	uint64_t reads;     /* of interpreters' memory, since start */
	uint64_t failures;  /* stacks not read, since start */
};
void pythons__stats(const struct pythons *ps, struct pythons_stats *out);

#endif
