/* What a binary's symbol tables say about the runtimes in it: where Go
 * stacks end, the self-description tables a JVM exports, where CPython's
 * interpreter keeps its state and runs its eval loop. */
#include "config.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "collector/binary_impl.h"
#include "runtimes/gostack.h"
#include "unwind/unwind.h"

/* Go programs: their .gopclntab or .go.buildinfo section says so. */
static int is_go(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    gostack__is_go_section(name))
			return 1;
	}
	return 0;
}

static int cmp_root(const void *a, const void *b)
{
	const struct unwind_root *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Calls fn with each named symbol of the binary's sections of type
 * sh_type (SHT_SYMTAB, SHT_DYNSYM) until it returns nonzero. */
static void each_symbol(struct binary *b, Elf64_Word sh_type,
			int (*fn)(void *arg, const GElf_Sym *sym, const char *name), void *arg)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(b->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (gelf_getsym(d, (int)i, &sym) &&
			    (name = elf_strptr(b->elf, sh.sh_link, sym.st_name)) != NULL &&
			    fn(arg, &sym, name))
				return;
		}
	}
}

static int go_root(void *arg, const GElf_Sym *sym, const char *name)
{
	struct binary *b = arg;
	enum gostack_kind kind;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_size ||
	    strncmp(name, "runtime.", 8) != 0)
		return 0;
	kind = gostack__kind(name, strlen(name));
	if (kind == GOSTACK_NONE)
		return 0;
	b->roots[b->nroots].start = sym->st_value;
	b->roots[b->nroots].end = sym->st_value + sym->st_size;
	b->roots[b->nroots].kind = kind == GOSTACK_ROOT ? UNWIND_ROOT : UNWIND_ROOT_AS_CALLER;
	return ++b->nroots == MAX_ROOTS;
}

/* The functions of the symbol table where a Go stack ends. */
static void load_go_roots(struct binary *b)
{
	each_symbol(b, SHT_SYMTAB, go_root, b);
	qsort(b->roots, b->nroots, sizeof(*b->roots), cmp_root);
}

struct wanted_symbols {
	const char *const *names;
	uint64_t *vaddrs;
	size_t n, found;
};

static int wanted_symbol(void *arg, const GElf_Sym *sym, const char *name)
{
	struct wanted_symbols *w = arg;
	size_t k;

	if (sym->st_shndx == SHN_UNDEF || GELF_ST_TYPE(sym->st_info) != STT_OBJECT)
		return 0;
	for (k = 0; k < w->n; k++)
		if (!w->vaddrs[k] && strcmp(name, w->names[k]) == 0) {
			w->vaddrs[k] = sym->st_value;
			w->found++;
		}
	return w->found == w->n;
}

int binary__find_symbols(struct binary *b, const char *const *names, size_t n, uint64_t *vaddrs)
{
	struct wanted_symbols w = { names, vaddrs, n, 0 };
	size_t k;

	for (k = 0; k < n; k++)
		vaddrs[k] = 0;
	/* exported symbols are in .dynsym, which stripping keeps */
	if (b->is_elf && n)
		each_symbol(b, SHT_DYNSYM, wanted_symbol, &w);
	return (int)w.found;
}

size_t binary__roots(struct binary *b, const struct unwind_root **roots)
{
	if (!b->roots_tried) {
		b->roots_tried = 1;
		if (b->is_elf && is_go(b->elf)) {
			b->roots = calloc(MAX_ROOTS, sizeof(*b->roots));
			if (b->roots)
				load_go_roots(b);
		}
	}
	*roots = b->roots;
	return b->nroots;
}


/* CPython's symbols, by what they are for. */
enum { PY_RUNTIME, PY_INTERP_HEAD, PY_TSTATE_CURRENT, PY_CODE_TYPE, PY_EVAL_DEFAULT, PY_EVAL_EX, PY_NSYMS };
static const char *const cpython_names[PY_NSYMS] = {
	[PY_RUNTIME] = "_PyRuntime",
	[PY_INTERP_HEAD] = "interp_head",
	[PY_TSTATE_CURRENT] = "_PyThreadState_Current",
	[PY_CODE_TYPE] = "PyCode_Type",
	[PY_EVAL_DEFAULT] = "_PyEval_EvalFrameDefault",
	[PY_EVAL_EX] = "PyEval_EvalFrameEx",
};

struct cpython_syms {
	GElf_Sym sym[PY_NSYMS];
	size_t found;
};

static int cpython_symbol(void *arg, const GElf_Sym *sym, const char *name)
{
	struct cpython_syms *w = arg;
	size_t k;

	if (sym->st_shndx == SHN_UNDEF || name[0] == 0 ||
	    (name[0] != '_' && name[0] != 'P' && name[0] != 'i'))
		return 0;
	for (k = 0; k < PY_NSYMS; k++)
		if (!w->sym[k].st_value && strcmp(name, cpython_names[k]) == 0) {
			w->sym[k] = *sym;
			w->found++;
		}
	return w->found == PY_NSYMS;
}

static void find_cpython(struct binary *b)
{
	struct binary_cpython *c = &b->cpython;
	struct cpython_syms w;
	const GElf_Sym *eval;

	memset(&w, 0, sizeof(w));
	each_symbol(b, SHT_DYNSYM, cpython_symbol, &w);
	/* no eval loop exported: not an interpreter (most binaries stop here) */
	if (!w.sym[PY_EVAL_DEFAULT].st_value && !w.sym[PY_EVAL_EX].st_value)
		return;
	if (!w.sym[PY_RUNTIME].st_value && !w.sym[PY_INTERP_HEAD].st_value)
		each_symbol(b, SHT_SYMTAB, cpython_symbol, &w);
	eval = w.sym[PY_EVAL_DEFAULT].st_value ? &w.sym[PY_EVAL_DEFAULT] : &w.sym[PY_EVAL_EX];
	if (!eval->st_size || !w.sym[PY_CODE_TYPE].st_value ||
	    (!w.sym[PY_RUNTIME].st_value && !w.sym[PY_INTERP_HEAD].st_value &&
	     !w.sym[PY_TSTATE_CURRENT].st_value))
		return;
	c->runtime = w.sym[PY_RUNTIME].st_value;
	c->interp_head = w.sym[PY_INTERP_HEAD].st_value;
	c->tstate_current = w.sym[PY_TSTATE_CURRENT].st_value;
	c->code_type = w.sym[PY_CODE_TYPE].st_value;
	c->eval_start = eval->st_value;
	c->eval_end = eval->st_value + eval->st_size;
	b->cpython_found = 1;
}

const struct binary_cpython *binary__cpython(struct binary *b)
{
	if (!b->cpython_tried) {
		b->cpython_tried = 1;
		if (b->is_elf)
			find_cpython(b);
	}
	return b->cpython_found ? &b->cpython : NULL;
}
