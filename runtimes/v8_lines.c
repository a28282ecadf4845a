/* The lines interpreted JavaScript frames run. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "runtimes/v8_lines.h"
#include "runtimes/v8_positions.h"

/* A source position table read. */
struct table {
	uint64_t tagged;
	uint8_t *bytes;
	size_t len;
};

/* A frame id placed: what identifies it, and the id. An interpreted
 * frame's by its array and bytecode offset (code 0); a baseline frame's by
 * its code, instructions and pc offset, spt its offset table. */
struct entry {
	uint64_t bytecode, spt, sfi, name_word, script_word;
	int64_t offset, length;
	uint64_t code, start;
	uint32_t id;
};

struct v8_lines {
	struct v8_heap *heap;
	struct v8_names *names;
	struct u64map *tables_by;  /* table (tagged) -> index + 1 */
	struct table *tables;
	size_t ntables, tables_cap, bytes;
	struct u64map *by_offset;  /* hash(array, offset) -> index + 1 */
	struct entry *list;
	size_t n, cap;
	uint64_t since_ns;
	struct v8_lines_stats stats;
};

struct v8_lines *v8_lines__new(struct v8_heap *heap, struct v8_names *names)
{
	struct v8_lines *ls = calloc(1, sizeof(*ls));

	if (!ls)
		return NULL;
	ls->heap = heap;
	ls->names = names;
	ls->tables_by = u64map__new(64);
	ls->by_offset = u64map__new(256);
	if (!ls->tables_by || !ls->by_offset) {
		v8_lines__delete(ls);
		return NULL;
	}
	return ls;
}

void v8_lines__forget(struct v8_lines *ls)
{
	size_t i;

	for (i = 0; i < ls->ntables; i++)
		free(ls->tables[i].bytes);
	ls->ntables = 0;
	ls->bytes = 0;
	ls->n = 0;
	u64map__clear(ls->tables_by);
	u64map__clear(ls->by_offset);
}

void v8_lines__delete(struct v8_lines *ls)
{
	if (!ls)
		return;
	v8_lines__forget(ls);
	u64map__delete(ls->tables_by);
	u64map__delete(ls->by_offset);
	free(ls->tables);
	free(ls->list);
	free(ls);
}

size_t v8_lines__header_bytes(const struct v8_layout *l)
{
	size_t n = (size_t)l->array_length + 8;

	if (!l->t_bytecode_array)
		return 0;
	if ((size_t)l->bytecode_positions + 8 > n)
		n = (size_t)l->bytecode_positions + 8;
	return n > V8_LINES_HEADER ? 0 : n;
}

int v8_lines__offset(const struct v8_layout *l, uint64_t word, int64_t length, int64_t *offset)
{
	int64_t v;

	/* the interpreter's offset register counts from the array's tagged
	 * address: its first bytecode is at data - 1 */
	if (!v8_heap__smi(word, &v) || !l->bytecode_data)
		return -ENOENT;
	v -= (int64_t)l->bytecode_data - 1;
	/* -1: the function's entry, before its first bytecode */
	if (v < -1 || v >= length)
		return -ENOENT;
	*offset = v;
	return 0;
}

static bool is_byte_array(const struct v8_layout *l, uint16_t t)
{
	return t == l->t_byte_array || (l->t_trusted_byte_array && t == l->t_trusted_byte_array);
}

