/* The Go row of the runtime table. A Go program is recognised by its
 * sections; its pc-line table (runtimes/gobinary.h) gives its roots and,
 * where the binary has no CFI, its frames' sizes. An instance on a process
 * joins the samples that ended at a g0 stack switch to the goroutine they
 * work for (runtimes/gojoin.h). Names are the symbolizer's, from the same
 * table (symbolize/symindex.c), so a stripped binary names as its
 * unstripped twin. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "common/strtab_remap.h"
#include "runtimes/elf_symbols.h"
#include "runtimes/gobinary.h"
#include "runtimes/gojoin.h"
#include "runtimes/gostack.h"
#include "runtimes/readers.h"

struct go_instance {
	const struct gobinary *g;
	struct memsource mem;
	struct gojoin_process proc;
	struct gojoin *join;
};

static int recognise(const struct runtime_file *f, void **data)
{
	struct gobinary *g;
	int err;

	if (!elf_symbols__has_section(f->elf, gostack__is_go_section))
		return 0;
	err = gobinary__new(f->elf, &g);
	if (err)
		return err;
	*data = g;
	return 1;
}

static void free_data(void *data)
{
	gobinary__delete(data);
}

static void describe_file(const void *data, uint64_t vaddr, struct unwind_module *out)
{
	gobinary__describe(data, vaddr, out);
}

static int open_instance(const struct runtime_process *p, void **inst)
{
	const struct gobinary *g = p->data;
	struct go_instance *in;

	/* nothing to join without the binary's table */
	if (!g || !g->table)
		return -ENOTSUP;
	in = calloc(1, sizeof(*in));
	if (!in || gojoin__new(&in->join) != 0) {
		free(in);
		return -ENOMEM;
	}
	in->g = g;
	in->mem = p->mem;
	in->proc.g = g;
	in->proc.bias = p->bias;
	in->proc.mem = &in->mem;
	in->proc.names = p->names;
	*inst = in;
	return 0;
}

static void close_instance(void *inst)
{
	struct go_instance *in = inst;

	if (!in)
		return;
	gojoin__delete(in->join);
	free(in);
}

static int read_stack(void *inst, const struct runtime_sample *s, struct runtime_stack *out)
{
	struct go_instance *in = inst;

	return gojoin__read(in->join, &in->proc, s, out);
}

/* The instance holds no frame ids between samples: only where it
 * interns them. */
static int remap_names(void *inst, struct strtab_remap *r)
{
	struct go_instance *in = inst;

	if (r->commit)
		in->proc.names = r->to;
	return 0;
}

static void counters(const void *inst, struct runtime_counters *out)
{
	const struct go_instance *in = inst;
	struct gojoin_stats st;

	gojoin__stats(in->join, &st);
	out->reads = in->mem.reads;
	out->failures = st.failures;
}

const struct runtime_reader runtime_go = {
	.name = "go",
	.recognise = recognise,
	.free_data = free_data,
	.describe_file = describe_file,
	.open = open_instance,
	.close = close_instance,
	.read_stack = read_stack,
	.remap_names = remap_names,
	.counters = counters,
};
