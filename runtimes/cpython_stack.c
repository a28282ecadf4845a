/* A Python stack read after the sample, placed on the sample's native
 * eval frames.
 *
 * The sampler reads a thread's Python stack when it handles the sample,
 * up to a poll interval after it was taken: by then the thread may run
 * another function. What the sample itself holds is exact: each native
 * eval frame's registers and stack slots, as the kernel copied them, keep
 * what that eval call was running (2.7-3.10 their code object, 3.11+ the
 * pointer to the instruction, inside the code object). So each native eval
 * call's innermost Python frame is checked against its own native frame's
 * words, registers first (stack slots the call no longer uses keep stale
 * pointers): the code the stack read now names is confirmed; another code
 * is taken instead, with its callers as the thread's last stack had them
 * (the thread moved on since); a native frame pointing at no known code
 * keeps what was read. Codes the reader has not read yet are first looked
 * for from the registers (cpython__learn). */
#include "config.h"

#include <string.h>

#include "runtimes/cpython_last.h"
#include "runtimes/cpython_names.h"
#include "runtimes/cpython_state.h"

/* Probing a sample's registers for code the reader has not read yet: at
 * most this many probes a sample. */
#define PROBES_PER_SAMPLE 8

/* Whether word points at or into the code object at sp. */
static bool covers(const struct cpython_span *sp, uint64_t word)
{
	return (word >= sp->addr && word < sp->head_end) || (word >= sp->bc_start && word < sp->bc_end);
}

/* Whether code is one of the group's frames. */
static bool in_group(const struct cpython_stack *stack, size_t g0, size_t glen, uint64_t code)
{
	size_t j;

	for (j = 0; j < glen; j++)
		if (stack->f[g0 + j].code == code)
			return true;
	return false;
}

/* The first code object the reader knows that one of the native frame's
 * registers points at or into, but for the group's outer frames (see
 * slot_code). The registers hold what the eval loop keeps live across the
 * call it is in: its instruction pointer (3.11+), its code object
 * (2.7-3.10). */
static uint64_t reg_code(const struct cpython *c, const struct cpython_native *ev,
			 const struct cpython_stack *stack, size_t g0, size_t glen)
{
	size_t i;
	uint64_t code;

	for (i = 0; i < ev->nregs; i++)
		if (cpython_state__pointer_like(ev->regs[i]) &&
		    (code = cpython_names__at(c, ev->regs[i])) != 0 &&
		    (!glen || code == stack->f[g0].code || !in_group(stack, g0, glen, code)))
			return code;
	return 0;
}

/* Whether one of the native frame's stack slots points at or into code. */
static bool slot_holds(const struct cpython *c, const struct cpython_native *ev, uint64_t code)
{
	struct cpython_span sp;
	bool known = cpython_names__span(c, code, &sp);
	size_t i;

	for (i = 0; known && i + 8 <= ev->nbytes; i += 8) {
		uint64_t w;

		memcpy(&w, ev->words + i, 8);
		if (covers(&sp, w))
			return true;
	}
	return false;
}

/* A code object the reader knows that one of the native frame's stack
 * slots points into, other than the group's: slots the eval call no longer
 * uses keep stale pointers, most often to the code it started with (its
 * outermost frame). */
static uint64_t slot_code(const struct cpython *c, const struct cpython_native *ev,
			  const struct cpython_stack *stack, size_t g0, size_t glen)
{
	size_t i;

	for (i = 0; i + 8 <= ev->nbytes; i += 8) {
		uint64_t w, code;

		memcpy(&w, ev->words + i, 8);
		if (cpython_state__pointer_like(w) && (code = cpython_names__at(c, w)) != 0 &&
		    !in_group(stack, g0, glen, code))
			return code;
	}
	return 0;
}

/* Whether a word of the native frame that says what it runs points at or
 * into a known code: a register, or for 2.7-3.10 a stack slot too (the
 * eval loop may keep its code object there). 3.11+ keep the instruction
 * pointer in a register; their slots hold stale pointers, often to the
 * code the eval call started with, and one of those must not keep the
 * register's code from being learnt (placing would take neither). */
static bool anchored(const struct cpython *c, const struct cpython_native *ev)
{
	size_t i;

	for (i = 0; i < ev->nregs; i++)
		if (cpython_state__pointer_like(ev->regs[i]) && cpython_names__at(c, ev->regs[i]))
			return true;
	for (i = 0; c->l.frames == CPYTHON_FRAME_OBJECTS && i + 8 <= ev->nbytes; i += 8) {
		uint64_t w;

		memcpy(&w, ev->words + i, 8);
		if (cpython_state__pointer_like(w) && cpython_names__at(c, w))
			return true;
	}
	return false;
}

