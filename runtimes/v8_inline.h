/* Functions optimized code inlined, as V8 records them: a Code object of
 * Maglev or TurboFan keeps a source position table (its pc offsets ->
 * source positions, each with the id of the inlining it is in) and
 * deoptimization data (per inlining id: the call site, itself maybe in an
 * inlining, and which literal holds the inlined SharedFunctionInfo).
 *
 * A frame's inlined functions are found from its JSFunction's current
 * Code: only when the frame's pc lies in that code's instructions (a
 * function deoptimized or replaced on stack since keeps its own name
 * alone). A Code's tables are read once and kept with the words that
 * identify it (instruction start, size, flags, tables); the caller passes
 * the header it read for the sample, and a different object at the
 * address is read anew. Per (Code, pc) the frame ids are kept. Bounded:
 * V8_INLINE_MAX_CODES objects, tables of V8_INLINE_MAX_TABLE bytes, ids
 * in all V8_INLINE_MAX_IDS; past them the cache starts over.
 * Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_V8_INLINE_H
#define SMOLDER_RUNTIMES_V8_INLINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtimes/v8_heap.h"
#include "runtimes/v8_names.h"

#define V8_INLINE_MAX_CODES 4096
#define V8_INLINE_MAX_TABLE (256u * 1024)
#define V8_INLINE_MAX_IDS (1u << 20)
/* Inlining depth followed at one pc (V8 inlines a few levels). */
#define V8_INLINE_MAX_DEPTH 16
/* Bytes of a Code object's header the caller reads for v8_inline__frames. */
#define V8_INLINE_HEADER 128

struct v8_inline;
struct strtab_remap;

/* lines: frames are named at the lines they run (v8_inline__frames). */
struct v8_inline *v8_inline__new(struct v8_heap *heap, struct v8_names *names, bool lines);
void v8_inline__delete(struct v8_inline *in);
void v8_inline__forget(struct v8_inline *in);

/* The header bytes of a Code object to read (at most V8_INLINE_HEADER). */
size_t v8_inline__header_bytes(const struct v8_layout *l);

/* What the header hdr of the Code tagged (read by the caller) says of its
 * instructions: [*start, *start + *size) and its kind (V8's CodeKind).
 * Returns 0, or -EPROTO when the layout places no code. */
int v8_inline__code_span(const struct v8_layout *l, uint64_t code, const uint8_t *hdr, uint64_t *start,
			 uint32_t *size, unsigned *kind);

/* The function a frame runs, as its caller read it (its
 * SharedFunctionInfo, tagged, and the words that identify it). */
struct v8_inline_function {
	uint64_t sfi, name_word, script_word;
};

/* The frames inlined at pc (exact: the sampled pc, else a return address)
 * of the Code tagged whose header the caller read (hdr, header_bytes),
 * innermost first, as "_[i]" frame ids, into ids[0..max). With lines, each
 * is named at the line it runs there (the innermost's position, each
 * caller's the call it inlined), from the code's source position table,
 * and *fn_id (when fn_id) is fn's own frame at its line; 0 when the table
 * places it nowhere (the caller names it at its definition). Returns how
 * many (0: none, or the code is not optimized), -ERANGE when pc is not
 * in the code, or a read's or ENOMEM's -errno. */
int v8_inline__frames(struct v8_inline *in, uint64_t code, const uint8_t *hdr, uint64_t pc,
		      int exact, uint64_t now_ns, const struct v8_inline_function *fn, uint32_t *fn_id,
		      uint32_t *ids, size_t max);

/* The Code whose instructions hold pc, for code no function points to
 * (on-stack replacement: a loop's optimized code entered mid-run): found
 * by looking back from pc for the object that holds instructions
 * (64-aligned, after their object's header) and whose Code says it holds
 * pc. Ranges found are kept (V8_INLINE_MAX_RANGES), pages where none was
 * found remembered until v8_inline__forget; a look is bounded by
 * V8_INLINE_MAX_SCAN bytes and asks the ledger first. Returns 0 with
 * *code (tagged), -ENOENT, or a read's -errno. */
#define V8_INLINE_MAX_RANGES 1024
#define V8_INLINE_MAX_SCAN (256u * 1024)
int v8_inline__code_at(struct v8_inline *in, uint64_t pc, uint64_t now_ns, uint64_t *code);

int v8_inline__remap(struct v8_inline *in, struct strtab_remap *r);

#endif
