/* Go's pc-line table: functions, names, SP deltas, lines, inline trees. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/gopclntab.h"

/* src/runtime/symtab.go: _PCDATA_InlTreeIndex, _FUNCDATA_InlTree */
#define PCDATA_INLTREE 2
#define FUNCDATA_INLTREE 3
/* Inlined calls kept per pc (Go inlines a few levels deep). */
#define MAX_INLINE_DEPTH 64

struct gopclntab {
	enum gopclntab_version ver;
	const uint8_t *d;
	size_t size;
	unsigned quantum;
	uint64_t nfunc;
	uint64_t text;      /* 1.18 on: functab entries are offsets from it */
	size_t ftab;        /* the functab */
	size_t funcs;       /* base of functab's funcoff (the pclntable) */
	size_t names;       /* base of nameoff (funcnametab; 1.2: the table) */
	size_t pctab;       /* base of pc-value tables (1.2: the table) */
	size_t pcdata_at;   /* where _func's pcdata offsets start */
	size_t nfuncdata_at;
	uint64_t gofunc;
	bool inlines;       /* its inline trees can be read */
	bool files;         /* its file table can be read */
	size_t filetab;     /* 1.2: the uint32 offsets of file names, whose
	                       first is their count; 1.16 on: the names */
	size_t nfiles;      /* 1.2: filetab's uint32s */
	size_t cutab;       /* 1.16 on: per unit, its files' offsets */
	size_t ncu;         /* of them, up to filetab */
	struct gopclntab_region regions[GOPCLNTAB_MAX_REGIONS];
	size_t nregions;
};

static bool u32_at(const struct gopclntab *t, size_t off, uint32_t *v)
{
	if (off > t->size || t->size - off < 4)
		return false;
	memcpy(v, t->d + off, 4);
	return true;
}

static bool u64_at(const struct gopclntab *t, size_t off, uint64_t *v)
{
	if (off > t->size || t->size - off < 8)
		return false;
	memcpy(v, t->d + off, 8);
	return true;
}

/* A header word that is an offset into the table. */
static bool offset_at(const struct gopclntab *t, size_t at, size_t *v)
{
	uint64_t x;

	if (!u64_at(t, at, &x) || x >= t->size)
		return false;
	*v = (size_t)x;
	return true;
}

/* Bytes per functab entry. */
static size_t ftab_entry(const struct gopclntab *t)
{
	return t->ver >= GOPCLNTAB_118 ? 8 : 16;
}

static bool read_header(struct gopclntab *t)
{
	uint32_t magic;
	size_t need;

	if (!u32_at(t, 0, &magic) || t->size < 16 || t->d[4] != 0 || t->d[5] != 0 || t->d[7] != 8)
		return false;
	t->quantum = t->d[6];
	if (t->quantum != 1 && t->quantum != 2 && t->quantum != 4)
		return false;
	switch (magic) {
	case GOPCLNTAB_MAGIC_12:
		t->ver = GOPCLNTAB_12;
		break;
	case GOPCLNTAB_MAGIC_116:
		t->ver = GOPCLNTAB_116;
		break;
	case GOPCLNTAB_MAGIC_118:
		t->ver = GOPCLNTAB_118;
		break;
	case GOPCLNTAB_MAGIC_120:
		t->ver = GOPCLNTAB_120;
		break;
	default:
		return false;
	}
	if (!u64_at(t, 8, &t->nfunc) || t->nfunc == 0 || t->nfunc > t->size / 8)
		return false;
	switch (t->ver) {
	case GOPCLNTAB_12:
		/* nfunctab, then the functab; everything is an offset from
		 * the table's start */
		t->ftab = 16;
		t->funcs = t->names = t->pctab = 0;
		t->pcdata_at = 40;
		t->nfuncdata_at = 39;
		break;
	case GOPCLNTAB_116:
		/* nfunc, nfiles, funcnameOffset, cuOffset, filetabOffset,
		 * pctabOffset, pclnOffset */
		if (!offset_at(t, 24, &t->names) || !offset_at(t, 48, &t->pctab) ||
		    !offset_at(t, 56, &t->funcs))
			return false;
		t->ftab = t->funcs;
		t->pcdata_at = 44;
		t->nfuncdata_at = 43;
		break;
	default:
		/* nfunc, nfiles, textStart, funcnameOffset, cuOffset,
		 * filetabOffset, pctabOffset, pclnOffset */
		if (!u64_at(t, 24, &t->text) || !offset_at(t, 32, &t->names) ||
		    !offset_at(t, 56, &t->pctab) || !offset_at(t, 64, &t->funcs))
			return false;
		t->ftab = t->funcs;
		t->pcdata_at = t->ver == GOPCLNTAB_120 ? 44 : 40;
		t->nfuncdata_at = t->ver == GOPCLNTAB_120 ? 43 : 39;
		break;
	}
	need = (size_t)(t->nfunc + 1) * ftab_entry(t);
	return t->ftab < t->size && t->size - t->ftab >= need;
}

