/* DWARF CFI and frame-pointer unwinding of a copied user stack. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "unwind/dwarf_expr.h"
#include "unwind/stackmem.h"
#include "unwind/unwind.h"

#define BIT(r) ((uint32_t)1 << (r))

static const char *const stop_names[UNWIND_NSTOP] = {
	[UNWIND_COMPLETE] = "complete",
	[UNWIND_TRUNCATED] = "truncated",
	[UNWIND_NO_CFI] = "no_cfi",
	[UNWIND_NO_MAP] = "no_map",
	[UNWIND_BAD_PC] = "bad_pc",
	[UNWIND_DEPTH] = "depth",
};

const uint8_t unwind_kept_regnos[UNWIND_NKEPT] = { 3, 6, 12, 13, 14, 15 };

const char *unwind__stop_name(enum unwind_stop s)
{
	return (unsigned)s < UNWIND_NSTOP ? stop_names[s] : "unknown";
}

static bool has(const struct unwind_regs *r, unsigned reg)
{
	return reg < UNWIND_NREGS && (r->valid & BIT(reg));
}

/* Maps an evaluation/read failure to why the stack ends: running off the
 * stack that can be read is truncation (data), anything else is a broken
 * rule. */
static enum unwind_stop fail_reason(int err)
{
	return err == -EFAULT ? UNWIND_TRUNCATED : UNWIND_BAD_PC;
}

/* Caller's value of one register. 0 with *v; -ENODATA when unrecoverable
 * (undefined, or from an unknown register); -EFAULT read outside the stack;
 * -EINVAL/-ENOTSUP unusable rule. */
static int reg_value(const struct cfi *c, const struct cfi_reg_rule *rule,
		     const struct unwind_regs *cur, const struct unwind_stack *stack,
		     uint64_t cfa, unsigned regno, uint64_t *v)
{
	struct dwarf_expr_ctx ctx;
	const Dwarf_Op *ops;
	uint64_t x;
	int err;

	switch (rule->kind) {
	case CFI_REG_UNDEFINED:
		return -ENODATA;
	case CFI_REG_SAME:
		if (!has(cur, regno))
			return -ENODATA;
		*v = cur->val[regno];
		return 0;
	case CFI_REG_OFFSET:
		return stackmem__u64(stack, cfa + (uint64_t)(int64_t)rule->value, v);
	case CFI_REG_VAL_OFFSET:
		*v = cfa + (uint64_t)(int64_t)rule->value;
		return 0;
	case CFI_REG_REGISTER:
		if (!has(cur, rule->reg))
			return -ENODATA;
		*v = cur->val[rule->reg];
		return 0;
	case CFI_REG_EXPR:
	case CFI_REG_VAL_EXPR:
		ops = cfi__ops(c, rule->value);
		if (!ops)
			return -EINVAL;
		ctx.regs = cur;
		ctx.stack = stack;
		ctx.cfa = cfa;
		ctx.cfa_valid = true;
		err = dwarf_expr__eval(ops, rule->nops, &ctx, &x);
		if (err)
			return err;
		if (rule->kind == CFI_REG_VAL_EXPR) {
			*v = x;
			return 0;
		}
		return stackmem__u64(stack, x, v);
	default:
		return -EINVAL;
	}
}

/* One step through a CFI row: callee registers (val[IP] = its pc) to the
 * caller's. next must not be cur. Returns true with *next filled, or false
 * with *stop set (*next then undefined). */
