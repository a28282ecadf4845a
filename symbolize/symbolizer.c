/* pc -> frame names: binaries' symbol indexes, JIT perf maps, kallsyms. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "profile/frame_name.h"
#include "runtimes/runtime.h"
#include "symbolize/jitnames.h"
#include "symbolize/kallsyms.h"
#include "symbolize/kallsyms_cache.h"
#include "symbolize/inlines.h"
#include "symbolize/symbolizer.h"
#include "symbolize/symindex.h"

struct symbolizer {
	struct strtab *names;
	struct kallsyms *ksyms; /* NULL: kernel frames are "[kernel]_[k]" */
	struct jitnames *jit;
	uint32_t id_unknown, id_kernel, id_truncated, id_signal;
};

int symbolizer__new(struct strtab *names, struct cachedir *cache, int kernel,
		    struct symbolizer **out)
{
	struct symbolizer *sz = calloc(1, sizeof(*sz));

	if (!sz)
		return -ENOMEM;
	sz->names = names;
	if (strtab__intern_cstr(names, "[unknown]", &sz->id_unknown) < 0 ||
	    strtab__intern_cstr(names, "[kernel]_[k]", &sz->id_kernel) < 0 ||
	    strtab__intern_cstr(names, FRAME_TRUNCATED, &sz->id_truncated) < 0 ||
	    strtab__intern_cstr(names, "[signal]", &sz->id_signal) < 0 ||
	    jitnames__new(names, sz->id_unknown, &sz->jit) < 0) {
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

void symbolizer__delete(struct symbolizer *sz)
{
	if (!sz)
		return;
	jitnames__delete(sz->jit);
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

void symbolizer__set_lines(int on)
{
	inlines__set_lines(on);
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
	/* a runtime's code, named from its own description; what it cannot
	 * name falls to its perf map, as other JIT code */
	if (code->reader && code->reader->name_frame) {
		struct runtime_frame f = { .pc = pc, .slot = code->slot, .exact = code->exact != 0,
					   .now_ns = code->now_ns, .bcp = code->bcp };

		if (code->reader->name_frame(code->instance, &f, out, max, n) == 0)
			return 0;
	}
	/* anonymous memory, or a file that is no ELF (a memfd JITs map twice):
	 * JIT code if the process's perf map or jitdump names it; anonymous
	 * code they do not name yet stays pending until the window's end */
	*n = 1;
	if (code->path || code->module_frame) {
		if (jitnames__lookup(sz->jit, proc->pid, proc->jitdump, pc, now_ns, 0,
				     &out[0]) == 0)
			return 0;
		out[0] = module_frame(sz, code);
		return 0;
	}
	if (jitnames__lookup(sz->jit, proc->pid, proc->jitdump, pc, now_ns, 1, &out[0]) != 0)
		out[0] = sz->id_unknown;
	return 0;
}

void symbolizer__set_budget(struct symbolizer *sz, struct loadbudget *budget)
{
	jitnames__set_budget(sz->jit, budget);
}

void symbolizer__forget_process(struct symbolizer *sz, int pid)
{
	jitnames__forget(sz->jit, pid);
}

void symbolizer__forget_gone(struct symbolizer *sz)
{
	(void)jitnames__forget_gone(sz->jit);
}

size_t symbolizer__settle(struct symbolizer *sz)
{
	return jitnames__settle(sz->jit);
}

uint32_t symbolizer__renamed(void *ctx, uint32_t id)
{
	return jitnames__renamed(((struct symbolizer *)ctx)->jit, id);
}

void symbolizer__clear_renames(struct symbolizer *sz)
{
	jitnames__clear_renames(sz->jit);
}

void symbolizer__stats(const struct symbolizer *sz, struct symbolizer_stats *out)
{
	out->ksym_lookups = out->ksym_hits = out->ksym_evictions = 0;
	out->jit_processes = 0;
	if (sz->ksyms) {
		struct kallsyms_stats ks;

		kallsyms__stats(sz->ksyms, &ks);
		out->ksym_lookups = ks.lookups;
		out->ksym_hits = ks.hits;
		out->ksym_evictions = ks.evictions;
	}
	out->jit_processes = jitnames__processes(sz->jit);
	out->load_cpu_ns = jitnames__load_cpu_ns(sz->jit);
}

int symbolizer__remap_names(struct symbolizer *sz, struct strtab_remap *r)
{
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
	if (!err)
		err = jitnames__remap_names(sz->jit, r);
	if (!err && r->commit)
		sz->names = r->to;
	return err;
}
