/* Symbols of one binary: function index, inlined frames (from
 * symbolize/inlineindex.h), pc -> frames cache.
 * Long file: how a binary reaches libdwfl (read, never mapped, what is
 * read of it sized and charged first, sections hidden) is one decision
 * with the names it gives, over the module's one state. */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/selfusage.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "common/userfile.h"
#include "profile/frame_name.h"
#include "runtimes/gopclntab_elf.h"
#include "symbolize/loadbudget.h"
#include "symbolize/places.h"
#include "symbolize/debugcache.h"
#include "symbolize/debugdata.h"
#include "symbolize/debugfind.h"
#include "symbolize/demangle.h"
#include "symbolize/inlineindex.h"
#include "symbolize/inlines.h"
#include "symbolize/symindex.h"
#include "unwind/elffile.h"

/* Bounds for hostile files and for memory: the largest real binaries
 * (browsers, databases) have about a million functions. */
#define SYMBIN_MAX_FUNCS 4000000
#define SYMBIN_MAX_FRAMES 32     /* inlined depth kept per pc */
#define SYMBIN_CACHE_MAX 65536   /* pcs cached per binary */
#define SYMBIN_POOL_MAX (4 * SYMBIN_CACHE_MAX) /* frame ids of multi-frame pcs */
#define SYMBIN_STARTS_MAX 65536  /* "module+0x..." names cached per binary */
/* Entries checked backwards when the nearest symbol does not cover the pc
 * (a small sized symbol nested in a larger one). */
#define SYMBIN_BACKSCAN 4
#define SYMBIN_MAX_NOTES (1u << 20) /* bytes of one note section */

/* Cache values: the top two bits say how to read the rest. A pc whose
 * result is one frame (the common case) needs no pool space. */
#define VAL_TAG_SHIFT 62
#define VAL_ONE 0ull      /* low 32 bits: the frame id */
#define VAL_POOL 1ull     /* pool offset << 8 | count */
#define VAL_UNKNOWN 2ull  /* nothing known: named from func_start at lookup */

struct func {
	uint64_t start;  /* ELF vaddr */
	uint32_t size;   /* st_size, or for an unsized symbol the extent to the
			  * end of its section (0: unknown, up to the next one) */
	int32_t ndx;     /* index for dwfl_module_getsym_info, to fetch the name */
	uint32_t id;     /* interned frame, 0 until first needed */
	uint8_t rank;    /* binding preference, while building */
	uint8_t sized;   /* size is the symbol's own (not an estimate) */
};

struct symindex {
	struct strtab *names;
	char *module;
	struct cachedir *cache_dir; /* borrowed; NULL: none */
	Dwfl *dwfl;
	struct debugfind *find; /* what dwfl's callbacks know of the module */
	Dwfl_Module *mod;    /* NULL when the file is not usable ELF */
	uint64_t bias;       /* module address = ELF vaddr + bias */
	uint64_t end_vaddr;  /* end of the highest PT_LOAD */
	int has_dwarf;
	struct func *funcs;
	size_t nfuncs;
	uint32_t unknown_id; /* "[module]" */
	struct u64map *cache;  /* vaddr -> tagged value */
	uint32_t *pool;
	size_t pool_len, pool_cap;
	struct u64map *starts; /* func_start -> "module+0x..." id */
	uint64_t lookups, hits, evictions;
	struct inlineindex *inl; /* NULL: no DWARF (no inlined frames) */
	struct loadbudget *budget; /* NULL: none */
	uid_t owner;            /* of the file: whose share the budget charges */
	uint64_t charged;       /* inflated debug data reserved in the budget */
	enum name_detail detail; /* of demangled names */
	bool lines;              /* names carry their file and line */
	/* Go's pc-line table (runtimes/gopclntab.h), NULL: no Go binary. It
	 * names Go's functions and what they inlined, stripped or not, so a
	 * stripped build and its unstripped twin show the same frames */
	struct gopclntab *go;
};

void symindex__set_debug_root(const char *dir)
{
	debugfind__set_root(dir);
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->sized != y->sized)
		return x->sized ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

static int sym_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 2;
	case STB_WEAK:
		return 1;
	default:
		return 0;
	}
}

