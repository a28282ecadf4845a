/* Go's pc-line table found in a binary (runtimes/gopclntab.h), stripped
 * or not: the .gopclntab section where the linker names it; else the
 * bytes between runtime.pclntab and runtime.epclntab in its symbol table;
 * else the table's magic and a header that holds together, looked for in
 * the binary's read-only data (an externally linked or PIE binary keeps it
 * inside .data.rel.ro). Go 1.18 on, inline trees are offsets from
 * moduledata.gofunc: the runtime's firstmoduledata is found as the word in
 * the binary's data that points at the table, followed by the table's
 * funcnametab and, at moduledata.text, the table's textStart, the same
 * way in stripped and unstripped builds so both name alike.
 *
 * The table points into the Elf's section data: it must not outlive elf.
 * Thread-safe for distinct Elf handles. */
#ifndef SMOLDER_RUNTIMES_GOPCLNTAB_ELF_H
#define SMOLDER_RUNTIMES_GOPCLNTAB_ELF_H
#include <libelf.h>
#include <stdint.h>

#include "runtimes/gobuildinfo.h"
#include "runtimes/gopclntab.h"

/* What was found besides the table. */
struct gopclntab_elf_info {
	uint64_t vaddr;           /* the table's */
	uint64_t gofunc;          /* moduledata.gofunc, 0 unknown */
	uint64_t moduledata;      /* runtime.firstmoduledata, 0 not found */
	struct goversion version; /* 0.0 when the binary does not say */
};

/* What gopclntab_elf__open reads of elf into memory (its allocated data
 * sections, whole: a file read, not mapped, is held), for a budget to be
 * charged first; 0 when elf has no Go section (.gopclntab, .go.buildinfo),
 * which is then not worth searching. */
uint64_t gopclntab_elf__bytes(Elf *elf);

/* 0 with *out (and *info when not NULL), -ENOENT when elf has no table
 * this can read, -ENOMEM. */
int gopclntab_elf__open(Elf *elf, struct gopclntab **out, struct gopclntab_elf_info *info);

/* moduledata.gofunc's offset in a table's version (src/runtime/symtab.go:
 * pcHeader, six slices, findfunctab, minpc, maxpc, then text ...
 * enoptrbss, [covctrs, ecovctrs from 1.20], end, gcdata, gcbss, types,
 * etypes, rodata, gofunc), and moduledata.text's. */
#define GOMODULEDATA_TEXT 176
#define GOMODULEDATA_GOFUNC_118 304
#define GOMODULEDATA_GOFUNC_120 320

#endif
