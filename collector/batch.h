/* One poll's records of every ring, put in time order. The rings are per
 * CPU and not ordered with each other: a sample can be read before the MMAP
 * that explains it. The records stay where they are in the rings (pointers;
 * a wrapped record is copied by the ring) until the batch has been handled.
 * A value type owned by the sampler; its arrays are kept from poll to poll,
 * so steady state allocates nothing. Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_BATCH_H
#define SMOLDER_COLLECTOR_BATCH_H
#include <stddef.h>
#include <stdint.h>

struct perf_event_header;

struct batch_rec {
	uint64_t time;                     /* the record's, or the one before it in its ring */
	uint64_t seq;                      /* arrival order, breaks ties */
	const struct perf_event_header *h; /* borrowed from its ring */
};

struct batch {
	struct batch_rec *recs; /* recs[0..n) */
	struct batch_rec *tmp;  /* merge scratch, cap entries */
	size_t n, cap;
};

/* A zeroed struct batch is an empty batch. batch__free releases the arrays. */
void batch__free(struct batch *b);
/* Empties it, keeping the arrays. */
void batch__clear(struct batch *b);
/* Appends a record. Returns 0, or -ENOMEM (then it is not added). */
int batch__push(struct batch *b, uint64_t time, const struct perf_event_header *h);
/* Orders the records by (time, seq). They were pushed one ring after the
 * other, each ring in time order: a natural merge sort merges those runs
 * pairwise, O(n log rings), in the scratch array. */
void batch__sort(struct batch *b);

#endif
