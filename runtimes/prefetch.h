/* A few ranges of a process's memory read in one call, where a reader
 * expects its next stack read to start: an interpreter's roots, its stack
 * info, the top of its context stack. Each such read would otherwise be a
 * system call of its own (about 1 us each, most of a stack read's cost),
 * and every microsecond between the first and the last is one in which a
 * running program can change what the next read finds.
 *
 * A reader fills the ranges from where its last read found them, then
 * reads as it always does through prefetch__read: a read that lies
 * inside a range read whole is served from it, any other goes to the
 * process. So a guess that no longer holds costs one more read and is
 * never used: the reader follows its own pointers, and a range is only
 * ever the bytes at the address the reader asked for, read before it
 * asked (in one call, in the order the reader would have read them). */
#ifndef SMOLDER_RUNTIMES_PREFETCH_H
#define SMOLDER_RUNTIMES_PREFETCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memsource;

#define PREFETCH_RANGES 8
#define PREFETCH_BYTES 12288

struct prefetch {
	uint64_t addr[PREFETCH_RANGES];
	size_t len[PREFETCH_RANGES];
	bool ok[PREFETCH_RANGES];
	size_t n;
	size_t used;             /* bytes of buf the ranges take */
	uint64_t hits, misses;   /* reads served, reads that went on */
	uint8_t buf[PREFETCH_BYTES];
};

/* No ranges: every read goes to the process. */
void prefetch__clear(struct prefetch *pf);
/* Adds a range to the next fill; false (and nothing added) when the
 * ranges are full, the bytes do not fit, or addr is 0. */
bool prefetch__want(struct prefetch *pf, uint64_t addr, size_t len);
/* Reads the ranges wanted, in one call where the source can. A range not
 * read whole serves nothing. Returns 0 or the source's negative errno. */
int prefetch__fill(struct prefetch *pf, struct memsource *m);
/* len bytes at addr: from a range read whole that holds them all, else
 * from m (memsource__read). 0 or a negative errno. */
int prefetch__read(struct prefetch *pf, struct memsource *m, uint64_t addr, void *buf, size_t len);
/* len bytes at addr from a range read whole that holds them all: 0, or
 * -ENOENT (nothing read) for the caller to read them with others. */
int prefetch__take(struct prefetch *pf, uint64_t addr, void *buf, size_t len);
int prefetch__u64(struct prefetch *pf, struct memsource *m, uint64_t addr, uint64_t *v);
/* Orders n spans (addr[i], len[i]) by address, for a caller that joins
 * close spans into ranges to read in one call. n is small: a few dozen. */
void prefetch__sort_spans(uint64_t *addr, size_t *len, size_t n);

#endif
