/* The line an interpreted or baseline JavaScript frame runs, for
 * `--lines`.
 *
 * Ignition's frame holds the BytecodeArray it runs and the offset of its
 * bytecode (as a small integer, from the array's tagged address: what
 * the interpreter keeps in its offset register), in the slots the
 * postmortem metadata names (off_fp_bytecode_array, _offset). The array's
 * source position table maps the offset to a script offset
 * (runtimes/v8_positions.h), and the script's line ends to a line
 * (runtimes/v8_script.h). Sparkplug's baseline frames hold the array too,
 * but their offset slot holds the feedback vector: their pc is mapped to
 * a bytecode offset as V8 does it (BytecodeOffsetIterator), by walking
 * the code's table of pc deltas -- one per bytecode, in order -- along
 * the array's bytecodes, whose sizes the binary's own table says
 * (struct v8_layout's bytecode_sizes).
 *
 * The slot is what the interpreter saved when its bytecode last called
 * out (a call, a stack check, a slow path): a frame that is calling is
 * placed at its call; the innermost frame's, interrupted in a bytecode
 * handler that saved nothing since, at the last such bytecode, which in
 * a loop is the loop's own (the innermost frame's registers say better,
 * runtimes/v8.c).
 *
 * The array's header (a baseline frame's: its code's) is the caller's
 * read of the sample; tables are read once and kept by their address, a
 * baseline array's bytecodes on a miss, and per (array, offset) or
 * (code, pc offset) the frame id is kept with the words that identify
 * them (tables' addresses, the array's or code's size, the function's
 * words), so a sample costs one lookup. A baseline array is taken only
 * when its code points to it.
 * Bounded: tables of V8_LINES_MAX_TABLE bytes, V8_LINES_MAX_BYTES of
 * them and V8_LINES_MAX_ENTRIES ids in all; past either, and every
 * V8_NAMES_LIFETIME_NS, the cache starts over. Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_V8_LINES_H
#define SMOLDER_RUNTIMES_V8_LINES_H
#include <stddef.h>
#include <stdint.h>

#include "runtimes/v8_heap.h"
#include "runtimes/v8_inline.h"
#include "runtimes/v8_names.h"

#define V8_LINES_MAX_TABLE (256u * 1024)
#define V8_LINES_MAX_BYTES (8u << 20)
#define V8_LINES_MAX_ENTRIES 65536
/* A BytecodeArray is under 2^28 bytes (V8's kMaxLength is smaller). */
#define V8_LINES_MAX_BYTECODE (1u << 28)

struct v8_lines;
struct strtab_remap;

/* NULL on ENOMEM. heap and names are borrowed. */
struct v8_lines *v8_lines__new(struct v8_heap *heap, struct v8_names *names);
void v8_lines__delete(struct v8_lines *ls);
void v8_lines__forget(struct v8_lines *ls);

/* The header bytes of a BytecodeArray to read for v8_lines__frame (its
 * length and table), 0 when the layout places no bytecode. At most
 * V8_LINES_HEADER. */
#define V8_LINES_HEADER 64
size_t v8_lines__header_bytes(const struct v8_layout *l);

/* The bytecode offset an interpreted frame's offset slot word says, for a
 * BytecodeArray of length bytes: 0 with *offset, -ENOENT when the word is
 * no offset into it (a baseline frame's feedback vector, damage). */
int v8_lines__offset(const struct v8_layout *l, uint64_t word, int64_t length, int64_t *offset);

/* fn's frame id at the line the interpreted frame runs: the frame's
 * BytecodeArray (tagged) bytecode, whose header the caller read (hdr,
 * v8_lines__header_bytes), and its offset slot's word. 0 with *id;
 * -ENOENT when the frame cannot be placed (no BytecodeArray, an offset
 * outside it, no positions collected: V8 collects them lazily), and the
 * caller names it at its definition; or a read's or ENOMEM's -errno. */
int v8_lines__frame(struct v8_lines *ls, uint64_t bytecode, const uint8_t *hdr, uint64_t offset_word,
		    const struct v8_inline_function *fn, uint64_t now_ns, uint32_t *id);

/* fn's frame id at the line the baseline frame runs: its Code (tagged),
 * whose header the caller read (code_hdr, v8_inline__header_bytes), at pc
 * (exact: the sampled pc, else a return address), and the BytecodeArray
 * its frame holds, which must be the one the code was compiled from. 0
 * with *id; -ENOENT when the frame cannot be placed (not baseline code,
 * a pc outside it, another array, tables that do not agree), and the
 * caller names it at its definition; or a read's or ENOMEM's -errno.
 * Per (code, pc) the id is kept. */
int v8_lines__baseline(struct v8_lines *ls, uint64_t code, const uint8_t *code_hdr, uint64_t pc, int exact,
		       uint64_t bytecode, const struct v8_inline_function *fn, uint64_t now_ns, uint32_t *id);

/* The bytecode offset baseline code runs at pc offset pc_offset (one past
 * the instruction's start: V8 maps a return address as it is), from its
 * offset table (unsigned base-128 pc deltas, the first the prologue's)
 * and its array's bytecodes, with the sizes of l. Returns 0 with
 * *offset (-1: the prologue), or -ENOENT when the tables end first or
 * do not agree. */
int v8_lines__baseline_offset(const struct v8_layout *l, const uint8_t *table, size_t table_len,
			      const uint8_t *bytecodes, size_t nbytes, uint64_t pc_offset, int64_t *offset);

int v8_lines__remap(struct v8_lines *ls, struct strtab_remap *r);

struct v8_lines_stats {
	uint64_t cached, placed; /* lookups served from the cache, and placed anew */
	uint64_t tables;         /* tables read */
};
void v8_lines__stats(const struct v8_lines *ls, struct v8_lines_stats *out);

#endif
