/* Sampled user registers in DWARF numbering, and the mapping from perf's
 * PERF_SAMPLE_REGS_USER layout. The architecture table lives in one place
 * (unwind/regs_x86_64.c) so another architecture can follow. */
#ifndef SMOLDER_UNWIND_REGS_H
#define SMOLDER_UNWIND_REGS_H
#include <stddef.h>
#include <stdint.h>

/* x86-64 DWARF register numbers (System V psABI): 0..15 GPRs, 16 = return address. */
#define UNWIND_NREGS 17
#define UNWIND_REG_BP 6
#define UNWIND_REG_SP 7
#define UNWIND_REG_IP 16

/* A value type: copy freely. Bit r of `valid` says val[r] is known. */
struct unwind_regs {
	uint64_t val[UNWIND_NREGS];
	uint32_t valid;
};

/* The sample_regs_user mask to ask the kernel for: every register the
 * unwinder can use (GPRs, sp, ip). */
uint64_t unwind__perf_regs_mask(void);

/* Fills *out from a PERF_SAMPLE_REGS_USER payload: `vals` holds one value per
 * bit set in `mask`, in increasing bit order, n of them. Registers the mask
 * does not carry are left invalid. Returns 0, or -EINVAL when n does not
 * match the mask's population count (*out untouched). */
int unwind_regs__from_perf(struct unwind_regs *out, uint64_t mask, const uint64_t *vals, size_t n);

#endif
