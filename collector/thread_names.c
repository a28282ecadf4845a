/* Thread names of one process: tid -> interned comm, bounded. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "collector/thread_names.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/selfusage.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"

#define NS_PER_SEC 1000000000ull

struct thread_names {
	struct u64map *by_tid; /* tid -> name id */
	uint64_t overflows;
	uint64_t reads_since_ns; /* start of the current second of reads */
	unsigned reads;          /* reads in it */
};

struct thread_names *thread_names__new(void)
{
	struct thread_names *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->by_tid = u64map__new(8);
	if (!t->by_tid) {
		free(t);
		return NULL;
	}
	return t;
}

void thread_names__delete(struct thread_names *t)
{
	if (!t)
		return;
	u64map__delete(t->by_tid);
	free(t);
}

int thread_names__set(struct thread_names *t, int tid, uint32_t name)
{
	uint64_t old;

	if (!name)
		return 0;
	if (!u64map__get(t->by_tid, (uint64_t)(uint32_t)tid, &old) &&
	    u64map__count(t->by_tid) >= THREAD_NAMES_MAX) {
		u64map__clear(t->by_tid);
		t->overflows++;
	}
	return u64map__put(t->by_tid, (uint64_t)(uint32_t)tid, name);
}

uint32_t thread_names__get(const struct thread_names *t, int tid)
{
	uint64_t v;

	if (!t || !u64map__get(t->by_tid, (uint64_t)(uint32_t)tid, &v))
		return 0;
	return (uint32_t)v;
}

void thread_names__forget(struct thread_names *t, int tid)
{
	if (t)
		u64map__del(t->by_tid, (uint64_t)(uint32_t)tid);
}

void thread_names__clear(struct thread_names *t)
{
	if (t)
		u64map__clear(t->by_tid);
}

size_t thread_names__count(const struct thread_names *t)
{
	return t ? u64map__count(t->by_tid) : 0;
}

uint64_t thread_names__overflows(const struct thread_names *t)
{
	return t ? t->overflows : 0;
}

int thread_names__may_read(struct thread_names *t, uint64_t now_ns)
{
	if (now_ns < t->reads_since_ns || now_ns - t->reads_since_ns >= NS_PER_SEC) {
		t->reads_since_ns = now_ns;
		t->reads = 0;
	}
	if (t->reads >= THREAD_NAMES_READS_PER_SEC)
		return 0;
	t->reads++;
	return 1;
}

int thread_names__read(struct strtab *names, int pid, int tid, uint32_t *name)
{
	char path[64], buf[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	n = fileio__read_small(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	return strtab__intern(names, buf, (size_t)n, name);
}

uint32_t thread_names__lookup(struct thread_names *t, struct strtab *names, int pid, int tid,
			      uint64_t *load_ns)
{
	uint32_t name = thread_names__get(t, tid);
	uint64_t t0;

	if (name || !t || !thread_names__may_read(t, clock__mono_ns()))
		return name;
	t0 = selfusage__thread_cpu_ns();
	if (thread_names__read(names, pid, tid, &name) < 0)
		name = 0;
	else
		thread_names__set(t, tid, name);
	*load_ns += selfusage__thread_cpu_ns() - t0;
	return name;
}

int thread_names__remap(struct thread_names *t, struct strtab_remap *r)
{
	return t ? strtab_remap__map_values(r, t->by_tid) : 0;
}