/* The table tagged points to, read once. */
static const struct table *table(struct v8_lines *ls, uint64_t tagged)
{
	const struct v8_layout *l = v8_heap__layout(ls->heap);
	struct memsource *mem = v8_heap__mem(ls->heap);
	uint64_t v, addr, len_word;
	struct table *t;
	int64_t len;
	uint16_t type;

	if (u64map__get(ls->tables_by, tagged, &v))
		return &ls->tables[v - 1];
	/* undefined (not collected yet), the exception marker (collection
	 * failed), or damage: no table */
	if (v8_heap__type(ls->heap, tagged, &type) != 0 || !is_byte_array(l, type) ||
	    !v8_heap__pointer(tagged, &addr) || memsource__u64(mem, addr + l->array_length, &len_word) != 0 ||
	    !v8_heap__smi(len_word, &len) || len <= 0 || (uint64_t)len > V8_LINES_MAX_TABLE)
		return NULL;
	if (ls->bytes + (size_t)len > V8_LINES_MAX_BYTES)
		v8_lines__forget(ls);
	if (ls->ntables == ls->tables_cap) {
		size_t cap = ls->tables_cap ? ls->tables_cap * 2 : 64;
		struct table *nt = realloc(ls->tables, cap * sizeof(*nt));

		if (!nt)
			return NULL;
		ls->tables = nt;
		ls->tables_cap = cap;
	}
	t = &ls->tables[ls->ntables];
	t->tagged = tagged;
	t->len = (size_t)len;
	t->bytes = malloc(t->len);
	if (!t->bytes)
		return NULL;
	if (memsource__read(mem, addr + l->array_data, t->bytes, t->len) != 0 ||
	    u64map__put(ls->tables_by, tagged, ls->ntables + 1) != 0) {
		free(t->bytes);
		return NULL;
	}
	ls->ntables++;
	ls->bytes += t->len;
	ls->stats.tables++;
	return t;
}

static uint64_t word_at(const uint8_t *hdr, size_t off)
{
	uint64_t w;

	memcpy(&w, hdr + off, 8);
	return w;
}

static void remember(struct v8_lines *ls, uint64_t key, const struct entry *e)
{
	if (ls->n == V8_LINES_MAX_ENTRIES) {
		ls->n = 0;
		u64map__clear(ls->by_offset);
	}
	if (ls->n == ls->cap) {
		size_t cap = ls->cap ? ls->cap * 2 : 256;
		struct entry *nl = realloc(ls->list, cap * sizeof(*nl));

		if (!nl)
			return;
		ls->list = nl;
		ls->cap = cap;
	}
	if (u64map__put(ls->by_offset, key, ls->n + 1) != 0)
		return;
	ls->list[ls->n++] = *e;
}

int v8_lines__frame(struct v8_lines *ls, uint64_t bytecode, const uint8_t *hdr, uint64_t offset_word,
		    const struct v8_inline_function *fn, uint64_t now_ns, uint32_t *id)
{
	const struct v8_layout *l = v8_heap__layout(ls->heap);
	const struct table *t;
	struct entry e;
	uint64_t key, v;
	int64_t position, pos;
	uint16_t type;
	int err;

	if (!v8_lines__header_bytes(l) || !(bytecode & 1) ||
	    v8_heap__map_type(ls->heap, word_at(hdr, 0), &type) != 0 || type != l->t_bytecode_array)
		return -ENOENT;
	memset(&e, 0, sizeof(e));
	e.bytecode = bytecode;
	e.spt = word_at(hdr, l->bytecode_positions);
	e.sfi = fn->sfi;
	e.name_word = fn->name_word;
	e.script_word = fn->script_word;
	if (!v8_heap__smi(word_at(hdr, l->array_length), &e.length) || e.length <= 0 ||
	    e.length > V8_LINES_MAX_BYTECODE || v8_lines__offset(l, offset_word, e.length, &e.offset) != 0)
		return -ENOENT;
	if (!ls->since_ns)
		ls->since_ns = now_ns ? now_ns : 1;
	else if (now_ns - ls->since_ns >= V8_NAMES_LIFETIME_NS) {
		v8_lines__forget(ls);
		ls->since_ns = now_ns;
	}
	key = hash__u64(bytecode ^ hash__u64((uint64_t)e.offset));
	if (u64map__get(ls->by_offset, key, &v)) {
		const struct entry *c = &ls->list[v - 1];

		if (!c->code && c->bytecode == e.bytecode && c->offset == e.offset && c->spt == e.spt &&
		    c->length == e.length && c->sfi == e.sfi && c->name_word == e.name_word &&
		    c->script_word == e.script_word) {
			ls->stats.cached++;
			*id = c->id;
			return 0;
		}
	}
	t = table(ls, e.spt);
	if (!t)
		return -ENOENT;
	if (v8_positions__at(t->bytes, t->len, e.offset, &position) != 0 ||
	    (pos = v8_positions__script_offset(position)) < 0)
		return -ENOENT;
	err = v8_names__frame_at(ls->names, fn->sfi, fn->name_word, fn->script_word, pos, false, now_ns, &e.id);
	if (err < 0)
		return err;
	if (err != V8_NAMES_UNSETTLED)
		remember(ls, key, &e);
	ls->stats.placed++;
	*id = e.id;
	return 0;
}