static bool cfi_step(const struct cfi *c, const struct cfi_row *row, const struct unwind_regs *cur,
		     const struct unwind_stack *stack, struct unwind_regs *next, enum unwind_stop *stop)
{
	const struct cfi_reg_rule *ra_rule = &row->regs[row->ra_reg];
	uint64_t cfa, v;
	unsigned r;
	int err;

	if (row->cfa_kind == CFI_CFA_REG_OFFSET) {
		if (!has(cur, row->cfa_reg)) {
			*stop = UNWIND_BAD_PC;
			return false;
		}
		cfa = cur->val[row->cfa_reg] + (uint64_t)(int64_t)row->cfa_value;
	} else {
		struct dwarf_expr_ctx ctx = { cur, stack, 0, false };
		const Dwarf_Op *ops = cfi__ops(c, row->cfa_value);

		err = ops ? dwarf_expr__eval(ops, row->cfa_nops, &ctx, &cfa) : -EINVAL;
		if (err) {
			*stop = fail_reason(err);
			return false;
		}
	}
	/* An undefined return address is how CFI marks the outermost frame. */
	if (ra_rule->kind == CFI_REG_UNDEFINED) {
		*stop = UNWIND_COMPLETE;
		return false;
	}
	/* Same-value would return to the same pc forever. */
	if (ra_rule->kind == CFI_REG_SAME) {
		*stop = UNWIND_BAD_PC;
		return false;
	}
	/* The stack grows down: a caller's frame lies strictly above. Signal
	 * trampolines restore an arbitrary interrupted sp. */
	if (!row->signal && cfa <= cur->val[UNWIND_REG_SP]) {
		*stop = UNWIND_BAD_PC;
		return false;
	}
	/* next is built in place (it is not cur), and only its valid bits say
	 * what is known: values of invalid registers are never read, so they
	 * are not cleared (this runs per frame) */
	next->valid = 0;
	for (r = 0; r < UNWIND_NREGS; r++) {
		err = reg_value(c, &row->regs[r], cur, stack, cfa, r, &v);
		if (err == 0) {
			next->val[r] = v;
			next->valid |= BIT(r);
		} else if (r == row->ra_reg) {
			*stop = err == -ENODATA ? UNWIND_BAD_PC : fail_reason(err);
			return false;
		}
		/* other registers simply become unknown to the caller */
	}
	/* x86-64: the caller's sp is the CFA by definition */
	next->val[UNWIND_REG_SP] = cfa;
	next->valid |= BIT(UNWIND_REG_SP);
	if (row->ra_reg != UNWIND_REG_IP) {
		next->val[UNWIND_REG_IP] = next->val[row->ra_reg];
		next->valid |= BIT(UNWIND_REG_IP);
	}
	return true;
}

/* One frame-pointer step, for code without CFI: push %rbp; mov %rsp,%rbp
 * frames put the caller's rbp at [rbp] and the return address at [rbp+8].
 * Only a rbp at or above sp whose words can be read is trusted. */
static bool fp_step(const struct unwind_regs *cur, const struct unwind_stack *stack,
		    struct unwind_regs *next, enum unwind_stop *stop)
{
	uint64_t bp, saved_bp, ra;

	if (!has(cur, UNWIND_REG_BP) || !has(cur, UNWIND_REG_SP)) {
		*stop = UNWIND_NO_CFI;
		return false;
	}
	bp = cur->val[UNWIND_REG_BP];
	if (bp < cur->val[UNWIND_REG_SP] || (bp & 7) || bp > UINT64_MAX - 16 ||
	    stackmem__u64(stack, bp, &saved_bp) != 0 ||
	    stackmem__u64(stack, bp + 8, &ra) != 0) {
		*stop = UNWIND_NO_CFI;
		return false;
	}
	/* callee-saved registers other than rbp are unknown: the callee may
	 * have spilled them anywhere */
	memset(next, 0, sizeof(*next));
	next->val[UNWIND_REG_SP] = bp + 16;
	next->val[UNWIND_REG_BP] = saved_bp;
	next->val[UNWIND_REG_IP] = ra;
	next->valid = BIT(UNWIND_REG_SP) | BIT(UNWIND_REG_BP) | BIT(UNWIND_REG_IP);
	return true;
}

/* Whether a return address lands in code: the check that tells a frame
 * size applied at the wrong moment (prologue, epilogue) from a good one. */
static bool is_code(unwind_find_fn find, void *ctx, uint64_t ra)
{
	struct unwind_module m;

	/* a lookup fills in what it knows, on a module zeroed as emit's are */
	memset(&m, 0, sizeof(m));
	return ra >= 4096 && find(ctx, ra - 1, &m) == 0;
}

/* The caller of a frame whose return address is at ra_at (and nothing
 * else saved): a stub without a frame, or code before its frame is set up. */
static bool frameless_step(const struct unwind_regs *cur, const struct unwind_stack *stack,
			   uint64_t ra_at, struct unwind_regs *next, enum unwind_stop *stop)
{
	uint64_t ra;

	if (stackmem__u64(stack, ra_at, &ra) != 0) {
		*stop = UNWIND_TRUNCATED;
		return false;
	}
	*next = *cur;
	next->val[UNWIND_REG_SP] = ra_at + 8;
	next->val[UNWIND_REG_IP] = ra;
	next->valid = cur->valid & (BIT(UNWIND_REG_BP) | BIT(UNWIND_REG_SP) | BIT(UNWIND_REG_IP));
	next->valid |= BIT(UNWIND_REG_SP) | BIT(UNWIND_REG_IP);
	return true;
}

