/* A g0 stack joined to the goroutine it works for. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/gojoin.h"
#include "unwind/regs.h"
#include "unwind/stackmem.h"

/* DWARF's number of r14, Go's g register (ABIInternal, Go 1.17 on). */
#define REG_G 14
/* Names per pc (inlined calls and the function). */
#define NAMES_PER_PC 16
/* g0 and goroutine stacks are at most this large (Go's maxstacksize is
 * 1 GB on 64-bit; a g0 stack is 8-64 KiB, or the thread's). */
#define GO_MAX_STACK (1ull << 30)

struct gojoin {
	uint8_t first[GOJOIN_FIRST_READ];
	uint8_t *far;             /* GOJOIN_MAX_STACK, allocated when a
	                             goroutine is deeper than the first read */
	struct stackmem_far farsrc;
	struct unwind_frame frames[GOJOIN_MAX_FRAMES];
	/* the join in hand */
	const struct gojoin_process *p;
	uint64_t stack_hi;
	struct gojoin_stats st;
};

/* What the goroutine was switched out at. */
struct gsched {
	uint64_t lo, hi, sp, pc, bp;
};

int gojoin__new(struct gojoin **out)
{
	struct gojoin *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	*out = j;
	return 0;
}

void gojoin__delete(struct gojoin *j)
{
	if (!j)
		return;
	free(j->far);
	free(j);
}

void gojoin__stats(const struct gojoin *j, struct gojoin_stats *out)
{
	*out = j->st;
}

static uint64_t word(const uint8_t *buf, uint32_t off)
{
	uint64_t v;

	memcpy(&v, buf + off, 8);
	return v;
}

/* The goroutine's stack beyond the first read: whole reads, up to its
 * end (stackmem reads again what it holds and compares). */
static ssize_t read_far(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct gojoin *j = ctx;
	int err;

	if (addr >= j->stack_hi)
		return 0;
	if (len > j->stack_hi - addr)
		len = (size_t)(j->stack_hi - addr);
	err = memsource__read(j->p->mem, addr, buf, len);
	return err ? err : (ssize_t)len;
}

/* The goroutine's pcs are the binary's: sized frames by its table, its
 * roots ending the stack at runtime.goexit. */
static int find(void *ctx, uint64_t pc, struct unwind_module *out)
{
	struct gojoin *j = ctx;
	const struct gobinary *g = j->p->g;
	uint64_t vaddr = pc - j->p->bias;

	if (pc < j->p->bias || vaddr < g->text_lo || vaddr >= g->text_hi)
		return -ENOENT;
	out->owner = j;
	out->bias = j->p->bias;
	gobinary__describe(g, vaddr, out);
	out->keep_regs = false;
	return 0;
}

/* The thread's g0 (the sample's R14), checked; its m's curg. */
static int current_g(struct gojoin *j, const struct runtime_sample *s, uint64_t *curg)
{
	const struct golayout *l = &j->p->g->layout;
	uint64_t g0, m, sp = s->regs->val[UNWIND_REG_SP];
	uint8_t gbuf[128], mbuf[256];

	if (!(s->regs->valid & (1u << REG_G)) || l->g_bytes > sizeof(gbuf) ||
	    l->m_curg + 8 > sizeof(mbuf))
		return -EPROTO;
	g0 = s->regs->val[REG_G];
	if (!g0 || (g0 & 7) || memsource__read(j->p->mem, g0, gbuf, l->g_bytes) != 0)
		return -EPROTO;
	/* a g0 whose stack the sample was on */
	if (sp < word(gbuf, l->g_stack) || sp >= word(gbuf, l->g_stack + 8) ||
	    !(m = word(gbuf, l->g_m)) || (m & 7) || memsource__read(j->p->mem, m, mbuf, l->m_curg + 8) != 0 ||
	    word(mbuf, l->m_g0) != g0)
		return -EPROTO;
	*curg = word(mbuf, l->m_curg);
	/* none: the scheduler's own work, for no goroutine */
	return *curg && *curg != g0 && !(*curg & 7) ? 0 : -ENOENT;
}

static int read_sched(struct gojoin *j, uint64_t g, struct gsched *gs)
{
	const struct golayout *l = &j->p->g->layout;
	uint8_t gbuf[128];

	if (memsource__read(j->p->mem, g, gbuf, l->g_bytes) != 0)
		return -EFAULT;
	gs->lo = word(gbuf, l->g_stack);
	gs->hi = word(gbuf, l->g_stack + 8);
	gs->sp = word(gbuf, l->g_sched + l->gobuf_sp);
	gs->pc = word(gbuf, l->g_sched + l->gobuf_pc);
	gs->bp = word(gbuf, l->g_sched + l->gobuf_bp);
	/* switched out (sp is 0 once it runs again), on its own stack */
	if (gs->hi <= gs->lo || gs->hi - gs->lo > GO_MAX_STACK || gs->sp < gs->lo || gs->sp >= gs->hi ||
	    gs->bp < gs->sp || gs->bp >= gs->hi)
		return -ENOENT;
	return 0;
}

