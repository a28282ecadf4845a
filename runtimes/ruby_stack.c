/* A thread's Ruby stack, read just after its sample, placed on the sample's
 * native vm_exec_core frames: only what the sample proves is shown.
 *
 * The proof is the instruction loop's own registers. On x86-64, GCC builds
 * of CRuby pin the loop's control frame in r15 and its pc in r14
 * (vm_exec.c, DECL_SC_REG), for as long as the loop runs that frame, and
 * the kernel copied them at the sample (the leaf's sampled registers, an
 * outer call's as the unwinder recovered them from its callees' saves). A
 * frame of the read whose address r15 holds, with r14 inside its
 * instructions, was what that call ran at the sample (the address alone
 * does not tell one activation from the next at the same depth of the VM
 * stack, the pc tells what it runs), and since it is still on the thread's
 * stack when read, so are its callers. The calls inside the innermost
 * proven one are unproven, never what the read found there. Frames of the
 * read newer than the proven one are what the thread did since, except C
 * methods the proven frame called whose C function the native stack above
 * the call was running: those were there. */
#include "config.h"

#include <string.h>

#include "runtimes/ruby.h"

/* The index of the frame of stack ev proves it ran, -1 when none. */
static long proven_frame(const struct ruby_stack *stack, const struct ruby_native *ev)
{
	size_t i;

	if (!ev->have_regs)
		return -1;
	for (i = 0; i < stack->n; i++) {
		const struct ruby_frame *f = &stack->f[i];

		/* the pc is the next instruction's: it may be one past the end */
		if (f->addr == ev->cfp && !f->cfunc && f->code && ev->pc >= f->code && ev->pc <= f->code_end)
			return (long)i;
	}
	return -1;
}

/* The native function, at or outside *from among those ev's call made,
 * that starts at func; -1 when none. *from moves past it: a C method
 * called inside another runs in a frame inside the other's. */
static long called(const struct ruby_native *ev, uint64_t func, size_t *from)
{
	size_t i;

	for (i = *from; i < ev->ncalled && func; i++)
		if (ev->called[i] == func) {
			*from = i + 1;
			return (long)i;
		}
	return -1;
}

/* The first of the frames newer than q that the sample proves: C methods
 * q called, the one q called run by a native frame its call ev made, the
 * one that one called by a frame inside, and so on inwards. */
static size_t newer_proven(const struct ruby_stack *stack, const struct ruby_native *ev, size_t q)
{
	size_t limit = ev->ncalled;

	while (q > 0 && stack->f[q - 1].cfunc && !stack->f[q - 1].entry_end) {
		size_t j = limit;

		while (j > 0 && ev->called[j - 1] != stack->f[q - 1].cfunc)
			j--;
		if (!j)
			break;
		limit = j - 1;
		q--;
	}
	return q;
}

/* The end (one past) of the native call's frames that start at q. */
static size_t group_end(const struct ruby_stack *stack, size_t q)
{
	while (q < stack->n && !stack->f[q].entry_end)
		q++;
	return q < stack->n ? q + 1 : stack->n;
}

/* Takes frames [from, to) of the stack as native call ev's, matching its
 * C methods with the native frames that run their C functions. */
static void take(struct ruby_placed *out, const struct ruby_stack *stack, size_t from, size_t to,
		 const struct ruby_native *ev)
{
	size_t next = 0;

	/* innermost first: the innermost C method is the innermost frame */
	for (; from < to && out->n < RUBY_MAX_FRAMES; from++) {
		const struct ruby_frame *f = &stack->f[from];
		long j = f->cfunc && ev ? called(ev, f->cfunc, &next) : -1;

		out->native[out->n] = (int16_t)j;
		out->frames[out->n++] = *f;
	}
}

void ruby__place(const struct ruby_stack *stack, const struct ruby_native *ev, size_t nev, bool rooted,
		 struct ruby_placed *out)
{
	long proof[RUBY_MAX_FRAMES];
	size_t k, first = SIZE_MAX, cursor;

	out->n = 0;
	out->confirmed = out->chained = out->unproven = 0;
	if (nev > RUBY_MAX_FRAMES)
		nev = RUBY_MAX_FRAMES;
	for (k = 0; k < nev; k++) {
		proof[k] = proven_frame(stack, &ev[k]);
		if (proof[k] >= 0 && first == SIZE_MAX)
			first = k;
		out->first[k] = 0;
		out->count[k] = 0;
		out->state[k] = RUBY_UNPROVEN;
	}
	out->first[nev] = 0;
	out->count[nev] = 0;
	if (first == SIZE_MAX) {
		out->unproven = (unsigned)nev;
		return;
	}
	out->unproven = (unsigned)first;
	cursor = newer_proven(stack, &ev[first], (size_t)proof[first]);
	for (k = first; k < nev && cursor < stack->n; k++) {
		size_t start = cursor, end;

		if (proof[k] >= 0 && (size_t)proof[k] >= cursor) {
			out->confirmed++;
			out->state[k] = RUBY_PROVEN;
			start = (size_t)proof[k];
		} else {
			out->chained++;
			out->state[k] = RUBY_CHAINED;
		}
		end = group_end(stack, start);
		out->first[k] = (uint16_t)out->n;
		take(out, stack, cursor, end, &ev[k]);
		out->count[k] = (uint16_t)(out->n - out->first[k]);
		cursor = end;
	}
	for (; k < nev; k++)
		out->state[k] = RUBY_NONE;
	if (cursor < stack->n) {
		if (rooted) {
			take(out, stack, cursor, stack->n, NULL);
			out->count[nev - 1] = (uint16_t)(out->n - out->first[nev - 1]);
		} else {
			out->first[nev] = (uint16_t)out->n;
			take(out, stack, cursor, stack->n, NULL);
			out->count[nev] = (uint16_t)(out->n - out->first[nev]);
		}
	}
}
