/* The functions Maglev and TurboFan inlined at a pc of optimized code. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "runtimes/accountant.h"
#include "runtimes/v8_inline.h"
#include "runtimes/v8_positions.h"

/* One InliningPosition: the call site (a SourcePosition) and the index of
 * the inlined function in the literals, padded to 16 bytes. */
#define INLINING_POSITION_BYTES 16

struct code {
	uint64_t tagged;
	uint64_t start, size, flags_word; /* what identifies it */
	uint64_t spt_word, deopt_word;
	uint8_t *positions;     /* the source position table */
	size_t npositions;
	uint8_t *inlinings;     /* InliningPosition[] */
	size_t ninlinings;
	uint64_t *literals;     /* the inlined SharedFunctionInfos */
	size_t nliterals;
};

/* Instructions found from a pc: [start, end) of the Code code. */
struct range {
	uint64_t start, end, code;
};

struct v8_inline {
	struct v8_heap *heap;
	struct range *ranges;    /* sorted by start, disjoint */
	size_t nranges;
	struct u64map *missed;   /* pages of pcs no code was found for */
	uint64_t code_map;       /* the map of objects holding instructions, once seen */
	uint8_t scan[4096];
	struct v8_names *names;
	bool lines;              /* frames named at the lines they run */
	struct u64map *by_code;  /* Code -> index + 1 */
	struct code *codes;
	size_t n, cap;
	struct u64map *by_pc;    /* hash(code, pc) -> offset in pool + 1 */
	uint32_t *pool;          /* [count, function's id or 0, ids...] runs */
	size_t npool, pool_cap;
};

struct v8_inline *v8_inline__new(struct v8_heap *heap, struct v8_names *names, bool lines)
{
	struct v8_inline *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->heap = heap;
	in->names = names;
	in->lines = lines;
	in->by_code = u64map__new(64);
	in->by_pc = u64map__new(256);
	in->missed = u64map__new(16);
	in->ranges = calloc(V8_INLINE_MAX_RANGES, sizeof(*in->ranges));
	if (!in->by_code || !in->by_pc || !in->missed || !in->ranges) {
		v8_inline__delete(in);
		return NULL;
	}
	return in;
}

static void free_code(struct code *c)
{
	free(c->positions);
	free(c->inlinings);
	free(c->literals);
	memset(c, 0, sizeof(*c));
}

void v8_inline__forget(struct v8_inline *in)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		free_code(&in->codes[i]);
	in->n = 0;
	in->npool = 0;
	in->nranges = 0;
	u64map__clear(in->by_code);
	u64map__clear(in->by_pc);
	u64map__clear(in->missed);
}

void v8_inline__delete(struct v8_inline *in)
{
	if (!in)
		return;
	v8_inline__forget(in);
	u64map__delete(in->by_code);
	u64map__delete(in->by_pc);
	u64map__delete(in->missed);
	free(in->ranges);
	free(in->codes);
	free(in->pool);
	free(in);
}

size_t v8_inline__header_bytes(const struct v8_layout *l)
{
	size_t n = 16, k;
	const uint16_t ends[] = { (uint16_t)(l->code_instruction_start + 8), (uint16_t)(l->code_instruction_size + 4),
				  (uint16_t)(l->code_flags + 4), (uint16_t)(l->code_source_positions + 8),
				  (uint16_t)(l->code_deopt_data + 8) };

	for (k = 0; k < sizeof(ends) / sizeof(ends[0]); k++)
		if (ends[k] > n)
			n = ends[k];
	return n > V8_INLINE_HEADER ? 0 : n;
}

/* The bytes of a byte array (tagged) of at most max bytes, copied. */
static int read_bytes(struct v8_inline *in, uint64_t tagged, size_t unit, size_t max, void **out,
		      size_t *n)
{
	const struct v8_layout *l = v8_heap__layout(in->heap);
	struct memsource *mem = v8_heap__mem(in->heap);
	uint64_t addr, len_word;
	int64_t len;
	void *buf;

	if (!v8_heap__pointer(tagged, &addr) || memsource__u64(mem, addr + l->array_length, &len_word) != 0 ||
	    !v8_heap__smi(len_word, &len) || len < 0 || (uint64_t)len * unit > max)
		return -EPROTO;
	*n = (size_t)len;
	*out = NULL;
	if (!len)
		return 0;
	buf = malloc((size_t)len * unit);
	if (!buf)
		return -ENOMEM;
	if (memsource__read(mem, addr + l->array_data, buf, (size_t)len * unit) != 0) {
		free(buf);
		return -EFAULT;
	}
	*out = buf;
	return 0;
}

