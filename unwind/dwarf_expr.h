/* Evaluator for the DWARF expressions found in call-frame information.
 *
 * Works on libdw's decoded Dwarf_Op arrays (dwarf_frame_cfa,
 * dwarf_frame_register). Memory is read only from the sampled stack
 * (unwind/stackmem.h: the copy, and the live stack beyond it if offered).
 * Stack depth and executed steps are bounded, so hostile CFI cannot loop.
 * No allocation; thread-safe as far as the stack's far source is (a far
 * read changes what it holds). */
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
	const struct unwind_stack *stack; /* DW_OP_deref*: only bytes of the stack */
	uint64_t cfa;                     /* DW_OP_call_frame_cfa, if cfa_valid */
	bool cfa_valid;
};

/* Evaluates ops[0..nops) and stores the top of the stack in *out.
 * A trailing DW_OP_stack_value is accepted (and ignored: callers know from
 * the rule kind whether the result is a value or an address).
 * Returns 0; -EFAULT when a dereference falls outside the stack;
 * -ENOTSUP for an operation CFI does not use; -EINVAL for malformed input
 * (stack underflow/overflow, unknown register, division by zero, runaway
 * branches, empty result). *out is untouched on failure. */
int dwarf_expr__eval(const Dwarf_Op *ops, size_t nops, const struct dwarf_expr_ctx *ctx,
		     uint64_t *out);

#endif