/* Whether the sample's own copy holds the goroutine's rbp where the
 * switch left it: saved by the first frame on g0 (below the switch
 * frame's sp), or by the one it called, or still in rbp. */
static bool proven(const struct runtime_sample *s, size_t k, uint64_t bp)
{
	uint64_t w;

	if (stackmem__u64(s->stack, s->frames[k].sp - 16, &w) == 0 && w == bp)
		return true;
	if (k >= 2 && stackmem__u64(s->stack, s->frames[k - 1].sp - 16, &w) == 0 && w == bp)
		return true;
	return k <= 2 && (s->regs->valid & (1u << UNWIND_REG_BP)) && s->regs->val[UNWIND_REG_BP] == bp;
}

/* Unwinds the goroutine from where it was switched out. */
static int unwind_goroutine(struct gojoin *j, const struct gsched *gs, size_t *n,
			    enum unwind_stop *why)
{
	struct unwind_stack stack;
	struct unwind_regs regs;
	size_t len = gs->hi - gs->sp < GOJOIN_FIRST_READ ? (size_t)(gs->hi - gs->sp) : GOJOIN_FIRST_READ;

	if (memsource__read(j->p->mem, gs->sp, j->first, len) != 0)
		return -EFAULT;
	if (!j->far && gs->hi - gs->sp > len)
		j->far = malloc(GOJOIN_MAX_STACK);
	memset(&j->farsrc, 0, sizeof(j->farsrc));
	j->farsrc.read = read_far;
	j->farsrc.ctx = j;
	j->farsrc.buf = j->far;
	j->farsrc.cap = j->far ? GOJOIN_MAX_STACK : 0;
	j->stack_hi = gs->hi;
	stack.base = gs->sp;
	stack.data = j->first;
	stack.size = len;
	stack.far = j->far ? &j->farsrc : NULL;
	memset(&regs, 0, sizeof(regs));
	regs.val[UNWIND_REG_IP] = gs->pc;
	regs.val[UNWIND_REG_SP] = gs->sp;
	regs.val[UNWIND_REG_BP] = gs->bp;
	regs.valid = (1u << UNWIND_REG_IP) | (1u << UNWIND_REG_SP) | (1u << UNWIND_REG_BP);
	return unwind__dwarf(&regs, &stack, find, j, j->frames, GOJOIN_MAX_FRAMES, n, why);
}

static int add_id(struct runtime_stack *out, uint32_t id)
{
	if (out->nids >= RUNTIME_MAX_IDS)
		return -ENOSPC;
	out->ids[out->nids++] = id;
	return 0;
}

/* Interns the names at vaddr (the function, then what it inlined there,
 * outermost first) onto out. */
static int add_names(struct gojoin *j, uint64_t vaddr, bool with_inlined, struct runtime_stack *out)
{
	const char *names[NAMES_PER_PC];
	size_t c = gobinary__names(j->p->g, vaddr, names, NAMES_PER_PC), k;
	uint32_t id;
	int err = 0;

	if (c && !with_inlined) {
		names[0] = names[c - 1];
		c = 1;
	}
	for (k = c; k-- > 0 && !err;) {
		err = ledger__intern_frame(j->p->mem->ledger, j->p->names, names[k],
					   k + 1 == c ? "" : FRAME_SUFFIX_INLINED, &id);
		if (!err)
			err = add_id(out, id);
	}
	return err;
}

/* The goroutine's frames [first, n), named outermost first, after a
 * "[truncated]" root when its unwind did not reach runtime.goexit. */
static int name_frames(struct gojoin *j, size_t first, size_t n, bool complete,
		       struct runtime_stack *out)
{
	struct ledger *l = j->p->mem->ledger;
	uint32_t id;
	size_t i;
	int err = 0;

	if (!complete && (err = ledger__intern_frame(l, j->p->names, FRAME_TRUNCATED, "", &id)) == 0)
		err = add_id(out, id);
	for (i = n; i-- > first && !err;) {
		const struct unwind_frame *f = &j->frames[i];

		/* where it was switched out is a return address too (the call
		 * of mcall, of morestack): named inside the call, as Go does */
		err = add_names(j, f->exact && f->vaddr ? f->vaddr - 1 : f->vaddr, true, out);
	}
	return err;
}

static void add_splice(const struct runtime_sample *s, size_t start_ids, struct runtime_stack *out)
{
	out->at[out->nsplices].frame = (uint32_t)s->nframes;
	out->at[out->nsplices].first = (uint16_t)start_ids;
	out->at[out->nsplices].count = (uint16_t)(out->nids - start_ids);
	out->nsplices++;
	out->confirmed++;
}