void cpython__learn(struct cpython *c, const struct cpython_native *ev, size_t nev)
{
	unsigned probes = 0;
	size_t k, i;

	/* only native frames that point at no code known: the others are
	 * placed, and probing every new pointer would cost reads each sample */
	for (k = 0; k < nev && probes < PROBES_PER_SAMPLE; k++) {
		if (anchored(c, &ev[k]))
			continue;
		for (i = 0; i < ev[k].nregs && probes < PROBES_PER_SAMPLE; i++)
			probes += cpython_names__probe(c, ev[k].regs[i]);
		/* 2.7-3.10 may keep the code object in a stack slot */
		for (i = 0; c->l.frames == CPYTHON_FRAME_OBJECTS && i + 8 <= ev[k].nbytes &&
			    probes < PROBES_PER_SAMPLE; i += 8) {
			uint64_t w;

			memcpy(&w, ev[k].words + i, 8);
			probes += cpython_names__probe(c, w);
		}
		if (probes)
			cpython_names__sort(c);
	}
}

/* The name the stack read gives code (with its line, when lines are on),
 * else the code's own. */
static uint32_t name_in(const struct cpython *c, const struct cpython_stack *stack, uint64_t code)
{
	size_t j;

	for (j = 0; j < stack->n; j++)
		if (stack->f[j].code == code)
			return stack->f[j].name;
	/* the sample holds no line for it: the one last read */
	return cpython_names__recent(c, code);
}

static void put(struct cpython_placed *out, uint64_t code, uint32_t name)
{
	struct cpython_frame *f;

	if (out->n == CPYTHON_MAX_FRAMES || !name)
		return;
	f = &out->frames[out->n++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->name = name;
}

/* The thread's previous stack (nprev frames at prev, 0 when none), if it
 * holds code: the frames from there to the outermost of that native eval
 * call go to out. */
static bool from_previous(const struct cpython_frame *prev, size_t nprev, uint64_t code,
			  struct cpython_placed *out)
{
	size_t j;

	for (j = 0; j < nprev; j++)
		if (prev[j].code == code)
			break;
	if (j == nprev)
		return false;
	for (; j < nprev; j++) {
		put(out, prev[j].code, prev[j].name);
		if (prev[j].entry_end)
			break;
	}
	return true;
}

/* Places group [g0, g0 + glen) of stack (glen 0: none) on native frame ev. */
static void place_one(const struct cpython *c, const struct cpython_stack *stack, size_t g0,
		      size_t glen, const struct cpython_native *ev, const struct cpython_frame *prev,
		      size_t nprev, struct cpython_placed *out)
{
	uint64_t code = reg_code(c, ev, stack, g0, glen);
	size_t j;

	/* a register is what runs; slots only when no register says */
	if (glen && (code ? code == stack->f[g0].code : slot_holds(c, ev, stack->f[g0].code))) {
		out->confirmed++;
		for (j = 0; j < glen; j++)
			put(out, stack->f[g0 + j].code, stack->f[g0 + j].name);
		return;
	}
	if (!code)
		code = slot_code(c, ev, stack, g0, glen);
	if (code) {
		out->corrected++;
		/* the thread ran it when it was read before: its callers then
		 * are more likely its callers at the sample than now's */
		if (from_previous(prev, nprev, code, out))
			return;
		put(out, code, name_in(c, stack, code));
		for (j = 1; j < glen; j++)
			put(out, stack->f[g0 + j].code, stack->f[g0 + j].name);
		return;
	}
	out->unanchored++;
	for (j = 0; j < glen; j++)
		put(out, stack->f[g0 + j].code, stack->f[g0 + j].name);
}

void cpython__place(const struct cpython *c, int tid, const struct cpython_stack *stack,
		    const struct cpython_native *ev, size_t nev, bool rooted, struct cpython_placed *out)
{
	size_t gstart[CPYTHON_MAX_FRAMES], glen[CPYTHON_MAX_FRAMES], ng = 0, i, k, nprev = 0;
	const struct cpython_frame *prev = cpython_last__frames(c->last, tid, &nprev);
	long offset;

	out->n = 0;
	out->confirmed = out->corrected = out->unanchored = 0;
	if (nev > CPYTHON_MAX_FRAMES)
		nev = CPYTHON_MAX_FRAMES;
	for (i = 0; i < stack->n; i++) {
		if (i == 0 || stack->f[i - 1].entry_end) {
			gstart[ng] = i;
			glen[ng++] = 0;
		}
		glen[ng - 1]++;
	}
	/* a stack that reaches its root lines up from the root: calls made or
	 * returned since the sample change the innermost end */
	offset = rooted ? (long)ng - (long)nev : 0;
	for (k = 0; k < nev; k++) {
		long g = (long)k + offset;
		size_t before = out->n;

		if (g >= 0 && (size_t)g < ng)
			place_one(c, stack, gstart[g], glen[g], &ev[k], prev, nprev, out);
		else
			place_one(c, stack, 0, 0, &ev[k], prev, nprev, out);
		out->first[k] = (uint16_t)before;
		out->count[k] = (uint16_t)(out->n - before);
	}
}