/* Where file names are. A table whose file table is damaged still names
 * functions and unwinds: only lines are lost, so this never refuses it. */
static void read_files(struct gopclntab *t)
{
	uint64_t cu, files;
	uint32_t at, n;

	switch (t->ver) {
	case GOPCLNTAB_12:
		/* the offset of the file table follows the functab's last
		 * entry, the end of the code (a pc word alone) */
		if (!u32_at(t, t->ftab + (size_t)t->nfunc * 16 + 8, &at) || !u32_at(t, at, &n) ||
		    n > (t->size - at) / 4)
			return;
		t->filetab = at;
		t->nfiles = n;
		break;
	default:
		/* cuOffset then filetabOffset, after funcnameOffset; the
		 * linker writes the cutab right before the file names */
		at = t->ver == GOPCLNTAB_116 ? 32 : 40;
		if (!u64_at(t, at, &cu) || !u64_at(t, at + 8, &files) || cu >= files ||
		    files >= t->size)
			return;
		t->cutab = (size_t)cu;
		t->filetab = (size_t)files;
		t->ncu = (size_t)(files - cu) / 4;
		break;
	}
	t->files = true;
}

int gopclntab__open(const struct gopclntab_source *src, struct gopclntab **out)
{
	struct gopclntab *t;

	if (!src || !src->data)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->d = src->data;
	t->size = src->size;
	if (!read_header(t)) {
		free(t);
		return -EINVAL;
	}
	read_files(t);
	if (t->ver >= GOPCLNTAB_118 && t->text == 0)
		t->text = src->text;
	t->gofunc = src->gofunc;
	t->nregions = src->nregions < GOPCLNTAB_MAX_REGIONS ? src->nregions : GOPCLNTAB_MAX_REGIONS;
	if (t->nregions)
		memcpy(t->regions, src->regions, t->nregions * sizeof(*t->regions));
	t->inlines = t->nregions > 0 && (t->ver == GOPCLNTAB_116 ||
					 (t->ver == GOPCLNTAB_12 && src->inline_12) ||
					 (t->ver >= GOPCLNTAB_118 && t->gofunc));
	*out = t;
	return 0;
}

void gopclntab__delete(struct gopclntab *t)
{
	free(t);
}

enum gopclntab_version gopclntab__version(const struct gopclntab *t)
{
	return t->ver;
}

size_t gopclntab__count(const struct gopclntab *t)
{
	return (size_t)t->nfunc;
}

/* The i-th functab entry (i <= nfunc: the last is the end of the code). */
static bool ftab_at(const struct gopclntab *t, uint64_t i, uint64_t *entry, uint32_t *funcoff)
{
	size_t at = t->ftab + (size_t)i * ftab_entry(t);
	uint64_t e, f;
	uint32_t e32, f32;

	if (t->ver >= GOPCLNTAB_118) {
		if (!u32_at(t, at, &e32) || !u32_at(t, at + 4, &f32))
			return false;
		*entry = t->text + e32;
		*funcoff = f32;
		return true;
	}
	if (!u64_at(t, at, &e) || !u64_at(t, at + 8, &f) || f > UINT32_MAX)
		return false;
	*entry = e;
	*funcoff = (uint32_t)f;
	return true;
}

void gopclntab__range(const struct gopclntab *t, uint64_t *lo, uint64_t *hi)
{
	uint32_t off;

	if (!ftab_at(t, 0, lo, &off) || !ftab_at(t, t->nfunc, hi, &off) || *hi < *lo)
		*lo = *hi = 0;
}

/* f's _func is where the functab says, and starts with f's entry. */
static bool check_func(const struct gopclntab *t, struct gopclntab_func *f)
{
	size_t at = t->funcs + f->off;
	uint32_t e32;
	uint64_t e;

	if (f->off >= t->size || at >= t->size || t->size - at < t->pcdata_at)
		return false;
	if (t->ver >= GOPCLNTAB_118)
		return u32_at(t, at, &e32) && t->text + e32 == f->entry;
	return u64_at(t, at, &e) && e == f->entry;
}

