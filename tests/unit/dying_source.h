/* A memory source for reader tests: an image (runtimes/memsource.h) read
 * until `left` reads are spent, then failing as a process that exited
 * does (-ESRCH), for fuzz tests of processes exiting mid-read. */
#ifndef SMOLDER_TESTS_DYING_SOURCE_H
#define SMOLDER_TESTS_DYING_SOURCE_H
#include <errno.h>
#include <string.h>

#include "runtimes/memsource.h"

struct dying {
	struct memimage *img;
	int left;
};

static inline int dying_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct dying *d = ctx;
	struct memsource m;

	if (d->left-- <= 0)
		return -ESRCH;
	memsource__image(&m, d->img);
	return m.read(m.ctx, addr, buf, len);
}

/* m reads d's image one read at a time (no readv), charged to nobody. */
static inline void dying_source(struct memsource *m, struct dying *d)
{
	memset(m, 0, sizeof(*m));
	m->read = dying_read;
	m->ctx = d;
}

#endif
