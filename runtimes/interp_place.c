/* An interpreter's frames read at a sample, placed on the native eval
 * calls that ran them by what the sample's own words prove
 * (runtimes/interp_place.h).
 *
 * The proof is a frame's identity and its code together. An eval call
 * keeps the frame it runs (its address) and where in that frame's code it
 * is (an instruction pointer) in callee-saved registers, which the kernel
 * copied at the sample for the leaf and the unwinder recovered for the
 * callers. A frame address alone does not tell one activation from the
 * next one placed at the same address; with a pointer into the same
 * frame's code it names what ran. Registers are looked at before stack
 * slots: a slot a call no longer uses may hold an older frame's address
 * (PHP's execute_ex saves its caller's frame register on its own stack). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "runtimes/interp_place.h"

/* Bytes of a native eval frame's own stack looked at for what it ran. */
#define FRAME_WORDS_MAX 2048
/* Frame addresses among one call's words whose code is looked for. */
#define PROOF_TRIES_MAX 8

struct frame_at {
	uint64_t addr;
	size_t index;
};

static int cmp_frame_at(const void *a, const void *b)
{
	const struct frame_at *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

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

static bool word_at(const struct interp_native *ev, size_t i, uint64_t *w)
{
	if (i < ev->nregs) {
		*w = ev->regs[i];
		return true;
	}
	i -= ev->nregs;
	if ((i + 1) * 8 > ev->nbytes)
		return false;
	memcpy(w, ev->words + i * 8, 8);
	return true;
}

static bool into_code(const struct interp_frame *f, uint64_t w)
{
	return (w >= f->code_lo && w < f->code_hi) || (w >= f->obj_lo && w < f->obj_hi);
}

/* The read frame ev proves: the first of its registers, then slots, that
 * holds a read frame's address while another of its words points into
 * that frame's code. -1: none. */
static long proven_frame(const struct frame_at *by_addr, const struct interp_stack *stack,
			 const struct interp_native *ev, uint64_t *code_word)
{
	uint64_t w;
	size_t i, j, tried = 0;

	/* a stack built so that every word is a frame's address costs a few
	 * scans of its words, not one per word */
	for (i = 0; tried < PROOF_TRIES_MAX && word_at(ev, i, &w); i++) {
		long q = lookup(by_addr, stack->n < INTERP_MAX_FRAMES ? stack->n : INTERP_MAX_FRAMES, w);

		if (q < 0)
			continue;
		tried++;
		if (ev->witness && stack->f[q].addr == ev->witness_frame &&
		    into_code(&stack->f[q], ev->witness)) {
			*code_word = ev->witness;
			return q;
		}
		for (j = 0; word_at(ev, j, &w); j++)
			if (into_code(&stack->f[q], w)) {
				*code_word = w;
				return q;
			}
	}
	return -1;
}

static size_t group_end(const struct interp_stack *stack, size_t q)
{
	while (q < stack->n && !stack->f[q].entry_end)
		q++;
	return q < stack->n ? q + 1 : stack->n;
}

static void take(struct interp_placed *out, const struct interp_stack *stack, size_t from, size_t to)
{
	for (; from < to && out->n < INTERP_MAX_FRAMES; from++)
		out->frames[out->n++] = stack->f[from];
}

void interp_place(const struct interp_stack *stack, const struct interp_native *ev, size_t nev,
		  bool rooted, struct interp_placed *out)
{
	struct frame_at by_addr[INTERP_MAX_FRAMES];
	long proof[INTERP_MAX_FRAMES];
	size_t i, k, n = stack->n < INTERP_MAX_FRAMES ? stack->n : INTERP_MAX_FRAMES;
	size_t first = SIZE_MAX, cursor;

	out->n = 0;
	out->confirmed = out->chained = out->unproven = 0;
	if (nev > INTERP_MAX_FRAMES)
		nev = INTERP_MAX_FRAMES;
	for (i = 0; i < n; i++) {
		by_addr[i].addr = stack->f[i].addr;
		by_addr[i].index = i;
	}
	qsort(by_addr, n, sizeof(by_addr[0]), cmp_frame_at);
	for (k = 0; k < nev; k++) {
		out->code_word[k] = 0;
		out->proven_at[k] = 0;
		proof[k] = proven_frame(by_addr, stack, &ev[k], &out->code_word[k]);
		if (proof[k] >= 0 && first == SIZE_MAX)
			first = k;
		out->first[k] = out->count[k] = 0;
		out->state[k] = INTERP_UNPROVEN;
	}
	out->first[nev] = out->count[nev] = 0;
	if (first == SIZE_MAX) {
		out->unproven = (unsigned)nev;
		return;
	}
	out->unproven = (unsigned)first;
	/* from the innermost proven call outwards each call runs the next
	 * group of the read; a call's own proof moves the cursor to its frame
	 * (the frames between belong to calls the unwinder did not reach) */
	cursor = (size_t)proof[first];
	for (k = first; k < nev && cursor < n; k++) {
		size_t start = cursor, end;

		if (proof[k] >= 0 && (size_t)proof[k] >= cursor) {
			out->confirmed++;
			out->state[k] = INTERP_PROVEN;
			start = (size_t)proof[k];
		} else {
			out->chained++;
			out->state[k] = INTERP_CHAINED;
		}
		end = group_end(stack, start);
		out->first[k] = (uint16_t)out->n;
		out->proven_at[k] = (uint16_t)(out->n + (start - cursor));
		take(out, stack, cursor, end);
		out->count[k] = (uint16_t)(out->n - out->first[k]);
		cursor = end;
	}
	for (; k < nev; k++)
		out->state[k] = INTERP_NONE;
	if (cursor < n) {
		if (rooted) {
			/* eval calls the unwinder did not recognise ran them:
			 * they stay with the outermost call it did */
			take(out, stack, cursor, n);
			out->count[nev - 1] = (uint16_t)(out->n - out->first[nev - 1]);
		} else {
			out->first[nev] = (uint16_t)out->n;
			take(out, stack, cursor, n);
			out->count[nev] = (uint16_t)(out->n - out->first[nev]);
		}
	}
}

/* The copied words of frame i's own stack: [its sp, its caller's sp). */
static void frame_words(const struct runtime_sample *s, size_t i, struct interp_native *ev)
{
	const struct unwind_stack *stack = s->stack;
	uint64_t lo = s->frames[i].sp, hi = i + 1 < s->nframes ? s->frames[i + 1].sp : lo + 512;

	ev->words = NULL;
	ev->nbytes = 0;
	if (!stack || lo < stack->base || hi <= lo || lo - stack->base >= stack->size)
		return;
	if (hi - lo > FRAME_WORDS_MAX)
		hi = lo + FRAME_WORDS_MAX;
	if (hi - stack->base > stack->size)
		hi = stack->base + stack->size;
	ev->words = stack->data + (lo - stack->base);
	ev->nbytes = (size_t)(hi - lo);
}

size_t interp_place__gather(const struct runtime_sample *s, struct interp_sample *out)
{
	size_t i, k, m;
	unsigned r;

	out->nev = 0;
	for (i = 0; i < s->nframes && out->nev < INTERP_MAX_FRAMES; i++) {
		if (!s->frames[i].keeps || s->frames[i].runtime != s->tag)
			continue;
		k = out->nev++;
		out->at[k] = i;
		frame_words(s, i, &out->ev[k]);
		out->ev[k].witness = out->ev[k].witness_frame = 0;
		m = 0;
		if (i == 0) {
			/* the leaf: every register the sample holds */
			for (r = 0; r < UNWIND_NREGS; r++)
				if (s->regs && (s->regs->valid & (1u << r)))
					out->leaf_regs[m++] = s->regs->val[r];
			out->ev[k].regs = out->leaf_regs;
		} else {
			for (r = 0; r < UNWIND_NKEPT; r++)
				if (s->frames[i].kept & (1u << r))
					out->kept[k][m++] = s->frames[i].kept_regs[r];
			out->ev[k].regs = out->kept[k];
		}
		out->ev[k].nregs = m;
	}
	return out->nev;
}

/* One splice at native frame `frame`: count placed frames from first,
 * outermost first, or the marker alone. */
static void add_splice(const struct interp_placed *pl, uint32_t frame, size_t first, size_t count,
		       bool marker, uint32_t marker_id, struct runtime_stack *out)
{
	struct runtime_splice *sp;
	size_t j = marker ? 1 : count;

	if (!j || out->nsplices == RUNTIME_MAX_SPLICES || out->nids + j > RUNTIME_MAX_IDS)
		return;
	sp = &out->at[out->nsplices++];
	sp->frame = frame;
	sp->first = (uint16_t)out->nids;
	sp->count = (uint16_t)j;
	if (marker) {
		out->ids[out->nids++] = marker_id;
		return;
	}
	while (j-- > 0)
		out->ids[out->nids++] = pl->frames[first + j].name;
}

void interp_place__splice(const struct interp_placed *pl, const struct interp_sample *es,
			  size_t nframes, uint32_t marker, struct runtime_stack *out)
{
	size_t k;

	out->confirmed += pl->confirmed;
	out->chained += pl->chained;
	out->unproven += pl->unproven;
	for (k = 0; k < es->nev; k++)
		add_splice(pl, (uint32_t)es->at[k], pl->first[k], pl->count[k],
			   pl->state[k] == INTERP_UNPROVEN, marker, out);
	add_splice(pl, (uint32_t)nframes, pl->first[es->nev], pl->count[es->nev], false, marker, out);
}
