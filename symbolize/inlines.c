/* The inlined-call tree of one compilation unit, as one block of bytes:
 * flat preorder arrays and a name table. */
#include "config.h"

#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "symbolize/inlines.h"
#include "unwind/elffile.h"

/* Bounds for hostile DWARF. Real units: a few thousand functions, inlining
 * nests of a few dozen levels (lexical blocks included), a few ranges per
 * DIE (hot/cold splitting). */
#define INL_MAX_NODES (1u << 20)
#define INL_MAX_DEPTH 256
#define INL_MAX_RANGES 255   /* per DIE: the count is 8 bits in the block */
#define INL_MAX_ALL_RANGES ((1u << 24) - 1)
#define INL_MAX_NAMES (64u << 20)
/* A top-level range that does not contain pc may still be nested in an
 * earlier one (a nested function, overlapping junk): look back this far. */
#define INL_BACKSCAN 8
#define INL_MAGIC 0x324c4e49u /* "INL2": nodes carry their call site */
#define INL_FLAG 0x80000000u  /* high bit of name (linkage) and next (subprogram) */

/* The block. */
struct inl_header {
	uint32_t magic, bytes;
	uint32_t nnodes, ntop, nranges, names_bytes;
	uint64_t base;       /* every address below is relative to it */
};

/* A subprogram or inlined subroutine with code. Its descendants follow it
 * in the array, up to (not including) `next`. */
struct inl_node {
	uint32_t lo, hi;     /* bounding range of its ranges */
	uint32_t name;       /* offset in names; INL_FLAG: a linkage name */
	uint32_t next;       /* INL_FLAG: a subprogram */
	uint32_t ranges;     /* first << 8 | count, when count > 1 */
	uint32_t call_file;  /* an inlined call's: the file (offset in names,
	                      * 0: unknown) and line it was called at */
	uint32_t call_line;
};

/* A range of a node with no enclosing node (normally a subprogram), sorted. */
struct inl_top {
	uint32_t lo, hi, node;
};

struct inl_range {
	uint32_t lo, hi;
};

/* While building: absolute addresses, names as libdw's pointers. */
struct b_node {
	uint64_t lo, hi;
	const char *name, *call_file;
	uint32_t call_line;
	uint32_t next, ranges;
	uint16_t nranges;
	uint8_t linkage, subprogram;
};

struct b_range {
	uint64_t lo, hi;
};

struct b_top {
	uint64_t lo, hi;
	uint32_t node;
};

struct builder {
	struct b_node *nodes;
	size_t n, cap;
	struct b_range *ranges;
	size_t nranges, ranges_cap;
	struct b_top *top;
	size_t ntop, top_cap;
	int64_t shift;
	Dwarf_Files *files;  /* the unit's file names, for call sites; NULL:
	                      * no line table read (lines not asked) */
	size_t nfiles;
	int err;
};

/* Whether frames are to carry lines: the line tables are then read, and
 * call sites kept. Set once, before any unit is read. */
static int lines_wanted;

void inlines__set_lines(int on)
{
	lines_wanted = on != 0;
}

