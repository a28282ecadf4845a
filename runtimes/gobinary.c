/* A Go binary's facts: its table, its roots, its frames' sizes. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/elf_symbols.h"
#include "runtimes/gobinary.h"
#include "runtimes/gostack.h"

/* SP deltas cached per binary: a direct-mapped array; hot loops sample
 * the same few hundred pcs. */
#define SPCACHE_SLOTS 4096

struct spslot {
	uint64_t vaddr;   /* + 1: 0 is an empty slot */
	uint32_t bytes;   /* frame bytes, 0: the table says nothing */
};

/* The longest name of a root or switch ("runtime.systemstack.abi0"). */
#define ROOT_NAME_MAX 32

/* A slot's bytes for a function whose sp the deltas do not follow. */
#define SPWRITE_BYTES UINT32_MAX

struct gobinary_spcache {
	struct spslot slot[SPCACHE_SLOTS];
};

static int cmp_root(const void *a, const void *b)
{
	const struct unwind_root *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void add_root(struct gobinary *g, const char *name, uint64_t start, uint64_t end)
{
	enum gostack_kind kind;

	if (g->nroots == GOBINARY_MAX_ROOTS || strncmp(name, "runtime.", 8) != 0 || end <= start)
		return;
	kind = gostack__kind(name, strlen(name));
	if (kind == GOSTACK_NONE)
		return;
	g->roots[g->nroots].start = start;
	g->roots[g->nroots].end = end;
	g->roots[g->nroots].kind = kind == GOSTACK_ROOT ? UNWIND_ROOT : UNWIND_ROOT_AS_CALLER;
	g->nroots++;
}

/* Without a table: the roots the symbol table names. */
static int symtab_root(void *arg, const GElf_Sym *sym, const char *name)
{
	struct gobinary *g = arg;

	if (GELF_ST_TYPE(sym->st_info) == STT_FUNC && sym->st_size)
		add_root(g, name, sym->st_value, sym->st_value + sym->st_size);
	return g->nroots == GOBINARY_MAX_ROOTS;
}

static void table_roots(struct gobinary *g)
{
	size_t i, n = gopclntab__count(g->table);

	for (i = 0; i < n && g->nroots < GOBINARY_MAX_ROOTS; i++) {
		struct gopclntab_func f;
		const char *name;

		/* the roots' names are short: a hostile table's long names
		 * cost a few bytes each, not a name's worth */
		if (gopclntab__func(g->table, i, &f) == 0 &&
		    (name = gopclntab__short_name(g->table, &f, ROOT_NAME_MAX)))
			add_root(g, name, f.entry, f.end);
	}
}

/* The table's facts into g (which owns it from now on). */
static int take_table(struct gobinary *g, struct gopclntab *t)
{
	g->table = t;
	g->cache = calloc(1, sizeof(*g->cache));
	if (!g->cache)
		return -ENOMEM;
	gopclntab__range(t, &g->text_lo, &g->text_hi);
	table_roots(g);
	g->joins = golayout__for(&g->info.version, &g->layout) == 0;
	qsort(g->roots, g->nroots, sizeof(*g->roots), cmp_root);
	return 0;
}

int gobinary__from_table(struct gopclntab *t, const struct goversion *v, struct gobinary **out)
{
	struct gobinary *g = calloc(1, sizeof(*g));

	if (!g) {
		gopclntab__delete(t);
		return -ENOMEM;
	}
	g->info.version = *v;
	if (take_table(g, t) != 0) {
		gobinary__delete(g);
		return -ENOMEM;
	}
	*out = g;
	return 0;
}

/* The code section holding the table's first function: call sites are
 * read there (the Elf's data: valid as long as the binary is loaded). */
static void find_code(Elf *elf, struct gobinary *g)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || g->text_lo < sh.sh_addr ||
		    g->text_lo >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size == sh.sh_size) {
			g->code = d->d_buf;
			g->code_vaddr = sh.sh_addr;
			g->code_size = d->d_size;
		}
		return;
	}
}

int gobinary__new(Elf *elf, struct gobinary **out)
{
	struct gobinary *g = calloc(1, sizeof(*g));
	struct gopclntab *t;

	if (!g)
		return -ENOMEM;
	if (gopclntab_elf__open(elf, &t, &g->info) == 0) {
		if (take_table(g, t) != 0) {
			gobinary__delete(g);
			return -ENOMEM;
		}
		find_code(elf, g);
	} else {
		elf_symbols__each(elf, SHT_SYMTAB, symtab_root, g);
		qsort(g->roots, g->nroots, sizeof(*g->roots), cmp_root);
	}
	*out = g;
	return 0;
}

