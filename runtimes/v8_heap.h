/* V8 heap objects read from outside the process: what type a tagged word
 * points to, small integers, and strings, through a memsource whose reads
 * the process's ledger pays for (runtimes/accountant.h).
 *
 * Every word comes from the target and may be anything: a pointer is
 * accepted only with V8's heap-object tag, a type only from an object
 * whose map is itself a map, a string only up to the bound its caller
 * gives, through at most V8_HEAP_STRING_DEPTH cons, thin and sliced
 * strings. Maps are cached (a few dozen are ever asked about: JSFunction,
 * SharedFunctionInfo, Script, the string types); the cache is emptied with
 * v8_heap__forget, so a map freed by the GC keeps no type for long.
 * Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_V8_HEAP_H
#define SMOLDER_RUNTIMES_V8_HEAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtimes/memsource.h"
#include "runtimes/v8_layout.h"

/* Strings nest this deep at most (a cons of cons of ...). */
#define V8_HEAP_STRING_DEPTH 16
/* Maps whose type is kept; past it the cache starts over. */
#define V8_HEAP_MAX_MAPS 1024

struct v8_heap;

/* NULL on ENOMEM. mem is borrowed: the instance that owns both keeps it. */
struct v8_heap *v8_heap__new(struct memsource *mem, const struct v8_layout *l);
void v8_heap__delete(struct v8_heap *h);
void v8_heap__forget(struct v8_heap *h);
const struct v8_layout *v8_heap__layout(const struct v8_heap *h);
struct memsource *v8_heap__mem(struct v8_heap *h);

/* Whether w is a tagged heap pointer; *addr its untagged address. */
bool v8_heap__pointer(uint64_t w, uint64_t *addr);
/* Whether w is a small integer; *v its value. */
bool v8_heap__smi(uint64_t w, int64_t *v);

/* The instance type of the map word map (the first word of an object
 * already read), read once per map. 0 with *type, -EPROTO when it is no
 * map, or the read's -errno. */
int v8_heap__map_type(struct v8_heap *h, uint64_t map, uint16_t *type);
/* The instance type of the object tagged points to: one read of its map
 * word, then v8_heap__map_type. */
int v8_heap__type(struct v8_heap *h, uint64_t tagged, uint16_t *type);

/* The characters of the string tagged points to, as UTF-8 (two-byte
 * strings: code units below 0x80 as themselves, others as '?'), at most
 * size - 1 bytes; a longer string is cut. Returns the length written
 * (buf terminated), -EPROTO when it is no string, -EOPNOTSUPP for an
 * external string (its characters live outside the heap), or a read's
 * -errno. */
ssize_t v8_heap__string(struct v8_heap *h, uint64_t tagged, char *buf, size_t size);

/* Calls fn with the characters of a (possibly long) string in pieces of
 * up to 64 KiB, in order, reading at most max bytes of them in all;
 * two-byte pieces come as they are, with two_byte set. Returns 0, -E2BIG
 * past max, -EOPNOTSUPP for an external string, -EPROTO for what is no
 * string (an object the GC moved while it was read, too), or fn's or a
 * read's error. */
typedef int (*v8_heap_chars_fn)(void *arg, const uint8_t *chars, size_t n, bool two_byte);
int v8_heap__chars(struct v8_heap *h, uint64_t tagged, size_t max, v8_heap_chars_fn fn, void *arg);

#endif