int gopclntab__func(const struct gopclntab *t, size_t i, struct gopclntab_func *f)
{
	struct gopclntab_func g;
	uint32_t off;

	if (i >= t->nfunc || !ftab_at(t, i, &g.entry, &g.off) || !ftab_at(t, i + 1, &g.end, &off) ||
	    g.end <= g.entry)
		return -ENOENT;
	g.index = (uint32_t)i;
	if (!check_func(t, &g))
		return -ENOENT;
	*f = g;
	return 0;
}

int gopclntab__find(const struct gopclntab *t, uint64_t pc, struct gopclntab_func *f)
{
	uint64_t lo = 0, hi = t->nfunc, e;
	uint32_t off;

	if (!ftab_at(t, 0, &e, &off) || pc < e || !ftab_at(t, t->nfunc, &e, &off) || pc >= e)
		return -ENOENT;
	/* the last entry at or below pc; entries are sorted in a good table,
	 * and a damaged one only makes the search end somewhere bounded */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (!ftab_at(t, mid, &e, &off))
			return -ENOENT;
		if (e <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (gopclntab__func(t, (size_t)lo, f) != 0 || pc < f->entry || pc >= f->end)
		return -ENOENT;
	return 0;
}

/* A NUL-terminated name at off of the names' base, at most max bytes. */
static const char *name_max(const struct gopclntab *t, size_t base, int64_t off, size_t max)
{
	size_t at, room;

	if (off < 0 || (uint64_t)off >= t->size - base)
		return NULL;
	at = base + (size_t)off;
	room = t->size - at;
	if (room > max + 1)
		room = max + 1;
	if (!memchr(t->d + at, '\0', room) || t->d[at] == '\0')
		return NULL;
	return (const char *)t->d + at;
}

static const char *name_at(const struct gopclntab *t, size_t base, int64_t off)
{
	return name_max(t, base, off, GOPCLNTAB_NAME_MAX);
}

const char *gopclntab__short_name(const struct gopclntab *t, const struct gopclntab_func *f,
				  size_t max)
{
	uint32_t off;

	if (!u32_at(t, t->funcs + f->off + (t->ver >= GOPCLNTAB_118 ? 4 : 8), &off))
		return NULL;
	return name_max(t, t->names, (int32_t)off, max < GOPCLNTAB_NAME_MAX ? max : GOPCLNTAB_NAME_MAX);
}

const char *gopclntab__name(const struct gopclntab *t, const struct gopclntab_func *f)
{
	return gopclntab__short_name(t, f, GOPCLNTAB_NAME_MAX);
}

static bool varint(const struct gopclntab *t, size_t *at, uint32_t *v)
{
	uint32_t x = 0;
	unsigned shift;

	for (shift = 0; shift < 35; shift += 7) {
		uint8_t b;

		if (*at >= t->size)
			return false;
		b = t->d[(*at)++];
		x |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* The value of the pc-value table at tab (an offset from the pc-value
 * base) for pc in f: runtime.pcvalue's walk of (value delta, pc delta)
 * pairs. Every step consumes bytes, so the walk ends. */
static int pcvalue(const struct gopclntab *t, const struct gopclntab_func *f, uint32_t tab,
		   uint64_t pc, int32_t *v)
{
	size_t at;
	uint64_t cur = f->entry;
	uint32_t val = UINT32_MAX; /* -1; added to as Go does, wrapping */
	bool first = true;

	if (tab == 0 || tab >= t->size - t->pctab)
		return -ENOENT;
	at = t->pctab + tab;
	for (;;) {
		uint32_t uv, pcd;

		if (at >= t->size)
			return -ENOENT;
		if (t->d[at] == 0 && !first)
			return -ENOENT; /* the table ended before pc */
		if (!varint(t, &at, &uv) || !varint(t, &at, &pcd))
			return -ENOENT;
		/* zig-zag: -(uv & 1) ^ (uv >> 1) */
		val += -(uv & 1) ^ (uv >> 1);
		cur += (uint64_t)pcd * t->quantum;
		first = false;
		if (pc < cur) {
			*v = (int32_t)val;
			return 0;
		}
		if (cur >= f->end)
			return -ENOENT;
	}
}

int gopclntab__spdelta(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t pc,
		       uint32_t *delta)
{
	uint32_t tab;
	int32_t v;

	/* pcsp follows args and deferreturn (1.18 on) or the entry, nameoff,
	 * args and frame/deferreturn words (before) */
	if (!u32_at(t, t->funcs + f->off + (t->ver >= GOPCLNTAB_118 ? 16 : 20), &tab) ||
	    pcvalue(t, f, tab, pc, &v) != 0 || v < 0 || (uint32_t)v > GOPCLNTAB_MAX_FRAME)
		return -ENOENT;
	*delta = (uint32_t)v;
	return 0;
}

uint8_t gopclntab__flags(const struct gopclntab *t, const struct gopclntab_func *f)
{
	/* after funcID: 1.18's is at 36, 1.20's after startLine, at 40 */
	size_t at = t->funcs + f->off + (t->ver == GOPCLNTAB_120 ? 41 : 37);

	return t->ver >= GOPCLNTAB_118 && at < t->size ? t->d[at] : 0;
}

static bool npcdata(const struct gopclntab *t, const struct gopclntab_func *f, uint32_t *n)
{
	return u32_at(t, t->funcs + f->off + (t->ver >= GOPCLNTAB_118 ? 28 : 32), n);
}

int gopclntab__pcdata(const struct gopclntab *t, const struct gopclntab_func *f, uint32_t table,
		      uint64_t pc, int32_t *v)
{
	uint32_t n, tab;
	int err;

	if (!npcdata(t, f, &n) || table >= n ||
	    !u32_at(t, t->funcs + f->off + t->pcdata_at + 4 * (size_t)table, &tab))
		return -ENOENT;
	if (tab == 0) {
		*v = -1;
		return 0;
	}
	err = pcvalue(t, f, tab, pc, v);
	if (err == -ENOENT)
		*v = -1;
	return 0;
}

/* The bytes of the binary at vaddr, len of them. */
static const uint8_t *region_at(const struct gopclntab *t, uint64_t vaddr, size_t len)
{
	size_t i;

	for (i = 0; i < t->nregions; i++) {
		const struct gopclntab_region *r = &t->regions[i];

		if (vaddr >= r->vaddr && vaddr - r->vaddr <= r->size && r->size - (vaddr - r->vaddr) >= len)
			return r->data + (vaddr - r->vaddr);
	}
	return NULL;
}

/* The vaddr funcdata[FUNCDATA_INLTREE] of f points to, 0 when none. */
static uint64_t inline_tree(const struct gopclntab *t, const struct gopclntab_func *f)
{
	size_t at = t->funcs + f->off, p;
	uint32_t n, off;
	uint64_t addr;

	if (!npcdata(t, f, &n) || at + t->nfuncdata_at >= t->size ||
	    t->d[at + t->nfuncdata_at] <= FUNCDATA_INLTREE || n > t->size / 4)
		return 0;
	p = at + t->pcdata_at + 4 * (size_t)n;
	if (t->ver >= GOPCLNTAB_118) {
		if (!u32_at(t, p + 4 * FUNCDATA_INLTREE, &off) || off == UINT32_MAX)
			return 0;
		return t->gofunc + off;
	}
	/* pointers, aligned as the runtime aligns them (the table is) */
	if (p & 4)
		p += 4;
	return u64_at(t, p + 8 * FUNCDATA_INLTREE, &addr) ? addr : 0;
}

/* The name of f's file number fno (a value of its pcfile table). */
static const char *file_name(const struct gopclntab *t, const struct gopclntab_func *f, int32_t fno)
{
	uint32_t cu, off;
	uint64_t i;

	if (!t->files || fno < 0)
		return NULL;
	if (t->ver == GOPCLNTAB_12) {
		/* numbers index the whole binary's table; 0 is its count */
		if (fno == 0 || (size_t)fno >= t->nfiles ||
		    !u32_at(t, t->filetab + 4 * (size_t)fno, &off))
			return NULL;
		return name_at(t, 0, off);
	}
	/* numbers index f's compilation unit's files, from its cuOffset */
	if (!u32_at(t, t->funcs + f->off + (t->ver >= GOPCLNTAB_118 ? 32 : 36), &cu))
		return NULL;
	i = (uint64_t)cu + (uint64_t)fno;
	if (i >= t->ncu || !u32_at(t, t->cutab + 4 * (size_t)i, &off) || off == UINT32_MAX)
		return NULL;
	return name_at(t, t->filetab, off);
}

int gopclntab__line(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t pc,
		    const char **file, uint32_t *line)
{
	size_t at = t->funcs + f->off + (t->ver >= GOPCLNTAB_118 ? 20 : 24);
	uint32_t pcfile, pcln;
	int32_t fno, ln;
	const char *name;

	/* pcfile and pcln follow pcsp; lines are absolute in every version
	 * (1.20's startLine is for the runtime's own use, not a base) */
	if (pc < f->entry || pc >= f->end || !u32_at(t, at, &pcfile) || !u32_at(t, at + 4, &pcln) ||
	    pcvalue(t, f, pcfile, pc, &fno) != 0 || pcvalue(t, f, pcln, pc, &ln) != 0 || ln <= 0 ||
	    !(name = file_name(t, f, fno)))
		return -ENOENT;
	*file = name;
	*line = (uint32_t)ln;
	return 0;
}

/* The call inlined at pc, when there is one: 0 with its index in f's
 * inline tree, -ENOENT when pc is f's own code. */
static int inlined_at(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t pc,
		      int32_t *ix)
{
	return gopclntab__pcdata(t, f, PCDATA_INLTREE, pc, ix) == 0 && *ix >= 0 ? 0 : -ENOENT;
}

/* Entry ix of f's inline tree: the inlined function's name, and where it
 * was called: at parentPc, an offset from f's entry, whose code the
 * compiler marked with the call's position and the caller's own index
 * (Go 1.12 on). false where the tree is damaged. */
static bool inlined_call(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t tree,
			 int32_t ix, const char **name, uint64_t *call)
{
	size_t esz = t->ver == GOPCLNTAB_120 ? 16 : 20;
	const uint8_t *e = region_at(t, tree + (uint64_t)ix * esz, esz);
	int32_t nameoff, parent_pc;
	const char *s;

	if (!e)
		return false;
	if (t->ver == GOPCLNTAB_120) {
		memcpy(&nameoff, e + 4, 4);
		memcpy(&parent_pc, e + 8, 4);
	} else {
		memcpy(&nameoff, e + 12, 4);
		memcpy(&parent_pc, e + 16, 4);
	}
	s = name_at(t, t->names, nameoff);
	if (!s || parent_pc < 0 || (uint64_t)parent_pc >= f->end - f->entry)
		return false;
	*name = s;
	*call = f->entry + (uint64_t)parent_pc;
	return true;
}

size_t gopclntab__inlined(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t pc,
			  const char **names, size_t max)
{
	size_t n = 0;
	uint64_t tree;
	const char *name;
	int32_t ix;

	if (!t->inlines || !(tree = inline_tree(t, f)))
		return 0;
	if (max > MAX_INLINE_DEPTH)
		max = MAX_INLINE_DEPTH;
	while (n < max && inlined_at(t, f, pc, &ix) == 0 && inlined_call(t, f, tree, ix, &name, &pc))
		names[n++] = name;
	return n;
}

static void frame_at(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t pc,
		     struct gopclntab_frame *fr)
{
	if (gopclntab__line(t, f, pc, &fr->file, &fr->line) != 0) {
		fr->file = NULL;
		fr->line = 0;
	}
}

size_t gopclntab__frames(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t pc,
			 struct gopclntab_frame *frames, size_t max)
{
	uint64_t tree = t->inlines ? inline_tree(t, f) : 0;
	size_t n = 0, depth;
	bool known = true;
	int32_t ix;

	if (max == 0)
		return 0;
	/* pc's own position is the innermost frame's; each step out moves pc
	 * to the call, in f's code, whose position is the caller's line. The
	 * walk goes on past the frames kept, for f's line. */
	for (depth = 0; inlined_at(t, f, pc, &ix) == 0; depth++) {
		const char *name;
		uint64_t call;

		if (!tree || depth == MAX_INLINE_DEPTH ||
		    !inlined_call(t, f, tree, ix, &name, &call)) {
			/* pc is in an inlined call whose caller cannot be
			 * told: f's line would be that call's, which is
			 * not f's */
			known = false;
			break;
		}
		if (n < max - 1) {
			frames[n].name = name;
			frame_at(t, f, pc, &frames[n]);
			n++;
		}
		pc = call;
	}
	frames[n].name = gopclntab__name(t, f);
	if (known) {
		frame_at(t, f, pc, &frames[n]);
	} else {
		frames[n].file = NULL;
		frames[n].line = 0;
	}
	return n + 1;
}
