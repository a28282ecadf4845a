/* pc -> frame names: binaries' symbol indexes, JIT perf maps, kallsyms. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "profile/frame_name.h"
#include "symbolize/kallsyms.h"
#include "symbolize/kallsyms_cache.h"
#include "symbolize/perfmap.h"
#include "symbolize/symbolizer.h"
#include "symbolize/symindex.h"

/* A pc past what a perf map names is looked up again at most this often per
 * process (JITs append to the map as they compile). */
#define JIT_RELOAD_INTERVAL_NS 1000000000ull

/* A process's JIT state. */
struct jit {
	struct perfmap *map; /* NULL until a map was read */
	uint64_t loaded_ns;  /* last (re)load attempt */
	int tried;
};

struct symbolizer {
	struct strtab *names;
	struct kallsyms *ksyms; /* NULL: kernel frames are "[kernel]_[k]" */
	struct u64map *jits;    /* pid -> struct jit * */
	uint32_t id_unknown, id_kernel, id_truncated, id_signal;
};

int symbolizer__new(struct strtab *names, struct cachedir *cache, int kernel,
		    struct symbolizer **out)
{
	struct symbolizer *sz = calloc(1, sizeof(*sz));

	if (!sz)
		return -ENOMEM;
	sz->names = names;
	sz->jits = u64map__new(64);
	if (!sz->jits || strtab__intern_cstr(names, "[unknown]", &sz->id_unknown) < 0 ||
	    strtab__intern_cstr(names, "[kernel]_[k]", &sz->id_kernel) < 0 ||
	    strtab__intern_cstr(names, "[truncated]", &sz->id_truncated) < 0 ||
	    strtab__intern_cstr(names, "[signal]", &sz->id_signal) < 0) {
		symbolizer__delete(sz);
		return -ENOMEM;
	}
	/* from the cache file while the boot and the modules are the same;
	 * without a table, kernel frames are only "[kernel]_[k]" */
	if (kernel && kallsyms_cache__load(NULL, cache, names, &sz->ksyms, NULL) < 0)
		sz->ksyms = NULL;
	*out = sz;
	return 0;
}

static void jit_delete(struct jit *j)
{
	if (!j)
		return;
	perfmap__delete(j->map);
	free(j);
}

void symbolizer__delete(struct symbolizer *sz)
{
	size_t pos = 0;
	uint64_t k, v;

	if (!sz)
		return;
	while (sz->jits && u64map__next(sz->jits, &pos, &k, &v))
		jit_delete((struct jit *)(uintptr_t)v);
	u64map__delete(sz->jits);
	kallsyms__delete(sz->ksyms);
	free(sz);
}

uint32_t symbolizer__unknown(const struct symbolizer *sz)
{
	return sz->id_unknown;
}

uint32_t symbolizer__truncated(const struct symbolizer *sz)
{
	return sz->id_truncated;
}

uint32_t symbolizer__kernel(struct symbolizer *sz, uint64_t pc)
{
	uint32_t id;

	if (sz->ksyms && kallsyms__lookup(sz->ksyms, pc, &id) == 0)
		return id;
	return sz->id_kernel;
}

static struct jit *jit_of(struct symbolizer *sz, int pid)
{
	struct jit *j;
	uint64_t v;

	if (u64map__get(sz->jits, (uint64_t)(uint32_t)pid, &v))
		return (struct jit *)(uintptr_t)v;
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	if (u64map__put(sz->jits, (uint64_t)(uint32_t)pid, (uint64_t)(uintptr_t)j) < 0) {
		free(j);
		return NULL;
	}
	return j;
}

/* A pc outside every file mapping: JIT code, named from the process's perf
 * map. On a miss the map is read again (at most once a second per process,
 * and only when the file changed): JITs append to it as they compile. */
