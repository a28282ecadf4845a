/* The inlined-call tree of one DWARF compilation unit, flattened once into
 * one position-independent block of bytes, so that the frames at any pc of
 * the unit are a short walk instead of a re-read of the unit's DIEs, and so
 * that the block can be written to a file and mapped back as it is
 * (symbolize/inlineindex.h).
 *
 * Why: dwarf_getscopes, asked per pc, walks the unit from its root every
 * time (every sibling at every level is decoded to compare its ranges).
 * The block costs one walk of the unit and about 20 bytes per subprogram or
 * inlined subroutine plus its names once each, and is built only for units
 * that samples land in.
 *
 * Layout: a header, then arrays of 32-bit fields (addresses relative to the
 * unit's lowest one), then the names, NUL-terminated. Native byte order:
 * a block is only read on the host that wrote it. */
#ifndef SMOLDER_SYMBOLIZE_INLINES_H
#define SMOLDER_SYMBOLIZE_INLINES_H
#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

struct inlines;

/* One frame at a pc. */
struct inline_frame {
	const char *name;  /* raw: a linkage (mangled) name or DW_AT_name; "" if none */
	int linkage;       /* name is a linkage name (to demangle) */
	int subprogram;    /* the enclosing function (outermost frame) */
	/* an inlined frame's call site, in the frame outside it: the file as
	 * the line table names it (NULL: unknown) and the line (0: unknown);
	 * known only when lines were asked (inlines__set_lines) */
	const char *call_file;
	uint32_t call_line;
};

/* Frames are to carry lines: the units' line tables are then read (and
 * kept in debug copies, inlines__unused_section) and inlined calls keep
 * their call sites. Set once at start, before any unit is read; a tree
 * built without call sites is never used with lines (inlineindex keys its
 * cache by it). */
void inlines__set_lines(int on);
int inlines__lines(void);

/* Builds the block of the unit cudie; every address of the unit plus shift
 * is what lookups are asked (shift turns DWARF addresses into the ELF
 * file's virtual addresses). Hostile DWARF is bounded (depth, nodes, ranges
 * per DIE) and a broken subtree is skipped, not fatal. *out is one malloc'd
 * block of inlines__bytes() bytes, 8-byte aligned, freed with free().
 * Returns 0 or -ENOMEM. */
int inlines__build(Dwarf_Die *cudie, int64_t shift, struct inlines **out);

/* Whether len bytes at p (8-byte aligned) are a well-formed block: every
 * count, index and name offset in bounds, every subtree nested in its
 * parent, so that inlines__at on it reads nothing outside it and ends.
 * For blocks read back from a file, which may be damaged. */
int inlines__check(const void *p, size_t len);

/* Total bytes of the block, and its number of functions and inlined calls. */
size_t inlines__bytes(const struct inlines *t);
size_t inlines__count(const struct inlines *t);

/* Whether a DWARF section (named as in the file: .debug_*, or GNU's
 * compressed .zdebug_*) is one that building and naming trees never reads:
 * locations, line tables, macros, lookup tables, CFI. libdw reads every
 * DWARF section of a file it opens, whole: these are hidden from it
 * (symbolize/symindex.c) or left out of copies (symbolize/debugcache.c).
 * With lines asked, the line tables are read. */
int inlines__unused_section(const char *name);

/* Frames containing pc, innermost first: the inlined subroutines, then the
 * innermost enclosing subprogram, which ends the list. Writes at most max,
 * returns how many (0: no function of this unit contains pc). Never
 * allocates; names point into the block. When there are more than max
 * inlined frames the innermost ones are dropped, the subprogram always
 * kept. */
size_t inlines__at(const struct inlines *t, uint64_t pc, struct inline_frame *out, size_t max);

#endif
