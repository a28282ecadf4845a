/* CPython code objects: read, validated at every use, named. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/cpython_lines.h"
#include "runtimes/cpython_names.h"
#include "runtimes/cpython_state.h"

/* Bytecode longer than this is no code object's (a function of a million
 * instructions does not compile). */
#define BYTECODE_MAX (64u << 20)

/* Bounds on what hostile memory can make the cache hold. */
#define MAX_CODES 16384
#define STR_MAX 256
/* Line tables: longer ones are not read (a function of thousands of
 * lines), and all of them together stay under the total, the cache of
 * codes emptied when they would not. Names with a line: at most this
 * many (code, line) pairs, emptied when full. */
#define LINETABLE_MAX (64u << 10)
#define LINETABLES_TOTAL (16u << 20)
#define LINE_NAMES_MAX 65536

/* A code object as read: what identifies it, where its bytecode is, and its
 * frame name. */
struct code {
	uint64_t addr;
	uint64_t name_ptr, file_ptr, qual_ptr;
	int32_t firstlineno;
	uint64_t bc_start, bc_end; /* its bytecode: [bc_start, bc_end) */
	uint32_t name;             /* "qualname (file)_[py]" */
	bool shim;                 /* one of CPython's entry shims */
	uint8_t *lines;            /* its line table, read on first use */
	uint32_t nlines;
	bool lines_read;
};

struct cpython_names {
	struct u64map *code_index;     /* code address -> index + 1 in codes */
	struct code *codes;            /* grown up to MAX_CODES */
	size_t ncodes, codes_cap;
	struct u64map *name_by_line;   /* code | line << 47 -> name id */
	size_t linetable_bytes;        /* held by codes[].lines */
};

struct cpython_names *cpython_names__new(bool lines)
{
	struct cpython_names *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->code_index = u64map__new(256);
	n->name_by_line = u64map__new(lines ? 256 : 1);
	if (!n->code_index || !n->name_by_line) {
		cpython_names__delete(n);
		return NULL;
	}
	return n;
}

void cpython_names__delete(struct cpython_names *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->ncodes; i++)
		free(n->codes[i].lines);
	u64map__delete(n->code_index);
	u64map__delete(n->name_by_line);
	free(n->codes);
	free(n);
}

/* Appends code point cp as UTF-8. */
static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		if (cp >= 0xd800 && cp < 0xe000)
			cp = 0xfffd; /* a lone surrogate */
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	if (cp > 0x10ffff)
		cp = 0xfffd;
	if (cp < 0x10000)
		return put_utf8(o, cp);
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A str object's text as UTF-8 in out (at most STR_MAX characters;
 * out holds 4 * STR_MAX + 1). Returns its length or -errno. */
static int read_str(struct cpython *c, uint64_t p, char *out)
{
	const struct cpython_layout *l = &c->l;
	uint8_t head[96], raw[4 * STR_MAX];
	uint64_t len;
	uint32_t state, kind, i;
	size_t o = 0;
	uint64_t data;

	if (!cpython_state__plausible(p) || l->str_compact_data > sizeof(head) || l->str_data > sizeof(head))
		return -EFAULT;
	if (memsource__read(&c->mem, p, head, l->py2_str ? l->str_size + 8 : l->str_compact_data) != 0)
		return -EFAULT;
	len = cpython_state__u64_at(head, l->str_size);
	if (len > (1u << 30))
		return -EPROTO;
	if (len > STR_MAX)
		len = STR_MAX;
	if (l->py2_str) {
		kind = 1;
		data = p + l->str_data;
	} else {
		memcpy(&state, head + l->str_state, sizeof(state));
		kind = (state >> 2) & 7;
		if (!((state >> 5) & 1) || (kind != 1 && kind != 2 && kind != 4))
			return -EPROTO; /* not compact: no name is such a string */
		data = p + (((state >> 6) & 1) ? l->str_data : l->str_compact_data);
	}
	if (len && memsource__read(&c->mem, data, raw, (size_t)len * kind) != 0)
		return -EFAULT;
	for (i = 0; i < len; i++) {
		uint32_t cp;

		if (kind == 1) {
			cp = raw[i];
		} else if (kind == 2) {
			uint16_t v;

			memcpy(&v, raw + 2 * i, 2);
			cp = v;
		} else {
			memcpy(&cp, raw + 4 * i, 4);
		}
		/* Python 2 str is bytes: kept as they are, invalid UTF-8 is
		 * dropped when the frame name is made */
		if (l->py2_str)
			out[o++] = (char)cp;
		else
			o += put_utf8(out + o, cp);
	}
	out[o] = '\0';
	return (int)o;
}

