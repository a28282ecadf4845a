/* Bounded evaluator for the DWARF expression ops that appear in .eh_frame/.debug_frame. */
#include "config.h"

#include <dwarf.h>
#include <errno.h>
#include <string.h>

#include "unwind/dwarf_expr.h"
#include "unwind/stackmem.h"

/* size bytes at addr, little-endian as x86-64 stores them */
static int read_sized(const struct unwind_stack *stack, uint64_t addr, uint64_t size, uint64_t *out)
{
	uint8_t b[8];
	uint64_t v = 0;
	size_t i;

	if (size == 0 || size > 8 || stackmem__read(stack, addr, b, (size_t)size) != 0)
		return -EFAULT;
	for (i = (size_t)size; i > 0; i--)
		v = (v << 8) | b[i - 1];
	*out = v;
	return 0;
}

static int reg_value(const struct dwarf_expr_ctx *ctx, uint64_t reg, uint64_t *out)
{
	if (!ctx->regs || reg >= UNWIND_NREGS || !(ctx->regs->valid & ((uint32_t)1 << reg)))
		return -EINVAL;
	*out = ctx->regs->val[reg];
	return 0;
}

/* Index of the op starting at byte offset `target` of the original block.
 * libdw keeps each op's byte offset; a synthesized DW_OP_call_frame_cfa
 * carries (Dwarf_Word)-1 and is never a branch target. A target past the
 * last op ends the expression. */
static int branch_target(const Dwarf_Op *ops, size_t nops, uint64_t target, size_t *idx)
{
	size_t i;
	uint64_t last = 0;
	bool any = false;

	for (i = 0; i < nops; i++) {
		if (ops[i].offset == (Dwarf_Word)-1)
			continue;
		if (ops[i].offset == target) {
			*idx = i;
			return 0;
		}
		last = ops[i].offset;
		any = true;
	}
	if (any && target > last) {
		*idx = nops;
		return 0;
	}
	return -EINVAL;
}

#define NEED(k)                                  \
	do {                                     \
		if (sp < (k))                    \
			return -EINVAL;          \
	} while (0)
#define PUSH(v)                                  \
	do {                                     \
		uint64_t pushed_ = (v);          \
		if (sp >= DWARF_EXPR_MAX_STACK)  \
			return -EINVAL;          \
		st[sp] = pushed_;                \
		sp++;                            \
	} while (0)