static int jit_frame(struct symbolizer *sz, const struct symbolize_process *proc, uint64_t pc,
		     uint64_t now_ns, uint32_t *id)
{
	struct jit *j = jit_of(sz, proc->pid);
	char path[128];

	if (!j)
		return -ENOMEM;
	if (j->map && perfmap__lookup(j->map, pc, id) == 0)
		return 0;
	if (j->tried && now_ns - j->loaded_ns <= JIT_RELOAD_INTERVAL_NS)
		return -ENOENT;
	j->tried = 1;
	j->loaded_ns = now_ns;
	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", proc->pid, proc->pid);
	if (perfmap__refresh(path, proc->uid, sz->names, &j->map) > 0 &&
	    perfmap__lookup(j->map, pc, id) == 0)
		return 0;
	return -ENOENT;
}

/* "[module]" for a pc of a file nothing names. */
static uint32_t module_frame(struct symbolizer *sz, const struct symbolize_code *code)
{
	uint32_t id;

	if (code->module_frame)
		return code->module_frame;
	/* no binary object at all (out of memory when it was made): rare */
	if (frame_name__module(sz->names, strtab__str(sz->names, code->path), &id) < 0)
		return sz->id_unknown;
	return id;
}

int symbolizer__user(struct symbolizer *sz, const struct symbolize_process *proc, uint64_t pc,
		     const struct symbolize_code *code, uint64_t now_ns, uint32_t *out, size_t max,
		     size_t *n)
{
	if (max == 0)
		return -EINVAL;
	*n = 0;
	if (code->signal_frame) {
		out[(*n)++] = sz->id_signal;
		return 0;
	}
	if (code->index) {
		if (symindex__lookup(code->index, code->vaddr, code->func_start, out, max, n) == 0 &&
		    *n > 0)
			return 0;
		out[0] = module_frame(sz, code);
		*n = 1;
		return 0;
	}
	/* anonymous memory, or a file that is no ELF (a memfd JITs map twice):
	 * JIT code if the process's perf map names it */
	*n = 1;
	if (jit_frame(sz, proc, pc, now_ns, &out[0]) == 0)
		return 0;
	out[0] = code->path || code->module_frame ? module_frame(sz, code) : sz->id_unknown;
	return 0;
}

void symbolizer__forget_process(struct symbolizer *sz, int pid)
{
	uint64_t v;

	if (!u64map__get(sz->jits, (uint64_t)(uint32_t)pid, &v))
		return;
	u64map__del(sz->jits, (uint64_t)(uint32_t)pid);
	jit_delete((struct jit *)(uintptr_t)v);
}

void symbolizer__stats(const struct symbolizer *sz, struct symbolizer_stats *out)
{
	size_t pos = 0;
	uint64_t k, v;

	out->ksym_lookups = out->ksym_hits = out->ksym_evictions = 0;
	out->jit_processes = 0;
	if (sz->ksyms) {
		struct kallsyms_stats ks;

		kallsyms__stats(sz->ksyms, &ks);
		out->ksym_lookups = ks.lookups;
		out->ksym_hits = ks.hits;
		out->ksym_evictions = ks.evictions;
	}
	while (u64map__next(sz->jits, &pos, &k, &v))
		out->jit_processes += ((struct jit *)(uintptr_t)v)->map != NULL;
}

int symbolizer__remap_names(struct symbolizer *sz, struct strtab_remap *r)
{
	size_t pos = 0;
	uint64_t k, v;
	int err;

	err = strtab_remap__id(r, &sz->id_unknown);
	if (!err)
		err = strtab_remap__id(r, &sz->id_kernel);
	if (!err)
		err = strtab_remap__id(r, &sz->id_truncated);
	if (!err)
		err = strtab_remap__id(r, &sz->id_signal);
	if (!err && sz->ksyms)
		err = kallsyms__remap_names(sz->ksyms, r);
	while (!err && u64map__next(sz->jits, &pos, &k, &v)) {
		struct jit *j = (struct jit *)(uintptr_t)v;

		if (j->map)
			err = perfmap__remap_names(j->map, r);
	}
	if (!err && r->commit)
		sz->names = r->to;
	return err;
}