/* The section header of a symbol, from the ELF file it came from. */
static int sym_section(Elf *elf, GElf_Word shndx, GElf_Shdr *shdr)
{
	Elf_Scn *scn;

	if (!elf)
		return 0;
	scn = elf_getscn(elf, shndx);
	return scn && gelf_getshdr(scn, shdr);
}

/* The sorted, deduplicated function index from every symbol table libdwfl
 * found (symtab or dynsym, separate debug file, MiniDebugInfo). */
static int build_index(struct symindex *s)
{
	size_t cap = 0, n = 0, i, w;
	int nsym = dwfl_module_getsymtab(s->mod), ndx;

	for (ndx = 1; ndx < nsym && n < SYMBIN_MAX_FUNCS; ndx++) {
		GElf_Sym sym;
		GElf_Shdr shdr;
		GElf_Addr addr;
		GElf_Word shndx = SHN_UNDEF;
		Elf *elf = NULL;
		Dwarf_Addr sbias = 0;
		const char *name;
		unsigned char type;
		int have_shdr;
		uint64_t size;

		name = dwfl_module_getsym_info(s->mod, ndx, &sym, &addr, &shndx, &elf, &sbias);
		if (!name || !*name || sym.st_value == 0)
			continue;
		if (shndx == SHN_UNDEF || shndx == SHN_ABS || shndx == SHN_COMMON ||
		    shndx == (GElf_Word)-1)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		have_shdr = sym_section(elf, shndx, &shdr);
		/* hand-written assembly often has untyped but sized code labels */
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    !(type == STT_NOTYPE && sym.st_size && have_shdr &&
		      (shdr.sh_flags & SHF_EXECINSTR)))
			continue;
		size = sym.st_size;
		if (!size && have_shdr) {
			/* unsized (e.g. _init): at most to the end of its section,
			 * so that .plt is not attributed to _init */
			uint64_t sec_end = shdr.sh_addr + shdr.sh_size + sbias;

			if (sec_end > addr && shdr.sh_addr <= addr - sbias)
				size = sec_end - addr;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			struct func *nf = realloc(s->funcs, ncap * sizeof(*nf));

			if (!nf)
				return -ENOMEM;
			s->funcs = nf;
			cap = ncap;
		}
		s->funcs[n].start = addr - s->bias;
		s->funcs[n].size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
		s->funcs[n].sized = sym.st_size != 0;
		s->funcs[n].ndx = ndx;
		s->funcs[n].id = 0;
		s->funcs[n].rank = (uint8_t)sym_rank(GELF_ST_BIND(sym.st_info));
		n++;
	}
	if (n > 1)
		qsort(s->funcs, n, sizeof(*s->funcs), cmp_func);
	/* one entry per address: the best binding's name, the largest size */
	for (i = 0, w = 0; i < n; i++) {
		if (w && s->funcs[w - 1].start == s->funcs[i].start) {
			struct func *k = &s->funcs[w - 1];

			/* a real size beats an estimate, then the larger one */
			if (s->funcs[i].sized > k->sized ||
			    (s->funcs[i].sized == k->sized && s->funcs[i].size > k->size)) {
				k->size = s->funcs[i].size;
				k->sized = s->funcs[i].sized;
			}
			continue;
		}
		s->funcs[w++] = s->funcs[i];
	}
	s->nfuncs = w;
	if (w && w < cap) {
		struct func *nf = realloc(s->funcs, w * sizeof(*nf));

		if (nf)
			s->funcs = nf;
	}
	return 0;
}

/* What the budgets allow of the file's symbols and debug data: its symbol
 * tables and MiniDebugInfo (refused: the file does not reach libdwfl, its
 * functions are named module+0x...) and its DWARF, read into memory and
 * inflated (refused: symbol-table names only, no inlined frames). Reserves
 * what is allowed in s->charged. */
