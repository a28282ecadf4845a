/* The inlined-call tree of one compilation unit, as a flat preorder array. */
#include "config.h"

#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/inlines.h"

/* Bounds for hostile DWARF. Real units: a few thousand functions, inlining
 * nests of a few dozen levels (lexical blocks included), a few ranges per
 * DIE (hot/cold splitting). */
#define INL_MAX_NODES (1u << 20)
#define INL_MAX_DEPTH 256
#define INL_MAX_RANGES 1024  /* per DIE */
/* A top-level range that does not contain pc may still be nested in an
 * earlier one (a nested function, overlapping junk): look back this far. */
#define INL_BACKSCAN 8

struct inl_range {
	uint64_t lo, hi;
};

/* A subprogram or inlined subroutine with code. Its descendants follow it
 * in the array, up to (not including) `next`. */
struct inl_node {
	uint64_t lo, hi;   /* bounding range of its ranges */
	const char *name;
	uint32_t next;
	uint32_t ranges;   /* first of nranges in the ranges array, if nranges > 1 */
	uint16_t nranges;
	uint8_t linkage;
	uint8_t subprogram;
};

/* A range of a node with no enclosing node (normally a subprogram). */
struct inl_top {
	uint64_t lo, hi;
	uint32_t node;
};

struct inlines {
	struct inl_node *nodes;
	size_t n, cap;
	struct inl_range *ranges;
	size_t nranges, ranges_cap;
	struct inl_top *top;
	size_t ntop, top_cap;
};

struct builder {
	struct inlines *t;
	int err;
};

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

/* Appends a node for die if it has code. Returns its index, or -1 (no
 * code, or an error recorded in b->err). */
static long add_node(struct builder *b, Dwarf_Die *die, int subprogram, int top_level)
{
	struct inl_range rs[16], *r = rs;
	struct inlines *t = b->t;
	size_t nr = 0, cap = sizeof(rs) / sizeof(rs[0]), i;
	Dwarf_Addr base, start, end;
	struct inl_node *node;
	ptrdiff_t off = 0;
	long idx = -1;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		if (nr == INL_MAX_RANGES)
			break;
		if (nr == cap) {
			struct inl_range *nrs = malloc(2 * cap * sizeof(*nrs));

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
		r[nr].lo = start;
		r[nr].hi = end;
		nr++;
	}
	if (nr == 0 || t->n >= INL_MAX_NODES)
		goto out;
	if (grow((void **)&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes)) < 0 ||
	    (nr > 1 && grow((void **)&t->ranges, &t->ranges_cap, t->nranges + nr, sizeof(*t->ranges)) < 0) ||
	    (top_level && grow((void **)&t->top, &t->top_cap, t->ntop + nr, sizeof(*t->top)) < 0)) {
		b->err = -ENOMEM;
		goto out;
	}
	idx = (long)t->n++;
	node = &t->nodes[idx];
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
		node->ranges = (uint32_t)t->nranges;
		memcpy(t->ranges + t->nranges, r, nr * sizeof(*r));
		t->nranges += nr;
	}
	node->name = raw_name(die, &node->linkage);
	node->subprogram = (uint8_t)subprogram;
	node->next = (uint32_t)t->n;
	for (i = 0; top_level && i < nr; i++) {
		t->top[t->ntop].lo = r[i].lo;
		t->top[t->ntop].hi = r[i].hi;
		t->top[t->ntop].node = (uint32_t)idx;
		t->ntop++;
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
				b->t->nodes[idx].next = (uint32_t)b->t->n;
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
	const struct inl_top *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

int inlines__build(Dwarf_Die *cudie, struct inlines **out)
{
	struct builder b = { 0 };

	b.t = calloc(1, sizeof(*b.t));
	if (!b.t)
		return -ENOMEM;
	walk(&b, cudie, 0, 1);
	if (b.err) {
		inlines__delete(b.t);
		return b.err;
	}
	if (b.t->ntop > 1)
		qsort(b.t->top, b.t->ntop, sizeof(*b.t->top), cmp_top);
	/* the arrays are kept for long: no slack */
	if (b.t->n && b.t->n < b.t->cap) {
		struct inl_node *p = realloc(b.t->nodes, b.t->n * sizeof(*p));

		if (p) {
			b.t->nodes = p;
			b.t->cap = b.t->n;
		}
	}
	if (b.t->ntop && b.t->ntop < b.t->top_cap) {
		struct inl_top *p = realloc(b.t->top, b.t->ntop * sizeof(*p));

		if (p) {
			b.t->top = p;
			b.t->top_cap = b.t->ntop;
		}
	}
	*out = b.t;
	return 0;
}

void inlines__delete(struct inlines *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->ranges);
	free(t->top);
	free(t);
}

size_t inlines__bytes(const struct inlines *t)
{
	return sizeof(*t) + t->cap * sizeof(*t->nodes) + t->ranges_cap * sizeof(*t->ranges) +
	       t->top_cap * sizeof(*t->top);
}

size_t inlines__count(const struct inlines *t)
{
	return t->n;
}

static int node_contains(const struct inlines *t, const struct inl_node *node, uint64_t pc)
{
	size_t i;

	if (pc < node->lo || pc >= node->hi)
		return 0;
	if (node->nranges <= 1)
		return 1;
	for (i = 0; i < node->nranges; i++) {
		const struct inl_range *r = &t->ranges[node->ranges + i];

		if (pc >= r->lo && pc < r->hi)
			return 1;
	}
	return 0;
}

/* The node of the top-level range containing pc, or -1. */
static long find_top(const struct inlines *t, uint64_t pc)
{
	size_t lo = 0, hi = t->ntop, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->top[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i > 0 && lo - i < INL_BACKSCAN; i--)
		if (pc < t->top[i - 1].hi)
			return (long)t->top[i - 1].node;
	return -1;
}

size_t inlines__at(const struct inlines *t, uint64_t pc, struct inline_frame *out, size_t max)
{
	uint32_t chain[INL_MAX_DEPTH + 1];
	size_t depth = 0, sub, ninl, skip, n = 0, i, end;
	long root;

	if (max == 0 || (root = find_top(t, pc)) < 0)
		return 0;
	/* descend: a node that contains pc is entered, one that does not is
	 * skipped with its whole subtree */
	chain[depth++] = (uint32_t)root;
	end = t->nodes[root].next;
	for (i = (size_t)root + 1; i < end && depth <= INL_MAX_DEPTH;) {
		if (node_contains(t, &t->nodes[i], pc)) {
			chain[depth++] = (uint32_t)i;
			end = t->nodes[i].next;
			i++;
		} else {
			i = t->nodes[i].next;
		}
	}
	/* the innermost subprogram ends the list (a nested function's caller
	 * is not its lexical parent) */
	for (sub = depth - 1; sub > 0 && !t->nodes[chain[sub]].subprogram; sub--)
		;
	ninl = depth - 1 - sub;
	/* too many: drop the innermost inlined frames, keep the function */
	skip = ninl + 1 > max ? ninl + 1 - max : 0;
	for (i = depth - 1 - skip; i > sub; i--, n++) {
		out[n].name = t->nodes[chain[i]].name;
		out[n].linkage = t->nodes[chain[i]].linkage;
		out[n].subprogram = 0;
	}
	out[n].name = t->nodes[chain[sub]].name;
	out[n].linkage = t->nodes[chain[sub]].linkage;
	/* a top-level inlined subroutine (no enclosing subprogram DIE: broken
	 * or unusual DWARF) is reported as the enclosing function */
	out[n].subprogram = 1;
	return n + 1;
}
