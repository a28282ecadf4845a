/* The inlined-call tree of one DWARF compilation unit, flattened once into a
 * compact array, so that the frames at any pc of the unit are a short walk
 * instead of a re-read of the unit's DIEs.
 *
 * Why: dwarf_getscopes, asked per pc, walks the unit from its root every
 * time (every sibling at every level is decoded to compare its ranges);
 * for the first pcs seen in a big unit that was ~45% of the agent's CPU.
 * The tree costs one walk of the unit and about 40 bytes per subprogram or
 * inlined subroutine, and is built only for units that samples land in.
 *
 * Names are kept as pointers into the DWARF string data (.debug_str, or the
 * DIE itself), which libdw holds for as long as the Dwarf is open: a tree
 * must not outlive the Dwfl it was built from. Not thread-safe. */
#ifndef SMOLDER_SYMBOLIZE_INLINES_H
#define SMOLDER_SYMBOLIZE_INLINES_H
#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

struct inlines;

/* One frame at a pc. */
struct inline_frame {
	const char *name;  /* raw: a linkage (mangled) name or DW_AT_name; NULL if none */
	int linkage;       /* name is a linkage name (to demangle) */
	int subprogram;    /* the enclosing function (outermost frame) */
};

/* Builds the tree of the unit cudie. Hostile DWARF is bounded (depth,
 * nodes, ranges per DIE) and a broken subtree is skipped, not fatal.
 * Returns 0 or -ENOMEM. */
int inlines__build(Dwarf_Die *cudie, struct inlines **out);
void inlines__delete(struct inlines *t);
/* Heap bytes held (for the caller's memory budget). */
size_t inlines__bytes(const struct inlines *t);
size_t inlines__count(const struct inlines *t);

/* Frames containing pc (an address as the unit's DIEs state them),
 * innermost first: the inlined subroutines, then the innermost enclosing
 * subprogram, which ends the list. Writes at most max, returns how many
 * (0: no function of this unit contains pc). Never allocates. When there
 * are more than max inlined frames the innermost ones are dropped, the
 * subprogram always kept. */
size_t inlines__at(const struct inlines *t, uint64_t pc, struct inline_frame *out, size_t max);

#endif
