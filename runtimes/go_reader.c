/* The Go row of the runtime table: a Go program is recognised by its
 * sections, and its runtime's roots and stack switches (runtimes/gostack.h)
 * become the roots of its unwind module, read once from its symbol table. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/elf_symbols.h"
#include "runtimes/gostack.h"
#include "runtimes/readers.h"

/* Functions of Go's runtime where stacks end: a handful. */
#define GO_MAX_ROOTS 16

struct go_binary {
	struct unwind_root roots[GO_MAX_ROOTS]; /* sorted by start */
	size_t nroots;
};

static int cmp_root(const void *a, const void *b)
{
	const struct unwind_root *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int add_root(void *arg, const GElf_Sym *sym, const char *name)
{
	struct go_binary *g = arg;
	enum gostack_kind kind;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_size ||
	    strncmp(name, "runtime.", 8) != 0)
		return 0;
	kind = gostack__kind(name, strlen(name));
	if (kind == GOSTACK_NONE)
		return 0;
	g->roots[g->nroots].start = sym->st_value;
	g->roots[g->nroots].end = sym->st_value + sym->st_size;
	g->roots[g->nroots].kind = kind == GOSTACK_ROOT ? UNWIND_ROOT : UNWIND_ROOT_AS_CALLER;
	return ++g->nroots == GO_MAX_ROOTS;
}

static int recognise(const struct runtime_file *f, void **data)
{
	struct go_binary *g;

	if (!elf_symbols__has_section(f->elf, gostack__is_go_section))
		return 0;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	elf_symbols__each(f->elf, SHT_SYMTAB, add_root, g);
	qsort(g->roots, g->nroots, sizeof(*g->roots), cmp_root);
	*data = g;
	return 1;
}

static void free_data(void *data)
{
	free(data);
}

static void describe_file(const void *data, uint64_t vaddr, struct unwind_module *out)
{
	const struct go_binary *g = data;

	(void)vaddr;
	out->roots = g->nroots ? g->roots : NULL;
	out->nroots = g->nroots;
}

const struct runtime_reader runtime_go = {
	.name = "go",
	.recognise = recognise,
	.free_data = free_data,
	.describe_file = describe_file,
};