/* One unsigned base-128 integer of V8's VLQ, 32 bits at most. */
static int uvlq(const uint8_t *t, size_t len, size_t *pos, uint64_t *v)
{
	return v8_positions__vlq(t, len, pos, 28, v);
}

/* The size of the bytecode at `at`, with its prefix: Wide and ExtraWide
 * (and their debug breaks, bytecodes 0-3 in every version) scale the
 * operands of the bytecode after them by 2 and 4. 0 when it is none. */
static size_t bytecode_size(const struct v8_layout *l, const uint8_t *b, size_t n, size_t at)
{
	unsigned scale = 0, prefix = 0, code = b[at];

	if (code < 4) {
		scale = code & 1 ? 2 : 1;
		prefix = 1;
		if (at + 1 >= n || b[at + 1] < 4)
			return 0;
		code = b[at + 1];
	}
	if (code >= l->nbytecodes)
		return 0;
	return prefix + l->bytecode_sizes[scale][code];
}

int v8_lines__baseline_offset(const struct v8_layout *l, const uint8_t *table, size_t table_len,
			      const uint8_t *bytecodes, size_t nbytes, uint64_t pc_offset, int64_t *offset)
{
	size_t tpos = 0, at = 0;
	uint64_t end, d;
	int64_t cur = -1;

	/* the prologue ends where the first bytecode's code starts; each
	 * step takes a byte of the table at least: the walk ends */
	if (!l->nbytecodes || uvlq(table, table_len, &tpos, &end) != 0)
		return -ENOENT;
	while (end < pc_offset) {
		size_t size;

		if (uvlq(table, table_len, &tpos, &d) != 0 || at >= nbytes ||
		    !(size = bytecode_size(l, bytecodes, nbytes, at)))
			return -ENOENT;
		cur = (int64_t)at;
		at += size;
		end += d;
	}
	*offset = cur;
	return 0;
}

/* The bytecode offset baseline code at pc offset off runs: its array's
 * header and bytecodes read (the first time a pc of it is sampled), its
 * offset table t walked along them. */
static int baseline_offset(struct v8_lines *ls, uint64_t bytecode, const struct table *t, uint64_t off,
			   uint64_t *spt, int64_t *length, int64_t *offset)
{
	const struct v8_layout *l = v8_heap__layout(ls->heap);
	struct memsource *mem = v8_heap__mem(ls->heap);
	uint8_t hdr[V8_LINES_HEADER];
	uint8_t *bytes;
	uint16_t type;
	int err;

	if (memsource__read(mem, bytecode - 1, hdr, v8_lines__header_bytes(l)) != 0 ||
	    v8_heap__map_type(ls->heap, word_at(hdr, 0), &type) != 0 || type != l->t_bytecode_array ||
	    !v8_heap__smi(word_at(hdr, l->array_length), length) || *length <= 0 ||
	    *length > V8_LINES_MAX_TABLE)
		return -ENOENT;
	*spt = word_at(hdr, l->bytecode_positions);
	bytes = malloc((size_t)*length);
	if (!bytes)
		return -ENOMEM;
	err = memsource__read(mem, bytecode - 1 + l->bytecode_data, bytes, (size_t)*length);
	if (!err)
		err = v8_lines__baseline_offset(l, t->bytes, t->len, bytes, (size_t)*length, off, offset);
	free(bytes);
	return err ? -ENOENT : 0;
}

