/* The code objects a CPython reader has read: found (from a pointer at or
 * into one), validated at every use, named, and the address ranges that
 * mean each (the object and its bytecode).
 *
 * struct cpython_names is the reader's (c->codes: created and deleted by
 * cpython.c) and only cpython_names.c knows what it holds. Names are ids
 * in the reader's strtab (c->names), interned under its ledger's budget.
 * Not thread-safe, as the reader. */
#ifndef SMOLDER_RUNTIMES_CPYTHON_NAMES_H
#define SMOLDER_RUNTIMES_CPYTHON_NAMES_H
#include <stdbool.h>
#include <stdint.h>

struct cpython;
struct cpython_names;
struct strtab_remap;

/* lines: the reader names frames with their line. NULL when out of
 * memory. */
struct cpython_names *cpython_names__new(bool lines);
void cpython_names__delete(struct cpython_names *n);

/* Names the frame running code object addr at instr (as the layout's
 * frames say it), with its line when lines are asked for and known. The
 * object is validated (an address freed and reused gives the new object's
 * name) from head, its first l.code_size bytes, or when head is NULL from
 * a read of them. Returns 0, -EPROTO when addr holds no code object. */
int cpython_names__name(struct cpython *c, uint64_t addr, const uint8_t *head, uint64_t instr,
			uint32_t *name);

/* Looks for a code object the reader does not know yet at word (2.7-3.10:
 * the object itself) or around it (3.11+: the one whose bytecode holds it,
 * found by its header in the page before). Words that lead to none are
 * remembered. Returns whether a probe was spent: false for a word that
 * cannot be a pointer, or that is known to lead to a code or to none. A
 * code found is searched for by cpython_names__at once cpython_names__sort
 * is called. */
bool cpython_names__probe(struct cpython *c, uint64_t word);

/* Rebuilds the ranges searched when codes were added. */
void cpython_names__sort(struct cpython *c);

/* The code object whose range holds word, 0 when none. */
uint64_t cpython_names__at(const struct cpython *c, uint64_t word);

/* Where a known code object lies: its head [addr, head_end) and its
 * bytecode [bc_start, bc_end). */
struct cpython_span {
	uint64_t addr, head_end;
	uint64_t bc_start, bc_end;
};
/* Whether code is known, with where it lies. */
bool cpython_names__span(const struct cpython *c, uint64_t code, struct cpython_span *out);

/* The name of known code last given (with the line last read for it when
 * lines are on), 0 when it is not known. */
uint32_t cpython_names__recent(const struct cpython *c, uint64_t code);

/* The names held, through r (common/strtab_remap.h). 0 or -ENOMEM. */
int cpython_names__remap(struct cpython *c, struct strtab_remap *r);

#endif