static void budget_debug_data(struct symindex *s, const struct debugdata_sizes *sz,
			      int *use_file, int *dwarf_ok)
{
	int may_load;

	if (!s->budget)
		return;
	may_load = loadbudget__may_load(s->budget, s->owner, clock__mono_ns());
	if (sz->minidebug && !may_load) {
		*use_file = 0;
		return;
	}
	if (loadbudget__charge(s->budget, s->owner, sz->symbols + sz->minidebug) < 0) {
		loadbudget__refused(s->budget);
		*use_file = 0;
		return;
	}
	s->charged += sz->symbols + sz->minidebug;
	if (!may_load) {
		*dwarf_ok = 0;
	} else if (sz->zdebug + sz->dwarf && *dwarf_ok) {
		if (loadbudget__charge(s->budget, s->owner, sz->zdebug + sz->dwarf) < 0) {
			loadbudget__refused(s->budget);
			*dwarf_ok = 0;
		} else {
			s->charged += sz->zdebug + sz->dwarf;
		}
	}
}

/* The inline index: from the cache file of this binary when there is a
 * valid one (no DWARF is read then), else from its DWARF (dwarf_ok: the
 * budgets allow reading it). */
static void open_inlines(struct symindex *s, const struct stat *st, const char *path, int dwarf_ok)
{
	struct inlineindex_source src = { s->mod, s->bias, dwarf_ok };
	unsigned char key[INLINEINDEX_KEY_MAX];
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	int id_len = dwfl_module_build_id(s->mod, &id, &id_vaddr);
	size_t key_len = inlineindex__key(st, id, id_len > 0 ? (size_t)id_len : 0, path, key);

	if (inlineindex__open(&src, s->cache_dir, key, key_len, s->budget, s->owner, &s->inl) < 0)
		s->inl = NULL;
	s->has_dwarf = s->inl != NULL;
}

/* Go's pc-line table names a Go binary's functions. Only a binary with a
 * Go section is searched (as the Go reader recognises one): the search
 * reads every data section whole, which is charged first (refused: the
 * symbol tables name it). */
static void open_go_table(struct symindex *s, Elf *elf)
{
	uint64_t bytes;

	bytes = elf ? gopclntab_elf__bytes(elf) : 0;
	if (!bytes)
		return;
	if (s->budget) {
		if (loadbudget__charge(s->budget, s->owner, bytes) < 0) {
			loadbudget__refused(s->budget);
			return;
		}
		s->charged += bytes;
	}
	if (gopclntab_elf__open(elf, &s->go, NULL) != 0)
		s->go = NULL;
}

/* Sections libdw would read for nothing, or follow to other files: DWARF
 * the inline trees never read, .gnu_debugaltlink (libdw opens the file it
 * names, at a path the binary chooses, and maps it), .gnu_debuglink (debug
 * files are found by build-id only), and notes of a size no build-id note
 * comes near (libdwfl reads every note section whole to find it). All
 * DWARF when arg is set (refused by the budgets, or read from a copy). */
static bool unused(const char *name, const GElf_Shdr *sh, void *arg)
{
	if (strcmp(name, ".gnu_debugaltlink") == 0 || strcmp(name, ".gnu_debuglink") == 0 ||
	    (sh->sh_type == SHT_NOTE && sh->sh_size > SYMBIN_MAX_NOTES))
		return true;
	return elffile__is_dwarf(name) && (arg || inlines__unused_section(name));
}

/* Whether the binary's own DWARF is to be read from a copy in the cache
 * (symbolize/debugcache.h), mapped from our directory, rather than into
 * memory, whole, for as long as the binary is loaded: when there is a
 * cache, the copy fits it and can be named (a build-id). */
static bool dwarf_by_copy(const struct symindex *s, Elf *elf, const struct debugdata_sizes *sz)
{
	const void *id;

	return s->cache_dir && (sz->dwarf || sz->zdebug) && !sz->gnu_zdebug &&
	       sz->dwarf + sz->zdebug < debugcache__limit(s->cache_dir) &&
	       dwelf_elf_gnu_build_id(elf, &id) > 0;
}

/* Hands the file, read into memory, to libdwfl, which also finds separate
 * debug info and MiniDebugInfo. Always takes the fd: closed here or owned
 * by s->find, then the Dwfl. s->mod stays NULL when the file is not usable
 * ELF. */
