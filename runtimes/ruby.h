/* A CRuby VM read from outside: its threads' control frames and the names
 * of the methods they run, for Ruby 2.0 and 2.5-3.3.
 *
 * Everything comes from the process's memory through a memsource (never
 * written, signalled or stopped) and is hostile: every pointer is checked
 * before it is followed, every count is bounded. What is read just after
 * the sample is placed on the sample's native vm_exec_core frames only
 * where the sample's own registers prove it (runtimes/ruby_stack.c).
 * Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_RUBY_H
#define SMOLDER_RUNTIMES_RUBY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtimes/ruby_layout.h"

struct ruby;
struct memsource;
struct strtab;
struct strtab_remap;

/* Candidates for where the interpreter keeps its symbol table: the file
 * names it only in .symtab, so a stripped one is searched (ruby_reader.c)
 * and each candidate checked in memory before it is used. */
#define RUBY_SYMBOL_TABLES_MAX 8

/* What the interpreter's binary says, as addresses in the process. */
struct ruby_symbols {
	uint64_t vm_ptr;          /* ruby_current_vm_ptr (2.5+), ruby_current_vm
	                             (2.0): where the VM's address is */
	uint64_t current_thread;  /* 2.0: ruby_current_thread, 0 */
	uint64_t symbol_tables[RUBY_SYMBOL_TABLES_MAX]; /* rb_symbols_t */
	size_t nsymbol_tables;
	unsigned major, minor;    /* from the binary's ruby_version */
	int32_t pthread_tid;      /* offsetof(struct pthread, tid), -1 unknown */
};

/* Opens a reader (m is copied; names borrowed). lines: frames read are
 * named with the line they run. Returns 0, -ENOTSUP for a version without
 * a layout, -EPROTO when the VM does not look like one, -ENOMEM. */
int ruby__open(const struct memsource *m, const struct ruby_symbols *sym, bool lines,
	       struct strtab *names, struct ruby **out);
void ruby__delete(struct ruby *r);

#define RUBY_MAX_FRAMES 256

struct ruby_frame {
	uint64_t addr;            /* the control frame */
	uint64_t code, code_end;  /* iseq frames: its instructions
	                             [iseq_encoded, + iseq_size words] */
	uint64_t cfunc;           /* C-function frames: the function, else 0 */
	uint32_t name;            /* strtab id */
	bool entry_end;           /* VM_FRAME_FLAG_FINISH: the outermost frame of
	                             its native vm_exec call */
};

/* A thread's Ruby stack, innermost first. */
struct ruby_stack {
	struct ruby_frame f[RUBY_MAX_FRAMES];
	size_t n;
};

/* Reads thread tid's control frames now, each named ("Class#method
 * (file.rb)", "block in Class#method (file.rb)", "Class.method" for a
 * singleton, a C function by its method entry "Class#method"); frames
 * nothing names (C blocks, the VM's dummy frames, C functions whose name
 * the reader cannot read) are left out. Returns 0 (out->n may be 0: none
 * could be named); -ENOENT when tid runs no Ruby thread of this VM, or one
 * without a stack; -EFAULT/-ESRCH/-EPROTO when the memory could not
 * be read or makes no sense; -EBUSY past the read budget of its ledger. */
int ruby__read_stack(struct ruby *r, int tid, uint64_t now_ns, struct ruby_stack *out);

/* One native vm_exec_core frame of the sample, as the kernel copied it:
 * the registers its instruction loop pins (x86-64 GCC, vm_exec.c's
 * DECL_SC_REG: the pc in r14, the control frame in r15), and the run-time
 * start addresses of the native functions it had called (the frames
 * between it and the next vm_exec_core inside, or the leaf). */
struct ruby_native {
	bool have_regs;
	uint64_t pc, cfp;
	const uint64_t *called;
	size_t ncalled;
};

/* How a native vm_exec_core call's Ruby frames were known (as CPython's). */
enum ruby_placement {
	RUBY_UNPROVEN = 0, /* nothing of it proves a frame */
	RUBY_PROVEN,       /* its r15 holds a frame of the read, its r14 a pc
	                      into that frame's instructions */
	RUBY_CHAINED,      /* a caller of a proven frame */
	RUBY_NONE,         /* no frames left to place on it */
};

struct ruby_placed {
	struct ruby_frame frames[RUBY_MAX_FRAMES];
	/* for each frame, the native function its call had called (an index
	 * into its ruby_native's called) that runs it: a C method whose C
	 * function the native stack shows; -1 for the others */
	int16_t native[RUBY_MAX_FRAMES];
	size_t n;
	uint16_t first[RUBY_MAX_FRAMES + 1], count[RUBY_MAX_FRAMES + 1];
	uint8_t state[RUBY_MAX_FRAMES]; /* enum ruby_placement */
	unsigned confirmed, chained, unproven;
};

/* Places stack (read just after the sample) on the sample's nev native
 * vm_exec_core frames (innermost first). The innermost call whose r15
 * and r14 prove a frame of the read proves it and every older frame; the
 * C-function frames the read has above that frame are kept only when the
 * native stack above the call runs their C function; calls inside the
 * proven one are unproven. A C method whose C function the native frames
 * its call made show is matched with that frame (native[]), innermost
 * with innermost. rooted: frames older than the outermost call are its
 * own; else they are kept apart, at nev. Reads nothing. */
void ruby__place(const struct ruby_stack *stack, const struct ruby_native *ev, size_t nev, bool rooted,
		 struct ruby_placed *out);

struct ruby_stats {
	uint64_t reads;    /* reads of the process's memory */
	uint64_t failures; /* stacks that could not be read */
	uint64_t threads;  /* threads mapped now */
};
void ruby__stats(const struct ruby *r, struct ruby_stats *out);
int ruby__remap_names(struct ruby *r, struct strtab_remap *rm);

#endif