static bool is_array(const struct v8_layout *l, uint16_t t)
{
	return t == l->t_fixed_array || (l->t_trusted_fixed_array && t == l->t_trusted_fixed_array) ||
	       (l->t_protected_fixed_array && t == l->t_protected_fixed_array) ||
	       (l->t_weak_fixed_array && t == l->t_weak_fixed_array);
}

static bool is_byte_array(const struct v8_layout *l, uint16_t t)
{
	return t == l->t_byte_array || (l->t_trusted_byte_array && t == l->t_trusted_byte_array);
}

/* Reads a Code's tables into c. */
static int read_tables(struct v8_inline *in, struct code *c)
{
	const struct v8_layout *l = v8_heap__layout(in->heap);
	uint64_t deopt[32], daddr;
	int64_t count;
	uint16_t t;
	size_t need = (size_t)l->deopt_inlining_positions + 1, i;
	int err;

	if (need < (size_t)l->deopt_literals + 1)
		need = (size_t)l->deopt_literals + 1;
	if (v8_heap__type(in->heap, c->spt_word, &t) != 0 || !is_byte_array(l, t))
		return -EPROTO;
	err = read_bytes(in, c->spt_word, 1, V8_INLINE_MAX_TABLE, (void **)&c->positions, &c->npositions);
	if (err)
		return err;
	/* code that inlined nothing may have no deoptimization data at all */
	if (v8_heap__type(in->heap, c->deopt_word, &t) != 0 || !is_array(l, t) ||
	    !v8_heap__pointer(c->deopt_word, &daddr) || need > 32 ||
	    memsource__read(v8_heap__mem(in->heap), daddr + l->array_data, deopt, need * 8) != 0 ||
	    !v8_heap__smi(deopt[l->deopt_inlined_count], &count) || count <= 0)
		return 0;
	if (count > 4096)
		return -EPROTO;
	if (v8_heap__type(in->heap, deopt[l->deopt_inlining_positions], &t) != 0 || !is_byte_array(l, t))
		return -EPROTO;
	err = read_bytes(in, deopt[l->deopt_inlining_positions], 1, V8_INLINE_MAX_TABLE, (void **)&c->inlinings,
			 &c->ninlinings);
	if (err)
		return err;
	c->ninlinings /= INLINING_POSITION_BYTES;
	if (v8_heap__type(in->heap, deopt[l->deopt_literals], &t) != 0 || !is_array(l, t))
		return -EPROTO;
	err = read_bytes(in, deopt[l->deopt_literals], 8, V8_INLINE_MAX_TABLE, (void **)&c->literals,
			 &c->nliterals);
	if (err)
		return err;
	if ((size_t)count < c->nliterals)
		c->nliterals = (size_t)count;
	/* weak references (a WeakFixedArray's) carry a second tag bit */
	for (i = 0; i < c->nliterals; i++)
		if ((c->literals[i] & 3) == 3)
			c->literals[i] &= ~(uint64_t)2;
	return 0;
}

static struct code *code_entry(struct v8_inline *in, uint64_t tagged, const struct code *id, int *err)
{
	struct code *c;
	uint64_t v;

	*err = 0;
	if (u64map__get(in->by_code, tagged, &v)) {
		c = &in->codes[v - 1];
		if (c->start == id->start && c->size == id->size && c->flags_word == id->flags_word &&
		    c->spt_word == id->spt_word && c->deopt_word == id->deopt_word)
			return c;
		/* another object there now: its frames too */
		free_code(c);
		u64map__clear(in->by_pc);
		in->npool = 0;
	} else {
		if (in->n >= V8_INLINE_MAX_CODES)
			v8_inline__forget(in);
		if (in->n == in->cap) {
			size_t cap = in->cap ? in->cap * 2 : 64;
			struct code *nc = realloc(in->codes, cap * sizeof(*nc));

			if (!nc) {
				*err = -ENOMEM;
				return NULL;
			}
			in->codes = nc;
			in->cap = cap;
		}
		if (u64map__put(in->by_code, tagged, in->n + 1) != 0) {
			*err = -ENOMEM;
			return NULL;
		}
		c = &in->codes[in->n++];
	}
	*c = *id;
	c->tagged = tagged;
	*err = read_tables(in, c);
	if (*err) {
		free_code(c);
		*c = *id;
		c->tagged = tagged;
	}
	return c;
}