static int open_module(struct symindex *s, const char *path, int fd)
{
	unsigned char magic[SELFMAG];
	Dwarf_Addr bias = 0, end = 0;
	struct debugdata_sizes sz;
	struct stat st;
	int dwarf_ok, use_file = 1, err = 0, copy_fd;
	Elf *elf = NULL;
	bool copy;

	/* Only real ELF goes to libdwfl: it would otherwise try to decompress
	 * the file (gzip/xz/bzip2 images), which a hostile user can bomb. */
	if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, ELFMAG, SELFMAG) != 0 || fstat(fd, &st) < 0)
		goto out_close;
	elf = elffile__read(fd);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out_close;
	elffile__hide(elf, unused, NULL);
	/* A decompression bomb in MiniDebugInfo: no symbols rather than OOM;
	 * compressed DWARF too large: no DWARF. Then the global budgets. */
	debugdata__measure(elf, &sz);
	copy = dwarf_by_copy(s, elf, &sz);
	if (copy)
		sz.dwarf = sz.zdebug = 0; /* the copy's bound applies instead */
	dwarf_ok = copy || sz.zdebug_ok;
	if (!sz.minidebug_ok || !sz.symbols_ok)
		goto out_close;
	budget_debug_data(s, &sz, &use_file, &dwarf_ok);
	if (!use_file)
		goto out_close;
	if (!dwarf_ok || copy)
		elffile__hide(elf, unused, s);
	copy_fd = copy && dwarf_ok ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	err = debugfind__new(s->cache_dir, elf, fd, path, &s->find);
	if (err < 0) {
		if (copy_fd >= 0)
			close(copy_fd);
		goto out_close;
	}
	if (copy_fd >= 0)
		debugfind__dwarf_from_copy(s->find, copy_fd);
	s->dwfl = dwfl_begin(debugfind__callbacks());
	if (!s->dwfl)
		return -ENOMEM;
	s->mod = debugfind__report(s->find, s->dwfl, s->module, &end);
	if (!s->mod || !dwfl_module_getelf(s->mod, &bias)) {
		s->mod = NULL;
		return 0;
	}
	/* 0 by construction: module addresses are the ELF vaddrs */
	s->bias = bias;
	s->end_vaddr = end - bias;
	open_go_table(s, dwfl_module_getelf(s->mod, &bias));
	open_inlines(s, &st, path, dwarf_ok);
	return 0;

out_close:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

int symindex__new(const char *path, const char *module, struct strtab *names, struct symindex **out)
{
	return symindex__new_cached(path, module, names, NULL, out);
}

int symindex__new_cached(const char *path, const char *module, struct strtab *names,
		       struct cachedir *cache, struct symindex **out)
{
	/* a path of the caller's own (another user's binary is opened by the
	 * registry and given as an fd): a symlink at its end is followed, but
	 * only a regular file is opened (common/userfile.h) */
	struct userfile_rule rule = { USERFILE_ANY_OWNER, 1, 0, 1 };
	struct stat st;
	int fd = userfile__open(AT_FDCWD, path, &rule, &st);

	if (fd < 0 && fd != -EPERM && fd != -ELOOP)
		return fd;
	return symindex__new_fd(fd, path, module, names, cache, out);
}

int symindex__new_fd(int fd, const char *path, const char *module, struct strtab *names,
		     struct cachedir *cache, struct symindex **out)
{
	return symindex__new_budgeted(fd, path, module, names, cache, NULL, out);
}

int symindex__new_budgeted(int fd, const char *path, const char *module, struct strtab *names,
			   struct cachedir *cache, struct loadbudget *budget, struct symindex **out)
{
	struct symindex *s;
	struct stat st;
	uint64_t t0 = 0;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s) {
		err = -ENOMEM;
		goto out_close;
	}
	s->names = names;
	s->cache_dir = cache;
	s->budget = budget;
	s->owner = fd >= 0 && fstat(fd, &st) == 0 ? st.st_uid : 0;
	s->detail = NAME_DETAIL_DEFAULT;
	s->lines = inlines__lines() != 0;
	s->module = strdup(module && *module ? module : "unknown");
	s->cache = u64map__new(1024);
	s->starts = u64map__new(64);
	if (!s->module || !s->cache || !s->starts) {
		err = -ENOMEM;
		goto out_free;
	}
	err = frame_name__module(names, s->module, &s->unknown_id);
	if (err < 0)
		goto out_free;
	if (fd < 0) {
		*out = s; /* no regular file to read: every pc is "[module]" */
		return 0;
	}
	t0 = selfusage__thread_cpu_ns();
	err = open_module(s, path, fd);
	fd = -1; /* open_module took it */
	/* not ELF or unreadable ELF: still usable, every pc is "[module]" */
	if (err == 0 && s->mod)
		err = build_index(s);
	if (budget)
		loadbudget__spent(budget, s->owner, selfusage__thread_cpu_ns() - t0, clock__mono_ns());
	if (err < 0)
		goto out_free;
	*out = s;
	return 0;

