/* Evaluator for the DWARF expressions found in call-frame information.
 *
 * Works on libdw's decoded Dwarf_Op arrays (dwarf_frame_cfa,
 * dwarf_frame_register). Memory is read only from the copied user stack.
 * Stack depth and executed steps are bounded, so hostile CFI cannot loop.
 * Pure function of its inputs: thread-safe, no allocation. */
#ifndef SMOLDER_UNWIND_DWARF_EXPR_H
#define SMOLDER_UNWIND_DWARF_EXPR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#include "unwind/regs.h"
#include "unwind/unwind.h"

#define DWARF_EXPR_MAX_STACK 64
#define DWARF_EXPR_MAX_STEPS 256

struct dwarf_expr_ctx {
	const struct unwind_regs *regs;   /* DW_OP_breg*: only valid registers */
	const struct unwind_stack *stack; /* DW_OP_deref*: only bytes of the copy */
	uint64_t cfa;                     /* DW_OP_call_frame_cfa, if cfa_valid */
	bool cfa_valid;
};

/* Evaluates ops[0..nops) and stores the top of the stack in *out.
 * A trailing DW_OP_stack_value is accepted (and ignored: callers know from
 * the rule kind whether the result is a value or an address).
 * Returns 0; -EFAULT when a dereference falls outside the copied stack;
 * -ENOTSUP for an operation CFI does not use; -EINVAL for malformed input
 * (stack underflow/overflow, unknown register, division by zero, runaway
 * branches, empty result). *out is untouched on failure. */
int dwarf_expr__eval(const Dwarf_Op *ops, size_t nops, const struct dwarf_expr_ctx *ctx,
		     uint64_t *out);

/* Reads 8 bytes at addr from the copied stack. 0 or -EFAULT. */
int dwarf_expr__read_u64(const struct unwind_stack *stack, uint64_t addr, uint64_t *out);

#endif
