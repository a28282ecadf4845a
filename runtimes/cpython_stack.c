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

#include "common/u64map.h"
#include "runtimes/cpython_impl.h"

/* The reader's entry of code object addr, NULL when it has none. */
static const struct cpython_code *entry_of(const struct cpython *c, uint64_t code)
{
	uint64_t idx;

	if (!u64map__get(c->code_index, code, &idx) || idx - 1 >= c->ncodes)
		return NULL;
	return &c->codes[idx - 1];
}

/* Whether word points at or into code object e. */
static bool covers(const struct cpython *c, const struct cpython_code *e, uint64_t word)
{
	return (word >= e->addr && word < e->addr + c->l.code_size) ||
	       (word >= e->bc_start && word < e->bc_end);
}

static bool pointer_like(uint64_t w)
{
	return w >= 4096 && w < (1ull << 47) && (w & 1) == 0;
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
		if (pointer_like(ev->regs[i]) && (code = cpython__code_at(c, ev->regs[i])) != 0 &&
		    (!glen || code == stack->f[g0].code || !in_group(stack, g0, glen, code)))
			return code;
	return 0;
}

/* Whether one of the native frame's stack slots points at or into code. */
static bool slot_holds(const struct cpython *c, const struct cpython_native *ev, uint64_t code)
{
	const struct cpython_code *e = entry_of(c, code);
	size_t i;

	for (i = 0; e && i + 8 <= ev->nbytes; i += 8) {
		uint64_t w;

		memcpy(&w, ev->words + i, 8);
		if (covers(c, e, w))
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
		if (pointer_like(w) && (code = cpython__code_at(c, w)) != 0 &&
		    !in_group(stack, g0, glen, code))
			return code;
	}
	return 0;
}

/* The code object whose inline bytecode (3.11+) holds p, looked for by its
 * header in the 4 KiB before p; 0 when none. */
static uint64_t code_around(struct cpython *c, uint64_t p)
{
	const struct cpython_layout *l = &c->l;
	uint8_t b[CPYTHON_PAGE];
	uint64_t start, end = p & ~(uint64_t)7, h;

	start = end > sizeof(b) ? end - sizeof(b) : 0;
	if (start < 4096)
		return 0;
	if (memsource__read(&c->mem, start, b, (size_t)(end - start)) != 0) {
		/* the page before may be unmapped: the one of p alone */
		start = end & ~(uint64_t)(CPYTHON_PAGE - 1);
		if (start == end || memsource__read(&c->mem, start, b, (size_t)(end - start)) != 0)
			return 0;
	}
	/* the nearest header below p whose bytecode reaches p */
	for (h = end - 24; h >= start && h + 24 <= end; h -= 8) {
		uint64_t type, units;

		memcpy(&type, b + (h - start) + 8, 8);
		if (type != c->sym.code_type)
			continue;
		memcpy(&units, b + (h - start) + 16, 8);
		if (h + l->code_bytecode <= p && units <= (1u << 24) &&
		    p < h + l->code_bytecode + 2 * units)
			return h;
	}
	return 0;
}

/* Probes word w for a code object the reader does not know yet. Returns
 * whether a probe was spent. */
static bool probe(struct cpython *c, uint64_t w)
{
	uint64_t v, code;

	if (!pointer_like(w) || cpython__code_at(c, w) || u64map__get(c->not_code, w, &v))
		return false;
	if (c->l.frames == CPYTHON_FRAME_OBJECTS && !cpython__plausible(w))
		return false;
	code = c->l.frames == CPYTHON_FRAME_OBJECTS ? w : code_around(c, w);
	if (code && cpython__code(c, code))
		return true;
	if (u64map__count(c->not_code) >= CPYTHON_NOT_CODE_MAX)
		u64map__clear(c->not_code);
	(void)u64map__put(c->not_code, w, 1);
	return true;
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
		if (pointer_like(ev->regs[i]) && cpython__code_at(c, ev->regs[i]))
			return true;
	for (i = 0; c->l.frames == CPYTHON_FRAME_OBJECTS && i + 8 <= ev->nbytes; i += 8) {
		uint64_t w;

		memcpy(&w, ev->words + i, 8);
		if (pointer_like(w) && cpython__code_at(c, w))
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
	for (k = 0; k < nev && probes < CPYTHON_PROBES_PER_SAMPLE; k++) {
		if (anchored(c, &ev[k]))
			continue;
		for (i = 0; i < ev[k].nregs && probes < CPYTHON_PROBES_PER_SAMPLE; i++)
			probes += probe(c, ev[k].regs[i]);
		/* 2.7-3.10 may keep the code object in a stack slot */
		for (i = 0; c->l.frames == CPYTHON_FRAME_OBJECTS && i + 8 <= ev[k].nbytes &&
			    probes < CPYTHON_PROBES_PER_SAMPLE; i += 8) {
			uint64_t w;

			memcpy(&w, ev[k].words + i, 8);
			probes += probe(c, w);
		}
		if (probes)
			cpython__sort_ranges(c);
	}
}

static uint32_t name_of(const struct cpython *c, uint64_t code)
{
	const struct cpython_code *e = entry_of(c, code);

	/* the sample holds no line for it: the one last read */
	return e ? (e->recent ? e->recent : e->name) : 0;
}

/* The name the stack read gives code (with its line, when lines are on),
 * else the code's own. */
static uint32_t name_in(const struct cpython *c, const struct cpython_stack *stack, uint64_t code)
{
	size_t j;

	for (j = 0; j < stack->n; j++)
		if (stack->f[j].code == code)
			return stack->f[j].name;
	return name_of(c, code);
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
		if (from_previous(prev, code, out))
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
