/* The profile window: groups of interned frame-id stacks -> sample counts. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "common/hash.h"
#include "common/hashidx.h"
#include "common/strtab_remap.h"

/* A window of 1M distinct stacks is ~100x what a busy 64-CPU host produces
 * at 99 Hz in 10 s; the cap only exists so a pathological workload (JIT
 * churn, per-pid grouping of fork bombs) cannot grow memory without bound. */
#define DEFAULT_MAX_STACKS ((size_t)1000000)
/* 16M frame ids = 64 MiB of arena. */
#define DEFAULT_MAX_FRAMES ((size_t)1 << 24)
/* Keeps index arithmetic in uint32 (slot value = index + 1). */
#define HARD_MAX_STACKS ((size_t)UINT32_MAX / 4)
#define NONE UINT32_MAX

struct stack {
	uint64_t count;
	size_t off;     /* into p->frames */
	uint32_t n;
	uint32_t group;
	uint32_t next;  /* next stack of the same group, NONE at the end */
	uint32_t hash32; /* cheap reject before comparing frames */
};

struct group {
	struct profile_key key;
	uint64_t samples;
	size_t nstacks;
	uint32_t first, last; /* stack list in insertion order */
	uint32_t hash32;
};

struct profile {
	struct strtab *names;
	struct profile_meta meta;
	uint64_t samples, dropped;

	struct group *groups;
	size_t ngroups, groups_cap;
	struct hashidx group_index; /* values: group index + 1 */

	struct stack *stacks;
	size_t nstacks, stacks_cap;
	struct hashidx stack_index; /* values: stack index + 1 */

	uint32_t *frames; /* arena of every stack's frames */
	size_t nframes, frames_cap;

	size_t max_stacks, max_frames;
};

const char *profile_meta__unit_of(const char *event_name)
{
	return event_name && strcmp(event_name, "off-cpu") == 0 ? "nanoseconds" : "samples";
}

struct profile *profile__new(struct strtab *names)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->names = names;
	p->meta.event_unit = "samples";
	p->max_stacks = DEFAULT_MAX_STACKS;
	p->max_frames = DEFAULT_MAX_FRAMES;
	if (hashidx__init(&p->group_index, 64) < 0 || hashidx__init(&p->stack_index, 1024) < 0) {
		profile__delete(p);
		return NULL;
	}
	return p;
}

void profile__delete(struct profile *p)
{
	if (!p)
		return;
	free(p->groups);
	hashidx__fini(&p->group_index);
	free(p->stacks);
	hashidx__fini(&p->stack_index);
	free(p->frames);
	free(p);
}

void profile__reset(struct profile *p)
{
	hashidx__clear(&p->group_index);
	hashidx__clear(&p->stack_index);
	p->ngroups = 0;
	p->nstacks = 0;
	p->nframes = 0;
	p->samples = 0;
	p->dropped = 0;
}

int profile__remap_names(struct profile *p, struct strtab_remap *r)
{
	if (p->ngroups || p->nstacks)
		return -EBUSY;
	if (r->commit)
		p->names = r->to;
	return 0;
}

void profile__set_max_stacks(struct profile *p, size_t max_stacks)
{
	p->max_stacks = max_stacks > HARD_MAX_STACKS ? HARD_MAX_STACKS : max_stacks;
}

void profile__set_max_frames(struct profile *p, size_t max_frames)
{
	p->max_frames = max_frames > UINT32_MAX ? UINT32_MAX : max_frames;
}

static uint64_t key_hash(const struct profile_key *k)
{
	uint64_t h = hash__u64(k->service_name);

	h = hash__mix(h, k->exe);
	h = hash__mix(h, k->comm);
	h = hash__mix(h, k->thread);
	h = hash__mix(h, k->user);
	return hash__mix(h, (uint32_t)k->pid);
}

static int key_eq(const struct profile_key *a, const struct profile_key *b)
{
	return a->service_name == b->service_name && a->exe == b->exe &&
	       a->comm == b->comm && a->pid == b->pid && a->thread == b->thread &&
	       a->user == b->user;
}

/* Two frames per mix: cheaper than byte-wise FNV on 128-frame stacks. */
static uint64_t stack_hash(uint32_t group, const uint32_t *frames, size_t n)
{
	uint64_t h = hash__u64(((uint64_t)group << 32) | (uint32_t)n);
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		h = hash__mix(h, ((uint64_t)frames[i] << 32) | frames[i + 1]);
	if (i < n)
		h = hash__mix(h, frames[i]);
	return h;
}

