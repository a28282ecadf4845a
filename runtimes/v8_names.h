/* Names of JavaScript functions, from their SharedFunctionInfo: the
 * frame "name (file.js:LINE)", where LINE is the line the function is
 * defined on (so a function's samples aggregate wherever it runs, and two
 * anonymous functions of one file stay apart) or, with --lines, the line
 * the frame runs where its caller knows it (v8_names__frame_at),
 * "name (native)" for V8's
 * builtin functions, and "(anonymous)" for a function without a name, as
 * V8's own stack traces say.
 *
 * A function's name is the SharedFunctionInfo's own when it holds a
 * string, else its ScopeInfo's: the function's name, or the name V8
 * inferred for an anonymous function, and the position the function
 * starts at. ScopeInfo has no postmortem metadata and its layout depends
 * on flags that changed between versions, so the reader takes the first
 * string past its context locals as the name and the first pair of
 * increasing small integers after it as (start, end) -- what every layout
 * from V8 9.4 to 12.4 keeps in that order -- and shows no line when none
 * is found.
 *
 * Names are kept by the SharedFunctionInfo's address with the words that
 * identify it (its name-or-scope-info and script); a lookup passes the
 * words read for the sample and a different object at the address is read
 * anew. The cache is emptied every V8_NAMES_LIFETIME_NS and past
 * V8_NAMES_MAX entries. Names are interned through the process's ledger.
 * Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_V8_NAMES_H
#define SMOLDER_RUNTIMES_V8_NAMES_H
#include <stdbool.h>
#include <stdint.h>

#include "runtimes/v8_heap.h"

struct strtab;
struct strtab_remap;
struct v8_names;

#define V8_NAMES_MAX 65536
#define V8_NAMES_LIFETIME_NS (60ull * 1000000000ull)
/* A ScopeInfo's slots looked at for the name and position. */
#define V8_NAMES_SCOPE_SLOTS 32

struct v8_names *v8_names__new(struct v8_heap *heap, struct strtab *names);
void v8_names__delete(struct v8_names *n);

/* Returned with an id made while the function's script's lines could not
 * be read (v8_scripts__describe's V8_SCRIPT_UNSETTLED): the id is right
 * for this sample, without a line; who keeps ids must not keep this one,
 * or a read that failed once would cost every frame it named its line
 * for as long as the id is kept. */
#define V8_NAMES_UNSETTLED 1

/* The frame id of the function whose SharedFunctionInfo sfi (tagged)
 * holds the words name_word (name or ScopeInfo) and script_word, as the
 * caller read them: "..._[j]", or "..._[i]" when inlined. Returns 0 with
 * *id, V8_NAMES_UNSETTLED with *id (above), -EPROTO when the object is no
 * function we can name, or a read's or ENOMEM's error. */
int v8_names__frame(struct v8_names *n, uint64_t sfi, uint64_t name_word, uint64_t script_word,
		    bool inlined, uint64_t now_ns, uint32_t *id);

/* The same, at the line of pos (a script offset), for frames that carry
 * the line they run: "name (file.js:LINE)". Not cached here: the callers
 * keep the ids per code offset (runtimes/v8_lines.h, v8_inline.h). pos < 0,
 * or on no line known: v8_names__frame's name, the definition's line. */
int v8_names__frame_at(struct v8_names *n, uint64_t sfi, uint64_t name_word, uint64_t script_word,
		       int64_t pos, bool inlined, uint64_t now_ns, uint32_t *id);

/* The function's name as a frame shows it, without suffix (for tests). */
int v8_names__describe(struct v8_names *n, uint64_t name_word, uint64_t script_word, char *buf,
		       size_t size);

int v8_names__remap(struct v8_names *n, struct strtab_remap *r);

struct v8_names_stats {
	uint64_t named, cached; /* lookups read anew, and served from the cache */
};
void v8_names__stats(const struct v8_names *n, struct v8_names_stats *out);

#endif