int v8_lines__baseline(struct v8_lines *ls, uint64_t code, const uint8_t *code_hdr, uint64_t pc, int exact,
		       uint64_t bytecode, const struct v8_inline_function *fn, uint64_t now_ns, uint32_t *id)
{
	const struct v8_layout *l = v8_heap__layout(ls->heap);
	const struct table *t;
	struct entry e;
	uint64_t key, v, off, offsets;
	int64_t position, pos, length, boff;
	uint32_t size;
	unsigned kind;
	int err;

	/* baseline code compiled from the frame's array (the word its
	 * deoptimization data has in optimized code) */
	if (!l->nbytecodes || !v8_lines__header_bytes(l) || !(bytecode & 1) ||
	    v8_inline__code_span(l, code, code_hdr, &e.start, &size, &kind) != 0 ||
	    kind != l->code_kind_baseline || word_at(code_hdr, l->code_deopt_data) != bytecode)
		return -ENOENT;
	/* a return address may be the code's end; V8 maps it as it is */
	if (pc < e.start + (exact ? 0 : 1) || pc - e.start > size || (exact && pc - e.start == size))
		return -ENOENT;
	off = pc - e.start + (exact ? 1 : 0);
	offsets = word_at(code_hdr, l->code_source_positions);
	memset(&e, 0, offsetof(struct entry, start));
	e.code = code;
	e.bytecode = bytecode;
	e.offset = (int64_t)off;
	e.length = size;
	e.sfi = fn->sfi;
	e.name_word = fn->name_word;
	e.script_word = fn->script_word;
	if (!ls->since_ns)
		ls->since_ns = now_ns ? now_ns : 1;
	else if (now_ns - ls->since_ns >= V8_NAMES_LIFETIME_NS) {
		v8_lines__forget(ls);
		ls->since_ns = now_ns;
	}
	key = hash__u64(code ^ hash__u64(off ^ 0x8000000000000000ull));
	if (u64map__get(ls->by_offset, key, &v)) {
		const struct entry *c = &ls->list[v - 1];

		if (c->code == e.code && c->start == e.start && c->length == e.length && c->offset == e.offset &&
		    c->spt == offsets && c->bytecode == e.bytecode && c->sfi == e.sfi &&
		    c->name_word == e.name_word && c->script_word == e.script_word) {
			ls->stats.cached++;
			*id = c->id;
			return 0;
		}
	}
	/* the offset table first: reading the positions may start the
	 * cache over */
	t = table(ls, offsets);
	if (!t || baseline_offset(ls, bytecode, t, off, &e.spt, &length, &boff) != 0)
		return -ENOENT;
	t = table(ls, e.spt);
	if (!t || v8_positions__at(t->bytes, t->len, boff, &position) != 0 ||
	    (pos = v8_positions__script_offset(position)) < 0)
		return -ENOENT;
	err = v8_names__frame_at(ls->names, fn->sfi, fn->name_word, fn->script_word, pos, false, now_ns, &e.id);
	if (err < 0)
		return err;
	e.spt = offsets;
	if (err != V8_NAMES_UNSETTLED)
		remember(ls, key, &e);
	ls->stats.placed++;
	*id = e.id;
	return 0;
}

int v8_lines__remap(struct v8_lines *ls, struct strtab_remap *r)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (ls->list[i].id && strtab_remap__id(r, &ls->list[i].id))
			return -ENOMEM;
	return 0;
}

void v8_lines__stats(const struct v8_lines *ls, struct v8_lines_stats *out)
{
	*out = ls->stats;
}
