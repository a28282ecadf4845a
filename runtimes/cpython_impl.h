/* The inside of struct cpython, shared by cpython.c (threads and stacks),
 * cpython_names.c (code objects and their names) and cpython_stack.c
 * (placing a stack on a sample). Not for other files. */
#ifndef SMOLDER_RUNTIMES_CPYTHON_IMPL_H
#define SMOLDER_RUNTIMES_CPYTHON_IMPL_H
#include <stdbool.h>

#include "runtimes/cpython.h"
#include "runtimes/memsource.h"

#include <string.h>

struct u64map;

/* A word of bytes read (any alignment). */
static inline uint64_t cpython__u64_at(const uint8_t *b, uint32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Pointers the reader follows: user-space, aligned, not NULL. */
static inline bool cpython__plausible(uint64_t p)
{
	return p >= 4096 && p < (1ull << 47) && (p & 7) == 0;
}

/* A code object as read: what identifies it, where its bytecode is, and its
 * frame name. */
struct cpython_code {
	uint64_t addr;
	uint64_t name_ptr, file_ptr, qual_ptr;
	int32_t firstlineno;
	uint64_t bc_start, bc_end; /* its bytecode: [bc_start, bc_end) */
	uint32_t name;             /* "qualname (file)_[py]" */
	uint32_t recent;           /* with lines: the name with the line last
	                              read for it (0: none yet) */
	uint8_t *lines;            /* its line table, read on first use */
	uint32_t nlines;
	bool lines_read;
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
/* Line tables: longer ones are not read (a function of thousands of
 * lines), and all of them together stay under the total, the cache of
 * codes emptied when they would not. Names with a line: at most this
 * many (code, line) pairs, emptied when full. */
#define CPYTHON_LINETABLE_MAX (64u << 10)
#define CPYTHON_LINETABLES_TOTAL (16u << 20)
#define CPYTHON_LINE_NAMES_MAX 65536
/* Probing a sample's registers for code the reader has not read yet: at
 * most this many probes a sample, and this many words remembered as no
 * code's (emptied when full). */
#define CPYTHON_PROBES_PER_SAMPLE 8
#define CPYTHON_NOT_CODE_MAX 4096
/* A thread no thread state matches is looked for again after this long. */
#define CPYTHON_RESCAN_NS 200000000ull

/* The most a code object's head read may be, and the distinct codes of
 * one walk read at once. */
#define CPYTHON_CODE_HEAD_MAX 256
#define CPYTHON_WALK_CODES 32

/* Pages of the target read during one stack walk: frames of 3.11+ lie
 * next to each other in their thread's data stack, and 2.7-3.10 frame
 * objects of one size share allocator pools, so one page read serves
 * several frames. */
#define CPYTHON_PAGE 4096u
#define CPYTHON_WALK_PAGES 4
struct cpython_pages {
	uint64_t addr[CPYTHON_WALK_PAGES]; /* 0: the slot holds nothing */
	bool used[CPYTHON_WALK_PAGES];     /* a frame of the walk was on it */
	unsigned n, next;
	uint8_t data[CPYTHON_WALK_PAGES][CPYTHON_PAGE];
};

/* What a thread's last walk read: the pages its frames were on and its
 * codes. A loop runs the same frames at the same addresses, so the next
 * read of the thread takes them in the same call as its thread state
 * (cpython_ahead.c). Kept for CPYTHON_HINTS threads, by TID modulo. */
#define CPYTHON_HINTS 64
#define CPYTHON_HINT_CODES 16
/* The most of a frame a walk reads (its first frame_size bytes). */
#define CPYTHON_FRAME_HEAD_MAX 128
/* 2.7-3.10 frame objects are allocated one by one, wherever a pool of
 * their size has room, so a deep stack's frames lie on about as many
 * pages as there are frames: the last walk's frame objects themselves are
 * read ahead, up to this many. */
#define CPYTHON_HINT_FRAMES 64
struct cpython_hint {
	int32_t tid; /* 0: none */
	uint8_t npages, ncodes, nframes;
	uint64_t pages[CPYTHON_WALK_PAGES];
	uint64_t codes[CPYTHON_HINT_CODES];
	uint64_t frames[CPYTHON_HINT_FRAMES];
};

struct cpython {
	struct memsource mem;
	struct cpython_layout l;
	struct cpython_symbols sym;
	struct strtab *names;
	bool lines;                    /* names carry the frame's line */
	struct u64map *name_by_line;   /* code | line << 47 -> name id */
	size_t linetable_bytes;        /* held by codes[].lines */
	struct u64map *tstate_by_tid;  /* tid -> PyThreadState address */
	struct u64map *thread_by_tid;  /* tid -> its thread_id (pthread_t) */
	uint64_t last_scan_ns;
	struct u64map *code_index;     /* code address -> index + 1 in codes */
	struct cpython_code *codes;    /* grown up to CPYTHON_MAX_CODES */
	size_t ncodes, codes_cap;
	struct cpython_range *ranges;  /* 2 * codes_cap, by start; rebuilt
	                                  when dirty */
	size_t nranges;
	bool ranges_dirty;
	struct u64map *last_by_tid;    /* tid -> struct cpython_last * */
	struct cpython_pages pages;    /* of the walk under way */
	uint8_t heads[CPYTHON_WALK_CODES][CPYTHON_CODE_HEAD_MAX]; /* of the walk */
	struct cpython_hint hints[CPYTHON_HINTS];
	/* read ahead for the walk under way: code heads in heads[0, nahead),
	 * and the data stack's bounds as read after the pages (3.11+) */
	uint64_t ahead_code[CPYTHON_HINT_CODES];
	bool ahead_ok[CPYTHON_HINT_CODES];
	size_t nahead;
	uint8_t ahead_ds[24];
	bool ahead_ds_ok;
	/* 2.7-3.10: the frame objects the walk under way read, and those read
	 * ahead for it, ahead_frames[0, nahead_frames) (cursor: where the
	 * next one is most likely, the walk following the last one's order) */
	uint64_t walked[CPYTHON_HINT_FRAMES];
	size_t nwalked;
	uint64_t ahead_frame[CPYTHON_HINT_FRAMES];
	bool ahead_frame_ok[CPYTHON_HINT_FRAMES];
	size_t nahead_frames, ahead_cursor;
	uint8_t ahead_frames[CPYTHON_HINT_FRAMES][CPYTHON_FRAME_HEAD_MAX];
	struct u64map *not_code;       /* words found to point at no code */
	/* the sample's copy of its thread's stack (cpython__set_sample_stack) */
	uint64_t copy_base;
	const uint8_t *copy;
	size_t copy_size;
	uint64_t failures;
};

/* A thread's stack as last read. */
struct cpython_last {
	size_t n;
	struct cpython_frame f[];
};

/* cpython_ahead.c: reads tid's thread state at ts (tsz bytes into b)
 * and, in the same call and after it, what the thread's last walk read
 * (c->pages, 2.7-3.10 frame objects, heads, and for 3.11+ the data
 * stack's bounds after the pages). Returns 0 when the thread state was
 * read whole. */
int cpython__read_ahead(struct cpython *c, int tid, uint64_t ts, uint8_t *b, uint32_t tsz);
/* Forgets what was read ahead (the thread state was not the thread's). */
void cpython__drop_ahead(struct cpython *c);
/* Keeps what the walk of tid into stack read, for its next read. */
void cpython__keep_hint(struct cpython *c, int tid, const struct cpython_stack *stack);
/* Frame object f's first len bytes, when they were read ahead. */
bool cpython__ahead_frame(struct cpython *c, uint64_t f, uint8_t *buf, size_t len);
/* The slot of c->pages holding page, pg->n when none; the slot to fill
 * next, and filling it. */
unsigned cpython__page_find(const struct cpython_pages *pg, uint64_t page);
unsigned cpython__page_slot(struct cpython_pages *pg);
void cpython__page_set(struct cpython_pages *pg, unsigned k, uint64_t page);

/* cpython_names.c: the code object at addr validated (read again: an
 * address freed and reused gives the new object's name) and named. Returns
 * its entry, or NULL when addr holds no code object. */
struct cpython_code *cpython__code(struct cpython *c, uint64_t addr);
/* The same with the code object's head (l.code_size bytes at addr)
 * already read. */
struct cpython_code *cpython__code_head(struct cpython *c, uint64_t addr, const uint8_t *head);
/* The frame name of code e running the instruction at instr (as the
 * layout's frames say it): with its line when lines are asked for and
 * known, else e->name. */
uint32_t cpython__line_name(struct cpython *c, struct cpython_code *e, uint64_t instr);
/* Forgets every code object (the cache is full). */
void cpython__clear_codes(struct cpython *c);
/* Rebuilds the sorted ranges when codes were added. */
void cpython__sort_ranges(struct cpython *c);
/* The code object whose range holds word, 0 when none. */
uint64_t cpython__code_at(const struct cpython *c, uint64_t word);

#endif