/* The part of a source path that says which file it is: after the last
 * site-packages/ or dist-packages/, or after lib/pythonX.Y/ (the standard
 * library), else the file's name. */
static const char *short_path(const char *path)
{
	static const char *const roots[] = { "site-packages/", "dist-packages/" };
	const char *best = NULL, *p, *slash;
	size_t k;

	for (k = 0; k < sizeof(roots) / sizeof(roots[0]); k++)
		for (p = path; (p = strstr(p, roots[k])) != NULL; p += strlen(roots[k]))
			best = p + strlen(roots[k]);
	if (best)
		return best;
	for (p = path; (p = strstr(p, "/lib/python")) != NULL; p++) {
		slash = strchr(p + 11, '/');
		if (slash)
			best = slash + 1;
	}
	if (best)
		return best;
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The bytecode of a code object read into head: 3.11+ keeps it inline
 * (Py_SIZE is its count of 2-byte units), before it is a bytes object. */
static int bytecode_range(struct cpython *c, uint64_t addr, const uint8_t *head, uint64_t *start,
			  uint64_t *end)
{
	const struct cpython_layout *l = &c->l;
	uint64_t n, p, size;

	if (l->frames != CPYTHON_FRAME_OBJECTS) {
		n = cpython_state__u64_at(head, 16);
		if (n > BYTECODE_MAX / 2)
			return -EPROTO;
		*start = addr + l->code_bytecode;
		*end = *start + 2 * n;
		return 0;
	}
	p = cpython_state__u64_at(head, l->code_bytecode);
	if (!cpython_state__plausible(p) || memsource__u64(&c->mem, p + 16, &size) != 0)
		return -EFAULT;
	if (size > BYTECODE_MAX)
		return -EPROTO;
	*start = p + l->bytes_data;
	*end = *start + size;
	return 0;
}

/* Reads the names of a new code object into e and interns its frame name. */
static int name_code(struct cpython *c, struct code *e)
{
	char name[4 * STR_MAX + 1], file[4 * STR_MAX + 1];
	char full[sizeof(name) + sizeof(file) + 4];
	int n;

	n = read_str(c, e->qual_ptr ? e->qual_ptr : e->name_ptr, name);
	if (n < 0)
		return n;
	n = read_str(c, e->file_ptr, file);
	if (n < 0)
		return n;
	/* the frames CPython pushes to enter code (3.12's trampoline, 3.13's
	 * __init__ cleanup) run no code of the program */
	e->shim = strcmp(file, "<shim>") == 0 ||
		  (strcmp(name, "__init__") == 0 && strcmp(file, "__init__") == 0);
	snprintf(full, sizeof(full), "%s (%s)", name[0] ? name : "?", short_path(file));
	return ledger__intern_frame(c->mem.ledger, c->names, full, FRAME_SUFFIX_PYTHON, &e->name);
}

static void drop_lines(struct cpython_names *n, struct code *e)
{
	n->linetable_bytes -= e->nlines;
	free(e->lines);
	e->lines = NULL;
	e->nlines = 0;
	e->lines_read = false;
}

/* Doubles the room for codes (entries move: pointers to them go stale;
 * none is kept across a call that may add a code). */
static int grow_codes(struct cpython_names *n)
{
	size_t cap = n->codes_cap ? 2 * n->codes_cap : 64;
	struct code *codes;

	if (cap > MAX_CODES)
		cap = MAX_CODES;
	codes = realloc(n->codes, cap * sizeof(*codes));
	if (!codes)
		return -ENOMEM;
	n->codes = codes;
	n->codes_cap = cap;
	return 0;
}

/* Forgets every code object (the cache is full). */
static void clear_codes(struct cpython_names *n)
{
	size_t i;

	for (i = 0; i < n->ncodes; i++)
		drop_lines(n, &n->codes[i]);
	u64map__clear(n->code_index);
	u64map__clear(n->name_by_line);
	n->ncodes = 0;
}

/* The code object at addr validated, from its head (l.code_size bytes at
 * addr) already read, and named. Returns its entry, or NULL when addr
 * holds no code object. */
static struct code *code_head(struct cpython *c, uint64_t addr, const uint8_t *head)
{
	const struct cpython_layout *l = &c->l;
	struct cpython_names *n = c->codes;
	struct code e, *old = NULL;
	uint64_t idx;

	if (cpython_state__u64_at(head, 8) != c->sym.code_type)
		return NULL;
	memset(&e, 0, sizeof(e));
	e.addr = addr;
	e.name_ptr = cpython_state__u64_at(head, l->code_name);
	e.file_ptr = cpython_state__u64_at(head, l->code_filename);
	e.qual_ptr = l->code_qualname >= 0 ? cpython_state__u64_at(head, (uint32_t)l->code_qualname) : 0;
	memcpy(&e.firstlineno, head + l->code_firstlineno, sizeof(e.firstlineno));
	if (u64map__get(n->code_index, addr, &idx) && idx - 1 < n->ncodes) {
		old = &n->codes[idx - 1];
		/* the same object still: what names it is unchanged */
		if (old->name_ptr == e.name_ptr && old->file_ptr == e.file_ptr &&
		    old->qual_ptr == e.qual_ptr && old->firstlineno == e.firstlineno)
			return old;
	}
	if (bytecode_range(c, addr, head, &e.bc_start, &e.bc_end) != 0 || name_code(c, &e) != 0)
		return NULL;
	if (old) {
		/* freed and reused: the new object's name, its lines read
		 * again (and named again: the map is by address) */
		drop_lines(n, old);
		u64map__clear(n->name_by_line);
		*old = e;
		return old;
	}
	if (n->ncodes == MAX_CODES)
		clear_codes(n);
	if (n->ncodes == n->codes_cap && grow_codes(n) != 0)
		return NULL;
	if (u64map__put(n->code_index, addr, n->ncodes + 1) != 0)
		return NULL;
	n->codes[n->ncodes] = e;
	return &n->codes[n->ncodes++];
}

/* The same, its head read first. */
static struct code *code_read(struct cpython *c, uint64_t addr)
{
	uint8_t head[CPYTHON_CODE_HEAD_MAX];

	if (!cpython_state__plausible(addr) || c->l.code_size > sizeof(head) || c->l.code_size < 24 ||
	    memsource__read(&c->mem, addr, head, c->l.code_size) != 0)
		return NULL;
	return code_head(c, addr, head);
}

/* Reads e's line table (once). */
static void read_lines(struct cpython *c, struct code *e)
{
	const struct cpython_layout *l = &c->l;
	struct cpython_names *n = c->codes;
	uint64_t p, size;
	uint8_t *t;

	e->lines_read = true;
	if (memsource__u64(&c->mem, e->addr + l->code_linetable, &p) != 0 ||
	    !cpython_state__plausible(p) || memsource__u64(&c->mem, p + 16, &size) != 0 || size == 0 || size > LINETABLE_MAX)
		return;
	if (n->linetable_bytes + size > LINETABLES_TOTAL)
		return; /* named without lines until the cache is emptied */
	t = malloc((size_t)size);
	if (!t)
		return;
	if (memsource__read(&c->mem, p + l->bytes_data, t, (size_t)size) != 0) {
		free(t);
		return;
	}
	e->lines = t;
	e->nlines = (uint32_t)size;
	n->linetable_bytes += size;
}

/* The line code e runs at instr, -1 when unknown. */
static int line_of(struct cpython *c, struct code *e, uint64_t instr)
{
	const struct cpython_layout *l = &c->l;
	uint64_t unit;

	if (!e->lines_read)
		read_lines(c, e);
	if (!e->lines)
		return -1;
	switch (l->instr) {
	case CPYTHON_LASTI_BYTES:
		/* 2.7's increments are unsigned, 3.6+'s signed */
		return cpython_lines__lnotab(e->lines, e->nlines, e->firstlineno,
					     (uint32_t)instr > (1u << 30) ? 0 : (uint32_t)instr, l->major > 2);
	case CPYTHON_LASTI_UNITS:
		return cpython_lines__linetable310(e->lines, e->nlines, e->firstlineno,
						   (uint32_t)instr > (1u << 29) ? 0 : 2 * (uint32_t)instr);
	default:
		if (instr < e->bc_start || instr >= e->bc_end)
			return -1;
		unit = (instr - e->bc_start) / 2;
		return cpython_lines__locations(e->lines, e->nlines, e->firstlineno, (uint32_t)unit);
	}
}

/* The frame name of code e running the instruction at instr: with its
 * line when known, else e->name. */
static uint32_t line_name(struct cpython *c, struct code *e, uint64_t instr)
{
	struct cpython_names *names = c->codes;
	char buf[8 * STR_MAX + 32];
	const char *base;
	uint64_t key, v;
	uint32_t id;
	size_t n, sfx = sizeof(FRAME_SUFFIX_PYTHON);
	int line = line_of(c, e, instr);

	if (line <= 0 || line >= (1 << 16))
		return e->name;
	key = e->addr | ((uint64_t)line << 47);
	if (u64map__get(names->name_by_line, key, &v))
		return (uint32_t)v;
	/* "qualname (file)_[py]" -> "qualname (file:LINE)_[py]" */
	base = strtab__str(c->names, e->name);
	n = base ? strlen(base) : 0;
	if (n < sfx || n - sfx + 1 >= sizeof(buf) - 16)
		return e->name;
	memcpy(buf, base, n - sfx);
	snprintf(buf + (n - sfx), sizeof(buf) - (n - sfx), ":%d)", line);
	if (ledger__intern_frame(c->mem.ledger, c->names, buf, FRAME_SUFFIX_PYTHON, &id) != 0)
		return e->name;
	if (u64map__count(names->name_by_line) >= LINE_NAMES_MAX)
		u64map__clear(names->name_by_line);
	(void)u64map__put(names->name_by_line, key, id);
	return id;
}

int cpython_names__name(struct cpython *c, struct cpython_frame *f, const uint8_t *head,
			uint64_t instr, bool *shim)
{
	struct code *e = head ? code_head(c, f->code, head) : code_read(c, f->code);

	if (!e)
		return -EPROTO;
	*shim = e->shim;
	f->name = e->shim ? 0 : c->lines ? line_name(c, e, instr) : e->name;
	f->code_end = e->addr + c->l.code_size;
	f->bc_start = e->bc_start;
	f->bc_end = e->bc_end;
	return 0;
}

int cpython_names__remap(struct cpython *c, struct strtab_remap *r)
{
	struct cpython_names *n = c->codes;
	size_t i, pos = 0;
	uint64_t key, v;

	for (i = 0; i < n->ncodes; i++)
		if (n->codes[i].name && strtab_remap__id(r, &n->codes[i].name))
			return -ENOMEM;
	while (u64map__next(n->name_by_line, &pos, &key, &v)) {
		uint32_t id = (uint32_t)v;

		if (strtab_remap__id(r, &id))
			return -ENOMEM;
		if (r->commit && u64map__put(n->name_by_line, key, id) != 0)
			return -ENOMEM;
	}
	return 0;
}
