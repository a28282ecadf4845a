/* A sample's JavaScript frames, from the frame pointers its stack holds. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/v8.h"
#include "runtimes/v8_heap.h"
#include "runtimes/v8_inline.h"
#include "runtimes/v8_lines.h"
#include "runtimes/v8_names.h"

/* The kept rbp of a frame: unwind_kept_regnos[1] is DWARF 6. */
#define KEPT_RBP 1
/* Bytes of a JSFunction and a SharedFunctionInfo read per frame. */
#define HEADER_MAX 128

/* Objects read per frame at most: its function, then its
 * SharedFunctionInfo, code and BytecodeArray. */
#define PER_FRAME 3

/* One JavaScript frame of the sample being read. */
struct js_frame {
	uint32_t frame;          /* its index in the sample's frames */
	uint64_t function;       /* tagged JSFunction */
	uint64_t sfi, code;      /* from the JSFunction */
	/* with lines, an interpreted frame's slots: its BytecodeArray
	 * (tagged; 0: not interpreted) and bytecode offset, and the offset
	 * the interpreter's register holds when the frame is the sample's
	 * innermost (as a small integer; 1: none) */
	uint64_t bytecode, offset_word, reg_offset_word;
	bool baseline;           /* bytecode is a baseline frame's: not read */
	bool fn_ok, sfi_ok, code_ok, bytecode_ok;
	uint8_t fn_hdr[HEADER_MAX], sfi_hdr[HEADER_MAX], code_hdr[V8_INLINE_HEADER];
	uint8_t bytecode_hdr[V8_LINES_HEADER];
};

struct v8 {
	struct memsource mem;
	struct v8_layout l;
	struct strtab *names;
	struct v8_heap *heap;
	struct v8_names *fnames;
	struct v8_inline *inl;
	struct v8_lines *lines;             /* NULL: frames keep their definition's line */
	uint32_t kind_ids[V8_NFRAME_KINDS]; /* "[v8 stub]_[j]" ...; 0: not yet */
	size_t fn_bytes, sfi_bytes, code_bytes, bytecode_bytes;
	struct js_frame js[V8_MAX_FRAMES];
	struct v8_stats stats;
};

static size_t max3(size_t a, size_t b, size_t c)
{
	size_t m = a > b ? a : b;

	return m > c ? m : c;
}

