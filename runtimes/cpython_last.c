/* Each thread's Python stack as last placed, by TID. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "runtimes/cpython_last.h"
#include "runtimes/cpython_state.h"

/* A thread's stack as last placed. */
struct thread_last {
	size_t n;
	struct cpython_frame f[];
};

struct cpython_last {
	struct u64map *by_tid; /* tid -> struct thread_last * */
};

struct cpython_last *cpython_last__new(void)
{
	struct cpython_last *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->by_tid = u64map__new(16);
	if (!l->by_tid) {
		cpython_last__delete(l);
		return NULL;
	}
	return l;
}

void cpython_last__delete(struct cpython_last *l)
{
	size_t pos = 0;
	uint64_t tid, v;

	if (!l)
		return;
	while (l->by_tid && u64map__next(l->by_tid, &pos, &tid, &v))
		free((void *)(uintptr_t)v);
	u64map__delete(l->by_tid);
	free(l);
}

void cpython_last__keep(struct cpython_last *l, int tid, const struct cpython_placed *pl, size_t nev)
{
	struct thread_last *last = NULL, *grown;
	uint64_t v;
	bool had = u64map__get(l->by_tid, (uint64_t)tid, &v);
	size_t k, j, n = 0;

	if (had)
		last = (struct thread_last *)(uintptr_t)v;
	else if (u64map__count(l->by_tid) >= CPYTHON_MAX_THREADS)
		return;
	if (!pl->n)
		return;
	if (!last || last->n < pl->n) {
		grown = realloc(last, sizeof(*last) + pl->n * sizeof(last->f[0]));
		if (!grown)
			return;
		last = grown;
		if (u64map__put(l->by_tid, (uint64_t)tid, (uint64_t)(uintptr_t)last) != 0) {
			if (!had)
				free(last);
			else
				(void)u64map__del(l->by_tid, (uint64_t)tid);
			return;
		}
	}
	/* each native call's frames end its group */
	for (k = 0; k < nev; k++)
		for (j = 0; j < pl->count[k] && n < pl->n; j++) {
			last->f[n] = pl->frames[pl->first[k] + j];
			last->f[n++].entry_end = j + 1 == pl->count[k];
		}
	last->n = n;
}

const struct cpython_frame *cpython_last__frames(const struct cpython_last *l, int tid, size_t *n)
{
	const struct thread_last *last;
	uint64_t v;

	if (!u64map__get(l->by_tid, (uint64_t)tid, &v))
		return NULL;
	last = (const struct thread_last *)(uintptr_t)v;
	*n = last->n;
	return last->f;
}

int cpython_last__remap(struct cpython_last *l, struct strtab_remap *r)
{
	size_t pos = 0, j;
	uint64_t tid, v;

	while (u64map__next(l->by_tid, &pos, &tid, &v)) {
		struct thread_last *last = (struct thread_last *)(uintptr_t)v;

		for (j = 0; j < last->n; j++)
			if (last->f[j].name && strtab_remap__id(r, &last->f[j].name))
				return -ENOMEM;
	}
	return 0;
}
