/* Call-frame information of one binary, shared by every process mapping it.
 *
 * Loaded once per file (.eh_frame via dwarf_getcfi_elf, .debug_frame via
 * dwarf_getcfi when the file has one), read into memory when loaded. The rule row for a pc is decoded once
 * from libdw and cached (bounded), because hot loops hit the same few pcs.
 * Not thread-safe: lookups mutate the cache. */
#ifndef SMOLDER_UNWIND_CFI_H
#define SMOLDER_UNWIND_CFI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>
#include <elfutils/libdw.h>

#include "unwind/regs.h"

struct cfi;

/* Bounds of the per-binary cache: decoded rows, pcs that point at a row (or
 * at nothing: negative entries), and copied DWARF ops. Reaching any bound
 * clears the whole cache (counted in cfi_stats.evictions). */
#define CFI_CACHE_ROWS 16384
#define CFI_CACHE_PCS 32768
#define CFI_CACHE_OPS 16384

/* Builds the CFI of `elf`, which must be read, not mapped (unwind/elffile.h:
 * a file cut short under a mapping is a SIGBUS). `elf` is borrowed and must
 * outlive the cfi; its DWARF sections other than .debug_frame read as empty
 * from then on (libdw would read them all). .eh_frame is used only from a
 * section: through PT_GNU_EH_FRAME alone libdw would read the whole file.
 * Returns 0 with *out set, -ENOENT when the file has no CFI at all, or none
 * it can read (then the caller uses frame pointers), -ENOMEM. */
int cfi__new(Elf *elf, struct cfi **out);
/* The bytes cfi__new reads of `elf` into memory (its .eh_frame and
 * .eh_frame_hdr, its .debug_frame inflated), from its section headers: what
 * a budget is charged before cfi__new. */
uint64_t cfi__bytes(Elf *elf);
void cfi__delete(struct cfi *c);

/* How the caller's value of one register is recovered (DWARF 6.4.1). */
enum cfi_reg_kind {
	CFI_REG_UNDEFINED = 0, /* not recoverable; for the RA: outermost frame */
	CFI_REG_SAME,          /* unchanged from this frame */
	CFI_REG_OFFSET,        /* saved at CFA + value */
	CFI_REG_VAL_OFFSET,    /* is CFA + value */
	CFI_REG_REGISTER,      /* is this frame's register `reg` */
	CFI_REG_EXPR,          /* saved at the address the expression yields */
	CFI_REG_VAL_EXPR,      /* is the value the expression yields */
	CFI_REG_UNSUPPORTED    /* libdw failed to describe it */
};

struct cfi_reg_rule {
	uint8_t kind;   /* enum cfi_reg_kind */
	uint8_t reg;    /* CFI_REG_REGISTER */
	uint16_t nops;  /* expressions: op count at cfi__ops(value) */
	int32_t value;  /* offsets; expressions: index for cfi__ops */
};

enum cfi_cfa_kind {
	CFI_CFA_REG_OFFSET = 0, /* CFA = reg + offset */
	CFI_CFA_EXPR            /* CFA = expression (e.g. the PLT rule) */
};

/* One decoded row of the CFI table: the rules for pcs in [start, end). */
struct cfi_row {
	uint64_t start, end;   /* ELF vaddrs */
	uint64_t func_start;   /* FDE initial location, 0 when unknown */
	uint8_t cfa_kind;      /* enum cfi_cfa_kind */
	uint8_t cfa_reg;
	uint16_t cfa_nops;
	int32_t cfa_value;     /* offset, or index for cfi__ops */
	uint8_t ra_reg;        /* column of the return address (16 on x86-64) */
	bool signal;           /* signal trampoline: caller pc is exact */
	struct cfi_reg_rule regs[UNWIND_NREGS];
};

/* The row covering vaddr. 0 with *row set: the pointer stays valid until the
 * next cfi__lookup/cfi__func_start on c (the cache may be cleared). -ENOENT
 * when no FDE covers vaddr, -EINVAL when the FDE's row cannot be used (no
 * CFA rule, register out of range), -ENOMEM. Misses are cached too. */
int cfi__lookup(struct cfi *c, uint64_t vaddr, const struct cfi_row **row);

/* The ops of an expression rule of a row returned by cfi__lookup (same
 * lifetime as the row). */
const Dwarf_Op *cfi__ops(const struct cfi *c, int32_t index);

/* Start of the function (FDE initial location, ELF vaddr) covering vaddr.
 * 0 with *start set, -ENOENT when no FDE covers it or its start is unknown
 * (only .eh_frame FDEs, via .eh_frame_hdr, have a known start). Uses the
 * rule cache. */
int cfi__func_start(struct cfi *c, uint64_t vaddr, uint64_t *start);

/* Cache statistics for the dump's stats. entries = pcs currently cached. */
struct cfi_stats {
	uint64_t lookups, hits, entries, evictions;
};
void cfi__stats(const struct cfi *c, struct cfi_stats *out);

#endif
