/* One node process's V8 seen from outside: a sample's JavaScript frames,
 * read from the frames its own copied stack holds.
 *
 * V8 keeps a frame pointer in all the code it runs (its builtins, the
 * bytecode interpreter, Sparkplug's baseline code, Maglev's and
 * TurboFan's optimized code), and a frame's slots below its frame pointer
 * say what it is: the word at fp_marker is a frame type for V8's own
 * frames (entry, exit, stubs), or the function's context for a
 * JavaScript frame, whose JSFunction is at fp_function. The unwinder
 * steps over V8's code by frame pointer, keeping each frame's rbp (the
 * reader asks it to, runtimes/runtime.h); the reader reads those slots
 * from the sample's copy of the stack -- what the thread ran at the
 * sample, not what it runs when read -- and names each JavaScript frame
 * from its JSFunction's SharedFunctionInfo (runtimes/v8_names.h), with
 * the functions optimized code inlined at the frame's pc
 * (runtimes/v8_inline.h). A bytecode handler or a builtin without a frame
 * of its own runs in its caller's frame: that frame is the JavaScript
 * function it runs for.
 *
 * What is read from the process's heap (the JSFunction, its
 * SharedFunctionInfo, names) is read in two batched calls per sample once
 * names are cached, and validated (types from the objects' maps, the
 * words that identify a cached function). Nothing is written to the
 * target, it is never stopped. Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_V8_H
#define SMOLDER_RUNTIMES_V8_H
#include <stdbool.h>
#include <stdint.h>

#include "runtimes/memsource.h"
#include "runtimes/runtime.h"
#include "runtimes/v8_layout.h"

struct v8;
struct strtab;
struct strtab_remap;

/* JavaScript frames named per sample at most (the rest keep their
 * native names). */
#define V8_MAX_FRAMES 128

/* An instance reading through mem (copied), with the layout of its
 * binary; with lines, frames are named at the line they run where it is
 * known (runtimes/v8_lines.h, v8_inline.h), else at their function's
 * definition. 0 with *out, or -ENOMEM. */
int v8__open(const struct memsource *mem, const struct v8_layout *l, bool lines, struct strtab *names,
	     struct v8 **out);
void v8__delete(struct v8 *v);

/* The sample's JavaScript frames as splices on its frames tagged s->tag
 * (runtime.h's read_stack). */
int v8__read_stack(struct v8 *v, const struct runtime_sample *s, struct runtime_stack *out);

int v8__remap_names(struct v8 *v, struct strtab_remap *r);

struct v8_stats {
	uint64_t reads;      /* of the process's memory */
	uint64_t frames;     /* JavaScript frames named */
	uint64_t inlined;    /* ... of which inlined */
	uint64_t failures;   /* frames that looked like JavaScript but could not be named */
	uint64_t lines;      /* with lines: functions named at the line they run */
};
void v8__stats(const struct v8 *v, struct v8_stats *out);

/* For tests: the frame (or the typed frame's kind) a frame pointer and
 * pc name, with the sample's copy. */
struct memsource *v8__mem(struct v8 *v);

#endif