int dwarf_expr__eval(const Dwarf_Op *ops, size_t nops, const struct dwarf_expr_ctx *ctx,
		     uint64_t *out)
{
	uint64_t st[DWARF_EXPR_MAX_STACK];
	size_t sp = 0, pc = 0, steps = 0;
	uint64_t a, b;
	int err;

	if (!ops || !ctx || nops == 0)
		return -EINVAL;
	while (pc < nops) {
		const Dwarf_Op *op = &ops[pc];
		uint8_t atom = op->atom;

		if (++steps > DWARF_EXPR_MAX_STEPS)
			return -EINVAL;
		pc++;
		if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
			PUSH((uint64_t)(atom - DW_OP_lit0));
			continue;
		}
		if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
			err = reg_value(ctx, atom - DW_OP_breg0, &a);
			if (err)
				return err;
			/* libdw stores the sleb128 offset sign-extended in number */
			PUSH(a + op->number);
			continue;
		}
		switch (atom) {
		case DW_OP_bregx:
			err = reg_value(ctx, op->number, &a);
			if (err)
				return err;
			PUSH(a + op->number2);
			break;
		case DW_OP_const1u: case DW_OP_const1s:
		case DW_OP_const2u: case DW_OP_const2s:
		case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s:
		case DW_OP_constu: case DW_OP_consts:
			/* already decoded (and sign-extended for the s forms) by libdw */
			PUSH((uint64_t)op->number);
			break;
		case DW_OP_call_frame_cfa:
			if (!ctx->cfa_valid)
				return -EINVAL;
			PUSH(ctx->cfa);
			break;
		case DW_OP_dup:
			NEED(1);
			PUSH(st[sp - 1]);
			break;
		case DW_OP_drop:
			NEED(1);
			sp--;
			break;
		case DW_OP_over:
			NEED(2);
			PUSH(st[sp - 2]);
			break;
		case DW_OP_pick:
			if (op->number >= sp)
				return -EINVAL;
			a = st[sp - 1 - op->number];
			PUSH(a);
			break;
		case DW_OP_swap:
			NEED(2);
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = a;
			break;
		case DW_OP_rot:
			NEED(3);
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = st[sp - 3];
			st[sp - 3] = a;
			break;
		case DW_OP_deref:
			NEED(1);
			err = stackmem__u64(ctx->stack, st[sp - 1], &a);
			if (err)
				return err;
			st[sp - 1] = a;
			break;
		case DW_OP_deref_size:
			NEED(1);
			err = read_sized(ctx->stack, st[sp - 1], op->number, &a);
			if (err)
				return err;
			st[sp - 1] = a;
			break;
		case DW_OP_abs:
			NEED(1);
			if ((int64_t)st[sp - 1] < 0)
				st[sp - 1] = -st[sp - 1];
			break;
		case DW_OP_neg:
			NEED(1);
			st[sp - 1] = -st[sp - 1];
			break;
		case DW_OP_not:
			NEED(1);
			st[sp - 1] = ~st[sp - 1];
			break;
		case DW_OP_plus_uconst:
			NEED(1);
			st[sp - 1] += op->number;
			break;
		case DW_OP_plus: case DW_OP_minus: case DW_OP_mul:
		case DW_OP_and: case DW_OP_or: case DW_OP_xor:
		case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_div: case DW_OP_mod:
		case DW_OP_eq: case DW_OP_ne: case DW_OP_lt:
		case DW_OP_le: case DW_OP_gt: case DW_OP_ge:
			NEED(2);
			b = st[--sp]; /* top */
			a = st[sp - 1];
			switch (atom) {
			case DW_OP_plus: a += b; break;
			case DW_OP_minus: a -= b; break;
			case DW_OP_mul: a *= b; break;
			case DW_OP_and: a &= b; break;
			case DW_OP_or: a |= b; break;
			case DW_OP_xor: a ^= b; break;
			/* shifting by >= 64 is undefined in C; DWARF means "all bits out" */
			case DW_OP_shl: a = b >= 64 ? 0 : a << b; break;
			case DW_OP_shr: a = b >= 64 ? 0 : a >> b; break;
			case DW_OP_shra:
				a = (uint64_t)((int64_t)a >> (b >= 64 ? 63 : b));
				break;
			case DW_OP_div:
				if (b == 0 || ((int64_t)a == INT64_MIN && (int64_t)b == -1))
					return -EINVAL;
				a = (uint64_t)((int64_t)a / (int64_t)b);
				break;
			case DW_OP_mod:
				if (b == 0)
					return -EINVAL;
				a = a % b;
				break;
			case DW_OP_eq: a = (int64_t)a == (int64_t)b; break;
			case DW_OP_ne: a = (int64_t)a != (int64_t)b; break;
			case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
			case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
			case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
			case DW_OP_ge: a = (int64_t)a >= (int64_t)b; break;
			}
			st[sp - 1] = a;
			break;
		case DW_OP_skip:
		case DW_OP_bra:
			if (atom == DW_OP_bra) {
				NEED(1);
				if (st[--sp] == 0)
					break;
			}
			/* operand is relative to the end of this 3-byte op */
			if (op->offset == (Dwarf_Word)-1)
				return -EINVAL;
			err = branch_target(ops, nops, op->offset + 3 + op->number, &pc);
			if (err)
				return err;
			break;
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			if (pc != nops)
				return -EINVAL;
			break;
		default:
			return -ENOTSUP;
		}
	}
	if (sp == 0)
		return -EINVAL;
	*out = st[sp - 1];
	return 0;
}
