/* What proves a CPython frame read after its sample (doc/format.md,
 * "Proven frames").
 *
 * Every eval call keeps the frame it runs (2.7-3.10 its PyFrameObject,
 * 3.11+ its _PyInterpreterFrame) in a register or a stack slot of its own
 * native frame for as long as it runs it, and beside it a pointer into
 * that frame's bytecode (its instruction pointer) or to its code object
 * (which the loop keeps live, and 3.11+ reload from the frame around the
 * calls it makes into C); the kernel copied them at the sample. A frame's
 * address alone does not tell one call from the next placed at the same
 * address; with a pointer into the same frame's code it names the call
 * that ran. The placer (runtimes/interp_place.c) does the rest, as for
 * every interpreter: the innermost proven frame and its callers are the
 * sample's, what runs inside it is unproven. A pointer to a code object
 * alone proves nothing (a register holding the code of the function about
 * to be called is common): only beside the address of a frame running
 * that code. */
#include "config.h"

#include "runtimes/cpython.h"

void cpython__proof(const struct cpython_stack *stack, struct interp_stack *out)
{
	size_t i;

	out->n = stack->n < INTERP_MAX_FRAMES ? stack->n : INTERP_MAX_FRAMES;
	for (i = 0; i < out->n; i++) {
		const struct cpython_frame *f = &stack->f[i];
		struct interp_frame *g = &out->f[i];

		g->addr = f->addr;
		/* a frame that has run no instruction yet points one 2-byte
		 * unit before its first (3.11+'s prev_instr) */
		g->code_lo = f->bc_start >= 2 ? f->bc_start - 2 : f->bc_start;
		g->code_hi = f->bc_end;
		g->obj_lo = f->code;
		g->obj_hi = f->code_end;
		g->name = f->name;
		g->entry_end = f->entry_end;
	}
}
