/* x86-64 register table: perf's PERF_SAMPLE_REGS_USER indices to DWARF numbers. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "unwind/regs.h"

/* perf's x86-64 indices (<asm/perf_regs.h>); spelled out so the table does
 * not depend on the build host's kernel headers. */
enum {
	PERF_X86_AX = 0, PERF_X86_BX, PERF_X86_CX, PERF_X86_DX, PERF_X86_SI,
	PERF_X86_DI, PERF_X86_BP, PERF_X86_SP, PERF_X86_IP, PERF_X86_FLAGS,
	PERF_X86_CS, PERF_X86_SS, PERF_X86_DS, PERF_X86_ES, PERF_X86_FS,
	PERF_X86_GS, PERF_X86_R8, PERF_X86_R9, PERF_X86_R10, PERF_X86_R11,
	PERF_X86_R12, PERF_X86_R13, PERF_X86_R14, PERF_X86_R15,
	PERF_X86_NREGS
};

#define NODWARF (-1)

/* The one place where the two numberings meet; flags and segment registers
 * have no DWARF column the unwinder uses. */
static const int8_t perf_to_dwarf[PERF_X86_NREGS] = {
	[PERF_X86_AX] = 0,  [PERF_X86_DX] = 1,  [PERF_X86_CX] = 2,
	[PERF_X86_BX] = 3,  [PERF_X86_SI] = 4,  [PERF_X86_DI] = 5,
	[PERF_X86_BP] = 6,  [PERF_X86_SP] = 7,
	[PERF_X86_R8] = 8,  [PERF_X86_R9] = 9,  [PERF_X86_R10] = 10,
	[PERF_X86_R11] = 11, [PERF_X86_R12] = 12, [PERF_X86_R13] = 13,
	[PERF_X86_R14] = 14, [PERF_X86_R15] = 15,
	[PERF_X86_IP] = UNWIND_REG_IP,
	[PERF_X86_FLAGS] = NODWARF, [PERF_X86_CS] = NODWARF, [PERF_X86_SS] = NODWARF,
	[PERF_X86_DS] = NODWARF, [PERF_X86_ES] = NODWARF, [PERF_X86_FS] = NODWARF,
	[PERF_X86_GS] = NODWARF,
};

uint64_t unwind__perf_regs_mask(void)
{
	uint64_t mask = 0;
	int i;

	for (i = 0; i < PERF_X86_NREGS; i++)
		if (perf_to_dwarf[i] != NODWARF)
			mask |= (uint64_t)1 << i;
	return mask;
}

int unwind_regs__from_perf(struct unwind_regs *out, uint64_t mask, const uint64_t *vals, size_t n)
{
	struct unwind_regs r;
	size_t k = 0;
	int bit;

	if ((size_t)__builtin_popcountll(mask) != n || (n && !vals))
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	for (bit = 0; bit < 64; bit++) {
		if (!(mask & ((uint64_t)1 << bit)))
			continue;
		if (bit < PERF_X86_NREGS && perf_to_dwarf[bit] != NODWARF) {
			int d = perf_to_dwarf[bit];

			r.val[d] = vals[k];
			r.valid |= (uint32_t)1 << d;
		}
		k++;
	}
	*out = r;
	return 0;
}
