/* Placing a bytecode interpreter's frames, read from its memory at a
 * sample, on the sample's native eval-loop frames that ran them, showing
 * only what the sample's own words prove (doc/format.md, "Proven
 * frames"). For readers whose interpreter keeps, in a callee-saved
 * register or a stack slot of each native eval call, the address of the
 * interpreter frame that call runs and a pointer into that frame's code
 * (CPython's eval loop, PHP's execute_ex, Perl's runops loop): the reader walks the frames, the
 * placer proves and places them, and turns the result into the splices of
 * runtimes/runtime.h. Pure computation on what it is given: no reads. */
#ifndef SMOLDER_RUNTIMES_INTERP_PLACE_H
#define SMOLDER_RUNTIMES_INTERP_PLACE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtimes/runtime.h"

#define INTERP_MAX_FRAMES 256

/* One interpreter frame as read, innermost first. */
struct interp_frame {
	uint64_t addr;             /* the frame's own address (its identity) */
	uint64_t code_lo, code_hi; /* its code: [lo, hi); empty for frames no
	                              eval call runs (a builtin's) */
	uint64_t obj_lo, obj_hi;   /* the object that holds its code, where an
	                              eval call may keep a pointer to it rather
	                              than into the code (CPython's code
	                              object): [lo, hi); empty for most */
	uint32_t name;             /* strtab id */
	bool entry_end;            /* the outermost frame of its eval call */
};

struct interp_stack {
	struct interp_frame f[INTERP_MAX_FRAMES];
	size_t n;
};

/* One native eval frame of the sample as the kernel copied it. */
struct interp_native {
	const uint8_t *words;
	size_t nbytes;
	const uint64_t *regs;
	size_t nregs;
	/* a pointer into the code of the frame at witness_frame that the
	 * reader derived from the sample's own pc (JIT code compiled from one
	 * function: runtimes/php_jit.h), standing for one in a register;
	 * 0: none */
	uint64_t witness, witness_frame;
};

/* How a native eval call's frames were known. */
enum interp_placement {
	INTERP_UNPROVEN = 0, /* nothing proves what it ran: a marker */
	INTERP_PROVEN,       /* its words hold a read frame's address and
	                        point into that frame's code */
	INTERP_CHAINED,      /* a caller of a proven frame: the read's */
	INTERP_NONE,         /* the read has fewer calls: nothing to place */
};

/* What the sample's eval calls ran: for call k (innermost first) frames
 * [first[k], first[k] + count[k]) of frames (innermost first); at nev, the
 * frames older than the outermost call the native stack reached when it
 * was cut short. */
struct interp_placed {
	struct interp_frame frames[INTERP_MAX_FRAMES];
	size_t n;
	uint16_t first[INTERP_MAX_FRAMES + 1], count[INTERP_MAX_FRAMES + 1];
	uint8_t state[INTERP_MAX_FRAMES]; /* enum interp_placement */
	/* for a call INTERP_PROVEN: which of frames it proved, and the word
	 * of it that points into that frame's code (where the frame was at
	 * the sample: an interpreter's instruction register), or else at the
	 * object holding it */
	uint16_t proven_at[INTERP_MAX_FRAMES];
	uint64_t code_word[INTERP_MAX_FRAMES];
	unsigned confirmed, chained, unproven;
};

/* Places stack (read at the sample) on the sample's nev eval calls. The
 * innermost call whose registers (else stack slots) hold a read frame's
 * address, and point into its code, proves that frame and every older
 * one (a live frame's callers cannot change); calls inside it are
 * unproven, frames inside the proven one (returned from, or called
 * since) are not shown. rooted: the native stack reached its root, so
 * frames older than its outermost eval call are that call's. */
void interp_place(const struct interp_stack *stack, const struct interp_native *ev, size_t nev,
		  bool rooted, struct interp_placed *out);

/* A sample's eval calls: the native frames tagged with the sample's tag
 * that kept registers, with their words and registers. */
struct interp_sample {
	size_t nev;
	size_t at[INTERP_MAX_FRAMES]; /* native frame index, innermost first */
	struct interp_native ev[INTERP_MAX_FRAMES];
	uint64_t kept[INTERP_MAX_FRAMES][UNWIND_NKEPT];
	uint64_t leaf_regs[UNWIND_NREGS];
};

/* Finds s's eval calls into out; returns how many. */
size_t interp_place__gather(const struct runtime_sample *s, struct interp_sample *out);

/* The placed frames as splices of out, innermost first: each eval call's,
 * the marker for a call not proven, what is older than the native stack
 * at one past its outermost frame. Counts the calls in out too. */
void interp_place__splice(const struct interp_placed *pl, const struct interp_sample *es,
			  size_t nframes, uint32_t marker, struct runtime_stack *out);

#endif
