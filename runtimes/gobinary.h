/* What the Go reader knows of one Go binary, read once from the file and
 * shared by every process that maps it: its pc-line table (names, SP
 * deltas, inline trees: runtimes/gopclntab.h), its version and the layout
 * of its runtime's g and m (runtimes/golayout.h), and where its stacks end
 * (runtimes/gostack.h). A pc of the binary is described to the unwinder
 * from these alone: a root where a Go stack ends; where the binary has no
 * CFI (built with -ldflags=-w, or stripped with -s -w), a frame of the
 * size the table gives at that pc (UNWIND_CODE_SIZED), as Go's own
 * traceback walks it; and at a stack switch (systemstack, mcall,
 * morestack) its registers are kept, for the reader to join the g0 stack
 * to the goroutine's. Not thread-safe: the sampling thread owns it (it
 * caches the SP deltas of the pcs it was asked about). */
#ifndef SMOLDER_RUNTIMES_GOBINARY_H
#define SMOLDER_RUNTIMES_GOBINARY_H
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtimes/golayout.h"
#include "runtimes/gopclntab_elf.h"
#include "unwind/unwind.h"

/* Functions of Go's runtime where stacks end: a handful. */
#define GOBINARY_MAX_ROOTS 16

struct gobinary_spcache;

struct gobinary {
	struct gopclntab *table;        /* NULL: none readable (roots from
	                                   the symbol table only) */
	struct gopclntab_elf_info info;
	struct golayout layout;
	bool joins;                     /* the layout is known: a g0 stack the
	                                   kernel's walk does not join can be
	                                   joined by a read (Go 1.17 on) */
	uint64_t text_lo, text_hi;      /* what the table covers */
	const uint8_t *code;            /* the bytes of the code holding
	                                   text_lo (the ELF's .text), NULL:
	                                   none (calls are not decoded) */
	uint64_t code_vaddr;
	size_t code_size;
	struct unwind_root roots[GOBINARY_MAX_ROOTS]; /* sorted by start */
	size_t nroots;
	struct gobinary_spcache *cache; /* SP deltas by pc */
};

/* Reads elf's facts. 0 with *out, -ENOMEM. */
int gobinary__new(Elf *elf, struct gobinary **out);
/* The facts of a table (owned by *out from then on, freed on failure)
 * of a binary of Go version v: what gobinary__new does once it found
 * them, and what the tests build on synthetic tables. 0, -ENOMEM. */
int gobinary__from_table(struct gopclntab *t, const struct goversion *v, struct gobinary **out);
void gobinary__delete(struct gobinary *g);

/* Fills the Go part of the module of the pc at vaddr (out->cfi says
 * whether the binary has CFI). */
void gobinary__describe(const struct gobinary *g, uint64_t vaddr, struct unwind_module *out);

/* The frame size of the pc at vaddr (the return address included): 0
 * with *bytes, -ENOENT where the table says nothing. */
int gobinary__frame_bytes(const struct gobinary *g, uint64_t vaddr, uint32_t *bytes);

/* Whether vaddr is in one of the roots where every stack ends
 * (runtime.goexit, mstart, rt0_go). */
bool gobinary__is_root(const struct gobinary *g, uint64_t vaddr);

/* Whether vaddr is in one of the stack switches. */
bool gobinary__is_switch(const struct gobinary *g, uint64_t vaddr);

/* The function a return address at vaddr returned from, when the call
 * before it is a direct one (call rel32, e8): 0 with its entry in
 * *callee, -ENOENT (an indirect call, or no function starts there). */
int gobinary__callee(const struct gobinary *g, uint64_t vaddr, uint64_t *callee);

/* The names of the frames at vaddr, innermost first: the calls inlined
 * there, then the function (the last). Returns how many (0: no Go
 * function there). */
size_t gobinary__names(const struct gobinary *g, uint64_t vaddr, const char **names, size_t max);

#endif