/* The inlined SharedFunctionInfos at pc offset off, innermost first,
 * with the script offsets each runs there (the innermost's position, each
 * caller's the call site of its callee) into poss; *fn_pos is the
 * function's own (-1: unknown). */
static size_t inlined_at(const struct code *c, int64_t off, uint64_t *sfis, int64_t *poss, size_t max,
			 int64_t *fn_pos)
{
	int64_t at = 0;
	size_t n = 0;
	unsigned id;

	*fn_pos = -1;
	if (!c->positions || v8_positions__at(c->positions, c->npositions, off, &at) != 0)
		return 0;
	*fn_pos = v8_positions__script_offset(at);
	for (id = v8_positions__inlining(at); id;) {
		const uint8_t *ip;
		uint64_t site;
		unsigned next;
		int32_t fn;

		if (n == max) {
			*fn_pos = -1;
			break;
		}
		if (id > c->ninlinings) {
			*fn_pos = -1;
			return 0;
		}
		ip = c->inlinings + (size_t)(id - 1) * INLINING_POSITION_BYTES;
		memcpy(&site, ip, 8);
		memcpy(&fn, ip + 8, 4);
		if (fn < 0 || (size_t)fn >= c->nliterals) {
			*fn_pos = -1;
			return 0;
		}
		sfis[n] = c->literals[fn];
		poss[n++] = *fn_pos;
		/* the call site is where its caller runs */
		*fn_pos = v8_positions__script_offset((int64_t)site);
		/* the call site lies in its caller's inlining, which V8
		 * numbered before it: ids fall, and the walk ends */
		next = v8_positions__inlining((int64_t)site);
		if (next >= id) {
			/* a caller we cannot name: nor place the function */
			*fn_pos = -1;
			break;
		}
		id = next;
	}
	return n;
}

static int name_inlined(struct v8_inline *in, uint64_t sfi, int64_t pos, uint64_t now_ns, uint32_t *id)
{
	const struct v8_layout *l = v8_heap__layout(in->heap);
	struct memsource *mem = v8_heap__mem(in->heap);
	uint64_t addr, name_word, script_word;
	uint16_t t;
	int err = v8_heap__type(in->heap, sfi, &t);

	if (err)
		return err;
	if (t != l->t_sfi || !v8_heap__pointer(sfi, &addr))
		return -EPROTO;
	if (memsource__u64(mem, addr + l->sfi_name_or_scope_info, &name_word) != 0 ||
	    memsource__u64(mem, addr + l->sfi_script, &script_word) != 0)
		return -EFAULT;
	return v8_names__frame_at(in->names, sfi, name_word, script_word, in->lines ? pos : -1, true, now_ns,
				  id);
}

static uint64_t u64_at(const uint8_t *hdr, size_t off)
{
	uint64_t v;

	memcpy(&v, hdr + off, 8);
	return v;
}

int v8_inline__code_span(const struct v8_layout *l, uint64_t code, const uint8_t *hdr, uint64_t *start,
			 uint32_t *size, unsigned *kind)
{
	uint64_t addr;
	uint32_t flags;

	if (!l->have_inlining || !v8_heap__pointer(code, &addr))
		return -EPROTO;
	memcpy(&flags, hdr + l->code_flags, 4);
	memcpy(size, hdr + l->code_instruction_size, 4);
	*start = l->code_start_is_pointer ? u64_at(hdr, l->code_instruction_start) : addr + l->code_instruction_start;
	*kind = (flags & l->code_kind_mask) >> l->code_kind_shift;
	return 0;
}

