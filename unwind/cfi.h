/* Call-frame information of one binary, shared by every process mapping it.
 *
 * Loaded once per file (.eh_frame via dwarf_getcfi_elf, .debug_frame via
 * dwarf_getcfi when the file or its debug file has one). The rule row for a
 * pc is decoded once from libdw and cached (bounded), because hot loops hit
 * the same few pcs. Not thread-safe. */
#ifndef SMOLDER_UNWIND_CFI_H
#define SMOLDER_UNWIND_CFI_H
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

struct cfi;

/* Builds the CFI of `elf`. `elf` is borrowed and must outlive the cfi.
 * Returns 0 with *out set, -ENOENT when the file has no CFI at all
 * (then the caller uses frame pointers), -ENOMEM. */
int cfi__new(Elf *elf, struct cfi **out);
void cfi__delete(struct cfi *c);

/* Start of the function (FDE initial location, ELF vaddr) covering vaddr.
 * 0 with *start set, -ENOENT when no FDE covers it. Uses the rule cache. */
int cfi__func_start(struct cfi *c, uint64_t vaddr, uint64_t *start);

/* Cache statistics for the dump's stats. */
struct cfi_stats {
	uint64_t lookups, hits, entries, evictions;
};
void cfi__stats(const struct cfi *c, struct cfi_stats *out);

#endif
