/* Inlined frames of one binary: units' trees built lazily, bounded, saved. */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <endian.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cachedir.h"
#include "common/clock.h"
#include "common/selfusage.h"
#include "symbolize/inlineindex.h"
#include "symbolize/inlineindex_file.h"
#include "symbolize/loadbudget.h"

/* A range that does not contain pc may still be followed by one that
 * does not start later (overlapping units of odd DWARF): look back this far. */
#define UNIT_BACKSCAN 8
#define MAX_UNITS (1u << 22)
#define MAX_RANGES (1u << 24)
/* After a failed save, the next is tried no sooner than this. */
#define SAVE_RETRY_NS (60ull * 1000000000ull)

struct unit {
	uint64_t die_off;
	struct inlines *heap;         /* built in this run, not in the file */
	const struct inlines *mapped; /* in the file, checked */
	uint64_t last_use;
	uint8_t in_file;              /* the file has a tree (not yet checked) */
	uint8_t failed;               /* no tree to be had (damaged, unbuildable) */
};

struct inlineindex {
	struct inlineindex_source src;
	Dwarf *dbg;                   /* NULL until a tree is built */
	void *pages;                  /* the DWARF file's mapping, when it may */
	size_t pages_len;             /* be dropped from memory (release_pages) */
	int64_t shift;                /* DWARF address + shift = ELF vaddr */
	int dwarf_tried;
	struct cachedir *cache;
	char name[32];
	unsigned char key[INLINEINDEX_KEY_MAX];
	size_t key_len;
	struct unit *units;
	size_t nunits;
	struct inlfile_range *ranges;
	size_t nranges;
	struct inlfile file;          /* mapped; map NULL: none */
	struct inlines *transient;    /* a tree the budget could not keep */
	size_t budget_bytes;
	struct loadbudget *budget;
	uid_t owner;
	uint64_t tick, unsaved_since;
	uint64_t no_save_before;      /* after a failed save (a full disk) */
	size_t unsaved;               /* heap trees (none of them is saved) */
	struct inlineindex_stats st;
};

size_t inlineindex__key(const struct stat *st, const unsigned char *id, size_t id_len,
			const char *path, unsigned char *key)
{
	size_t n = 0, plen;
	uint64_t fields[4];

	if (id_len > 255)
		return 0;
	fields[0] = st->st_uid;
	fields[1] = (uint64_t)st->st_size;
	fields[2] = (uint64_t)st->st_mtim.tv_sec;
	fields[3] = (uint64_t)st->st_mtim.tv_nsec;
	memcpy(key, fields, sizeof(fields));
	n = sizeof(fields);
	/* trees built with call sites (lines asked) are other trees */
	key[n++] = inlines__lines() ? 'L' : '-';
	key[n++] = (unsigned char)id_len;
	if (id_len) {
		memcpy(key + n, id, id_len);
		n += id_len;
	}
	if (!id_len && path) {
		/* no build-id: the path tells two same-sized files apart */
		plen = strnlen(path, INLINEINDEX_KEY_MAX - n);
		memcpy(key + n, path, plen);
		n += plen;
	}
	return n;
}

static int cmp_range(const void *a, const void *b)
{
	const struct inlfile_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* The mapping of a file (not anonymous memory) that holds p, from
 * /proc/self/maps: 1 with [*start, *end) set, else 0. */
static int file_mapping(const void *p, uintptr_t *start, uintptr_t *end)
{
	uintptr_t at = (uintptr_t)p;
	unsigned long lo, hi, inode;
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &lo, &hi, &inode) == 3 && lo <= at &&
		    at < hi) {
			found = inode != 0 ? 1 : -1;
			*start = lo;
			*end = hi;
		}
		/* a line longer than the buffer: skip its rest */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
			;
	}
	fclose(f);
	return found == 1;
}

/* Raw bytes of the DWARF file's .debug_info section, without inflating it. */
static const void *debug_info_bytes(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".debug_info") != 0)
			continue;
		d = elf_rawdata(scn, NULL);
		return d && d->d_size ? d->d_buf : NULL;
	}
	return NULL;
}

/* The pages of the DWARF file that building trees touched stay resident
 * (they count in the agent's RSS: tens of MB for a monolith) although a
 * tree, once built, never reads them again. When libelf has the file
 * mapped (its .debug_info lies in a mapping of a file, per
 * /proc/self/maps) and never writes to that mapping (a native,
 * non-relocatable ELF file), they can be dropped after each build: the
 * next build faults in what it reads from the page cache. Not for images
 * in memory (MiniDebugInfo, a file libelf read instead of mapping), which
 * dropping would destroy. */
