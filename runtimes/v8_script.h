/* The scripts JavaScript functions come from: a V8 Script's file name as
 * frames show it, and the line a position of its source is on.
 *
 * Lines come from the Script's own table of line ends when V8 has made
 * one (it does so for stack traces, the debugger, --perf-basic-prof),
 * else from the source, read once (up to V8_SCRIPT_MAX_SOURCE bytes) and
 * kept as line ends, so that a function is named by the same line
 * whether or not V8 made its table yet; a read that failed is tried
 * again (below) and told to callers. Scripts are kept by address and
 * checked again (their name and source words) when looked up; the cache
 * holds at most V8_SCRIPT_MAX scripts and V8_SCRIPT_MAX_LINES line ends in
 * all, and starts over past either. Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_V8_SCRIPT_H
#define SMOLDER_RUNTIMES_V8_SCRIPT_H
#include <stddef.h>
#include <stdint.h>

#include "runtimes/v8_heap.h"

#define V8_SCRIPT_MAX 4096
#define V8_SCRIPT_MAX_LINES (4u << 20)
#define V8_SCRIPT_MAX_SOURCE (32u << 20)
#define V8_SCRIPT_NAME_MAX 256

struct v8_scripts;

struct v8_scripts *v8_scripts__new(struct v8_heap *heap);
void v8_scripts__delete(struct v8_scripts *s);
void v8_scripts__forget(struct v8_scripts *s);

/* A read of a script's lines that failed is tried again
 * V8_SCRIPT_RETRY_NS later, then twice that, V8_SCRIPT_RETRIES times in
 * all; its script has no lines after that. */
#define V8_SCRIPT_RETRY_NS (20ull * 1000000ull)
#define V8_SCRIPT_RETRIES 8
/* v8_scripts__describe's answer while the lines of the script are to be
 * read again: its name is right, the line 0 for now. */
#define V8_SCRIPT_UNSETTLED 1

/* What a frame shows of the script tagged points to: its file name,
 * shortened (below), into name (size bytes), and the line of source
 * position pos (0 when unknown, or pos < 0). Returns 0,
 * V8_SCRIPT_UNSETTLED when a line was asked for (pos >= 0) and the lines
 * are to be read again (a name made with this line is not to be kept),
 * -EPROTO when it is no Script, or a read's -errno. */
int v8_scripts__describe(struct v8_scripts *s, uint64_t tagged, int64_t pos, uint64_t now_ns, char *name,
			 size_t size, unsigned *line);

/* The part of a script's name a frame shows: a file URL's path; after the
 * last node_modules/ the package and its file; else the file's name;
 * node's own modules ("node:internal/...") whole. Writes name's start and
 * length. */
void v8_scripts__short_name(const char *name, const char **start, size_t *len);

/* The 1-based line of position pos given the positions where lines end
 * (sorted, n of them): 0 when pos is past them all or negative. */
unsigned v8_scripts__line(const uint32_t *ends, size_t n, int64_t pos);

#endif