out_free:
	symindex__delete(s);
out_close:
	if (fd >= 0)
		close(fd);
	return err;
}

void symindex__delete(struct symindex *s)
{
	if (!s)
		return;
	/* saves what it built; it reads the DWARF: freed before it */
	inlineindex__delete(s->inl);
	gopclntab__delete(s->go); /* it points into the Dwfl's ELF */
	if (s->budget)
		loadbudget__release(s->budget, s->owner, s->charged);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	debugfind__delete(s->find);
	u64map__delete(s->cache);
	u64map__delete(s->starts);
	free(s->pool);
	free(s->funcs);
	free(s->module);
	free(s);
}

int symindex__remap_names(struct symindex *s, struct strtab_remap *r)
{
	uint64_t key, val;
	uint32_t id;
	size_t i, pos;
	int err;

	err = strtab_remap__id(r, &s->unknown_id);
	for (i = 0; !err && i < s->nfuncs; i++)
		err = strtab_remap__id(r, &s->funcs[i].id);
	for (i = 0; !err && i < s->pool_len; i++)
		err = strtab_remap__id(r, &s->pool[i]);
	/* single-frame cache values hold their id in the low 32 bits; pool
	 * values point into the pool, remapped above */
	for (pos = 0; !err && s->cache && u64map__next(s->cache, &pos, &key, &val);) {
		if (val >> VAL_TAG_SHIFT != VAL_ONE)
			continue;
		id = (uint32_t)val;
		err = strtab_remap__id(r, &id);
		if (!err && r->commit)
			(void)u64map__put(s->cache, key, (val & ~(uint64_t)UINT32_MAX) | id);
	}
	if (!err)
		err = strtab_remap__map_values(r, s->starts);
	if (!err && r->commit)
		s->names = r->to;
	return err;
}

size_t symindex__build_id(const struct symindex *s, const unsigned char **id)
{
	GElf_Addr vaddr;
	int len = s && s->mod ? dwfl_module_build_id(s->mod, id, &vaddr) : 0;

	return len > 0 ? (size_t)len : 0;
}

void symindex__set_inline_budget(struct symindex *s, size_t bytes)
{
	if (s->inl)
		inlineindex__set_budget(s->inl, bytes);
}

void symindex__maintain(struct symindex *s, uint64_t now_ns, uint64_t age_ns)
{
	if (s->inl)
		inlineindex__maintain(s->inl, now_ns, age_ns);
}

void symindex__set_name_detail(struct symindex *s, enum name_detail detail)
{
	s->detail = detail;
}

void symindex__stats(const struct symindex *s, struct symindex_stats *out)
{
	out->symbols = s->go ? gopclntab__count(s->go) : s->nfuncs;
	out->lookups = s->lookups;
	out->hits = s->hits;
	out->entries = u64map__count(s->cache);
	out->evictions = s->evictions;
	out->has_debuginfo = s->has_dwarf;
	if (s->inl)
		inlineindex__stats(s->inl, &out->inl);
	else
		memset(&out->inl, 0, sizeof(out->inl));
}

/* Interns a raw (possibly mangled) name with suffix. Each function's name
 * is interned once per index (func_id keeps its id), so demangling is paid
 * once per symbol, not per sample. */
static int intern_name(struct symindex *s, const char *raw, const char *suffix, uint32_t *id)
{
	char *dem = demangle(raw, s->detail);
	int err = frame_name__intern(s->names, dem ? dem : raw, suffix, id);

	free(dem);
	return err;
}