void gobinary__delete(struct gobinary *g)
{
	if (!g)
		return;
	gopclntab__delete(g->table);
	free(g->cache);
	free(g);
}

int gobinary__frame_bytes(const struct gobinary *g, uint64_t vaddr, uint32_t *bytes)
{
	struct spslot *sl;
	struct gopclntab_func f;
	uint32_t delta;

	if (!g->table || vaddr < g->text_lo || vaddr >= g->text_hi)
		return -ENOENT;
	sl = &g->cache->slot[(vaddr ^ (vaddr >> 12)) % SPCACHE_SLOTS];
	if (sl->vaddr != vaddr + 1) {
		sl->vaddr = vaddr + 1;
		sl->bytes = 0;
		if (gopclntab__find(g->table, vaddr, &f) == 0) {
			/* a function that moves sp where its deltas do not say:
			 * its frame cannot be stepped over (0: the stack ends) */
			if ((gopclntab__flags(g->table, &f) & GOPCLNTAB_FLAG_SPWRITE) &&
			    !gobinary__is_switch(g, vaddr))
				sl->bytes = SPWRITE_BYTES;
			else if (gopclntab__spdelta(g->table, &f, vaddr, &delta) == 0)
				sl->bytes = delta + 8;
		}
	}
	if (!sl->bytes)
		return -ENOENT;
	*bytes = sl->bytes == SPWRITE_BYTES ? 0 : sl->bytes;
	return 0;
}

static bool in_root(const struct gobinary *g, uint64_t vaddr, int kind)
{
	size_t i;

	for (i = 0; i < g->nroots; i++)
		if (g->roots[i].kind == kind && vaddr >= g->roots[i].start && vaddr < g->roots[i].end)
			return true;
	return false;
}

bool gobinary__is_switch(const struct gobinary *g, uint64_t vaddr)
{
	return in_root(g, vaddr, UNWIND_ROOT_AS_CALLER);
}

bool gobinary__is_root(const struct gobinary *g, uint64_t vaddr)
{
	return in_root(g, vaddr, UNWIND_ROOT);
}

void gobinary__describe(const struct gobinary *g, uint64_t vaddr, struct unwind_module *out)
{
	uint32_t bytes;

	out->roots = g->nroots ? g->roots : NULL;
	out->nroots = g->nroots;
	/* the pc may be a return address one past a switch's last byte */
	if (g->table && (gobinary__is_switch(g, vaddr) || (vaddr && gobinary__is_switch(g, vaddr - 1))))
		out->keep_regs = true;
	/* no CFI: the table's SP delta at the pc is the frame, exactly, in
	 * prologues and epilogues too (frame_complete 0: no guessing); a
	 * function that writes sp its own way (0 bytes) ends the stack there,
	 * cut, as Go's traceback ends it, CFI or not (Go's CFI is made from
	 * the same deltas, wrong there alike) */
	if (gobinary__frame_bytes(g, vaddr, &bytes) == 0 && (!out->cfi || bytes == 0)) {
		out->cfi = NULL;
		out->code = UNWIND_CODE_SIZED;
		out->frame_bytes = bytes;
		out->frame_complete = 0;
	}
}

int gobinary__callee(const struct gobinary *g, uint64_t vaddr, uint64_t *callee)
{
	struct gopclntab_func f;
	uint64_t at, target;
	int32_t rel;

	if (!g->code || vaddr < g->code_vaddr + 5 || vaddr - g->code_vaddr > g->code_size)
		return -ENOENT;
	at = vaddr - 5 - g->code_vaddr;
	if (g->code[at] != 0xe8)
		return -ENOENT;
	memcpy(&rel, g->code + at + 1, 4);
	target = vaddr + (uint64_t)(int64_t)rel;
	if (gopclntab__find(g->table, target, &f) != 0 || f.entry != target)
		return -ENOENT;
	*callee = target;
	return 0;
}

size_t gobinary__names(const struct gobinary *g, uint64_t vaddr, const char **names, size_t max)
{
	struct gopclntab_func f;
	const char *name;
	size_t k;

	if (!g->table || max == 0 || gopclntab__find(g->table, vaddr, &f) != 0 ||
	    !(name = gopclntab__name(g->table, &f)))
		return 0;
	k = gopclntab__inlined(g->table, &f, vaddr, names, max - 1);
	names[k] = name;
	return k + 1;
}