/* Where a frame the runtime read the code of counts from, when the code
 * moved sp and kept the frame's own: a word on the stack or a register of
 * the frame. It must lie above sp, within a frame's reach. */
static bool moved_base(const struct unwind_module *mod, const struct unwind_regs *cur,
		       const struct unwind_stack *stack, uint64_t *base, enum unwind_stop *stop)
{
	uint64_t sp = cur->val[UNWIND_REG_SP], b;

	if (mod->base == UNWIND_BASE_SAVED) {
		if (mod->base_at < 0 ||
		    stackmem__u64(stack, sp + (uint64_t)mod->base_at, &b) != 0) {
			*stop = UNWIND_TRUNCATED;
			return false;
		}
	} else if (mod->base_at >= 0 && has(cur, (unsigned)mod->base_at) &&
		   mod->base_at != UNWIND_REG_SP && mod->base_at != UNWIND_REG_IP) {
		b = cur->val[mod->base_at];
	} else {
		*stop = UNWIND_BAD_PC;
		return false;
	}
	if (b < sp || b - sp >= (1u << 20) || (b & 7)) {
		*stop = UNWIND_BAD_PC;
		return false;
	}
	*base = b;
	return true;
}

/* A frame of frame_bytes above base (its unextended sp): the return
 * address is its top word, the caller's rbp the one below. Where the
 * runtime did not read the code at the pc, a sampled pc in the prologue
 * or the epilogue is guessed at from what the stack holds. */
static bool sized_step(const struct unwind_module *mod, const struct unwind_frame *f,
		       const struct unwind_regs *cur, const struct unwind_stack *stack, uint64_t base,
		       unwind_find_fn find, void *ctx, struct unwind_regs *next,
		       enum unwind_stop *stop)
{
	uint64_t sp = cur->val[UNWIND_REG_SP], sender, ra, bp;
	bool guess = f->exact && !mod->sized_at_pc;

	/* sampled in the prologue: the frame is not there yet; after
	 * "push rbp" the return address is one word up */
	if (guess && f->pc < mod->frame_complete) {
		if (stackmem__u64(stack, sp, &ra) == 0 && is_code(find, ctx, ra))
			return frameless_step(cur, stack, sp, next, stop);
		return frameless_step(cur, stack, sp + 8, next, stop);
	}
	if (mod->sized_at_pc && mod->base != UNWIND_BASE_SP &&
	    !moved_base(mod, cur, stack, &base, stop))
		return false;
	sender = base + mod->frame_bytes;
	if (mod->frame_bytes < 8 || sender < base ||
	    stackmem__u64(stack, sender - 8, &ra) != 0) {
		*stop = UNWIND_TRUNCATED;
		return false;
	}
	/* sampled in the epilogue, the frame already popped: the return
	 * address is at sp */
	if (guess && !is_code(find, ctx, ra))
		return frameless_step(cur, stack, sp, next, stop);
	memset(next, 0, sizeof(*next));
	next->val[UNWIND_REG_SP] = sender;
	next->val[UNWIND_REG_IP] = ra;
	next->valid = BIT(UNWIND_REG_SP) | BIT(UNWIND_REG_IP);
	if (mod->sized_at_pc && mod->caller_bp == UNWIND_BP_LIVE) {
		if (has(cur, UNWIND_REG_BP)) {
			next->val[UNWIND_REG_BP] = cur->val[UNWIND_REG_BP];
			next->valid |= BIT(UNWIND_REG_BP);
		}
	} else if ((!mod->sized_at_pc || mod->caller_bp == UNWIND_BP_BELOW_RA) &&
		   mod->frame_bytes >= 16 && stackmem__u64(stack, sender - 16, &bp) == 0) {
		next->val[UNWIND_REG_BP] = bp;
		next->valid |= BIT(UNWIND_REG_BP);
	}
	return true;
}

/* An interpreter frame: rbp-based like a frame-pointer frame, and it
 * holds the method it runs, where in it it is, and the caller's
 * unextended sp. */