int v8__open(const struct memsource *mem, const struct v8_layout *l, bool lines, struct strtab *names,
	     struct v8 **out)
{
	struct v8 *v = calloc(1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	v->mem = *mem;
	v->l = *l;
	v->names = names;
	v->fn_bytes = max3(l->fn_shared + 8u, l->fn_code + 8u, 8);
	v->sfi_bytes = max3(l->sfi_name_or_scope_info + 8u, l->sfi_script + 8u, 8);
	v->code_bytes = v8_inline__header_bytes(l);
	v->heap = v8_heap__new(&v->mem, l);
	v->fnames = v->heap ? v8_names__new(v->heap, names) : NULL;
	v->inl = v->fnames ? v8_inline__new(v->heap, v->fnames, lines) : NULL;
	if (lines && v->inl) {
		v->bytecode_bytes = v8_lines__header_bytes(l);
		v->lines = v8_lines__new(v->heap, v->fnames);
	}
	if (!v->inl || (lines && !v->lines) || v->fn_bytes > HEADER_MAX || v->sfi_bytes > HEADER_MAX) {
		int err = v->inl && (!lines || v->lines) ? -EPROTO : -ENOMEM;

		v8__delete(v);
		return err;
	}
	*out = v;
	return 0;
}

void v8__delete(struct v8 *v)
{
	if (!v)
		return;
	v8_lines__delete(v->lines);
	v8_inline__delete(v->inl);
	v8_names__delete(v->fnames);
	v8_heap__delete(v->heap);
	free(v);
}

struct memsource *v8__mem(struct v8 *v)
{
	return &v->mem;
}

void v8__stats(const struct v8 *v, struct v8_stats *out)
{
	*out = v->stats;
	out->reads = v->mem.reads;
}

/* The word at addr of the sample's copied stack. */
static bool stack_word(const struct unwind_stack *st, uint64_t addr, uint64_t *w)
{
	if (addr < st->base || addr - st->base > st->size || st->size - (addr - st->base) < 8)
		return false;
	memcpy(w, st->data + (addr - st->base), 8);
	return true;
}

/* What V8's own frames are called when they run code no file holds. */
static uint32_t kind_id(struct v8 *v, int kind)
{
	static const char *const names[V8_NFRAME_KINDS] = {
		[V8_FRAME_OTHER] = "[v8 frame]", [V8_FRAME_ENTRY] = "[v8 entry]",
		[V8_FRAME_EXIT] = "[v8 exit]",   [V8_FRAME_STUB] = "[v8 stub]",
		[V8_FRAME_REGEXP] = "[v8 regexp]", [V8_FRAME_WASM] = "[v8 wasm]",
		[V8_FRAME_INTERNAL] = "[v8 internal]",
	};

	if (kind < 0 || kind >= V8_NFRAME_KINDS)
		kind = V8_FRAME_OTHER;
	if (!v->kind_ids[kind] &&
	    ledger__intern_frame(v->mem.ledger, v->names, names[kind], FRAME_SUFFIX_JIT, &v->kind_ids[kind]) != 0)
		return 0;
	return v->kind_ids[kind];
}

static void add_splice(struct runtime_stack *out, uint32_t frame, const uint32_t *ids, size_t n)
{
	struct runtime_splice *sp;

	if (!n || out->nsplices == RUNTIME_MAX_SPLICES || out->nids + n > RUNTIME_MAX_IDS)
		return;
	sp = &out->at[out->nsplices++];
	sp->frame = frame;
	sp->first = (uint16_t)out->nids;
	sp->count = (uint16_t)n;
	/* outermost first: the function, then what it inlined */
	while (n-- > 0)
		out->ids[out->nids++] = ids[n];
}

/* Reads the headers of n objects (lens[i] bytes each) in one call where
 * the source can; ok[i] says which were read. An object is read once
 * however many frames name it (a recursion's frames share their function,
 * its SharedFunctionInfo and code: fib's 20 frames were 20 ranges of one
 * read, and those reads were a third of the agent's time on node), then
 * copied to the others: the same bytes of one read, so nothing of another
 * moment stands in. */
#define UNIQUE_SLOTS 512 /* a power of two over PER_FRAME * V8_MAX_FRAMES */
static void read_headers(struct v8 *v, const uint64_t *tagged, uint8_t *const *bufs,
			 const size_t *lens, bool *ok, size_t n)
{
	/* a frame's function, or its SharedFunctionInfo, code and bytecode */
	uint64_t addrs[PER_FRAME * V8_MAX_FRAMES];
	void *b[PER_FRAME * V8_MAX_FRAMES];
	size_t ulens[PER_FRAME * V8_MAX_FRAMES];
	bool uok[PER_FRAME * V8_MAX_FRAMES];
	uint16_t first[PER_FRAME * V8_MAX_FRAMES]; /* object i's unique index */
	uint16_t slot[UNIQUE_SLOTS];      /* unique index + 1, by address */
	size_t i, u = 0;

	memset(slot, 0, sizeof(slot));
	for (i = 0; i < n; i++) {
		size_t h = (size_t)((tagged[i] * 0x9e3779b97f4a7c15ull) >> 55) & (UNIQUE_SLOTS - 1);

		ok[i] = false;
		while (slot[h] && (addrs[slot[h] - 1] != tagged[i] - 1 || ulens[slot[h] - 1] != lens[i]))
			h = (h + 1) & (UNIQUE_SLOTS - 1);
		if (!slot[h]) {
			addrs[u] = tagged[i] - 1;
			ulens[u] = lens[i];
			b[u] = bufs[i];
			uok[u] = false;
			slot[h] = (uint16_t)++u;
		}
		first[i] = (uint16_t)(slot[h] - 1);
	}
	for (i = 0; i < u; i += MEMSOURCE_SPANS_MAX) {
		size_t k = u - i < MEMSOURCE_SPANS_MAX ? u - i : MEMSOURCE_SPANS_MAX;

		if (memsource__readv(&v->mem, addrs + i, ulens + i, b + i, uok + i, k) < 0)
			return;
	}
	for (i = 0; i < n; i++) {
		ok[i] = uok[first[i]];
		if (ok[i] && b[first[i]] != bufs[i])
			memcpy(bufs[i], b[first[i]], lens[i]);
	}
}

static uint64_t word_at(const uint8_t *hdr, size_t off)
{
	uint64_t w;

	memcpy(&w, hdr + off, 8);
	return w;
}

/* Whether the header read is of an object whose type is in [lo, hi]. */
static bool typed(struct v8 *v, const uint8_t *hdr, uint16_t lo, uint16_t hi)
{
	uint16_t t;

	return v8_heap__map_type(v->heap, word_at(hdr, 0), &t) == 0 && t >= lo && t <= hi;
}

/* With lines, whether frame f at fp may be interpreted: Ignition's frames
 * run in its builtins (the trampoline, the bytecode handlers), with a
 * BytecodeArray and the small integer of an offset in their slots; the
 * array, read with the frame's other objects, says (v8_lines__frame).
 * The slot holds the offset the interpreter saved when its bytecode last
 * called out; a handler running at the sample keeps the current one in
 * its register, with the array in another: when that one still holds
 * the frame's array, the register's offset is the one to place. */
static void interpreted(const struct v8 *v, const struct runtime_sample *s, const struct unwind_frame *f,
			uint64_t fp, struct js_frame *j)
{
	const struct unwind_regs *r = s->regs;
	uint64_t arr, off, addr;
	int ra = v->l.reg_bytecode_array, ro = v->l.reg_bytecode_offset;

	j->reg_offset_word = 1;
	if (!v->lines || !v->bytecode_bytes ||
	    !stack_word(s->stack, fp + (uint64_t)(int64_t)v->l.fp_bytecode_array, &arr) ||
	    !stack_word(s->stack, fp + (uint64_t)(int64_t)v->l.fp_bytecode_offset, &off) ||
	    !v8_heap__pointer(arr, &addr))
		return;
	/* Sparkplug's frame: its code no file holds, the feedback vector in
	 * the offset slot; its code says (v8_lines__baseline) */
	if (f->code != UNWIND_CODE_NATIVE) {
		if ((off & 1) && v->l.nbytecodes) {
			j->bytecode = arr;
			j->baseline = true;
		}
		return;
	}
	if (off & 1)
		return;
	j->bytecode = arr;
	j->offset_word = off;
	if (f == &s->frames[0] && f->exact && r && ra >= 0 && ro >= 0 && ra < UNWIND_NREGS &&
	    ro < UNWIND_NREGS && (r->valid >> ra & 1) && (r->valid >> ro & 1) && r->val[ra] == arr &&
	    r->val[ro] < (1u << 30))
		j->reg_offset_word = r->val[ro] << 32;
}

/* The sample's frames that V8 ran, as JavaScript frames (returned) or
 * splices of V8's own frames in code no file holds. */
static size_t collect(struct v8 *v, const struct runtime_sample *s, struct runtime_stack *out)
{
	size_t i, n = 0;

	for (i = 0; i < s->nframes && n < V8_MAX_FRAMES; i++) {
		const struct unwind_frame *f = &s->frames[i];
		uint64_t fp, marker, fn, addr;
		int kind;

		if (!f->keeps || f->runtime != s->tag || !(f->kept & (1u << KEPT_RBP)))
			continue;
		fp = f->kept_regs[KEPT_RBP];
		if (fp < 256 || !stack_word(s->stack, fp + (uint64_t)(int64_t)v->l.fp_marker, &marker) ||
		    !stack_word(s->stack, fp + (uint64_t)(int64_t)v->l.fp_function, &fn))
			continue;
		kind = v8_layout__frame_kind(&v->l, marker);
		if (kind >= 0) {
			/* V8's own frame: a builtin keeps its symbol's name,
			 * code no file holds is named by its kind */
			if (f->code != UNWIND_CODE_NATIVE) {
				uint32_t id = kind_id(v, kind);

				add_splice(out, (uint32_t)i, &id, id ? 1 : 0);
			}
			continue;
		}
		if (!v8_heap__pointer(fn, &addr))
			continue;
		memset(&v->js[n], 0, offsetof(struct js_frame, fn_hdr));
		v->js[n].frame = (uint32_t)i;
		v->js[n].function = fn;
		interpreted(v, s, f, fp, &v->js[n]);
		n++;
	}
	return n;
}

/* Names JavaScript frame j: its function, what optimized code inlined at
 * its pc, spliced on its native frame; with lines, each at the line it
 * runs where the code says (optimized code's table, an interpreted
 * frame's bytecode offset), else at its definition's. */
static void name_frame(struct v8 *v, const struct runtime_sample *s, struct js_frame *j,
		       struct runtime_stack *out)
{
	const struct unwind_frame *f = &s->frames[j->frame];
	uint32_t ids[V8_INLINE_MAX_DEPTH + 1], own = 0;
	struct v8_inline_function fn;
	int n = 0;