int v8_inline__frames(struct v8_inline *in, uint64_t code, const uint8_t *hdr, uint64_t pc,
		      int exact, uint64_t now_ns, const struct v8_inline_function *fn, uint32_t *fn_id,
		      uint32_t *ids, size_t max)
{
	const struct v8_layout *l = v8_heap__layout(in->heap);
	uint64_t sfis[V8_INLINE_MAX_DEPTH], key, v, addr;
	int64_t poss[V8_INLINE_MAX_DEPTH], fn_pos;
	struct code id, *c;
	uint32_t size, flags, own = 0;
	int64_t off;
	bool unsettled = false;
	size_t n, k;
	int err;

	if (fn_id)
		*fn_id = 0;
	if (!l->have_inlining || !v8_heap__pointer(code, &addr))
		return 0;
	memcpy(&flags, hdr + l->code_flags, 4);
	memcpy(&size, hdr + l->code_instruction_size, 4);
	memset(&id, 0, sizeof(id));
	id.start = l->code_start_is_pointer ? u64_at(hdr, l->code_instruction_start)
					    : addr + l->code_instruction_start;
	id.size = size;
	id.flags_word = flags;
	id.spt_word = u64_at(hdr, l->code_source_positions);
	id.deopt_word = u64_at(hdr, l->code_deopt_data);
	/* a return address is inside its call, the instruction before it */
	off = (int64_t)(pc - (exact ? 0 : 1) - id.start);
	if (pc < id.start + (exact ? 0 : 1) || off >= (int64_t)size)
		return -ERANGE;
	/* compiled by Maglev or TurboFan: the kinds after baseline code */
	if (((flags & l->code_kind_mask) >> l->code_kind_shift) <= l->code_kind_baseline)
		return 0;
	key = hash__u64(code ^ hash__u64((uint64_t)off));
	if (u64map__get(in->by_code, code, &v)) {
		const struct code *cc = &in->codes[v - 1];

		if (cc->start == id.start && cc->size == id.size && cc->flags_word == id.flags_word &&
		    cc->spt_word == id.spt_word && cc->deopt_word == id.deopt_word &&
		    u64map__get(in->by_pc, key, &v)) {
			n = in->pool[v - 1];
			if (fn_id)
				*fn_id = in->pool[v];
			for (k = 0; k < n && k < max; k++)
				ids[k] = in->pool[v + 1 + k];
			return (int)k;
		}
	}
	c = code_entry(in, code, &id, &err);
	if (!c)
		return err;
	n = inlined_at(c, off, sfis, poss, V8_INLINE_MAX_DEPTH < max ? V8_INLINE_MAX_DEPTH : max, &fn_pos);
	for (k = 0; k < n; k++) {
		err = name_inlined(in, sfis[k], poss[k], now_ns, &ids[k]);
		if (err < 0)
			return err == -ENOMEM ? err : 0;
		unsettled |= err == V8_NAMES_UNSETTLED;
	}
	/* the function itself at the line it runs; where no line is known
	 * its caller names it as it always does */
	if (in->lines && fn && fn_pos >= 0) {
		err = v8_names__frame_at(in->names, fn->sfi, fn->name_word, fn->script_word, fn_pos, false,
					 now_ns, &own);
		if (err < 0)
			own = 0;
		unsettled |= err == V8_NAMES_UNSETTLED;
	}
	if (fn_id)
		*fn_id = own;
	/* names without the lines their scripts will give: this sample's */
	if (unsettled)
		return (int)n;
	if (in->npool + n + 2 > V8_INLINE_MAX_IDS) {
		u64map__clear(in->by_pc);
		in->npool = 0;
	}
	if (in->npool + n + 2 > in->pool_cap) {
		size_t cap = in->pool_cap ? in->pool_cap * 2 : 1024;
		uint32_t *np;

		while (cap < in->npool + n + 2)
			cap *= 2;
		np = realloc(in->pool, cap * sizeof(*np));
		if (!np)
			return (int)n;
		in->pool = np;
		in->pool_cap = cap;
	}
	if (u64map__put(in->by_pc, key, in->npool + 1) == 0) {
		in->pool[in->npool] = (uint32_t)n;
		in->pool[in->npool + 1] = own;
		memcpy(&in->pool[in->npool + 2], ids, n * sizeof(*ids));
		in->npool += n + 2;
	}
	return (int)n;
}

