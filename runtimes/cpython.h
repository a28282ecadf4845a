/* A CPython interpreter read from outside: its threads' Python stacks and
 * the names of the code they run, for CPython 2.7 and 3.6-3.13.
 *
 * Everything comes from the process's memory through a memsource (never
 * written, signalled or stopped) and is hostile: every pointer is checked
 * before it is followed, every count is bounded. What is read late (the
 * sampler drains its rings in batches) is reconciled with what the sample
 * itself holds: the eval loop keeps the frame it runs and a pointer into
 * its bytecode in registers and stack slots the kernel copied at the
 * sample (cpython__proof, runtimes/interp_place.h).
 * Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_CPYTHON_H
#define SMOLDER_RUNTIMES_CPYTHON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtimes/cpython_layout.h"
#include "runtimes/interp_place.h"

struct cpython;
struct memsource;
struct strtab;
struct strtab_remap;

/* What the interpreter's binary says, as addresses in the process. */
struct cpython_symbols {
	uint64_t runtime;        /* _PyRuntime (3.7+), 0 if none */
	uint64_t interp_head;    /* interp_head (2.7, 3.6), 0 if unknown */
	uint64_t tstate_current; /* _PyThreadState_Current (2.7, 3.6), 0 if none */
	uint64_t code_type;      /* PyCode_Type */
	unsigned major, minor;   /* from the binary's name, 0.0 when it has none
	                            (then only 3.13's own offsets can say) */
	int32_t pthread_tid;     /* offsetof(struct pthread, tid) from glibc's
	                            _thread_db_pthread_tid; -1: unknown */
};

/* Opens a reader (m is copied; names borrowed). lines: frames read are
 * named "qualname (file.py:LINE)" with the line they run. Returns 0,
 * -ENOTSUP for a version it has no layout for, -EPROTO when the
 * interpreter's state does not look like one, -ENOMEM. */
int cpython__open(const struct memsource *m, const struct cpython_symbols *sym, bool lines,
		  struct strtab *names, struct cpython **out);
void cpython__delete(struct cpython *c);

#define CPYTHON_MAX_FRAMES 256

struct cpython_frame {
	uint64_t addr;   /* the frame (PyFrameObject, _PyInterpreterFrame) */
	uint64_t code;   /* the code object */
	uint64_t code_end;          /* the end of its head as read */
	uint64_t bc_start, bc_end;  /* its bytecode: [start, end) */
	uint32_t name;   /* its frame name (strtab id), with its line if asked */
	bool entry_end;  /* the outermost frame of its native eval call */
};

/* A thread's Python stack, innermost first. */
struct cpython_stack {
	struct cpython_frame f[CPYTHON_MAX_FRAMES];
	size_t n;
};

/* The copy of the sampled thread's stack the next reads may take words
 * from instead of the process (3.11 and 3.12 keep the _PyCFrame that says
 * which frame runs on the C stack): the value at the sample, and one read
 * less. data NULL: none. Borrowed until the next call. */
void cpython__set_sample_stack(struct cpython *c, uint64_t base, const uint8_t *data, size_t size);

/* Reads thread tid's Python stack now, every code validated and named,
 * CPython's own entry shims left out (3.12's "<interpreter trampoline>",
 * 3.13's "__init__" cleanup): they run no code of the program. Returns 0;
 * -ENOENT when tid runs no Python (no thread state is its); -EAGAIN when
 * its frames returned while they were read; -EFAULT/-ESRCH/-EPROTO when
 * the memory could not be read or makes no sense (exiting, changing);
 * -EBUSY past the read budget of its ledger for this second
 * (runtimes/accountant.h). Nothing read before stands in for a stack that
 * could not be read now. */
int cpython__read_stack(struct cpython *c, int tid, uint64_t now_ns, struct cpython_stack *out);

/* The read stack as the placer of runtimes/interp_place.h proves it
 * (runtimes/cpython_proof.c): each frame's address, and as its code the
 * bytecode an eval call's instruction pointer runs through. */
void cpython__proof(const struct cpython_stack *stack, struct interp_stack *out);

struct cpython_stats {
	uint64_t reads;      /* reads of the process's memory */
	uint64_t failures;   /* stacks that could not be read */
	uint64_t threads;    /* threads mapped now (at most CPYTHON_MAX_THREADS) */
};
void cpython__stats(const struct cpython *c, struct cpython_stats *out);
int cpython__remap_names(struct cpython *c, struct strtab_remap *r);

#endif
