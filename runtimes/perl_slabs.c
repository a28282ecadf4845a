/* The op slabs a Perl sub's ops live in (runtimes/perl_state.h): the
 * proof that a sample ran a sub's ops needs the ranges they occupy. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/perl_state.h"

/* 5.32+: the slabs from the root op's slot (its offset in pointers from
 * its slab's slots) to its slab, to the chain's head (opslab_head), along
 * the chain, each with its size. Into c; 0 or -errno. */
static int sized_slabs(struct perl *p, uint64_t root, struct slabs *c)
{
	const struct perl_layout *l = p->l;
	uint64_t slab, next;
	uint16_t hdr[4], size;
	uint8_t b[SLAB_HEAD];
	size_t i;

	if (memsource__read(&p->mem, root - 8, hdr, 8) != 0)
		return -EFAULT;
	/* hdr[1]: opslot_offset, in pointers from the slab's slots */
	slab = root - 8 - (uint64_t)hdr[1] * 8 - l->slab_slots;
	if (!plausible(slab) || memsource__u64(&p->mem, slab + 8, &next) != 0)
		return -EFAULT;
	if (next)
		slab = next; /* opslab_head: the chain's first */
	for (i = 0; slab && i < SLABS_MAX; i++) {
		if (!plausible(slab) || memsource__read(&p->mem, slab, b, sizeof(b)) != 0)
			return -EFAULT;
		memcpy(&size, b + l->slab_size, 2);
		if (size * 8u <= l->slab_slots)
			return -EPROTO;
		c->lo[i] = slab + SLAB_HEAD;
		c->hi[i] = slab + size * 8u;
		memcpy(&slab, b, 8);
	}
	c->n = i;
	return 0;
}

/* 5.18-5.31: where slab ends, found by walking its slots from
 * opslab_first to the sentinel (next 0) that ends it, in one read of the
 * largest slab there is (fewer bytes where the mapping ends sooner). A
 * slab is 64 pointers times a power of two, 2048 at most: an end found
 * elsewhere is memory posing as a slab. *next: opslab_next. */
static int linked_slab_end(struct perl *p, uint64_t slab, uint64_t *end, uint64_t *next)
{
	uint64_t *w = p->slab_words, slot, size;
	size_t len;

	for (len = LINKED_SLAB_MAX; len >= LINKED_SLAB_MIN; len /= 2)
		if (len <= p->walk_bytes && memsource__read(&p->mem, slab, w, len) == 0)
			break;
	if (len < LINKED_SLAB_MIN)
		return p->walk_bytes < LINKED_SLAB_MIN ? -EAGAIN : -EFAULT;
	p->walk_bytes -= len;
	*next = w[1];
	/* links only upwards inside the read: the walk ends */
	for (slot = w[0];; slot = w[(slot - slab) / 8]) {
		if (slot < slab + LINKED_SLAB_HEAD || slot >= slab + len || (slot & 7))
			return -EPROTO;
		if (!w[(slot - slab) / 8])
			break; /* the sentinel */
		if (w[(slot - slab) / 8] <= slot)
			return -EPROTO; /* slots link upwards */
	}
	size = slot + 8 - slab;
	if (size < LINKED_SLAB_MIN || (size & (size - 1)))
		return -EPROTO;
	*end = slot + 8;
	return 0;
}

/* 5.18-5.31: the slabs from the root op's slab pointer (the chain's
 * head) along the chain, each's end walked. Into c; 0 or -errno. */
static int linked_slabs(struct perl *p, uint64_t root, struct slabs *c)
{
	uint64_t slab, end, next;
	size_t i, j;

	if (memsource__u64(&p->mem, root - 8, &slab) != 0)
		return -EFAULT;
	for (i = 0; slab && i < SLABS_MAX; i++, slab = next) {
		int err;

		if (!plausible(slab))
			return -EPROTO;
		for (j = 0; j < i; j++)
			if (c->lo[j] == slab + LINKED_SLAB_HEAD)
				return -EPROTO; /* a chain in a loop */
		if ((err = linked_slab_end(p, slab, &end, &next)) != 0)
			return err;
		c->lo[i] = slab + LINKED_SLAB_HEAD;
		c->hi[i] = end;
	}
	c->n = i;
	return 0;
}

/* The slabs the ops of frame k's sub live in (5.18+; none before, whose
 * ops are each allocated alone): the root must be in one of them. Cached
 * by the CV's body and root (a live sub's slabs neither move nor grow).
 * 0, or -errno with none kept. */
int perl_slabs__of(struct perl *p, size_t k, struct pad *pd)
{
	const struct perl_layout *l = p->l;
	uint64_t root = u64_at(p->body[k], l->cv_root);
	uint64_t body = p->subs[k].body;
	struct slabs *c = &p->slab_cache[((body >> 4) ^ (root >> 3)) % SLAB_CACHE];
	bool has_root = false;
	size_t i;
	int err;

	if ((!l->slab_slots && !l->slots_linked) || !plausible(root))
		return -EFAULT;
	if (!(c->n && c->body == body && c->root == root)) {
		c->n = 0;
		err = l->slab_slots ? sized_slabs(p, root, c) : linked_slabs(p, root, c);
		for (i = 0; !err && i < c->n; i++)
			has_root |= root >= c->lo[i] && root < c->hi[i];
		if (err || !has_root) {
			c->n = 0;
			return err ? err : -EPROTO;
		}
		c->body = body;
		c->root = root;
	}
	memcpy(pd->slab_lo, c->lo, c->n * sizeof(c->lo[0]));
	memcpy(pd->slab_hi, c->hi, c->n * sizeof(c->hi[0]));
	pd->nslabs = c->n;
	return 0;
}