	if (!j->sfi_ok || !typed(v, j->sfi_hdr, v->l.t_sfi, v->l.t_sfi)) {
		v->stats.failures++;
		return;
	}
	fn.sfi = j->sfi;
	fn.name_word = word_at(j->sfi_hdr, v->l.sfi_name_or_scope_info);
	fn.script_word = word_at(j->sfi_hdr, v->l.sfi_script);
	/* only code no file holds is optimized; builtins inline nothing */
	if (j->code_ok && typed(v, j->code_hdr, v->l.t_code, v->l.t_code))
		n = v8_inline__frames(v->inl, j->code, j->code_hdr, f->pc, f->exact, s->now_ns, &fn, &own, ids,
				      V8_INLINE_MAX_DEPTH);
	/* not the function's code: a loop's, replaced on the stack */
	if (n == -ERANGE && v8_inline__code_at(v->inl, f->pc - (f->exact ? 0 : 1), s->now_ns, &j->code) == 0 &&
	    memsource__read(&v->mem, j->code - 1, j->code_hdr, v->code_bytes) == 0)
		n = v8_inline__frames(v->inl, j->code, j->code_hdr, f->pc, f->exact, s->now_ns, &fn, &own, ids,
				      V8_INLINE_MAX_DEPTH);
	if (n < 0)
		n = 0;
	if (!own && j->baseline && j->code_ok && typed(v, j->code_hdr, v->l.t_code, v->l.t_code) &&
	    v8_lines__baseline(v->lines, j->code, j->code_hdr, f->pc, f->exact, j->bytecode, &fn, s->now_ns,
			       &own) != 0)
		own = 0;
	if (!own && j->bytecode_ok && j->reg_offset_word != 1 &&
	    v8_lines__frame(v->lines, j->bytecode, j->bytecode_hdr, j->reg_offset_word, &fn, s->now_ns, &own) != 0)
		own = 0;
	if (!own && j->bytecode_ok && v8_lines__frame(v->lines, j->bytecode, j->bytecode_hdr, j->offset_word, &fn,
						      s->now_ns, &own) != 0)
		own = 0;
	if (own) {
		ids[n] = own;
		v->stats.lines++;
	} else if (v8_names__frame(v->fnames, j->sfi, fn.name_word, fn.script_word, false, s->now_ns, &ids[n]) <
		   0) {
		v->stats.failures++;
		return;
	}
	v->stats.frames += (uint64_t)n + 1;
	v->stats.inlined += (uint64_t)n;
	out->confirmed++;
	add_splice(out, j->frame, ids, (size_t)n + 1);
}

/* Splices innermost first, as the contract has them: V8's own frames were
 * spliced while collecting, JavaScript frames after. */
static void sort_splices(struct runtime_stack *out, size_t first)
{
	size_t i, j;

	for (i = first + 1; i < out->nsplices; i++) {
		struct runtime_splice x = out->at[i];

		for (j = i; j > first && out->at[j - 1].frame > x.frame; j--)
			out->at[j] = out->at[j - 1];
		out->at[j] = x;
	}
}

/* Whether frame j's code is worth reading for what it inlined: code no
 * file holds (builtins inline nothing we name) with a Code pointer. */
static bool wants_code(const struct v8 *v, const struct runtime_sample *s, const struct js_frame *j)
{
	return v->code_bytes && (j->code & 1) && j->code >= 4096 &&
	       s->frames[j->frame].code != UNWIND_CODE_NATIVE;
}

int v8__read_stack(struct v8 *v, const struct runtime_sample *s, struct runtime_stack *out)
{
	uint64_t tagged[PER_FRAME * V8_MAX_FRAMES];
	uint8_t *bufs[PER_FRAME * V8_MAX_FRAMES];
	size_t lens[PER_FRAME * V8_MAX_FRAMES];
	bool ok[PER_FRAME * V8_MAX_FRAMES];
	uint64_t addr;
	size_t n, i, m, first;

	/* the budget is asked once per sample: a stack is one operation */
	if (!ledger__may_read(v->mem.ledger, s->now_ns))
		return -EAGAIN;
	first = out->nsplices;
	n = collect(v, s, out);
	if (!n) {
		sort_splices(out, first);
		return 0;
	}
	/* the functions, then their SharedFunctionInfos, code and bytecode:
	 * two calls */
	for (i = 0; i < n; i++) {
		tagged[i] = v->js[i].function;
		bufs[i] = v->js[i].fn_hdr;
		lens[i] = v->fn_bytes;
	}
	read_headers(v, tagged, bufs, lens, ok, n);
	for (i = 0, m = 0; i < n; i++) {
		struct js_frame *j = &v->js[i];

		j->fn_ok = ok[i] && typed(v, j->fn_hdr, v->l.t_function_first, v->l.t_function_last);
		if (!j->fn_ok) {
			v->stats.failures++;
			continue;
		}
		j->sfi = word_at(j->fn_hdr, v->l.fn_shared);
		j->code = word_at(j->fn_hdr, v->l.fn_code);
		if (!v8_heap__pointer(j->sfi, &addr)) {
			j->fn_ok = false;
			v->stats.failures++;
			continue;
		}
		tagged[m] = j->sfi;
		bufs[m] = j->sfi_hdr;
		lens[m++] = v->sfi_bytes;
		if (wants_code(v, s, j)) {
			tagged[m] = j->code;
			bufs[m] = j->code_hdr;
			lens[m++] = v->code_bytes;
		}
		if (j->bytecode && !j->baseline) {
			tagged[m] = j->bytecode;
			bufs[m] = j->bytecode_hdr;
			lens[m++] = v->bytecode_bytes;
		}
	}
	read_headers(v, tagged, bufs, lens, ok, m);
	for (i = 0, m = 0; i < n; i++) {
		struct js_frame *j = &v->js[i];

		if (!j->fn_ok)
			continue;
		j->sfi_ok = ok[m++];
		if (wants_code(v, s, j))
			j->code_ok = ok[m++];
		if (j->bytecode && !j->baseline)
			j->bytecode_ok = ok[m++];
		name_frame(v, s, j, out);
	}
	sort_splices(out, first);
	return 0;
}

int v8__remap_names(struct v8 *v, struct strtab_remap *r)
{
	size_t k;
	int err;

	for (k = 0; k < V8_NFRAME_KINDS; k++)
		if (v->kind_ids[k] && strtab_remap__id(r, &v->kind_ids[k]))
			return -ENOMEM;
	err = v8_names__remap(v->fnames, r);
	if (!err)
		err = v8_inline__remap(v->inl, r);
	if (!err && v->lines)
		err = v8_lines__remap(v->lines, r);
	if (!err && r->commit)
		v->names = r->to;
	return err;
}