static bool interpreted_step(const struct unwind_module *mod, struct unwind_frame *f,
			     const struct unwind_regs *cur, const struct unwind_stack *stack,
			     struct unwind_regs *next, uint64_t *usp, enum unwind_stop *stop)
{
	uint64_t fp = cur->val[UNWIND_REG_BP], method, sender_sp, bcp;

	if (!fp_step(cur, stack, next, stop))
		return false;
	if (stackmem__u64(stack, fp + (uint64_t)((int64_t)mod->slot_method * 8), &method) == 0)
		f->method = method;
	if (mod->reg_bcp && mod->reg_bcp <= UNWIND_NREGS && has(cur, mod->reg_bcp - 1u))
		f->bcp = cur->val[mod->reg_bcp - 1u];
	else if (mod->slot_bcp &&
		 stackmem__u64(stack, fp + (uint64_t)((int64_t)mod->slot_bcp * 8), &bcp) == 0)
		f->bcp = bcp;
	/* the caller's sp before an adapter extended it: what a compiled
	 * caller's frame size counts from */
	if (stackmem__u64(stack, fp + (uint64_t)((int64_t)mod->slot_sender_sp * 8), &sender_sp) == 0 &&
	    sender_sp >= fp + 16 && sender_sp - fp < (1u << 20) && !(sender_sp & 7))
		*usp = sender_sp;
	return true;
}

/* Rows of a host function's prologue looked through for its body. */
#define HOST_PROLOGUE_ROWS 16

/* The rule of a host function's body: from its start, the rows of its
 * prologue widen the frame one push at a time; the body is the first row
 * of the widest frame (a row that narrows it is an epilogue), or the
 * first that counts from rbp (a frame-pointer frame, set up: code that
 * runs in it keeps rbp, which the host's body goes on using). */
static bool host_body(struct cfi *c, uint64_t vaddr, struct cfi_row *body)
{
	const struct cfi_row *row;
	uint64_t start;
	int k;

	if (cfi__func_start(c, vaddr, &start) != 0 || cfi__lookup(c, start, &row) != 0 ||
	    row->cfa_kind != CFI_CFA_REG_OFFSET || row->cfa_reg != UNWIND_REG_SP)
		return false;
	*body = *row;
	for (k = 0; k < HOST_PROLOGUE_ROWS; k++) {
		if (cfi__lookup(c, body->end, &row) != 0 || row->func_start != start ||
		    row->cfa_kind != CFI_CFA_REG_OFFSET)
			break;
		if (row->cfa_reg == UNWIND_REG_BP) {
			*body = *row;
			break;
		}
		if (row->cfa_reg != UNWIND_REG_SP || row->cfa_value <= body->cfa_value)
			break;
		*body = *row;
	}
	return true;
}

/* Code running in a host function's frame: the host's body steps it, as
 * if its pc were there and its sp host_sp_delta higher. */
static bool hosted_step(const struct unwind_module *mod, const struct unwind_regs *cur,
			const struct unwind_stack *stack, unwind_find_fn find, void *ctx,
			struct unwind_regs *next, enum unwind_stop *stop)
{
	struct unwind_module host;
	struct unwind_regs at;
	struct cfi_row body;

	memset(&host, 0, sizeof(host));
	if (find(ctx, mod->host_pc, &host) != 0 || !host.cfi ||
	    !host_body(host.cfi, mod->host_pc - host.bias, &body)) {
		*stop = UNWIND_NO_CFI;
		return false;
	}
	at = *cur;
	at.val[UNWIND_REG_SP] += mod->host_sp_delta;
	return cfi_step(host.cfi, &body, &at, stack, next, stop);
}

/* One step over code a runtime describes. usp: the frame's unextended sp
 * (0: its sp), updated for the caller. */
static bool runtime_step(const struct unwind_module *mod, struct unwind_frame *f,
			 const struct unwind_regs *cur, const struct unwind_stack *stack,
			 unwind_find_fn find, void *ctx, uint64_t *usp, struct unwind_regs *next,
			 enum unwind_stop *stop)
{
	uint64_t sp = cur->val[UNWIND_REG_SP];
	uint64_t base = *usp >= sp ? *usp : sp;

	*usp = 0;
	switch (mod->code) {
	case UNWIND_CODE_SIZED:
		return sized_step(mod, f, cur, stack, base, find, ctx, next, stop);
	case UNWIND_CODE_FRAMELESS:
		return frameless_step(cur, stack, sp, next, stop);
	case UNWIND_CODE_INTERPRETED:
		return interpreted_step(mod, f, cur, stack, next, usp, stop);
	case UNWIND_CODE_HOSTED:
		return hosted_step(mod, cur, stack, find, ctx, next, stop);
	default:
		return fp_step(cur, stack, next, stop);
	}
}

