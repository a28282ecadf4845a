/* The one open-addressing index: growth and lifetime; probing is inline. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hashidx.h"

int hashidx__init(struct hashidx *x, size_t cap)
{
	size_t c = 8;

	while (c < cap && c < ((size_t)1 << 31))
		c *= 2;
	x->slots = calloc(c, sizeof(*x->slots));
	if (!x->slots)
		return -ENOMEM;
	x->cap = c;
	return 0;
}

void hashidx__fini(struct hashidx *x)
{
	free(x->slots);
	x->slots = NULL;
	x->cap = 0;
}

void hashidx__clear(struct hashidx *x)
{
	memset(x->slots, 0, x->cap * sizeof(*x->slots));
}

size_t hashidx__bytes(const struct hashidx *x)
{
	return x->cap * sizeof(*x->slots);
}

int hashidx__reserve(struct hashidx *x, size_t count,
		     uint32_t (*hash_of)(const void *ctx, uint32_t value), const void *ctx)
{
	size_t ncap = x->cap ? x->cap * 2 : 16, i, s;
	uint32_t *ns;

	if ((count + 1) * 2 <= x->cap)
		return 0;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (i = 0; i < x->cap; i++) {
		uint32_t v = x->slots[i];

		if (!v)
			continue;
		for (s = hash_of(ctx, v) & (ncap - 1); ns[s]; s = (s + 1) & (ncap - 1))
			;
		ns[s] = v;
	}
	free(x->slots);
	x->slots = ns;
	x->cap = ncap;
	return 1;
}
