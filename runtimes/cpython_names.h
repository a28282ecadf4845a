/* The code objects a CPython reader has read: validated at every use and
 * named.
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

/* Names frame f (its code object f->code) running the instruction at
 * instr (as the layout's frames say it), with its line when lines are
 * asked for and known, and fills in where its code lies (f->code_end,
 * f->bc_start, f->bc_end); *shim: the code is one of CPython's entry
 * shims, which run no code of the program (f->name 0). The object is
 * validated (an address freed and reused gives the new object's name) from
 * head, its first l.code_size bytes, or when head is NULL from a read of
 * them. Returns 0, -EPROTO when f->code holds no code object. */
struct cpython_frame;
int cpython_names__name(struct cpython *c, struct cpython_frame *f, const uint8_t *head,
			uint64_t instr, bool *shim);

/* The names held, through r (common/strtab_remap.h). 0 or -ENOMEM. */
int cpython_names__remap(struct cpython *c, struct strtab_remap *r);

#endif