/* Doubles an array so it holds at least need elements. */
static int grow(void **arr, size_t *cap, size_t need, size_t elem, size_t initial)
{
	size_t ncap = *cap ? *cap : initial;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > (size_t)-1 / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

static uint32_t group_hash_of(const void *ctx, uint32_t v)
{
	return ((const struct profile *)ctx)->groups[v - 1].hash32;
}

static uint32_t stack_hash_of(const void *ctx, uint32_t v)
{
	return ((const struct profile *)ctx)->stacks[v - 1].hash32;
}

/* Returns the slot holding the group, or the empty slot where it belongs. */
static size_t find_group(const struct profile *p, const struct profile_key *key,
			 uint32_t h, uint32_t *gi)
{
	size_t s;

	for (s = hashidx__home(&p->group_index, h);; s = hashidx__next(&p->group_index, s)) {
		uint32_t v = p->group_index.slots[s];

		if (!v) {
			*gi = NONE;
			return s;
		}
		if (p->groups[v - 1].hash32 == h && key_eq(&p->groups[v - 1].key, key)) {
			*gi = v - 1;
			return s;
		}
	}
}

static size_t find_stack(const struct profile *p, uint32_t group, const uint32_t *frames,
			 size_t n, uint32_t h, uint32_t *si)
{
	size_t s;

	for (s = hashidx__home(&p->stack_index, h);; s = hashidx__next(&p->stack_index, s)) {
		uint32_t v = p->stack_index.slots[s];
		const struct stack *st;

		if (!v) {
			*si = NONE;
			return s;
		}
		st = &p->stacks[v - 1];
		if (st->hash32 == h && st->group == group && st->n == n &&
		    (n == 0 || !memcmp(p->frames + st->off, frames, n * sizeof(*frames)))) {
			*si = v - 1;
			return s;
		}
	}
}

static int drop(struct profile *p, uint64_t count, int err)
{
	p->dropped += count;
	return err;
}

void profile__drop(struct profile *p, uint64_t count)
{
	p->samples += count;
	p->dropped += count;
}

int profile__add(struct profile *p, const struct profile_key *key,
		 const uint32_t *frames, size_t n, uint64_t count)
{
	uint32_t gh, sh, gi, si;
	size_t gslot, sslot;
	struct group *g;
	struct stack *st;
	int new_group;

	if (!count)
		return 0;
	p->samples += count;
	if (n && !frames)
		return drop(p, count, -EINVAL);

	gh = (uint32_t)key_hash(key);
	gslot = find_group(p, key, gh, &gi);
	sh = 0;
	if (gi != NONE) {
		sh = (uint32_t)stack_hash(gi, frames, n);
		sslot = find_stack(p, gi, frames, n, sh, &si);
		if (si != NONE) {
			/* The hot path: a known stack, no allocation. */
			p->stacks[si].count += count;
			p->groups[gi].samples += count;
			return 0;
		}
	}

	/* A new stack (and maybe a new group). Reserve everything first so a
	 * failure leaves the window exactly as it was. */
	if (p->nstacks >= p->max_stacks || p->nframes > p->max_frames ||
	    n > p->max_frames - p->nframes)
		return drop(p, count, -ENOSPC);
	new_group = gi == NONE;
	if (new_group) {
		if (grow((void **)&p->groups, &p->groups_cap, p->ngroups + 1,
			 sizeof(*p->groups), 16) < 0)
			return drop(p, count, -ENOMEM);
		if (hashidx__reserve(&p->group_index, p->ngroups, group_hash_of, p) < 0)
			return drop(p, count, -ENOMEM);
		gslot = find_group(p, key, gh, &gi);
		gi = (uint32_t)p->ngroups;
		sh = (uint32_t)stack_hash(gi, frames, n);
	}
	if (grow((void **)&p->stacks, &p->stacks_cap, p->nstacks + 1, sizeof(*p->stacks), 256) < 0 ||
	    grow((void **)&p->frames, &p->frames_cap, p->nframes + n, sizeof(*p->frames), 4096) < 0)
		return drop(p, count, -ENOMEM);
	if (hashidx__reserve(&p->stack_index, p->nstacks, stack_hash_of, p) < 0)
		return drop(p, count, -ENOMEM);
	sslot = find_stack(p, gi, frames, n, sh, &si);

	if (new_group) {
		g = &p->groups[gi];
		memset(g, 0, sizeof(*g));
		g->key = *key;
		g->hash32 = gh;
		g->first = g->last = NONE;
		p->group_index.slots[gslot] = gi + 1;
		p->ngroups++;
	}
	g = &p->groups[gi];
	si = (uint32_t)p->nstacks++;
	st = &p->stacks[si];
	st->count = count;
	st->off = p->nframes;
	st->n = (uint32_t)n;
	st->group = gi;
	st->next = NONE;
	st->hash32 = sh;
	if (n)
		memcpy(p->frames + p->nframes, frames, n * sizeof(*frames));
	p->nframes += n;
	p->stack_index.slots[sslot] = si + 1;
	if (g->last == NONE)
		g->first = si;
	else
		p->stacks[g->last].next = si;
	g->last = si;
	g->nstacks++;
	g->samples += count;
	return 0;
}

struct profile_meta *profile__meta(struct profile *p)
{
	return &p->meta;
}

const struct profile_meta *profile__meta_const(const struct profile *p)
{
	return &p->meta;
}

uint64_t profile__samples(const struct profile *p)
{
	return p->samples;
}

uint64_t profile__dropped(const struct profile *p)
{
	return p->dropped;
}

const struct strtab *profile__names(const struct profile *p)
{
	return p->names;
}

size_t profile__ngroups(const struct profile *p)
{
	return p->ngroups;
}

void profile__group(const struct profile *p, size_t g, struct profile_group *out)
{
	const struct group *gr;

	if (g >= p->ngroups) {
		memset(out, 0, sizeof(*out));
		out->key.pid = -1;
		return;
	}
	gr = &p->groups[g];
	out->key = gr->key;
	out->samples = gr->samples;
	out->nstacks = gr->nstacks;
}

int profile__foreach_stack(const struct profile *p, size_t g, profile_stack_fn fn, void *ctx)
{
	uint32_t si;
	size_t guard = 0;

	if (g >= p->ngroups)
		return 0;
	for (si = p->groups[g].first; si != NONE && guard < p->nstacks; si = p->stacks[si].next, guard++) {
		const struct stack *st = &p->stacks[si];
		int r = fn(ctx, p->frames + st->off, st->n, st->count);

		if (r)
			return r;
	}
	return 0;
}

uint64_t profile__total(const struct profile *p)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < p->ngroups; i++)
		t += p->groups[i].samples;
	return t;
}

