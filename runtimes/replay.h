/* A reader's reads of one sample, made again in one call before the
 * next sample's. An interpreter's stack read follows pointers: its roots,
 * its stack info, its frames, each function's object and name. Each step
 * is a system call of its own (about a microsecond here, most of a read's
 * cost), and a program sampled again mostly runs the same functions on
 * the same stack. So the spans a reader asked for while reading a sample
 * are read again, joined into a few ranges, in one call when the next
 * sample's read begins; a read that lies inside a range read whole is
 * served from it, any other goes to the process as before, and is
 * recorded for the next.
 *
 * What is served was read at the start of this sample's read, in the
 * order of the addresses, microseconds before the reader would have read
 * it itself: the reader validates it as it validates any read, and a
 * guess that no longer holds costs bytes, never a wrong value. Readers
 * that already guess their own ranges (runtimes/prefetch.h) gain
 * nothing from it and do not use it.
 *
 * One replay per reader instance; their fill buffer is shared (one
 * sample is read at a time). Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_REPLAY_H
#define SMOLDER_RUNTIMES_REPLAY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtimes/memsource.h"

/* Spans recorded a sample, ranges filled, bytes filled, and how close two
 * spans are to be read as one range. */
#define REPLAY_SPANS 96
#define REPLAY_RANGES 12
#define REPLAY_BYTES 12288
#define REPLAY_GAP 192

/* The ranges of the read in progress: one for all replays. */
struct replay_fill {
	const void *owner; /* the replay whose ranges these are; NULL: none */
	uint64_t addr[REPLAY_RANGES];
	size_t len[REPLAY_RANGES];
	bool ok[REPLAY_RANGES];
	size_t n;
	uint8_t buf[REPLAY_BYTES];
};

struct replay {
	struct memsource inner;    /* the process (its reads: the calls made) */
	struct ledger *ledger;     /* what the reads are charged to */
	struct replay_fill *fill;
	bool active;               /* between begin and end */
	/* the spans asked for since begin, in the order asked */
	uint64_t span_addr[REPLAY_SPANS];
	uint32_t span_len[REPLAY_SPANS];
	size_t nspans;
	/* the ranges read at the next begin: the last sample's spans, and
	 * what room is left of the plan before */
	uint64_t plan_addr[REPLAY_RANGES];
	size_t plan_len[REPLAY_RANGES];
	bool plan_ok[REPLAY_RANGES]; /* read whole when last filled */
	size_t nplan;
	uint64_t served, missed;   /* reads from the fill, reads that went on */
};

/* A replay reading through inner (copied), its fills in fill. */
void replay__init(struct replay *r, const struct memsource *inner, struct replay_fill *fill);
/* The source a reader reads through: inner's reads, served from the fill
 * between begin and end. Its ledger is inner's. */
void replay__source(struct replay *r, struct memsource *out);
/* A sample's read begins: the last one's spans, read in one call. */
void replay__begin(struct replay *r);
/* It ended: what it asked for is the next one's plan. */
void replay__end(struct replay *r);
/* Calls made of the process (inner's). */
uint64_t replay__calls(const struct replay *r);

#endif
