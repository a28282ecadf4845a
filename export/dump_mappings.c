/* The binaries one profile window's frames name (dump_mappings.h): every
 * distinct frame of its stacks parsed once. */
#include "config.h"

#include <errno.h>
#include <stdint.h>

#include "common/strtab.h"
#include "common/u64map.h"
#include "export/dump_mappings.h"
#include "profile/frame_name.h"
#include "profile/mappings.h"
#include "profile/profile.h"

/* Names sharing one module: more than this are marked as the first ones. */
#define SAME_NAME_MAX 64

struct used_ctx {
	const struct strtab *names;
	const struct mappings *m;
	struct u64map *seen; /* frame ids parsed */
	bool *used;
	long n;
	int err;
};

static void mark(struct used_ctx *c, uint32_t frame)
{
	struct frame_parts fp;
	size_t idx[SAME_NAME_MAX], k, n;
	uint64_t v;

	if (u64map__get(c->seen, frame, &v))
		return;
	if (u64map__put(c->seen, frame, 1) != 0) {
		c->err = -ENOMEM;
		return;
	}
	frame_name__parse(strtab__str(c->names, frame), &fp);
	if (fp.kind != FRAME_MODULE_OFFSET && fp.kind != FRAME_BRACKETED)
		return;
	n = mappings__named(c->m, fp.module, fp.module_len, idx, SAME_NAME_MAX);
	for (k = 0; k < n && k < SAME_NAME_MAX; k++)
		if (!c->used[idx[k]]) {
			c->used[idx[k]] = true;
			c->n++;
		}
}

static int each_stack(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct used_ctx *c = ctx;
	size_t i;

	(void)count;
	for (i = 0; i < n && !c->err; i++)
		mark(c, frames[i]);
	return c->err;
}

long dump_mappings__used(const struct profile *p, bool *used)
{
	struct used_ctx c = { profile__names(p), profile__meta_const(p)->mappings, NULL, used, 0, 0 };
	size_t g, ng = profile__ngroups(p);

	if (!mappings__count(c.m))
		return 0;
	c.seen = u64map__new(1024);
	if (!c.seen)
		return -ENOMEM;
	for (g = 0; g < ng && !c.err; g++)
		(void)profile__foreach_stack(p, g, each_stack, &c);
	u64map__delete(c.seen);
	return c.err ? c.err : c.n;
}
