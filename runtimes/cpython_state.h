/* The inside of struct cpython: what every file of the CPython reader
 * reads (the interpreter's layout and memory, set at open) and a pointer to
 * each file's own state, whose definition only that file has. Each field
 * says which file owns it; a file touches another's state only through that
 * file's functions. For cpython.c, cpython_ahead.c and cpython_names.c;
 * not for other files. Not thread-safe, as the reader. */
#ifndef SMOLDER_RUNTIMES_CPYTHON_STATE_H
#define SMOLDER_RUNTIMES_CPYTHON_STATE_H
#include <stdbool.h>
#include <string.h>

#include "runtimes/cpython.h"
#include "runtimes/memsource.h"

struct cpython_ahead;
struct cpython_names;
struct u64map;

/* Bounds on what hostile memory can make the reader hold or walk, that
 * more than one file keeps to. */
#define CPYTHON_MAX_THREADS 4096
/* The most of a code object's head, and of a frame, the reader reads. */
#define CPYTHON_CODE_HEAD_MAX 256
#define CPYTHON_FRAME_HEAD_MAX 128
/* The target's page: what one read of a walk, or of a probe, takes. */
#define CPYTHON_PAGE 4096u

struct cpython {
	/* set by cpython__open, read by every file */
	struct memsource mem;
	struct cpython_layout l;
	struct cpython_symbols sym;
	struct strtab *names;          /* borrowed; cpython.c replaces it
	                                  when the names are compacted */
	bool lines;                    /* names carry the frame's line */
	/* the other files' state, created and deleted by cpython.c */
	struct cpython_ahead *ahead;   /* cpython_ahead.c: the reads of the
	                                  walk under way, and what each
	                                  thread's last walk read */
	struct cpython_names *codes;   /* cpython_names.c: the code objects
	                                  read, their ranges and names */
	/* cpython.c's own */
	struct u64map *tstate_by_tid;  /* tid -> PyThreadState address */
	struct u64map *thread_by_tid;  /* tid -> its thread_id (pthread_t) */
	struct u64map *known_tstates;  /* PyThreadState addresses walked ->
	                                  the TID each held then */
	uint64_t last_scan_ns;
	uint64_t rescan_wait_ns;  /* before the next whole walk (doubles) */
	/* the sample's copy of its thread's stack (cpython__set_sample_stack) */
	uint64_t copy_base;
	const uint8_t *copy;
	size_t copy_size;
	uint64_t failures;
};

/* A word of bytes read (any alignment). */
static inline uint64_t cpython_state__u64_at(const uint8_t *b, uint32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Pointers the reader follows: user-space, aligned, not NULL. */
static inline bool cpython_state__plausible(uint64_t p)
{
	return p >= 4096 && p < (1ull << 47) && (p & 7) == 0;
}

/* Whether frame f is not on its thread's data stack (3.11+): it lies
 * in the current chunk at or above the top, per ds, the thread state's
 * datastack_chunk, _top and _limit. A returned frame's bytes stay as they
 * were when it returned (an exiting program's frames each at its last
 * line): read as a stack they pass for a live one. A frame in an older
 * chunk is taken as live: telling would need the chunks walked. */
static inline bool cpython_state__popped(const uint8_t *ds, uint64_t f)
{
	uint64_t chunk = cpython_state__u64_at(ds, 0), top = cpython_state__u64_at(ds, 8);
	uint64_t limit = cpython_state__u64_at(ds, 16);

	return chunk < top && top <= f && f < limit;
}

#endif
