/* A thread's Python stack, read just after its sample, placed on the
 * sample's native eval frames: only what the sample proves is shown.
 *
 * The proof is a frame's identity. Every eval call keeps the frame it runs
 * (2.7-3.10 its PyFrameObject, 3.11+ its _PyInterpreterFrame) in a
 * register or a stack slot of its own native frame for as long as it runs
 * it, and the kernel copied those words at the sample. A frame the read
 * found whose address one of them holds was running in that eval call at
 * the sample, and since it is still on the thread's stack when read, so are
 * its callers: a frame's callers cannot change while it lives. So the
 * innermost eval call whose frame is proven gives the read's frames from
 * that frame down to the thread's entry, call by call; the eval calls
 * inside it, which no word proves (the thread returned from them, or called
 * on, between the sample and the read), are shown as unproven, never as
 * what the read happened to find there. Registers are looked at before
 * stack slots: a slot the call no longer uses may hold an older frame's
 * address. Pointers into code objects prove nothing of the kind (a
 * register holding the code of the function about to be called is
 * common), and the thread's earlier stacks are not looked at. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "runtimes/cpython_state.h"

/* A read frame's address, and where it is in the stack. */
struct frame_at {
	uint64_t addr;
	size_t index;
};

static int cmp_frame_at(const void *a, const void *b)
{
	const struct frame_at *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The index of the read frame at word, or -1. */
static long lookup(const struct frame_at *by_addr, size_t n, uint64_t word)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (by_addr[mid].addr == word)
			return (long)by_addr[mid].index;
		if (by_addr[mid].addr < word)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Whether word points at or into frame f's code: the object itself
 * (2.7-3.10 keep it live in the eval loop), or its bytecode (3.11+ keep a
 * pointer to the instruction; a frame that has run none yet points one
 * 2-byte unit before the first). */
static bool into_code(const struct cpython_frame *f, uint64_t word)
{
	return (word >= f->code && word < f->code_end) || (word + 2 >= f->bc_start && word < f->bc_end);
}

/* Whether ev's words say it ran f's code: a register, else (when no
 * register points into f's code nor at any other read frame's) a slot. */
static bool runs_code(const struct cpython_native *ev, const struct cpython_frame *f)
{
	size_t i;

	for (i = 0; i < ev->nregs; i++)
		if (into_code(f, ev->regs[i]))
			return true;
	for (i = 0; i + 8 <= ev->nbytes; i += 8) {
		uint64_t w;

		memcpy(&w, ev->words + i, 8);
		if (into_code(f, w))
			return true;
	}
	return false;
}

/* The read frame native eval frame ev proves it was running: one of its
 * registers holds its address, else one of its stack slots, and its words
 * point into that frame's code (a frame's address alone does not tell one
 * activation from the next that takes its place). -1: none. */
static long proven_frame(const struct frame_at *by_addr, size_t n, const struct cpython_stack *stack,
			 const struct cpython_native *ev)
{
	size_t i;
	long q = -1;

	for (i = 0; i < ev->nregs && q < 0; i++)
		q = lookup(by_addr, n, ev->regs[i]);
	for (i = 0; i + 8 <= ev->nbytes && q < 0; i += 8) {
		uint64_t w;

		memcpy(&w, ev->words + i, 8);
		q = lookup(by_addr, n, w);
	}
	return q >= 0 && runs_code(ev, &stack->f[q]) ? q : -1;
}

/* The end (one past) of the native eval call's frames that start at q. */
static size_t group_end(const struct cpython_stack *stack, size_t q)
{
	while (q < stack->n && !stack->f[q].entry_end)
		q++;
	return q < stack->n ? q + 1 : stack->n;
}

static void take(struct cpython_placed *out, const struct cpython_stack *stack, size_t from, size_t to)
{
	for (; from < to && out->n < CPYTHON_MAX_FRAMES; from++)
		out->frames[out->n++] = stack->f[from];
}

void cpython__place(const struct cpython_stack *stack, const struct cpython_native *ev, size_t nev,
		    bool rooted, struct cpython_placed *out)
{
	struct frame_at by_addr[CPYTHON_MAX_FRAMES];
	long proof[CPYTHON_MAX_FRAMES];
	size_t i, k, first = SIZE_MAX, cursor;

	out->n = 0;
	out->confirmed = out->chained = out->unproven = 0;
	if (nev > CPYTHON_MAX_FRAMES)
		nev = CPYTHON_MAX_FRAMES;
	for (i = 0; i < stack->n; i++) {
		by_addr[i].addr = stack->f[i].addr;
		by_addr[i].index = i;
	}
	qsort(by_addr, stack->n, sizeof(by_addr[0]), cmp_frame_at);
	for (k = 0; k < nev; k++) {
		proof[k] = proven_frame(by_addr, stack->n, stack, &ev[k]);
		if (proof[k] >= 0 && first == SIZE_MAX)
			first = k;
		out->first[k] = 0;
		out->count[k] = 0;
		out->state[k] = CPYTHON_UNPROVEN;
	}
	out->first[nev] = 0;
	out->count[nev] = 0;
	if (first == SIZE_MAX) {
		out->unproven = (unsigned)nev;
		return;
	}
	out->unproven = (unsigned)first;
	/* from the innermost proven call outwards, each eval call runs the
	 * next group of the read; a call's own proof moves the cursor to its
	 * frame (frames between belong to calls not unwound: kept, inside) */
	cursor = (size_t)proof[first];
	for (k = first; k < nev && cursor < stack->n; k++) {
		size_t start = cursor, end;

		if (proof[k] >= 0 && (size_t)proof[k] >= cursor) {
			out->confirmed++;
			out->state[k] = CPYTHON_PROVEN;
			start = (size_t)proof[k];
		} else {
			out->chained++;
			out->state[k] = CPYTHON_CHAINED;
		}
		end = group_end(stack, start);
		out->first[k] = (uint16_t)out->n;
		take(out, stack, cursor, end);
		out->count[k] = (uint16_t)(out->n - out->first[k]);
		cursor = end;
	}
	for (; k < nev; k++)
		out->state[k] = CPYTHON_NONE;
	/* what is older than the outermost eval call: its own callers when the
	 * native stack reached its root (eval calls it did not recognise),
	 * else the root of what is known */
	if (cursor < stack->n) {
		if (rooted) {
			/* the last group taken is the outermost call's */
			take(out, stack, cursor, stack->n);
			out->count[nev - 1] = (uint16_t)(out->n - out->first[nev - 1]);
		} else {
			out->first[nev] = (uint16_t)out->n;
			take(out, stack, cursor, stack->n);
			out->count[nev] = (uint16_t)(out->n - out->first[nev]);
		}
	}
}
