/* The contract of a language runtime reader: what every reader in
 * runtimes/ offers the collector, and what the collector gives it. A
 * reader is one `struct runtime_reader`, a table of operations; the
 * collector's registry (collector/runtimes.c) lists the readers and is the
 * only place outside runtimes/ that names one.
 *
 * A reader's life, from the registry's side:
 *
 *  1. Recognise. Each binary a process maps is offered to the readers once
 *     (its ELF, read-only); the first that recognises it keeps facts about
 *     it (symbol addresses, the version read from the file, the range of an
 *     eval loop). Binaries are shared by every process that maps them, and
 *     so are these facts.
 *  2. Describe code. While unwinding, a pc in a recognised binary is
 *     described by the binary's facts alone (describe_file: a Go root, an
 *     eval loop whose registers the unwinder must keep); a pc in memory no
 *     file holds (JIT code) by a process's instance (describe_code: a
 *     compiled method of known frame size, an interpreter frame). Either
 *     way the answer is a shape of unwind/unwind.h, never runtime-specific
 *     code in the unwinder. Every frame so described carries the reader's
 *     tag (unwind_frame.runtime).
 *  3. Open. The first sample that needs a process's instance opens it on
 *     the process's memory (a memsource whose reads are charged to the
 *     process's ledger, runtimes/accountant.h). A failed open is retried
 *     later, less and less often; an instance lives as long as the process
 *     image (it is closed at exec and exit).
 *  4. Read the stack. After the native unwind, the sample's language frames
 *     are read (read_stack) and placed on the native frames that ran them
 *     (an interpreter's eval-loop calls): the registry splices them in.
 *     Nothing here assumes when: the registry may call it right at the
 *     sample or after a batch, and passes both times so the reader can
 *     reconcile what it reads with what the sample proves.
 *  5. Name. A frame a reader described is named by it (name): a compiled
 *     method and what it inlined, an interpreted method.
 *  6. Label, forget, remap, count: a process's label from its command line
 *     (Java's main class), compaction of the names table, counters.
 *
 * Everything a reader reads is hostile: a process can pose as any runtime.
 * Readers bound every loop and every read, validate every pointer, and
 * draw on the accountant's budgets, never on constants of their own, so a
 * process posing as a runtime costs bounded work and names only itself.
 * Not thread-safe: the sampling thread owns readers and their instances. */
#ifndef SMOLDER_RUNTIMES_RUNTIME_H
#define SMOLDER_RUNTIMES_RUNTIME_H
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtimes/memsource.h"
#include "unwind/unwind.h"

struct strtab;
struct strtab_remap;

/* Readers a registry can list; a reader's tag is its index + 1 (0: none). */
#define RUNTIME_MAX_READERS 8

/* A binary offered to a reader. */
struct runtime_file {
	Elf *elf;          /* read only; valid during the call, and, when
	                      the reader recognises the file, until its data
	                      is freed. Read, never mapped: every section
	                      asked for is read whole into memory */
	const char *path;  /* its name in the agent's view, or provisionally
	                      another process's (collector/binary.c): never
	                      what decides what the file is */
};

/* The process an instance opens on. */
struct runtime_process {
	int pid;
	uid_t uid;         /* whose it is (effective uid), read just before the open */
	const void *data;  /* the recognised binary's facts (recognise) */
	const char *path;  /* that binary's path as this process maps it */
	uint64_t bias;     /* run-time address = the binary's ELF vaddr + bias */
	struct memsource mem; /* reads the process; charged to its ledger */
	struct strtab *names; /* where frame names are interned (borrowed) */
	bool lines;        /* frames carry the line they run, where known */
	/* The run-time address of the data object `name` exported by a library
	 * of the process whose file name starts with one of libs[0..nlibs)
	 * ("libc.so."), 0 when none does (glibc's thread descriptor layout,
	 * which several readers need to find a thread's id). */
	uint64_t (*lib_symbol)(void *ctx, const char *const *libs, size_t nlibs, const char *name);
	void *ctx;
};

/* One sample, for read_stack. frames are the native frames unwound from
 * regs and stack, innermost first; those of this reader's code carry its
 * tag, and those it asked the unwinder to keep registers for have them. */
struct runtime_sample {
	int pid, tid;
	uint8_t tag;
	uint64_t sample_ns; /* when it was taken (CLOCK_MONOTONIC), 0 unknown */
	uint64_t now_ns;    /* CLOCK_MONOTONIC now */
	const struct unwind_regs *regs;
	const struct unwind_stack *stack;
	const struct unwind_frame *frames;
	size_t nframes;
	bool rooted;        /* the native stack reached its outermost frame */
	/* The kernel's frame-pointer walk of the user stack, done at the
	 * sample (innermost first, [0] the sampled ip): memory as it was
	 * then, beyond the copy too, where frame pointers lead (a Go g0
	 * stack continues on its goroutine's); NULL when not recorded. */
	const uint64_t *user_chain;
	size_t user_chain_nr;
};

