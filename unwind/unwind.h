/* User-stack unwinding from (registers, copied stack, address map) to pcs.
 *
 * Every read of the stack goes through unwind/stackmem.h: the copied stack,
 * then, when the caller offers a far source, the live stack beyond it,
 * taken only where it continues the copy. A frame that bytes from beyond the
 * copy give is kept only if it passes every check of the chain (the CFA
 * strictly increasing, the return address in a mapping); where one fails,
 * the stack ends there as truncated. Bytes served past a seam that moved
 * are the caller's to prove afterwards (stackmem__prove). No allocation per call except when a
 * CFI rule is decoded for the first time (then it is cached in the binary's
 * struct cfi). Not thread-safe with respect to the cfi objects it uses. */
#ifndef SMOLDER_UNWIND_UNWIND_H
#define SMOLDER_UNWIND_UNWIND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/cfi.h"
#include "unwind/regs.h"

struct stackmem_far;

/* Bytes the kernel copied from [base, base + size), and where the stack
 * beyond them may be read (NULL: nowhere; unwind/stackmem.h). */
struct unwind_stack {
	uint64_t base;
	const uint8_t *data;
	size_t size;
	struct stackmem_far *far;
};

/* What the caller's address map says about one pc. */
/* A function where a stack ends although its CFI does not say so (a
 * runtime's roots: Go's, for one). */
enum unwind_root_kind {
	UNWIND_ROOT = 1,       /* wherever it is in the stack */
	UNWIND_ROOT_AS_CALLER, /* when reached as a caller, not as the leaf:
	                          the function switched stacks before calling */
};

struct unwind_root {
	uint64_t start, end; /* ELF vaddrs of the function */
	int kind;            /* enum unwind_root_kind */
};

/* How to step over a frame the CFI does not describe, when a runtime
 * reader knows the code (runtimes/runtime.h). */
enum unwind_code {
	UNWIND_CODE_NATIVE = 0,  /* CFI, else a frame-pointer step */
	UNWIND_CODE_SIZED,       /* a frame of frame_bytes above its (unextended)
	                            sp, the return address in its top word and
	                            the caller's rbp below it: compiled Java
	                            methods and runtime stubs, as HotSpot itself
	                            walks them */
	UNWIND_CODE_FRAMELESS,   /* no frame: the return address is at sp */
	UNWIND_CODE_INTERPRETED, /* an interpreter frame: rbp-based, with the
	                            method at slot_method, where in it the
	                            frame is at slot_bcp (or in register
	                            reg_bcp) and the caller's unextended sp at
	                            slot_sender_sp (words from rbp) */
	UNWIND_CODE_FRAME_POINTER, /* rbp-based (HotSpot's call stub) */
	UNWIND_CODE_HOSTED,      /* code that runs in the frame of a host
	                            function, jumped to from its body and
	                            jumping back (PHP's JIT in the hybrid VM,
	                            in execute_ex's frame): stepped as the
	                            host's body by the host's CFI, the sp
	                            host_sp_delta bytes below the host's */
};

/* What a UNWIND_CODE_SIZED frame counts from, at a pc whose code moved
 * the stack pointer inside the frame and saved the old one. */
enum unwind_base {
	UNWIND_BASE_SP = 0, /* the frame's sp (or unextended sp) */
	UNWIND_BASE_SAVED,  /* the word at sp + base_at */
	UNWIND_BASE_REG,    /* register base_at (DWARF number) of the frame */
};

/* Where a UNWIND_CODE_SIZED frame's caller's rbp is. */
enum unwind_caller_bp {
	UNWIND_BP_BELOW_RA = 0, /* the word below the return address */
	UNWIND_BP_LIVE,         /* still in rbp: not saved yet, or restored */
	UNWIND_BP_LOST,         /* not known */
};

struct unwind_module {
	struct cfi *cfi;   /* NULL: the binary has no CFI (frame-pointer step) */
	uint64_t bias;     /* ELF vaddr = pc - bias */
	void *owner;       /* opaque, copied into the frame (e.g. the mapping) */
	uint64_t entry;    /* the binary's ELF entry point (vaddr), 0 if none */
	const struct unwind_root *roots; /* sorted by start, disjoint; may be NULL */
	size_t nroots;
	/* code without CFI a runtime describes (cfi is NULL then) */
	int code;                /* enum unwind_code */
	uint32_t frame_bytes;    /* UNWIND_CODE_SIZED: return address included */
	uint64_t frame_complete; /* UNWIND_CODE_SIZED: the pc from which the frame
	                            is set up; a sampled pc below it is in the
	                            prologue */
	/* UNWIND_CODE_SIZED at a pc whose code the runtime read: frame_bytes
	 * holds at this very pc (in a prologue or an epilogue too), so nothing
	 * is guessed from frame_complete or from what the stack holds; the
	 * frame counts from `base` (enum unwind_base, base_at) and the
	 * caller's rbp is where caller_bp says (enum unwind_caller_bp). */
	bool sized_at_pc;
	uint8_t base;
	int32_t base_at;
	uint8_t caller_bp;
	int slot_method, slot_sender_sp; /* UNWIND_CODE_INTERPRETED */
	/* UNWIND_CODE_INTERPRETED: where the frame's position in its method
	 * (a bytecode pointer) is: in the register numbered reg_bcp - 1
	 * (DWARF) while the frame's own registers are known (the interpreter
	 * keeps it there, and writes the slot only before it calls out),
	 * else at slot_bcp; 0: not kept */
	int slot_bcp;
	uint8_t reg_bcp;
	/* UNWIND_CODE_HOSTED: a run-time address in the host function (its
	 * body's rule is the first row of its widest frame after its start),
	 * and how far below the body's sp the code's sp is */
	uint64_t host_pc;
	uint32_t host_sp_delta;
	/* keep the frame's callee-saved registers (an interpreter's eval
	 * loop: they hold what it was running when the sample was taken) */
	bool keep_regs;
	/* which runtime reader described the code (an opaque tag the caller's
	 * lookup chose, copied into the frame; 0: none) */
	uint8_t runtime;
};

