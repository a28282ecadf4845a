/* A Python stack read after the sample, placed on the sample's native
 * eval frames.
 *
 * The sampler reads a thread's Python stack when it handles the sample,
 * up to a poll interval after it was taken: by then the thread may run
 * another function. What the sample itself holds is exact: each native
 * eval frame's registers and stack slots, as the kernel copied them, keep
 * what that eval call was running (2.7-3.10 keep their code object in a
 * local, 3.11+ the pointer to the next instruction, inside the code
 * object, in 2.7-3.12). So each native eval call's innermost Python frame
 * is checked against the words of its own native frame: the code the stack
 * read now names is confirmed; another code the reader knows (not one of
 * that call's outer frames: stale slots keep those) is taken instead, with
 * its callers as the thread's last stack had them (the thread moved on
 * since); a native frame holding no known code keeps what was read. */
#include "config.h"

#include <string.h>

#include "common/u64map.h"
#include "runtimes/cpython_impl.h"

/* Whether word points at or into code object addr (as the reader knows it). */
static bool covers(const struct cpython *c, uint64_t code, uint64_t word)
{
	uint64_t idx;
	const struct cpython_code *e;

	if (!u64map__get(c->code_index, code, &idx) || idx - 1 >= c->ncodes)
		return false;
	e = &c->codes[idx - 1];
	return (word >= e->addr && word < e->addr + c->l.code_size) ||
	       (word >= e->bc_start && word < e->bc_end);
}

static bool pointer_like(uint64_t w)
{
	return w >= 4096 && w < (1ull << 47) && (w & 1) == 0;
}

/* Calls the words of a native frame: its registers first, then its slots. */
#define EACH_WORD(ev, w, body)                                                  \
	do {                                                                    \
		size_t i_;                                                      \
		for (i_ = 0; i_ < (ev)->nregs; i_++) {                          \
			uint64_t w = (ev)->regs[i_];                            \
			body;                                                   \
		}                                                               \
		for (i_ = 0; i_ + 8 <= (ev)->nbytes; i_ += 8) {                 \
			uint64_t w;                                             \
			memcpy(&w, (ev)->words + i_, 8);                        \
			body;                                                   \
		}                                                               \
	} while (0)

/* Whether the native frame holds a pointer to or into code. */
static bool holds(const struct cpython *c, const struct cpython_native *ev, uint64_t code)
{
	EACH_WORD(ev, w, if (pointer_like(w) && covers(c, code, w)) return true);
	return false;
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

/* A code object the reader knows that the native frame points into, other
 * than the group's: an eval call keeps stale pointers to the code it
 * started with (its outermost frame) in slots it no longer uses. */
static uint64_t other_code(const struct cpython *c, const struct cpython_native *ev,
			   const struct cpython_stack *stack, size_t g0, size_t glen)
{
	EACH_WORD(ev, w, {
		uint64_t code;

		if (pointer_like(w) && (code = cpython__code_at(c, w)) != 0 &&
		    !in_group(stack, g0, glen, code))
			return code;
	});
	return 0;
}

static uint32_t name_of(const struct cpython *c, uint64_t code)
{
	uint64_t idx;

	if (!u64map__get(c->code_index, code, &idx) || idx - 1 >= c->ncodes)
		return 0;
	return c->codes[idx - 1].name;
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

/* The thread's previous stack, if it holds code: the frames from there to
 * the outermost of that native eval call go to out. */
static bool from_previous(const struct cpython_last *prev, uint64_t code, struct cpython_placed *out)
{
	size_t j;

	for (j = 0; prev && j < prev->n; j++)
		if (prev->f[j].code == code)
			break;
	if (!prev || j == prev->n)
		return false;
	for (; j < prev->n; j++) {
		put(out, prev->f[j].code, prev->f[j].name);
		if (prev->f[j].entry_end)
			break;
	}
	return true;
}

/* Places group [g0, g0 + glen) of stack (glen 0: none) on native frame ev. */
static void place_one(const struct cpython *c, const struct cpython_stack *stack, size_t g0,
		      size_t glen, const struct cpython_native *ev, const struct cpython_last *prev,
		      struct cpython_placed *out)
{
	uint64_t code;
	size_t j;

	if (glen && holds(c, ev, stack->f[g0].code)) {
		out->confirmed++;
		for (j = 0; j < glen; j++)
			put(out, stack->f[g0 + j].code, stack->f[g0 + j].name);
		return;
	}
	code = other_code(c, ev, stack, g0, glen);
	if (code) {
		out->corrected++;
		/* the thread ran it when it was read before: its callers then
		 * are more likely its callers at the sample than now's */
		if (from_previous(prev, code, out))
			return;
		put(out, code, name_of(c, code));
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
	size_t gstart[CPYTHON_MAX_FRAMES], glen[CPYTHON_MAX_FRAMES], ng = 0, i, k;
	const struct cpython_last *prev = NULL;
	uint64_t v;
	long offset;

	if (u64map__get(c->last_by_tid, (uint64_t)tid, &v))
		prev = (const struct cpython_last *)(uintptr_t)v;
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
			place_one(c, stack, gstart[g], glen[g], &ev[k], prev, out);
		else
			place_one(c, stack, 0, 0, &ev[k], prev, out);
		out->first[k] = (uint16_t)before;
		out->count[k] = (uint16_t)(out->n - before);
	}
}