static struct func *find_func(struct symindex *s, uint64_t vaddr)
{
	size_t lo = 0, hi = s->nfuncs, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->funcs[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	if (s->funcs[lo - 1].size ? vaddr - s->funcs[lo - 1].start < s->funcs[lo - 1].size
				  : (lo < s->nfuncs || vaddr < s->end_vaddr))
		return &s->funcs[lo - 1];
	/* only symbols with their own size may claim a pc past a later start */
	for (i = lo - 1; i > 0 && lo - i <= SYMBIN_BACKSCAN; i--) {
		struct func *f = &s->funcs[i - 1];

		if (f->sized && vaddr - f->start < f->size)
			return f;
	}
	return NULL;
}

/* The raw (mangled) name of f's symbol, without a symbol version: into
 * *copy (to free) when it had one; NULL on allocation failure. */
static const char *symbol_name(struct symindex *s, const struct func *f, char **copy)
{
	GElf_Sym sym;
	GElf_Addr addr;
	const char *name = dwfl_module_getsym_info(s->mod, f->ndx, &sym, &addr, NULL, NULL, NULL);
	const char *at;

	*copy = NULL;
	if (!name)
		return "";
	/* "memcpy@@GLIBC_2.14" in a debug symtab: the version would split
	 * one function into several frames */
	at = strchr(name, '@');
	if (!at || at == name)
		return name;
	*copy = strndup(name, (size_t)(at - name));
	return *copy;
}

static int func_id(struct symindex *s, struct func *f, uint32_t *id)
{
	int err;

	if (!f->id) {
		char *copy;
		const char *name = symbol_name(s, f, &copy);

		if (!name)
			return -ENOMEM;
		err = intern_name(s, name, "", &f->id);
		free(copy);
		if (err < 0)
			return err;
	}
	*id = f->id;
	return 0;
}

/* Interns an inlined frame or enclosing function named by DWARF. */
static int intern_dwarf_name(struct symindex *s, const struct inline_frame *f, const char *suffix,
			     uint32_t *id)
{
	const char *name = f->name ? f->name : "";

	if (f->linkage)
		return intern_name(s, name, suffix, id);
	return frame_name__intern(s->names, name, suffix, id);
}

/* Inlined frames at vaddr, innermost first, into frames[]; *sub_id gets the
 * enclosing subprogram's name when want_sub is set and DWARF names it. */
static int dwarf_frames(struct symindex *s, uint64_t vaddr, uint32_t *frames, size_t max,
			size_t *n, int want_sub, uint32_t *sub_id)
{
	struct inline_frame f[SYMBIN_MAX_FRAMES];
	size_t nf, i;
	int err = 0;

	if (max > SYMBIN_MAX_FRAMES - 1)
		max = SYMBIN_MAX_FRAMES - 1;
	/* one slot more than the inlined frames wanted: the subprogram */
	nf = inlineindex__at(s->inl, vaddr, f, max + 1);
	for (i = 0; i < nf && !err; i++) {
		if (!f[i].subprogram) {
			err = intern_dwarf_name(s, &f[i], FRAME_SUFFIX_INLINED, &frames[*n]);
			if (err >= 0)
				(*n)++;
		} else if (want_sub && f[i].name && *f[i].name) {
			err = intern_dwarf_name(s, &f[i], "", sub_id);
		}
	}
	return err < 0 ? err : 0;
}

/* The frames at vaddr with their places (--lines), innermost first: each
 * inlined frame at the line it runs (the innermost, from the line table)
 * or calls the one inside it (its call site), then the function at the
 * line of its own call of the outermost inlined frame, or of vaddr. */
static int frames_with_lines(struct symindex *s, uint64_t vaddr, struct func *f, uint32_t *frames, size_t *n)
{
	struct inline_frame inl[SYMBIN_MAX_FRAMES];
	const char *file = NULL;
	unsigned line = 0;
	size_t ninl = s->has_dwarf ? inlineindex__at(s->inl, vaddr, inl, SYMBIN_MAX_FRAMES) : 0, i;
	const struct inline_frame *sub = ninl && inl[ninl - 1].subprogram ? &inl[ninl - 1] : NULL;
	uint32_t id;
	int err = 0;

	/* each name as it is without lines (the function's interned once, as
	 * func_id keeps it), then with its place */
	(void)inlineindex__line(s->inl, vaddr, &file, &line);
	*n = 0;
	for (i = 0; i < ninl && !err && !inl[i].subprogram; i++) {
		err = intern_dwarf_name(s, &inl[i], "", &id);
		if (!err)
			err = places__intern(s->names, strtab__str(s->names, id), file, line, FRAME_SUFFIX_INLINED,
					     &frames[(*n)++]);
		file = inl[i].call_file;
		line = inl[i].call_line;
	}
	if (!err && f)
		err = func_id(s, f, &id);
	else if (!err && sub && sub->name && *sub->name)
		err = intern_dwarf_name(s, sub, "", &id);
	else if (!err)
		return -ENOENT; /* inlined frames with no function: as without lines */
	if (!err)
		err = places__intern(s->names, strtab__str(s->names, id), file, line, "", &frames[(*n)++]);
	return err;
}

/* Makes room for one more cache entry using count pool slots: when either
 * bound is reached everything is dropped (simple, and a steady workload
 * refills its few hot pcs at once). */
static int cache_reserve(struct symindex *s, size_t count)
{
	if (u64map__count(s->cache) >= SYMBIN_CACHE_MAX || s->pool_len + count > SYMBIN_POOL_MAX) {
		s->evictions += u64map__count(s->cache);
		u64map__clear(s->cache);
		s->pool_len = 0;
	}
	if (s->pool_len + count > s->pool_cap) {
		size_t ncap = s->pool_cap ? s->pool_cap * 2 : 256;
		uint32_t *np;

		while (ncap < s->pool_len + count)
			ncap *= 2;
		if (ncap > SYMBIN_POOL_MAX)
			ncap = SYMBIN_POOL_MAX;
		np = realloc(s->pool, ncap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		s->pool = np;
		s->pool_cap = ncap;
	}
	return 0;
}

/* The frames of a Go function at vaddr from its pc-line table, innermost
 * first: what it inlined there ("_[i]"), then itself. 0 with *n (0: no Go
 * function there), or -ENOMEM. */
/* Go's frames at vaddr in f with their places (--lines), from its own
 * pc-line table: an inlined call's caller at the call. */
static int go_frames_with_lines(struct symindex *s, const struct gopclntab_func *f, uint64_t vaddr,
				uint32_t *frames, size_t max, size_t *n)
{
	struct gopclntab_frame gf[SYMBIN_MAX_FRAMES];
	size_t k = gopclntab__frames(s->go, f, vaddr, gf, max < SYMBIN_MAX_FRAMES ? max : SYMBIN_MAX_FRAMES), i;
	int err;

	for (i = 0; i < k; i++) {
		err = places__intern(s->names, gf[i].name ? gf[i].name : "", gf[i].file, gf[i].line,
				     i + 1 < k ? FRAME_SUFFIX_INLINED : "", &frames[i]);
		if (err < 0)
			return err;
	}
	*n = k;
	return 0;
}

static int go_frames(struct symindex *s, uint64_t vaddr, uint32_t *frames, size_t max, size_t *n)
{
	const char *inl[SYMBIN_MAX_FRAMES];
	struct gopclntab_func f;
	const char *name;
	size_t k, i;
	int err;

	*n = 0;
	if (gopclntab__find(s->go, vaddr, &f) != 0 || !(name = gopclntab__name(s->go, &f)))
		return 0;
	if (s->lines)
		return go_frames_with_lines(s, &f, vaddr, frames, max, n);
	k = gopclntab__inlined(s->go, &f, vaddr, inl, max - 1);
	for (i = 0; i < k; i++) {
		err = frame_name__intern(s->names, inl[i], FRAME_SUFFIX_INLINED, &frames[i]);
		if (err < 0)
			return err;
	}
	err = frame_name__intern(s->names, name, "", &frames[k]);
	if (err < 0)
		return err;
	*n = k + 1;
	return 0;
}

/* Resolves a pc and caches the result as a tagged value. */
static int resolve(struct symindex *s, uint64_t vaddr, uint64_t *val)
{
	uint32_t frames[SYMBIN_MAX_FRAMES], sub_id = 0;
	size_t n = 0;
	struct func *f = NULL;
	int err;

	if (s->go) {
		err = go_frames(s, vaddr, frames, SYMBIN_MAX_FRAMES, &n);
		if (err < 0)
			return err;
		if (n == 1) {
			*val = (VAL_ONE << VAL_TAG_SHIFT) | frames[0];
			goto out_put;
		}
		if (n > 1)
			goto out_pool;
	}
	if (s->mod && s->lines) {
		f = find_func(s, vaddr);
		err = frames_with_lines(s, vaddr, f, frames, &n);
		if (err == -ENOMEM)
			return err;
		if (err) {
			*val = VAL_UNKNOWN << VAL_TAG_SHIFT;
			goto out_put;
		}
		goto out_frames;
	}
	if (s->mod) {
		f = find_func(s, vaddr);
		if (s->has_dwarf) {
			err = dwarf_frames(s, vaddr, frames, SYMBIN_MAX_FRAMES - 1, &n, !f, &sub_id);
			if (err < 0)
				return err;
		}
	}
	if (f) {
		err = func_id(s, f, &frames[n]);
		if (err < 0)
			return err;
		n++;
	} else if (sub_id) {
		frames[n++] = sub_id;
	} else {
		/* inlined frames without an enclosing function are not worth a
		 * frame of their own: the function is what aggregates */
		*val = VAL_UNKNOWN << VAL_TAG_SHIFT;
		goto out_put;
	}
out_frames:
	if (n == 1) {
		*val = (VAL_ONE << VAL_TAG_SHIFT) | frames[0];
		goto out_put;
	}
out_pool:
	err = cache_reserve(s, n);
	if (err < 0)
		return err;
	memcpy(s->pool + s->pool_len, frames, n * sizeof(*frames));
	*val = (VAL_POOL << VAL_TAG_SHIFT) | ((uint64_t)s->pool_len << 8) | n;
	s->pool_len += n;
	goto out_insert;

out_put:
	err = cache_reserve(s, 0);
	if (err < 0)
		return err;
out_insert:
	/* the cache is best effort: a failed insert still answers this pc */
	(void)u64map__put(s->cache, vaddr, *val);
	return 0;
}

static int stripped_id(struct symindex *s, uint64_t func_start, uint32_t *id)
{
	char buf[512];
	uint64_t v;
	int err;

	if (func_start == 0) {
		*id = s->unknown_id;
		return 0;
	}
	if (u64map__get(s->starts, func_start, &v)) {
		*id = (uint32_t)v;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, s->module, func_start);
	err = frame_name__intern(s->names, buf, "", id);
	if (err < 0)
		return err;
	if (u64map__count(s->starts) >= SYMBIN_STARTS_MAX)
		u64map__clear(s->starts);
	(void)u64map__put(s->starts, func_start, *id);
	return 0;
}

int symindex__lookup(struct symindex *s, uint64_t vaddr, uint64_t func_start,
		   uint32_t *out, size_t max, size_t *n)
{
	uint64_t val, tag;
	int err;

	if (max == 0)
		return -EINVAL;
	s->lookups++;
	if (u64map__get(s->cache, vaddr, &val)) {
		s->hits++;
	} else {
		err = resolve(s, vaddr, &val);
		if (err < 0)
			return err;
	}
	tag = val >> VAL_TAG_SHIFT;
	if (tag == VAL_ONE) {
		out[0] = (uint32_t)val;
		*n = 1;
	} else if (tag == VAL_POOL) {
		size_t off = (size_t)((val & ~(3ull << VAL_TAG_SHIFT)) >> 8);
		size_t cnt = (size_t)(val & 0xff);

		/* keep the outermost frames: the enclosing function is the one
		 * that matters for aggregation */
		if (cnt > max) {
			off += cnt - max;
			cnt = max;
		}
		memcpy(out, s->pool + off, cnt * sizeof(*out));
		*n = cnt;
	} else {
		err = stripped_id(s, func_start, &out[0]);
		if (err < 0)
			return err;
		*n = 1;
	}
	return 0;
}