static void find_pages(struct inlineindex *x)
{
	Elf *elf = dwarf_getelf(x->dbg);
	uintptr_t start, end;
	const void *info;
	GElf_Ehdr eh;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || eh.e_type == ET_REL ||
	    eh.e_ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB))
		return;
	info = debug_info_bytes(elf);
	if (!info || !file_mapping(info, &start, &end))
		return;
	x->pages = (void *)start;
	x->pages_len = end - start;
}

static void release_pages(struct inlineindex *x)
{
	if (x->pages)
		(void)madvise(x->pages, x->pages_len, MADV_DONTNEED);
}

static int open_dwarf(struct inlineindex *x)
{
	Dwarf_Addr dwbias = 0;

	if (!x->dwarf_tried) {
		x->dwarf_tried = 1;
		if (x->src.dwarf_ok && x->src.mod)
			x->dbg = dwfl_module_getdwarf(x->src.mod, &dwbias);
		x->shift = (int64_t)(dwbias - x->src.bias);
		if (x->dbg)
			find_pages(x);
	}
	return x->dbg != NULL;
}

static int add_range(struct inlineindex *x, size_t *cap, uint64_t lo, uint64_t hi, size_t unit)
{
	if (x->nranges == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct inlfile_range *nr = realloc(x->ranges, ncap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		x->ranges = nr;
		*cap = ncap;
	}
	x->ranges[x->nranges].lo = lo;
	x->ranges[x->nranges].hi = hi;
	x->ranges[x->nranges].unit = (uint32_t)unit;
	x->ranges[x->nranges].pad = 0;
	x->nranges++;
	return 0;
}

/* The units with code and their ranges, from the DWARF: each unit's DIE
 * only, not its children. Not a skeleton's split unit: asked for it
 * (subdie), libdw opens the .dwo file the skeleton names, at any path the
 * binary chooses (a user's FIFO blocks the agent), and maps it. */
static int read_units(struct inlineindex *x)
{
	size_t ucap = 0, rcap = 0;
	Dwarf_CU *cu = NULL;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die cudie;

	while (x->nunits < MAX_UNITS &&
	       dwarf_get_units(x->dbg, cu, &cu, &version, &type, &cudie, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		size_t before = x->nranges;

		if (type != DW_UT_compile)
			continue; /* partial units are walked from their importers */
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0 &&
		       x->nranges < MAX_RANGES) {
			if (lo < hi && add_range(x, &rcap, lo + (uint64_t)x->shift,
						 hi + (uint64_t)x->shift, x->nunits) < 0)
				return -ENOMEM;
		}
		if (x->nranges == before)
			continue;
		if (x->nunits == ucap) {
			size_t ncap = ucap ? ucap * 2 : 64;
			struct unit *nu = realloc(x->units, ncap * sizeof(*nu));

			if (!nu)
				return -ENOMEM;
			x->units = nu;
			ucap = ncap;
		}
		memset(&x->units[x->nunits], 0, sizeof(*x->units));
		x->units[x->nunits++].die_off = dwarf_dieoffset(&cudie);
	}
	if (x->nranges > 1)
		qsort(x->ranges, x->nranges, sizeof(*x->ranges), cmp_range);
	return 0;
}

/* Takes the unit table of a mapped file; trees stay in the file. */
static int adopt_file(struct inlineindex *x, struct inlfile *f)
{
	size_t i;

	x->units = calloc(f->nunits ? f->nunits : 1, sizeof(*x->units));
	x->ranges = malloc((f->nranges ? f->nranges : 1) * sizeof(*x->ranges));
	if (!x->units || !x->ranges)
		return -ENOMEM;
	for (i = 0; i < f->nunits; i++) {
		x->units[i].die_off = f->units[i].die_off;
		x->units[i].in_file = f->units[i].len != 0;
	}
	memcpy(x->ranges, f->ranges, f->nranges * sizeof(*x->ranges));
	x->nunits = f->nunits;
	x->nranges = f->nranges;
	x->file = *f;
	return 0;
}

int inlineindex__open(const struct inlineindex_source *src, struct cachedir *cache,
		      const unsigned char *key, size_t key_len, struct loadbudget *budget,
		      uid_t owner, struct inlineindex **out)
{
	struct inlineindex *x = calloc(1, sizeof(*x));
	struct inlfile f;
	int err;

	if (!x)
		return -ENOMEM;
	x->src = *src;
	x->budget = budget;
	x->owner = owner;
	x->budget_bytes = INLINEINDEX_DEFAULT_BUDGET;
	if (cache && key_len && key_len <= sizeof(x->key)) {
		x->cache = cache;
		memcpy(x->key, key, key_len);
		x->key_len = key_len;
		inlfile__name(key, key_len, x->name, sizeof(x->name));
		err = inlfile__load(cache, x->name, key, key_len, &f);
		if (err == 0) {
			err = adopt_file(x, &f);
			if (err < 0) {
				inlfile__unload(&f);
				goto fail;
			}
			*out = x;
			return 0;
		}
		if (err == -EINVAL)
			x->st.rejected++;
	}
	if (!open_dwarf(x)) {
		err = -ENOENT;
		goto fail;
	}
	err = read_units(x);
	release_pages(x);
	if (err == 0 && !x->nunits)
		err = -ENOENT;
	if (err < 0)
		goto fail;
	*out = x;
	return 0;
fail:
	inlineindex__delete(x);
	return err;
}

static int save(struct inlineindex *x, int reload);

static void free_heap(struct inlineindex *x, struct unit *u)
{
	size_t bytes = inlines__bytes(u->heap);

	x->st.heap_bytes -= bytes;
	if (x->budget)
		loadbudget__release(x->budget, x->owner, bytes);
	free(u->heap);
	u->heap = NULL;
}

void inlineindex__delete(struct inlineindex *x)
{
	size_t i;

	if (!x)
		return;
	if (x->unsaved)
		(void)save(x, 0);
	for (i = 0; i < x->nunits; i++)
		if (x->units[i].heap)
			free_heap(x, &x->units[i]);
	free(x->transient);
	inlfile__unload(&x->file);
	free(x->units);
	free(x->ranges);
	free(x);
}

void inlineindex__set_budget(struct inlineindex *x, size_t bytes)
{
	x->budget_bytes = bytes;
}

void inlineindex__stats(const struct inlineindex *x, struct inlineindex_stats *out)
{
	*out = x->st;
	out->units = x->nunits;
	out->file_bytes = x->file.len;
}

/* After a save: the units whose trees the new file holds use them. */
static void use_file(struct inlineindex *x, struct inlfile *f)
{
	size_t i;

	for (i = 0; i < x->nunits; i++) {
		struct unit *u = &x->units[i];
		const struct inlfile_unit *fu = i < f->nunits ? &f->units[i] : NULL;

		u->mapped = NULL;
		u->in_file = fu && fu->len && fu->die_off == u->die_off;
		if (!u->in_file)
			continue;
		if (u->heap && fu->len == inlines__bytes(u->heap) &&
		    memcmp((const char *)f->map + fu->off, u->heap, fu->len) == 0) {
			/* what was just written: no need to check it again */
			u->mapped = (const void *)((const char *)f->map + fu->off);
			free_heap(x, u);
			x->unsaved--;
		}
	}
	inlfile__unload(&x->file);
	x->file = *f;
}

/* Writes the file with every tree known; reload: then use it (at exit
 * there is no point). */
static int save(struct inlineindex *x, int reload)
{
	const struct inlines **trees;
	uint64_t *offs;
	struct inlfile f;
	size_t i;
	int err, damaged;

	if (!x->cache || !x->unsaved)
		return 0;
	if (clock__mono_ns() < x->no_save_before)
		return -EAGAIN;
	trees = calloc(x->nunits, sizeof(*trees));
	offs = calloc(x->nunits, sizeof(*offs));
	if (!trees || !offs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < x->nunits; i++) {
		struct unit *u = &x->units[i];

		offs[i] = u->die_off;
		if (u->heap)
			trees[i] = u->heap;
		else if (u->mapped)
			trees[i] = u->mapped;
		else if (u->in_file && !u->failed) {
			trees[i] = inlfile__tree(&x->file, i, &damaged);
			if (!trees[i]) {
				u->in_file = 0;
				x->st.rejected += damaged;
			}
		}
	}
	err = inlfile__write(x->cache, x->name, x->key, x->key_len, x->ranges, x->nranges, offs,
			     trees, x->nunits);
	if (err == 0 && reload) {
		x->st.saves++;
		/* whatever file is there now (ours, or a concurrent writer's for
		 * the same binary) is checked like any other */
		err = inlfile__load(x->cache, x->name, x->key, x->key_len, &f);
		if (err == 0 && f.nunits == x->nunits)
			use_file(x, &f);
		else if (err == 0)
			inlfile__unload(&f);
	} else if (err == 0) {
		x->st.saves++;
	}
out:
	free(trees);
	free(offs);
	x->unsaved_since = clock__mono_ns();
	if (err < 0)
		x->no_save_before = x->unsaved_since + SAVE_RETRY_NS;
	return err;
}

int inlineindex__save(struct inlineindex *x)
{
	return save(x, 1);
}

void inlineindex__maintain(struct inlineindex *x, uint64_t now_ns, uint64_t age_ns)
{
	if (x->unsaved && now_ns >= x->unsaved_since && now_ns - x->unsaved_since >= age_ns)
		(void)inlineindex__save(x);
}

/* Room for bytes more on the heap: save (the trees then live in the file)
 * or, failing that, drop the least recently used trees but keep. */
static void make_room(struct inlineindex *x, size_t bytes, const struct unit *keep)
{
	if (x->st.heap_bytes + bytes <= x->budget_bytes)
		return;
	(void)inlineindex__save(x);
	while (x->st.heap_bytes && x->st.heap_bytes + bytes > x->budget_bytes) {
		struct unit *lru = NULL;
		size_t i;

		for (i = 0; i < x->nunits; i++) {
			struct unit *u = &x->units[i];

			if (u->heap && u != keep && (!lru || u->last_use < lru->last_use))
				lru = u;
		}
		if (!lru)
			break;
		x->unsaved--;
		free_heap(x, lru);
		x->st.evictions++;
	}
}

/* Builds the unit's tree from DWARF and keeps it within the budgets. */
static const struct inlines *build(struct inlineindex *x, struct unit *u)
{
	struct inlines *t;
	Dwarf_Die cudie;
	uint64_t t0;
	size_t bytes;
	int err;

	/* opening the DWARF may copy it first (symbolize/debugcache.h): it
	 * is part of the build's cost */
	t0 = selfusage__thread_cpu_ns();
	if (!open_dwarf(x) || !dwarf_offdie(x->dbg, u->die_off, &cudie)) {
		u->failed = 1;
		return NULL;
	}
	err = inlines__build(&cudie, x->shift, &t);
	release_pages(x);
	t0 = selfusage__thread_cpu_ns() - t0;
	x->st.build_cpu_ns += t0;
	if (x->budget)
		loadbudget__spent(x->budget, x->owner, t0, clock__mono_ns());
	if (err < 0)
		return NULL;
	x->st.builds++;
	bytes = inlines__bytes(t);
	make_room(x, bytes, u);
	if (x->budget && loadbudget__charge(x->budget, x->owner, bytes) < 0)
		goto transient;
	u->heap = t;
	x->st.heap_bytes += bytes;
	if (!x->unsaved++)
		x->unsaved_since = clock__mono_ns();
	if (x->st.heap_bytes <= x->budget_bytes)
		return t;
	/* bigger than the whole budget: into the file at once, used from there */
	if (inlineindex__save(x) == 0 && u->mapped)
		return u->mapped;
	if (u->heap) {
		u->heap = NULL;
		x->st.heap_bytes -= bytes;
		x->unsaved--;
		if (x->budget)
			loadbudget__release(x->budget, x->owner, bytes);
	}
transient:
	/* used for this pc only */
	free(x->transient);
	x->transient = t;
	return t;
}

static struct unit *find_unit(struct inlineindex *x, uint64_t vaddr)
{
	size_t lo = 0, hi = x->nranges, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->ranges[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i > 0 && lo - i < UNIT_BACKSCAN; i--)
		if (vaddr < x->ranges[i - 1].hi)
			return &x->units[x->ranges[i - 1].unit];
	return NULL;
}

/* The unit's tree: on the heap, in the file (checked at first use), or
 * built now. */
static const struct inlines *tree_of(struct inlineindex *x, struct unit *u)
{
	int damaged;

	if (u->heap || u->mapped) {
		x->st.hits++;
		return u->heap ? u->heap : u->mapped;
	}
	if (u->in_file) {
		u->mapped = inlfile__tree(&x->file, (size_t)(u - x->units), &damaged);
		if (u->mapped) {
			x->st.hits++;
			x->st.loads++;
			return u->mapped;
		}
		/* a damaged tree is built again, and the next save replaces it */
		u->in_file = 0;
		x->st.rejected += damaged;
	}
	if (u->failed)
		return NULL;
	return build(x, u);
}

size_t inlineindex__at(struct inlineindex *x, uint64_t vaddr, struct inline_frame *out, size_t max)
{
	const struct inlines *t;
	struct unit *u;

	x->st.lookups++;
	u = find_unit(x, vaddr);
	if (!u)
		return 0;
	u->last_use = ++x->tick;
	t = tree_of(x, u);
	return t ? inlines__at(t, vaddr, out, max) : 0;
}

int inlineindex__line(struct inlineindex *x, uint64_t vaddr, const char **file, unsigned *line)
{
	struct unit *u = x ? find_unit(x, vaddr) : NULL;
	Dwarf_Die cudie;
	Dwarf_Line *l;
	const char *src;
	int lineno = 0;

	/* the unit's line table, read by libdw once and kept with the DWARF */
	if (!u || !open_dwarf(x) || !dwarf_offdie(x->dbg, u->die_off, &cudie) ||
	    !(l = dwarf_getsrc_die(&cudie, vaddr - (uint64_t)x->shift)) || dwarf_lineno(l, &lineno) != 0 ||
	    lineno <= 0 || !(src = dwarf_linesrc(l, NULL, NULL)) || !*src)
		return -ENOENT;
	*file = src;
	*line = (unsigned)lineno;
	return 0;
}
