/* The inside of struct cpython, shared by cpython.c (threads and stacks),
 * cpython_names.c (code objects and their names) and cpython_stack.c
 * (placing a stack on a sample). Not for other files. */
#ifndef SMOLDER_RUNTIMES_CPYTHON_IMPL_H
#define SMOLDER_RUNTIMES_CPYTHON_IMPL_H
#include <stdbool.h>

#include "runtimes/cpython.h"
#include "runtimes/memsource.h"

struct u64map;

/* A code object as read: what identifies it, where its bytecode is, and its
 * frame name. */
struct cpython_code {
	uint64_t addr;
	uint64_t name_ptr, file_ptr, qual_ptr;
	int32_t firstlineno;
	uint64_t bc_start, bc_end; /* its bytecode: [bc_start, bc_end) */
	uint32_t name;             /* "qualname (file)_[py]" */
};

/* An address range that means a code object: the object itself, and its
 * bytecode (a pointer the eval loop keeps into it). */
struct cpython_range {
	uint64_t start, end, code;
};

/* Bounds on what hostile memory can make the reader hold or walk. */
#define CPYTHON_MAX_CODES 16384
#define CPYTHON_MAX_THREADS 4096
#define CPYTHON_MAX_INTERPS 64
#define CPYTHON_STR_MAX 256
/* A thread no thread state matches is looked for again after this long. */
#define CPYTHON_RESCAN_NS 200000000ull

struct cpython {
	struct memsource mem;
	struct cpython_layout l;
	struct cpython_symbols sym;
	struct strtab *names;
	struct u64map *tstate_by_tid;  /* tid -> PyThreadState address */
	struct u64map *thread_by_tid;  /* tid -> its thread_id (pthread_t) */
	uint64_t last_scan_ns;
	struct u64map *code_index;     /* code address -> index + 1 in codes */
	struct cpython_code *codes;
	size_t ncodes;
	struct cpython_range *ranges;  /* by start; rebuilt when dirty */
	size_t nranges;
	bool ranges_dirty;
	struct u64map *last_by_tid;    /* tid -> struct cpython_last * */
	uint64_t failures;
};

/* A thread's stack as last read. */
struct cpython_last {
	size_t n;
	struct cpython_frame f[];
};

/* cpython_names.c: the code object at addr validated (read again: an
 * address freed and reused gives the new object's name) and named. Returns
 * its entry, or NULL when addr holds no code object. */
const struct cpython_code *cpython__code(struct cpython *c, uint64_t addr);
/* Forgets every code object (the cache is full). */
void cpython__clear_codes(struct cpython *c);
/* Rebuilds the sorted ranges when codes were added. */
void cpython__sort_ranges(struct cpython *c);
/* The code object whose range holds word, 0 when none. */
uint64_t cpython__code_at(const struct cpython *c, uint64_t word);

#endif