/* Bytes after a binary's entry point taken as its entry stub when no FDE
 * covers them: the code the kernel starts a process at runs on the initial
 * stack and has no caller. glibc's ld.so starts at such a stub (_start,
 * _dl_start_user: 61 bytes on x86-64) without CFI, so without this rule every
 * stack of a starting dynamically linked program would end in "no CFI". */
#define UNWIND_ENTRY_SPAN 64

/* The callee-saved registers a frame keeps when its module asks for them:
 * rbx, rbp, r12..r15 (DWARF 3, 6, 12..15). */
#define UNWIND_NKEPT 6
extern const uint8_t unwind_kept_regnos[UNWIND_NKEPT];

/* Looks up the mapping of pc. Returns 0 and fills *out, or -ENOENT when pc
 * is in no file-backed executable mapping (JIT, anonymous, unmapped). */
typedef int (*unwind_find_fn)(void *ctx, uint64_t pc, struct unwind_module *out);

struct unwind_frame {
	uint64_t pc;         /* frame 0: the sampled ip; others: the return address */
	uint64_t vaddr;      /* lookup address in the binary: (pc, or pc - 1 for
	                        return addresses) - bias; 0 when owner is NULL */
	uint64_t func_start; /* ELF vaddr of the enclosing FDE's start, 0 if unknown */
	void *owner;         /* from unwind_module, NULL when find failed */
	bool signal;         /* a signal trampoline (CFI augmentation S): the
	                        frame above it was interrupted, not calling */
	bool exact;          /* pc is where the frame was, not a return address */
	uint8_t code;        /* enum unwind_code of its module */
	uint8_t runtime;     /* its module's runtime tag (0: none) */
	uint64_t method;     /* UNWIND_CODE_INTERPRETED: the word at slot_method */
	uint64_t bcp;        /* UNWIND_CODE_INTERPRETED: its position, from
	                        reg_bcp or slot_bcp (0: unknown) */
	uint64_t sp;         /* the frame's sp; its own words are [sp, the
	                        next frame's sp) */
	bool keeps;          /* its module asked for its registers (keep_regs) */
	uint8_t kept;        /* bit k: kept_regs[k] is known */
	uint64_t kept_regs[UNWIND_NKEPT]; /* unwind_kept_regnos' values in
	                        this frame, when its module asked */
};

/* Why a stack ended. UNWIND_COMPLETE means the outermost frame was reached:
 * its CFI marks the return address undefined (_start, clone, start_thread),
 * it is an entry stub without CFI (see UNWIND_ENTRY_SPAN), or one of its
 * module's roots (struct unwind_root). */
enum unwind_stop {
	UNWIND_COMPLETE = 0,
	UNWIND_TRUNCATED,     /* a read fell outside the copied stack and what
	                         could be read beyond it, or a frame read
	                         beyond it failed a check of the chain */
	UNWIND_NO_CFI,        /* no CFI for a pc and no usable frame pointer */
	UNWIND_NO_MAP,        /* a pc outside every known mapping */
	UNWIND_BAD_PC,        /* pc 0 or CFA not increasing or unsupported rule */
	UNWIND_DEPTH,         /* hit the frame limit */
	UNWIND_NSTOP
};
const char *unwind__stop_name(enum unwind_stop s);

/* DWARF CFI unwinding, with a frame-pointer step for frames whose binary has
 * no CFI. Writes up to max frames (innermost first) and *n, and the reason it
 * stopped. Always writes at least frame 0 when max > 0 and the ip is valid.
 * Returns 0, or -EINVAL for unusable input (no ip/sp in regs). */
int unwind__dwarf(const struct unwind_regs *regs, const struct unwind_stack *stack,
		  unwind_find_fn find, void *ctx,
		  struct unwind_frame *frames, size_t max, size_t *n, enum unwind_stop *stop);

/* Whether vaddr lies in one of mod's roots (a root "as caller" counts
 * only when the frame is not the leaf). */
bool unwind__at_root(const struct unwind_module *mod, uint64_t vaddr, bool leaf);

/* Frame-pointer walk of the stack (rbp chain). Same contract. */
int unwind__fp(const struct unwind_regs *regs, const struct unwind_stack *stack,
	       unwind_find_fn find, void *ctx,
	       struct unwind_frame *frames, size_t max, size_t *n, enum unwind_stop *stop);

#endif