/* Index of the first range ending after pc. */
static size_t range_slot(const struct v8_inline *in, uint64_t pc)
{
	size_t lo = 0, hi = in->nranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->ranges[mid].end <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void add_range(struct v8_inline *in, uint64_t start, uint64_t end, uint64_t code)
{
	size_t i = range_slot(in, start), j = i;

	/* what it overlaps was freed since: it goes */
	while (j < in->nranges && in->ranges[j].start < end)
		j++;
	if (i == j && in->nranges == V8_INLINE_MAX_RANGES)
		in->nranges = i = j = 0;
	memmove(&in->ranges[i + 1], &in->ranges[j], (in->nranges - j) * sizeof(in->ranges[0]));
	in->nranges = in->nranges + 1 - (j - i);
	in->ranges[i].start = start;
	in->ranges[i].end = end;
	in->ranges[i].code = code;
}

/* Whether the object at obj holds instructions starting at start that
 * hold pc: its Code (the object itself, or what it points to) says so. */
static int check_holder(struct v8_inline *in, uint64_t obj, uint64_t start, uint64_t pc, uint64_t map,
			uint64_t code_word, uint64_t *code, uint64_t *end)
{
	const struct v8_layout *l = v8_heap__layout(in->heap);
	uint8_t hdr[V8_INLINE_HEADER];
	size_t bytes = v8_inline__header_bytes(l);
	uint64_t cstart, addr;
	uint32_t size;
	uint16_t t;

	if (in->code_map ? map != in->code_map : !(map & 1))
		return -ENOENT;
	*code = l->stream_code ? code_word : obj + 1;
	if (!v8_heap__pointer(*code, &addr) || !bytes ||
	    memsource__read(v8_heap__mem(in->heap), addr, hdr, bytes) != 0 ||
	    v8_heap__map_type(in->heap, u64_at(hdr, 0), &t) != 0 || t != l->t_code)
		return -ENOENT;
	cstart = l->code_start_is_pointer ? u64_at(hdr, l->code_instruction_start)
					  : addr + l->code_instruction_start;
	memcpy(&size, hdr + l->code_instruction_size, 4);
	if (cstart != start || pc >= start + size)
		return -ENOENT;
	in->code_map = map;
	*end = start + size;
	return 0;
}

int v8_inline__code_at(struct v8_inline *in, uint64_t pc, uint64_t now_ns, uint64_t *code)
{
	const struct v8_layout *l = v8_heap__layout(in->heap);
	struct memsource *mem = v8_heap__mem(in->heap);
	size_t i = range_slot(in, pc);
	uint64_t at, lowest, v, end;

	if (i < in->nranges && in->ranges[i].start <= pc) {
		*code = in->ranges[i].code;
		return 0;
	}
	if (!l->have_inlining || !l->stream_header || pc < V8_INLINE_MAX_SCAN ||
	    u64map__get(in->missed, pc >> 12, &v) || !ledger__may_read(mem->ledger, now_ns))
		return -ENOENT;
	/* instructions start 64-aligned, their object's header just before:
	 * look back a page at a time (never across into a page not read:
	 * V8 guards its code pages) at the objects starting in it */
	lowest = pc - V8_INLINE_MAX_SCAN;
	for (at = pc & ~(uint64_t)4095; at > lowest; at -= sizeof(in->scan)) {
		uint64_t top = at + sizeof(in->scan) - 16 + l->stream_header, s;

		if (memsource__read(mem, at, in->scan, sizeof(in->scan)) != 0)
			break;
		if (top > pc)
			top = pc;
		for (s = top & ~(uint64_t)63; s >= at + l->stream_header; s -= 64) {
			uint64_t obj = s - l->stream_header, map, word = 0;

			memcpy(&map, in->scan + (obj - at), 8);
			if (l->stream_code)
				memcpy(&word, in->scan + (obj + l->stream_code - at), 8);
			if (check_holder(in, obj, s, pc, map, word, code, &end) == 0) {
				add_range(in, s, end, *code);
				return 0;
			}
		}
	}
	(void)u64map__put(in->missed, pc >> 12, 1);
	return -ENOENT;
}

int v8_inline__remap(struct v8_inline *in, struct strtab_remap *r)
{
	size_t i = 0;

	/* runs of [count, function's id or 0, ids...] */
	while (i + 1 < in->npool) {
		uint32_t n = in->pool[i], k;

		for (k = 1; k <= n + 1 && i + k < in->npool; k++)
			if (in->pool[i + k] && strtab_remap__id(r, &in->pool[i + k]))
				return -ENOMEM;
		i += n + 2;
	}
	return 0;
}