/* Whether the frame at vaddr (the k-th of the stack, 0 the leaf) is one of
 * the module's roots. */
static bool at_root(const struct unwind_module *mod, uint64_t vaddr, size_t k)
{
	size_t lo = 0, hi = mod->nroots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct unwind_root *r = &mod->roots[mid];

		if (vaddr < r->start)
			hi = mid;
		else if (vaddr >= r->end)
			lo = mid + 1;
		else
			return r->kind == UNWIND_ROOT || k > 0;
	}
	return false;
}

bool unwind__at_root(const struct unwind_module *mod, uint64_t vaddr, bool leaf)
{
	return mod->nroots && at_root(mod, vaddr, leaf ? 0 : 1);
}

/* Appends the frame of pc. exact: pc is the sampled ip or resumes an
 * interrupted context, so it is looked up as is (a return address is
 * looked up at pc - 1, inside the call). Returns 0 with *mod, or -ENOENT
 * after writing an owner-less frame. */
static int emit(unwind_find_fn find, void *ctx, uint64_t pc, bool exact,
		struct unwind_frame *f, struct unwind_module *mod)
{
	f->pc = pc;
	f->vaddr = 0;
	f->func_start = 0;
	f->owner = NULL;
	f->signal = false;
	f->exact = exact;
	f->code = UNWIND_CODE_NATIVE;
	f->runtime = 0;
	f->method = 0;
	f->bcp = 0;
	f->keeps = false;
	f->kept = 0;
	memset(mod, 0, sizeof(*mod));
	if (find(ctx, pc, mod) != 0)
		return -ENOENT;
	f->owner = mod->owner;
	f->code = (uint8_t)mod->code;
	f->runtime = mod->runtime;
	f->keeps = mod->keep_regs;
	f->vaddr = (exact ? pc : pc - 1) - mod->bias;
	return 0;
}

/* A stack that ended on a check of the chain (a pc in no mapping, a pc of
 * 0, a CFA not above its callee's) after bytes from beyond the copy fed it:
 * the live stack was read after the sample, so a frame failing there is
 * not proven to be the sample's; the stack ends before it, cut. */
static void unproven(const struct unwind_stack *stack, size_t *k, enum unwind_stop *why)
{
	if (!stackmem__used_far(stack) || (*why != UNWIND_NO_MAP && *why != UNWIND_BAD_PC))
		return;
	if (*why == UNWIND_NO_MAP && *k > 1)
		(*k)--;
	*why = UNWIND_TRUNCATED;
}

static void keep_regs(struct unwind_frame *f, const struct unwind_regs *cur)
{
	unsigned k;

	for (k = 0; k < UNWIND_NKEPT; k++)
		if (has(cur, unwind_kept_regnos[k])) {
			f->kept_regs[k] = cur->val[unwind_kept_regnos[k]];
			f->kept |= (uint8_t)(1u << k);
		}
}

int unwind__dwarf(const struct unwind_regs *regs, const struct unwind_stack *stack,
		  unwind_find_fn find, void *ctx,
		  struct unwind_frame *frames, size_t max, size_t *n, enum unwind_stop *stop)
{
	/* two register sets used in turn: the callee's and the caller's */
	struct unwind_regs bufs[2], *cur = &bufs[0], *next = &bufs[1], *t;
	enum unwind_stop why;
	bool exact = true;
	uint64_t usp = 0; /* a runtime frame's unextended sp (0: its sp) */
	size_t k = 0;