size_t profile__nstacks(const struct profile *p)
{
	return p->nstacks;
}

size_t profile__bytes(const struct profile *p)
{
	return sizeof(*p) + p->groups_cap * sizeof(*p->groups) +
	       hashidx__bytes(&p->group_index) +
	       p->stacks_cap * sizeof(*p->stacks) +
	       hashidx__bytes(&p->stack_index) +
	       p->frames_cap * sizeof(*p->frames);
}

struct rename_ctx {
	struct profile *to;
	const struct profile_key *key;
	uint32_t (*rename)(void *ctx, uint32_t id);
	void *rctx;
	uint32_t *buf;
	size_t cap;
	int err;
};

static int readd_stack(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct rename_ctx *rc = ctx;
	size_t i;

	if (n > rc->cap) {
		uint32_t *nb = realloc(rc->buf, n * sizeof(*nb));

		if (!nb) {
			rc->err = -ENOMEM;
			return 1;
		}
		rc->buf = nb;
		rc->cap = n;
	}
	for (i = 0; i < n; i++)
		rc->buf[i] = rc->rename(rc->rctx, frames[i]);
	rc->err = profile__add(rc->to, rc->key, rc->buf, n, count);
	return rc->err != 0;
}

int profile__rename_frames(struct profile *p, uint32_t (*rename)(void *ctx, uint32_t id), void *ctx)
{
	struct rename_ctx rc;
	struct profile *n, tmp;
	size_t g;

	n = profile__new(p->names);
	if (!n)
		return -ENOMEM;
	n->meta = p->meta;
	n->max_stacks = p->max_stacks > p->nstacks ? p->max_stacks : p->nstacks;
	n->max_frames = p->max_frames > p->nframes ? p->max_frames : p->nframes;
	memset(&rc, 0, sizeof(rc));
	rc.to = n;
	rc.rename = rename;
	rc.rctx = ctx;
	for (g = 0; g < p->ngroups && !rc.err; g++) {
		rc.key = &p->groups[g].key;
		profile__foreach_stack(p, g, readd_stack, &rc);
	}
	free(rc.buf);
	if (rc.err) {
		profile__delete(n);
		return rc.err;
	}
	/* the same samples, differently named: the accounting carries over */
	n->samples = p->samples;
	n->dropped = p->dropped;
	n->max_stacks = p->max_stacks;
	n->max_frames = p->max_frames;
	tmp = *p;
	*p = *n;
	*n = tmp;
	profile__delete(n);
	return 0;
}
