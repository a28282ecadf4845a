/* An open-addressing hash index over an array the caller owns: each slot
 * holds a nonzero uint32 value the caller chose (an entry's index + 1, an
 * id), 0 is empty; linear probing; at most half full. The caller probes
 * inline (its key comparison stays in its own hot loop, no callback per
 * probe) and stores the value in the empty slot it stopped at:
 *
 *	if (hashidx__reserve(&x, n, hash_of, ctx) < 0) ...   before an insert
 *	for (s = hashidx__home(&x, h); (v = x.slots[s]); s = hashidx__next(&x, s))
 *		if (matches(v)) return v;
 *	x.slots[s] = new_value;
 *
 * One index per table: profile's groups and stacks, pprof's locations,
 * strtab's strings. (common/u64map is the other container: a map whose
 * slots hold the keys themselves, with deletion.) Not thread-safe. */
#ifndef SMOLDER_COMMON_HASHIDX_H
#define SMOLDER_COMMON_HASHIDX_H
#include <stddef.h>
#include <stdint.h>

struct hashidx {
	uint32_t *slots;
	size_t cap; /* a power of two */
};

/* An empty index of at least cap slots (rounded up to a power of two, at
 * least 8). Returns 0 or -ENOMEM. */
int hashidx__init(struct hashidx *x, size_t cap);
/* Frees the slots. Accepts a zeroed index. */
void hashidx__fini(struct hashidx *x);
/* Empties every slot, keeping the size. */
void hashidx__clear(struct hashidx *x);
size_t hashidx__bytes(const struct hashidx *x);

/* Makes room for one more value beside the count already stored: when that
 * would fill more than half the slots (a zeroed index has none), the index
 * doubles and every value
 * goes back in at hash_of(ctx, value). Returns 0, 1 when it grew (a slot
 * found before is stale: probe again), or -ENOMEM (unchanged). */
int hashidx__reserve(struct hashidx *x, size_t count,
		     uint32_t (*hash_of)(const void *ctx, uint32_t value), const void *ctx);

static inline size_t hashidx__home(const struct hashidx *x, uint32_t h)
{
	return h & (x->cap - 1);
}

static inline size_t hashidx__next(const struct hashidx *x, size_t s)
{
	return (s + 1) & (x->cap - 1);
}

#endif