	if (!regs || !stack || !find || !n || !stop || (max && !frames) ||
	    !has(regs, UNWIND_REG_IP) || !has(regs, UNWIND_REG_SP))
		return -EINVAL;
	stackmem__reset(stack);
	*cur = *regs;
	for (;;) {
		struct unwind_module mod;
		const struct cfi_row *row = NULL;
		struct unwind_frame *f;
		uint64_t pc = cur->val[UNWIND_REG_IP];
		int err;

		if (pc == 0) {
			why = UNWIND_BAD_PC;
			break;
		}
		if (k == max) {
			why = UNWIND_DEPTH;
			break;
		}
		f = &frames[k++];
		f->sp = cur->val[UNWIND_REG_SP];
		if (emit(find, ctx, pc, exact, f, &mod) != 0) {
			why = UNWIND_NO_MAP;
			break;
		}
		if (f->keeps)
			keep_regs(f, cur);
		/* a root ends the stack whichever way its code is stepped (Go's
		 * roots in a binary without CFI are sized frames) */
		if (mod.code != UNWIND_CODE_NATIVE && mod.nroots && at_root(&mod, f->vaddr, k - 1)) {
			why = UNWIND_COMPLETE;
			break;
		}
		if (mod.code != UNWIND_CODE_NATIVE) {
			if (!runtime_step(&mod, f, cur, stack, find, ctx, &usp, next, &why))
				break;
			if (next->val[UNWIND_REG_SP] <= cur->val[UNWIND_REG_SP]) {
				why = UNWIND_BAD_PC;
				break;
			}
			exact = false;
			t = cur;
			cur = next;
			next = t;
			continue;
		}
		usp = 0;
		err = mod.cfi ? cfi__lookup(mod.cfi, f->vaddr, &row) : -ENOENT;
		if (mod.nroots && at_root(&mod, f->vaddr, k - 1)) {
			if (err == 0)
				f->func_start = row->func_start;
			why = UNWIND_COMPLETE;
			break;
		}
		if (err == 0) {
			f->func_start = row->func_start;
			f->signal = row->signal;
			if (!cfi_step(mod.cfi, row, cur, stack, next, &why))
				break;
			exact = row->signal;
		} else if (err == -ENOENT && mod.entry && f->vaddr >= mod.entry &&
			   f->vaddr - mod.entry < UNWIND_ENTRY_SPAN) {
			/* the entry stub is the outermost frame; it is named from
			 * the entry point like a stripped function from its FDE */
			f->func_start = mod.entry;
			why = UNWIND_COMPLETE;
			break;
		} else if (err == -ENOENT || err == -ENOMEM) {
			if (!fp_step(cur, stack, next, &why))
				break;
			exact = false;
		} else {
			why = UNWIND_BAD_PC;
			break;
		}
		t = cur;
		cur = next;
		next = t;
	}
	unproven(stack, &k, &why);
	*n = k;
	*stop = why;
	return 0;
}

int unwind__fp(const struct unwind_regs *regs, const struct unwind_stack *stack,
	       unwind_find_fn find, void *ctx,
	       struct unwind_frame *frames, size_t max, size_t *n, enum unwind_stop *stop)
{
	enum unwind_stop why;
	uint64_t pc, sp, bp;
	bool exact = true;
	size_t k = 0;

	if (!regs || !stack || !find || !n || !stop || (max && !frames) ||
	    !has(regs, UNWIND_REG_IP) || !has(regs, UNWIND_REG_SP))
		return -EINVAL;
	stackmem__reset(stack);
	pc = regs->val[UNWIND_REG_IP];
	sp = regs->val[UNWIND_REG_SP];
	bp = regs->val[UNWIND_REG_BP];
	for (;;) {
		struct unwind_module mod;
		struct unwind_frame *f;
		uint64_t saved_bp, ra, start;

		if (pc == 0) {
			why = UNWIND_BAD_PC;
			break;
		}
		if (k == max) {
			why = UNWIND_DEPTH;
			break;
		}
		f = &frames[k++];
		f->sp = sp;
		if (emit(find, ctx, pc, exact, f, &mod) != 0) {
			why = UNWIND_NO_MAP;
			break;
		}
		if (mod.cfi && cfi__func_start(mod.cfi, f->vaddr, &start) == 0)
			f->func_start = start;
		if (!has(regs, UNWIND_REG_BP)) {
			why = UNWIND_NO_CFI;
			break;
		}
		/* glibc's _start clears rbp: a zero link ends the chain */
		if (bp == 0) {
			why = UNWIND_COMPLETE;
			break;
		}
		if (bp < sp || (bp & 7) || bp > UINT64_MAX - 16) {
			why = UNWIND_BAD_PC;
			break;
		}
		if (stackmem__u64(stack, bp, &saved_bp) != 0 ||
		    stackmem__u64(stack, bp + 8, &ra) != 0) {
			why = UNWIND_TRUNCATED;
			break;
		}
		sp = bp + 16;
		bp = saved_bp;
		pc = ra;
		exact = false;
	}
	unproven(stack, &k, &why);
	*n = k;
	*stop = why;
	return 0;
}