/* The join the kernel's frame-pointer walk at the sample holds: past the
 * switch frame's return address, the goroutine's return addresses (the
 * first g0 frame's saved rbp led it there). The function that called the
 * switch has no frame record of its own there: it is the callee of the
 * call before the first of them, when that call is direct. -ENOENT when
 * the walk holds nothing of the goroutine. */
static int chain_join(struct gojoin *j, const struct runtime_sample *s, size_t k,
		      struct runtime_stack *out)
{
	const struct gobinary *g = j->p->g;
	uint64_t bias = j->p->bias, pcs[GOJOIN_MAX_FRAMES], callee;
	size_t i, n = 0, start_ids = out->nids;
	bool complete = false;
	uint32_t id;
	int err = 0;

	for (i = 0; i < s->user_chain_nr && s->user_chain[i] != s->frames[k].pc; i++)
		;
	for (i++; i < s->user_chain_nr && n < GOJOIN_MAX_FRAMES && !complete; i++) {
		uint64_t pc = s->user_chain[i], vaddr = pc - bias - 1;
		const char *names[1];

		if (pc <= bias || vaddr < g->text_lo || vaddr >= g->text_hi ||
		    gobinary__names(g, vaddr, names, 1) == 0)
			break;
		pcs[n++] = pc;
		complete = gobinary__is_root(g, vaddr);
	}
	if (n == 0)
		return -ENOENT;
	if (!complete && (err = ledger__intern_frame(j->p->mem->ledger, j->p->names, FRAME_TRUNCATED, "",
						     &id)) == 0)
		err = add_id(out, id);
	for (i = n; i-- > 0 && !err;)
		err = add_names(j, pcs[i] - bias - 1, true, out);
	/* where in it the switch was called is not known: no inlined calls */
	if (!err && gobinary__callee(g, pcs[0] - bias, &callee) == 0)
		err = add_names(j, callee, false, out);
	if (err) {
		out->nids = start_ids;
		return err;
	}
	add_splice(s, start_ids, out);
	j->st.joined++;
	j->st.chained++;
	return 0;
}

int gojoin__read(struct gojoin *j, const struct gojoin_process *p, const struct runtime_sample *s,
		 struct runtime_stack *out)
{
	const char *names[NAMES_PER_PC];
	struct gsched gs, again;
	enum unwind_stop why;
	size_t k = s->nframes - 1, n = 0, first = 0, start_ids = out->nids;
	uint64_t curg;
	int err;

	j->p = p;
	/* the native stack ended at a switch of this binary, as a caller */
	if (!p->g->table || !s->rooted || s->nframes < 2 || s->frames[k].runtime != s->tag ||
	    !s->frames[k].keeps || !gobinary__is_switch(p->g, s->frames[k].vaddr))
		return -ENOENT;
	if (out->nsplices >= RUNTIME_MAX_SPLICES)
		return -ENOSPC;
	/* what the sample itself holds, else what a read proves */
	if (s->user_chain && (err = chain_join(j, s, k, out)) != -ENOENT)
		return err;
	/* the read needs the runtime's layout (Go 1.17 on: g in R14) */
	if (!p->g->joins)
		return -ENOENT;
	if (!ledger__may_read(p->mem->ledger, s->now_ns))
		return -EAGAIN;
	err = current_g(j, s, &curg);
	if (!err)
		err = read_sched(j, curg, &gs);
	if (err) {
		if (err != -ENOENT)
			j->st.failures++;
		return err;
	}
	if (!proven(s, k, gs.bp)) {
		j->st.unproven++;
		return -ESTALE;
	}
	err = unwind_goroutine(j, &gs, &n, &why);
	/* the goroutine did not run while it was read */
	if (!err && (read_sched(j, curg, &again) != 0 || again.sp != gs.sp || again.pc != gs.pc ||
		     again.bp != gs.bp))
		err = -ESTALE;
	if (err || n == 0) {
		j->st.failures++;
		return err ? err : -EFAULT;
	}
	/* systemstack saved a pc of systemstack_switch, which stands for
	 * systemstack itself: the switch frame shows it already */
	k = gobinary__names(p->g, j->frames[0].vaddr, names, NAMES_PER_PC);
	if (k && strcmp(names[k - 1], "runtime.systemstack_switch") == 0)
		first = 1;
	err = name_frames(j, first, n, why == UNWIND_COMPLETE, out);
	if (err || out->nids == start_ids) {
		out->nids = start_ids;
		j->st.failures++;
		return err ? err : -EFAULT;
	}
	add_splice(s, start_ids, out);
	j->st.joined++;
	return 0;
}
