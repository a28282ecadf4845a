/* A PHP (Zend engine 7.0-8.4; thread-safe builds of the hybrid VM too)
 * process read from outside: the chain of frames its executor runs now,
 * each user function validated (the frame's instruction inside its
 * function's opcodes) and named "Class::method (file.php)", internal
 * functions "Class::method", the script's own code "{main} (file.php)".
 *
 * Everything comes from the process's memory through a memsource (never
 * written, signalled or stopped) and is hostile: every pointer is checked
 * before it is followed, every walk is bounded, every name is capped.
 * Frames are read at the sample and placed by what the sample proves
 * (runtimes/interp_place.h). Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_PHP_H
#define SMOLDER_RUNTIMES_PHP_H
#include <stdbool.h>
#include <stdint.h>

#include "runtimes/interp_place.h"
#include "runtimes/php_layout.h"

struct php;
struct memsource;
struct strtab;
struct strtab_remap;
struct ledger;

/* Opens a reader of the executor globals at eg (in the process; 0 in a
 * thread-safe build: php__read_stack_from) laid out as l (m copied, l and
 * names borrowed). lines: names carry the line the frame runs, "inner
 * (app.php:12)". 0, or -ENOMEM. */
int php__open(const struct memsource *m, uint64_t eg, const struct php_layout *l, bool lines,
	      struct strtab *names, struct php **out);
void php__delete(struct php *p);

/* Reads the frames the executor runs now, innermost first, each named,
 * user frames with their opcodes as their code (what the VM's instruction
 * register points into), into out. 0; -ENOENT when no PHP code runs;
 * -EFAULT/-ESRCH/-EPROTO when the memory could not be read or makes no
 * sense (a frame changing, a process exiting, a process posing as PHP);
 * -EBUSY past the read budget of the memsource's ledger this second. */
int php__read_stack(struct php *p, uint64_t now_ns, struct interp_stack *out);

/* The same in a thread-safe build (opened with eg 0), whose executor
 * globals are each thread's own, in its TLS: the walk starts at frame ex,
 * the VM's frame register of the sample's innermost executor call, and
 * goes on as from the globals. What that frame called and has not yet
 * run PHP code in (a builtin running) is not seen: the native frames
 * show it, as they do for a builtin read from the globals. */
int php__read_stack_from(struct php *p, uint64_t ex, uint64_t now_ns, struct interp_stack *out);

/* With lines: the name of frame frame_addr of the last read, at the line
 * of the instruction opline (inside its code: the sample's own
 * instruction register, which the frame's saved instruction lags behind
 * in the frame running). 0 with *name, -ENOENT for no such frame, or a
 * read's -errno. */
int php__name_at(struct php *p, uint64_t frame_addr, uint64_t opline, uint32_t *name);

/* For JIT code at pc (runtimes/php_jit.h) running frame frame_addr of the
 * last read: 0 with *opline, a pointer into that frame's opcodes that the
 * code at pc proves it runs; -ENOENT when nothing proves it (no such
 * frame, a frame of no opcodes, code of no trace of its function), or a
 * read's -errno. */
int php__jit_witness(struct php *p, uint64_t frame_addr, uint64_t pc, uint64_t now_ns,
		     uint64_t *opline);

void php__counters(const struct php *p, struct runtime_counters *out);
int php__remap_names(struct php *p, struct strtab_remap *r);

/* The name cache (runtimes/php_names.c), for php.c. A function is known
 * by its address, the strings and class it points at, and the head of its
 * identifying string (its name, or the file of a script's code): hash,
 * length and first bytes, read at every use, so memory reused for another
 * function under the same addresses (a request's functions freed, the
 * next request's compiled there) is named anew. */
struct php_names;
#define PHP_HEAD_BYTES 32 /* zend_string: gc (not compared), h, len, val[0..8) */
struct php_fn {
	uint64_t func, name_ptr, scope, file_ptr;
	uint8_t type;
	uint32_t line;      /* 0 without lines */
	uint8_t head[PHP_HEAD_BYTES]; /* of name_ptr, else file_ptr */
};
struct php_names *php_names__new(void);
void php_names__delete(struct php_names *n);
/* The name id of fn: from the cache when the same function with the same
 * head was named before, else read from memory. 0, a read's -errno,
 * -EPROTO for strings that make no sense, -ENOMEM. */
int php_names__name(struct php_names *n, struct memsource *m, const struct php_layout *l,
		    struct strtab *names, struct ledger *ledger, const struct php_fn *fn,
		    uint32_t *id);
int php_names__remap(struct php_names *n, struct strtab_remap *r);

#endif
