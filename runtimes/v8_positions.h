/* V8's source position tables: what code offset (a bytecode's, or an
 * instruction's in compiled code) runs what position of the source.
 *
 * A table is a ByteArray of entries, each two zigzag base-128 integers
 * (low groups first, the high bit of a byte saying more follow): the code
 * offset's delta from the previous entry's, negated minus one when the
 * position is an expression rather than a statement, and the position's
 * delta (src/codegen/source-position-table.cc, unchanged from V8 5.x to
 * 12.x). Both run from (-1, 0): bytecode offset -1 is the function's
 * entry. A position is a SourcePosition (src/codegen/source-position.h):
 * bit 0 says external (wasm's line and file), bits 1..30 the script
 * offset + 1 (0: none), bits 31..46 the inlining id + 1 (0: not inlined).
 *
 * The table is the target's memory: every entry is checked against the
 * table's end, an integer has at most ten groups, and a walk takes at most
 * one step per two bytes. Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_V8_POSITIONS_H
#define SMOLDER_RUNTIMES_V8_POSITIONS_H
#include <stddef.h>
#include <stdint.h>

/* One unsigned base-128 integer at tab[*pos] (7 bits a byte, low first,
 * the high bit saying more follow), its groups starting at most at bit
 * max_shift; *pos moves past it. 0, or -EPROTO (cut short, too long). */
int v8_positions__vlq(const uint8_t *tab, size_t len, size_t *pos, unsigned max_shift, uint64_t *v);

/* Decodes the entry at *pos of tab[0..len) into *code_offset and
 * *position, which hold the running sums of the deltas (start them at -1
 * and 0). Returns 0, -ENODATA at the table's end, or -EPROTO when the
 * entry is cut or its integers overflow. */
int v8_positions__next(const uint8_t *tab, size_t len, size_t *pos, int64_t *code_offset,
		       int64_t *position);

/* The position in force at code offset `offset`: the last entry's whose
 * code offset is at or before it (V8's AbstractCode::SourcePosition).
 * Returns 0 with *position, -ENOENT when no entry is, or -EPROTO for a
 * damaged table (entries before the damage are not trusted either). */
int v8_positions__at(const uint8_t *tab, size_t len, int64_t offset, int64_t *position);

/* A position's script offset (characters from the script's start), or -1
 * when it has none (unknown, or external). */
int64_t v8_positions__script_offset(int64_t position);

/* A position's inlining id + 1; 0 when it is in the outermost function. */
unsigned v8_positions__inlining(int64_t position);

#endif
