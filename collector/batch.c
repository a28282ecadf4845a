/* A poll's records, merged into time order. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/batch.h"

void batch__free(struct batch *b)
{
	free(b->recs);
	free(b->tmp);
	memset(b, 0, sizeof(*b));
}

void batch__clear(struct batch *b)
{
	b->n = 0;
}

/* Merges the sorted runs a[lo, mid) and a[mid, hi) through tmp. Ties go
 * to the left run, which holds the earlier seq: the result is ordered by
 * (time, seq). */
static void merge_runs(struct batch_rec *a, struct batch_rec *tmp, size_t lo, size_t mid,
		       size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		tmp[k++] = a[j].time < a[i].time ? a[j++] : a[i++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < hi)
		tmp[k++] = a[j++];
	memcpy(a + lo, tmp + lo, (hi - lo) * sizeof(*a));
}

/* (qsort was O(n log n) and allocated, and for a large batch mapped and
 * unmapped, its own scratch at every poll.) */
void batch__sort(struct batch *b)
{
	struct batch_rec *a = b->recs, *tmp = b->tmp;
	size_t n = b->n, lo, mid, hi;
	int merged;

	do {
		merged = 0;
		for (lo = 0; lo < n; lo = hi) {
			for (mid = lo + 1; mid < n && a[mid - 1].time <= a[mid].time; mid++)
				;
			if (mid == n) {
				hi = n;
				break;
			}
			for (hi = mid + 1; hi < n && a[hi - 1].time <= a[hi].time; hi++)
				;
			merge_runs(a, tmp, lo, mid, hi);
			merged = 1;
		}
	} while (merged);
}

int batch__push(struct batch *b, uint64_t time, const struct perf_event_header *h)
{
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 4096;
		struct batch_rec *nb = realloc(b->recs, nc * sizeof(*nb)), *nt;

		if (!nb)
			return -ENOMEM;
		b->recs = nb;
		nt = realloc(b->tmp, nc * sizeof(*nt));
		if (!nt)
			return -ENOMEM; /* cap unchanged: the larger array is kept */
		b->tmp = nt;
		b->cap = nc;
	}
	b->recs[b->n].time = time;
	b->recs[b->n].seq = b->n;
	b->recs[b->n].h = h;
	b->n++;
	return 0;
}
