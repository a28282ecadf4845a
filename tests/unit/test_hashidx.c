/* common/hashidx: the index the tables probe inline. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>

#include "common/hashidx.h"

/* A table of keys whose hash is deliberately poor (many collisions). */
struct table {
	uint64_t keys[5000];
	size_t n;
	struct hashidx idx;
};

static uint32_t hash_key(uint64_t k)
{
	return (uint32_t)(k % 97); /* long probe chains on purpose */
}

static uint32_t hash_of(const void *ctx, uint32_t v)
{
	return hash_key(((const struct table *)ctx)->keys[v - 1]);
}

/* Returns the value of k, inserting it when new; 0 on failure. */
static uint32_t intern(struct table *t, uint64_t k)
{
	uint32_t h = hash_key(k), v;
	size_t s;

	for (s = hashidx__home(&t->idx, h); (v = t->idx.slots[s]); s = hashidx__next(&t->idx, s))
		if (t->keys[v - 1] == k)
			return v;
	if (hashidx__reserve(&t->idx, t->n, hash_of, t) == 1)
		for (s = hashidx__home(&t->idx, h); t->idx.slots[s]; s = hashidx__next(&t->idx, s))
			;
	t->keys[t->n++] = k;
	t->idx.slots[s] = (uint32_t)t->n;
	return (uint32_t)t->n;
}

Test(hashidx, values_survive_growth)
{
	static struct table t;
	size_t i;

	cr_assert_eq(hashidx__init(&t.idx, 1), 0);
	cr_assert_eq(t.idx.cap, 8, "rounded up to the minimum");
	for (i = 0; i < 5000; i++)
		cr_assert_eq(intern(&t, i * 7919), i + 1);
	cr_assert_geq(t.idx.cap, 10000, "at most half full: %zu slots", t.idx.cap);
	for (i = 0; i < 5000; i++)
		cr_assert_eq(intern(&t, i * 7919), i + 1, "key %zu found again after growth", i);
	cr_assert_eq(t.n, 5000);
	cr_assert_eq(hashidx__bytes(&t.idx), t.idx.cap * sizeof(uint32_t));
	hashidx__clear(&t.idx);
	t.n = 0;
	cr_assert_eq(intern(&t, 42), 1, "cleared: everything is new again");
	hashidx__fini(&t.idx);
	hashidx__fini(&t.idx); /* twice is harmless */
}

Test(hashidx, a_zeroed_index_grows_on_first_reserve)
{
	static struct table t;

	cr_assert_eq(hashidx__reserve(&t.idx, 0, hash_of, &t), 1);
	cr_assert_eq(t.idx.cap, 16);
	cr_assert_eq(intern(&t, 5), 1);
	cr_assert_eq(hashidx__reserve(&t.idx, 1, hash_of, &t), 0, "room left: nothing to do");
	hashidx__fini(&t.idx);
}