int inlines__lines(void)
{
	return lines_wanted;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

/* Tags under which no code lives: not descended into. Call sites are the
 * bulk of an optimized unit's DIEs. Classes are descended into: a compiler
 * may nest a member function's definition there. */
static int no_code_below(int tag)
{
	switch (tag) {
	case DW_TAG_variable:
	case DW_TAG_formal_parameter:
	case DW_TAG_member:
	case DW_TAG_base_type:
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_typedef:
	case DW_TAG_array_type:
	case DW_TAG_subrange_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_enumerator:
	case DW_TAG_subroutine_type:
	case DW_TAG_template_type_parameter:
	case DW_TAG_template_value_parameter:
	case DW_TAG_unspecified_parameters:
	case DW_TAG_label:
	case DW_TAG_inheritance:
	case DW_TAG_ptr_to_member_type:
	case DW_TAG_imported_declaration:
	case DW_TAG_imported_module:
	case DW_TAG_call_site:
	case DW_TAG_call_site_parameter:
	case DW_TAG_GNU_call_site:
	case DW_TAG_GNU_call_site_parameter:
	case DW_TAG_GNU_template_parameter_pack:
	case DW_TAG_GNU_formal_parameter_pack:
		return 1;
	default:
		return 0;
	}
}

static const char *raw_name(Dwarf_Die *die, uint8_t *linkage)
{
	Dwarf_Attribute attr;
	const char *name = NULL;

	/* _integrate follows abstract_origin and specification: an inlined
	 * subroutine's name is its abstract origin's */
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (name) {
		*linkage = 1;
		return name;
	}
	*linkage = 0;
	if (dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	return name;
}

/* An inlined call's site: DW_AT_call_file (an index into the unit's line
 * table's files) and DW_AT_call_line. */
static void call_site(const struct builder *b, Dwarf_Die *die, struct b_node *node)
{
	Dwarf_Attribute attr;
	Dwarf_Word file = 0, line = 0;

	node->call_file = NULL;
	node->call_line = 0;
	if (node->subprogram || !b->files)
		return;
	if (dwarf_attr(die, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &file) == 0 && file < b->nfiles)
		node->call_file = dwarf_filesrc(b->files, (size_t)file, NULL, NULL);
	if (dwarf_attr(die, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &line) == 0 && line <= UINT32_MAX)
		node->call_line = (uint32_t)line;
}

/* Appends a node for die if it has code. Returns its index, or -1 (no
 * code, or an error recorded in b->err). */
static long add_node(struct builder *b, Dwarf_Die *die, int subprogram, int top_level)
{
	struct b_range rs[16], *r = rs;
	size_t nr = 0, cap = sizeof(rs) / sizeof(rs[0]), i;
	Dwarf_Addr base, start, end;
	struct b_node *node;
	ptrdiff_t off = 0;
	long idx = -1;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		if (nr == INL_MAX_RANGES)
			break;
		if (nr == cap) {
			struct b_range *nrs = malloc(2 * cap * sizeof(*nrs));

			if (!nrs) {
				b->err = -ENOMEM;
				goto out;
			}
			memcpy(nrs, r, nr * sizeof(*r));
			if (r != rs)
				free(r);
			r = nrs;
			cap *= 2;
		}
		r[nr].lo = start + (uint64_t)b->shift;
		r[nr].hi = end + (uint64_t)b->shift;
		nr++;
	}
	if (nr == 0 || b->n >= INL_MAX_NODES || (nr > 1 && b->nranges + nr > INL_MAX_ALL_RANGES))
		goto out;
	if (grow((void **)&b->nodes, &b->cap, b->n + 1, sizeof(*b->nodes)) < 0 ||
	    (nr > 1 && grow((void **)&b->ranges, &b->ranges_cap, b->nranges + nr, sizeof(*b->ranges)) < 0) ||
	    (top_level && grow((void **)&b->top, &b->top_cap, b->ntop + nr, sizeof(*b->top)) < 0)) {
		b->err = -ENOMEM;
		goto out;
	}
	idx = (long)b->n++;
	node = &b->nodes[idx];
	node->lo = r[0].lo;
	node->hi = r[0].hi;
	for (i = 1; i < nr; i++) {
		if (r[i].lo < node->lo)
			node->lo = r[i].lo;
		if (r[i].hi > node->hi)
			node->hi = r[i].hi;
	}
	node->nranges = (uint16_t)nr;
	node->ranges = 0;
	if (nr > 1) {
		node->ranges = (uint32_t)b->nranges;
		memcpy(b->ranges + b->nranges, r, nr * sizeof(*r));
		b->nranges += nr;
	}
	node->name = raw_name(die, &node->linkage);
	node->subprogram = (uint8_t)subprogram;
	call_site(b, die, node);
	node->next = (uint32_t)b->n;
	for (i = 0; top_level && i < nr; i++) {
		b->top[b->ntop].lo = r[i].lo;
		b->top[b->ntop].hi = r[i].hi;
		b->top[b->ntop].node = (uint32_t)idx;
		b->ntop++;
	}
out:
	if (r != rs)
		free(r);
	return idx;
}

/* Adds the code-bearing DIEs below parent; top_level: no node encloses them. */
static void walk(struct builder *b, Dwarf_Die *parent, int depth, int top_level)
{
	Dwarf_Die child;

	if (depth > INL_MAX_DEPTH || b->err || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		long idx;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			idx = add_node(b, &child, tag == DW_TAG_subprogram, top_level);
			if (b->err)
				return;
			walk(b, &child, depth + 1, top_level && idx < 0);
			if (idx >= 0)
				b->nodes[idx].next = (uint32_t)b->n;
		} else if (tag == DW_TAG_imported_unit) {
			/* dwz (RHEL, Fedora) moves shared DIEs into partial units
			 * that units import: walk them as if they were here */
			Dwarf_Attribute attr;
			Dwarf_Die unit;

			if (dwarf_attr(&child, DW_AT_import, &attr) && dwarf_formref_die(&attr, &unit))
				walk(b, &unit, depth + 1, top_level);
		} else if (!no_code_below(tag)) {
			walk(b, &child, depth + 1, top_level);
		}
		if (b->err)
			return;
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_top(const void *a, const void *b)
{
	const struct b_top *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* Offsets of each distinct name in the block's name table; a name is
 * interned once per unit (libdw gives one pointer per .debug_str string). */
struct names {
	struct u64map *at; /* pointer -> offset */
	char *buf;
	size_t len, cap;
};

static int name_offset(struct names *nt, const char *name, uint32_t *off)
{
	uint64_t v;
	size_t len;

	if (!name || !*name) {
		*off = 0; /* the table starts with "" */
		return 0;
	}
	if (u64map__get(nt->at, (uint64_t)(uintptr_t)name, &v)) {
		*off = (uint32_t)v;
		return 0;
	}
	len = strnlen(name, 1u << 16) + 1;
	if (nt->len + len > INL_MAX_NAMES) {
		*off = 0;
		return 0;
	}
	if (grow((void **)&nt->buf, &nt->cap, nt->len + len, 1) < 0 ||
	    u64map__put(nt->at, (uint64_t)(uintptr_t)name, nt->len) < 0)
		return -ENOMEM;
	memcpy(nt->buf + nt->len, name, len - 1);
	nt->buf[nt->len + len - 1] = '\0';
	*off = (uint32_t)nt->len;
	nt->len += len;
	return 0;
}

static size_t block_bytes(size_t nnodes, size_t ntop, size_t nranges, size_t names)
{
	size_t n = sizeof(struct inl_header) + nnodes * sizeof(struct inl_node) +
		   ntop * sizeof(struct inl_top) + nranges * sizeof(struct inl_range) + names;

	return (n + 7) & ~(size_t)7;
}

static struct inl_node *block_nodes(const struct inl_header *h)
{
	return (struct inl_node *)(void *)((char *)(uintptr_t)h + sizeof(*h));
}

static struct inl_top *block_top(const struct inl_header *h)
{
	return (struct inl_top *)(void *)(block_nodes(h) + h->nnodes);
}

static struct inl_range *block_ranges(const struct inl_header *h)
{
	return (struct inl_range *)(void *)(block_top(h) + h->ntop);
}

static const char *block_names(const struct inl_header *h)
{
	return (const char *)(block_ranges(h) + h->nranges);
}

/* The block from the builder's arrays. A unit whose code spans more than
 * 4 GiB (no real one does) gets an empty block. */
static int serialize(struct builder *b, struct inlines **out)
{
	struct names nt = { 0 };
	struct inl_header *h;
	uint64_t base = UINT64_MAX, top_hi = 0;
	size_t i, bytes;
	int err = 0;

	for (i = 0; i < b->n; i++) {
		if (b->nodes[i].lo < base)
			base = b->nodes[i].lo;
		if (b->nodes[i].hi > top_hi)
			top_hi = b->nodes[i].hi;
	}
	if (!b->n || top_hi - base > UINT32_MAX) {
		b->n = b->ntop = b->nranges = 0;
		base = 0;
	}
	nt.at = u64map__new(b->n + 16);
	if (!nt.at || grow((void **)&nt.buf, &nt.cap, 1, 1) < 0) {
		err = -ENOMEM;
		goto out;
	}
	nt.buf[nt.len++] = '\0';
	/* names first: their total size sizes the block */
	for (i = 0; i < b->n && !err; i++) {
		uint32_t off = 0, file = 0;

		err = name_offset(&nt, b->nodes[i].name, &off);
		if (!err)
			err = name_offset(&nt, b->nodes[i].call_file, &file);
		b->nodes[i].name = (const char *)(uintptr_t)off;
		b->nodes[i].call_file = (const char *)(uintptr_t)file;
	}
	if (err)
		goto out;
	bytes = block_bytes(b->n, b->ntop, b->nranges, nt.len);
	h = aligned_alloc(8, bytes);
	if (!h) {
		err = -ENOMEM;
		goto out;
	}
	memset(h, 0, bytes);
	h->magic = INL_MAGIC;
	h->bytes = (uint32_t)bytes;
	h->nnodes = (uint32_t)b->n;
	h->ntop = (uint32_t)b->ntop;
	h->nranges = (uint32_t)b->nranges;
	h->names_bytes = (uint32_t)nt.len;
	h->base = base;
	for (i = 0; i < b->n; i++) {
		const struct b_node *s = &b->nodes[i];
		struct inl_node *d = &block_nodes(h)[i];

		d->lo = (uint32_t)(s->lo - base);
		d->hi = (uint32_t)(s->hi - base);
		d->name = (uint32_t)(uintptr_t)s->name | (s->linkage ? INL_FLAG : 0);
		d->next = s->next | (s->subprogram ? INL_FLAG : 0);
		d->ranges = s->nranges > 1 ? s->ranges << 8 | s->nranges : 0;
		d->call_file = (uint32_t)(uintptr_t)s->call_file;
		d->call_line = s->call_line;
	}
	for (i = 0; i < b->ntop; i++) {
		block_top(h)[i].lo = (uint32_t)(b->top[i].lo - base);
		block_top(h)[i].hi = (uint32_t)(b->top[i].hi - base);
		block_top(h)[i].node = b->top[i].node;
	}
	for (i = 0; i < b->nranges; i++) {
		block_ranges(h)[i].lo = (uint32_t)(b->ranges[i].lo - base);
		block_ranges(h)[i].hi = (uint32_t)(b->ranges[i].hi - base);
	}
	memcpy((char *)(uintptr_t)block_names(h), nt.buf, nt.len);
	*out = (struct inlines *)h;
out:
	u64map__delete(nt.at);
	free(nt.buf);
	return err;
}

int inlines__build(Dwarf_Die *cudie, int64_t shift, struct inlines **out)
{
	struct builder b = { 0 };
	int err;

	b.shift = shift;
	if (lines_wanted && dwarf_getsrcfiles(cudie, &b.files, &b.nfiles) != 0)
		b.files = NULL;
	walk(&b, cudie, 0, 1);
	err = b.err;
	if (!err) {
		if (b.ntop > 1)
			qsort(b.top, b.ntop, sizeof(*b.top), cmp_top);
		err = serialize(&b, out);
	}
	free(b.nodes);
	free(b.ranges);
	free(b.top);
	return err;
}

static const struct inl_header *header(const struct inlines *t)
{
	return (const struct inl_header *)(const void *)t;
}

int inlines__check(const void *p, size_t len)
{
	const struct inl_header *h = p;
	const struct inl_node *nodes;
	const struct inl_top *top;
	const struct inl_range *ranges;
	uint32_t open[INL_MAX_DEPTH + 2];
	size_t depth = 0, i;

	if (((uintptr_t)p & 7) || len < sizeof(*h) || h->magic != INL_MAGIC || h->bytes != len ||
	    h->nnodes > INL_MAX_NODES || h->ntop > INL_MAX_ALL_RANGES ||
	    h->nranges > INL_MAX_ALL_RANGES || h->names_bytes == 0 ||
	    h->names_bytes > INL_MAX_NAMES ||
	    block_bytes(h->nnodes, h->ntop, h->nranges, h->names_bytes) != len)
		return 0;
	nodes = block_nodes(h);
	top = block_top(h);
	ranges = block_ranges(h);
	(void)ranges;
	if (block_names(h)[h->names_bytes - 1] != '\0')
		return 0;
	for (i = 0; i < h->nnodes; i++) {
		const struct inl_node *n = &nodes[i];
		uint32_t next = n->next & ~INL_FLAG, cnt = n->ranges & 0xff;

		if ((n->name & ~INL_FLAG) >= h->names_bytes || n->call_file >= h->names_bytes || next <= i ||
		    next > h->nnodes ||
		    n->lo > n->hi || (cnt > 1 && (n->ranges >> 8) + cnt > h->nranges))
			return 0;
		/* a subtree lies inside its parent's, and nesting is bounded */
		while (depth && open[depth - 1] <= i)
			depth--;
		if ((depth && next > open[depth - 1]) || depth > INL_MAX_DEPTH)
			return 0;
		open[depth++] = next;
	}
	for (i = 0; i < h->ntop; i++)
		if (top[i].node >= h->nnodes || top[i].lo > top[i].hi ||
		    (i && top[i].lo < top[i - 1].lo))
			return 0;
	return 1;
}

size_t inlines__bytes(const struct inlines *t)
{
	return header(t)->bytes;
}

size_t inlines__count(const struct inlines *t)
{
	return header(t)->nnodes;
}

static int node_contains(const struct inl_header *h, const struct inl_node *node, uint32_t pc)
{
	uint32_t i, cnt = node->ranges & 0xff;

	if (pc < node->lo || pc >= node->hi)
		return 0;
	if (cnt <= 1)
		return 1;
	for (i = 0; i < cnt; i++) {
		const struct inl_range *r = &block_ranges(h)[(node->ranges >> 8) + i];

		if (pc >= r->lo && pc < r->hi)
			return 1;
	}
	return 0;
}

/* The node of the top-level range containing pc, or -1. */
static long find_top(const struct inl_header *h, uint32_t pc)
{
	const struct inl_top *top = block_top(h);
	size_t lo = 0, hi = h->ntop, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (top[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i > 0 && lo - i < INL_BACKSCAN; i--)
		if (pc < top[i - 1].hi)
			return (long)top[i - 1].node;
	return -1;
}

static void frame_of(const struct inl_header *h, uint32_t node, struct inline_frame *f, int sub)
{
	uint32_t name = block_nodes(h)[node].name;

	f->name = block_names(h) + (name & ~INL_FLAG);
	f->linkage = (name & INL_FLAG) != 0;
	f->subprogram = sub;
	f->call_file = block_nodes(h)[node].call_file ? block_names(h) + block_nodes(h)[node].call_file : NULL;
	f->call_line = block_nodes(h)[node].call_line;
}

size_t inlines__at(const struct inlines *t, uint64_t addr, struct inline_frame *out, size_t max)
{
	const struct inl_header *h = header(t);
	const struct inl_node *nodes = block_nodes(h);
	uint32_t chain[INL_MAX_DEPTH + 1], pc;
	size_t depth = 0, sub, ninl, skip, n = 0, i, end;
	long root;

	if (max == 0 || addr < h->base || addr - h->base > UINT32_MAX)
		return 0;
	pc = (uint32_t)(addr - h->base);
	if ((root = find_top(h, pc)) < 0)
		return 0;
	/* descend: a node that contains pc is entered, one that does not is
	 * skipped with its whole subtree */
	chain[depth++] = (uint32_t)root;
	end = nodes[root].next & ~INL_FLAG;
	for (i = (size_t)root + 1; i < end && depth <= INL_MAX_DEPTH;) {
		if (node_contains(h, &nodes[i], pc)) {
			chain[depth++] = (uint32_t)i;
			end = nodes[i].next & ~INL_FLAG;
			i++;
		} else {
			i = nodes[i].next & ~INL_FLAG;
		}
	}
	/* the innermost subprogram ends the list (a nested function's caller
	 * is not its lexical parent) */
	for (sub = depth - 1; sub > 0 && !(nodes[chain[sub]].next & INL_FLAG); sub--)
		;
	ninl = depth - 1 - sub;
	/* too many: drop the innermost inlined frames, keep the function */
	skip = ninl + 1 > max ? ninl + 1 - max : 0;
	for (i = depth - 1 - skip; i > sub; i--)
		frame_of(h, chain[i], &out[n++], 0);
	/* a top-level inlined subroutine (no enclosing subprogram DIE: broken
	 * or unusual DWARF) is reported as the enclosing function */
	frame_of(h, chain[sub], &out[n++], 1);
	return n;
}

int inlines__unused_section(const char *name)
{
	if (lines_wanted && (elffile__is_section(name, ".debug_line") || elffile__is_section(name, ".debug_line_str")))
		return 0;
	static const char *const unused[] = {
		".debug_loc", ".debug_loclists", ".debug_line", ".debug_macro", ".debug_macinfo",
		".debug_aranges", ".debug_pubnames", ".debug_pubtypes", ".debug_frame",
	};
	size_t i;

	for (i = 0; i < sizeof(unused) / sizeof(unused[0]); i++)
		if (elffile__is_section(name, unused[i]))
			return 1;
	return 0;
}