/* A sample's language frames, placed: splice k puts ids[first, first +
 * count) (outermost first) where native frame `frame` is. Splices are
 * innermost first. A splice at frame nframes (one past the outermost) holds
 * language frames older than any native frame unwound (the native stack
 * was cut before reaching the code that ran them): they are the root of
 * what is shown, so a runtime's frames never depend on the native copy. */
#define RUNTIME_MAX_SPLICES 256
#define RUNTIME_MAX_IDS 256
struct runtime_splice {
	uint32_t frame;
	uint16_t first, count;
};
struct runtime_stack {
	size_t nsplices, nids;
	/* how each native frame that ran language frames was known */
	unsigned confirmed;  /* the sample's own words prove what it ran */
	unsigned chained;    /* a caller of a proven frame: what the read found */
	unsigned unproven;   /* nothing proves it: a marker stands for it */
	struct runtime_splice at[RUNTIME_MAX_SPLICES];
	uint32_t ids[RUNTIME_MAX_IDS];
};

/* A frame a reader described, to be named. */
struct runtime_frame {
	uint64_t pc;
	uint64_t slot;   /* the word the shape keeps (unwind_frame.method) */
	bool exact;      /* pc is where the frame was, not a return address */
	uint64_t now_ns; /* CLOCK_MONOTONIC: readers pace re-reads by it */
	uint64_t bcp;    /* an interpreted frame's position in its method
	                    (unwind_frame.bcp); 0: unknown */
};

/* What an instance counts, since it was opened. */
struct runtime_counters {
	uint64_t reads;    /* of the process's memory */
	uint64_t failures; /* code, frames or stacks it could not read or name */
};

struct runtime_reader {
	const char *name; /* "hotspot": its key in the dump's stats */

	/* Whether f is this runtime's: 1 with *data (the reader's facts about
	 * the binary, freed by free_data; may be NULL), 0 when it is not, or
	 * -errno. Called once per binary. */
	int (*recognise)(const struct runtime_file *f, void **data);
	void (*free_data)(void *data);
	/* Readers of code no file holds: whether a file a process maps under
	 * this name (its last component) may be the runtime hosting that code,
	 * worth resolving and recognising when the process runs code no file
	 * holds. A cheap filter on the process's own view, not the test:
	 * recognise decides from the file's content. */
	bool (*maybe_host)(const char *basename);

	/* Fills the runtime's part of the module of a pc at vaddr of a
	 * recognised binary (roots, registers to keep). Optional. */
	void (*describe_file)(const void *data, uint64_t vaddr, struct unwind_module *out);

	/* Opens an instance on p (copied). 0 with *inst, -ENOTSUP for a
	 * version the reader cannot read, -EPROTO for memory that does not
	 * look like the runtime, -ENOMEM, or a read's -errno. */
	int (*open)(const struct runtime_process *p, void **inst);
	void (*close)(void *inst);

	/* How to step over code at pc that no binary holds: 0 with out's shape
	 * filled, -ENOENT when it is not the runtime's. path: the name the
	 * process maps that memory under ("/dev/zero (deleted)" for shared
	 * anonymous memory, a file that is no ELF), NULL for anonymous
	 * memory. Optional. */
	int (*describe_code)(void *inst, uint64_t pc, const char *path, uint64_t now_ns,
			     struct unwind_module *out);
	/* The sample's language frames, placed on its native frames tagged
	 * with s->tag. 0 (out->nsplices may be 0), -ENOENT when the thread runs
	 * no code of the runtime, or another -errno when it could not be read
	 * (the native frames are then named as they are). Optional. */
	int (*read_stack)(void *inst, const struct runtime_sample *s, struct runtime_stack *out);
	/* A sample's reads are made again, in one call, when the next
	 * sample's read begins (runtimes/replay.h): for readers whose reads
	 * follow pointers a step at a time, and that do not already read
	 * ahead of themselves. */
	bool replays;
	/* The frames of f, innermost first (what was inlined, then the method),
	 * into ids[0..max): 0 with *n >= 1, or -ENOENT (the caller names the
	 * pc as other code). Optional. */
	int (*name_frame)(void *inst, const struct runtime_frame *f, uint32_t *ids, size_t max,
			  size_t *n);

	/* A process label from a command line (NUL-separated arguments), for
	 * processes whose comm `labels` accepts: the length written to out,
	 * 0 or less when nothing is recognisable (the registry keeps only a
	 * length in (0, size)), so a command-line parser serves as is.
	 * Optional. */
	bool (*labels)(const char *comm);
	int (*label)(const char *cmdline, size_t len, char *out, size_t size);

	/* One pass of a names compaction over the ids the instance holds. */
	int (*remap_names)(void *inst, struct strtab_remap *r);
	void (*counters)(const void *inst, struct runtime_counters *out);
};

#endif
