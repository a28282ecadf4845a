/* runtimes/v8*, nodecmd: the V8 reader on synthetic images of node 16, 20
 * and 22 -- each built with the layout the reader derives from that
 * node's own metadata (v8_metadata.h) -- frames named from the sample's
 * copied stack, inlined frames of optimized and on-stack-replaced code,
 * damaged images, and node command lines. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "runtimes/memsource.h"
#include "runtimes/nodecmd.h"
#include "runtimes/v8.h"
#include "runtimes/v8_inline.h"
#include "runtimes/v8_layout.h"
#include "runtimes/v8_lines.h"
#include "runtimes/v8_script.h"
#include "v8_metadata.h"
#include "tests/unit/rounds.h"

#define HB 0x200000000ull   /* the heap image */
#define HSIZE (256u * 1024)
#define SB 0x7ff000000000ull /* the copied stack */
#define SSIZE 512
#define MAP_TYPE 255

static int table_lookup(void *ctx, const char *name, int64_t *value)
{
	const struct v8_meta_entry *e;

	for (e = ctx; e->name; e++)
		if (strcmp(e->name, name) == 0) {
			*value = e->value;
			return 0;
		}
	return -ENOENT;
}

static const struct v8_meta_entry *table(int node)
{
	return node == 16 ? v8_meta_node16 : node == 20 ? v8_meta_node20 : v8_meta_node22;
}

static void layout(int node, struct v8_layout *l)
{
	static const unsigned ver[3][3] = { { 9, 4, 146 }, { 11, 3, 244 }, { 12, 4, 254 } };
	const unsigned *v = ver[node == 16 ? 0 : node == 20 ? 1 : 2];

	cr_assert_eq(v8_layout__from(table_lookup, (void *)table(node), v[0], v[1], v[2], l), 0);
}

Test(v8_layout, read_from_each_nodes_metadata)
{
	struct v8_layout l16, l20, l22;

	layout(16, &l16);
	layout(20, &l20);
	layout(22, &l22);
	cr_assert_eq(l20.fp_marker, -8);
	cr_assert_eq(l20.fp_function, -16);
	cr_assert_eq(l16.fp_bytecode_offset, -40, "derived: node 16 does not export it");
	cr_assert_eq(l16.fn_shared, 24);
	cr_assert_eq(l22.fn_shared, 32);
	cr_assert_eq(l16.fn_code, 48);
	cr_assert_eq(l20.fn_code, 48, "derived: three words after the SharedFunctionInfo");
	cr_assert_eq(l22.fn_code, 24);
	cr_assert_eq(l20.t_sfi, 262);
	cr_assert_eq(l22.t_function_last, 2082);
	cr_assert_eq(l20.t_function_last, 2066 + 14);
	cr_assert_eq(l20.script_source, 8);
	cr_assert_eq(l16.script_source, 8, "derived: the word before the name");
	/* Code: 9.4 exports its body, 11.3 lost all but its tables, 12.4 its start */
	cr_assert(l16.have_inlining && l20.have_inlining && l22.have_inlining);
	cr_assert_eq(l16.code_start_is_pointer, 0);
	cr_assert_eq(l16.code_instruction_start, 96);
	cr_assert_eq(l16.code_flags, 48);
	cr_assert_eq(l20.code_instruction_start, 40);
	cr_assert_eq(l20.code_instruction_size, 56);
	cr_assert_eq(l22.code_source_positions, 16);
	cr_assert_eq(l22.code_deopt_data, 8);
	cr_assert_eq(l20.stream_header, 16);
	cr_assert_eq(l22.stream_header, 32);
	cr_assert_eq(l20.code_kind_baseline, 11);
	cr_assert_eq(l22.code_kind_baseline, 10);
	/* interpreted frames' lines: node 20's metadata, the others' derived
	 * slots and (here) no BytecodeArray type */
	cr_assert_eq(l20.fp_bytecode_array, -32);
	cr_assert_eq(l16.fp_bytecode_array, -32, "derived: the word above the offset");
	cr_assert_eq(l20.t_bytecode_array, 191);
	cr_assert_eq(l20.bytecode_positions, 32, "derived: after the constant pool and handler table");
	cr_assert_eq(l20.bytecode_data, 54);
	cr_assert_eq(l20.reg_bytecode_array, 12, "r12");
	cr_assert_eq(l20.reg_bytecode_offset, 9, "r9");
	cr_assert_eq(l16.t_bytecode_array, 0);
	cr_assert_eq(l16.reg_bytecode_array, -1);
	cr_assert_eq(l22.t_bytecode_array, 0);
	cr_assert_eq(v8_layout__frame_kind(&l20, 17 << 1), V8_FRAME_STUB);
	cr_assert_eq(v8_layout__frame_kind(&l16, 14 << 1), V8_FRAME_STUB);
	cr_assert_eq(v8_layout__frame_kind(&l20, HB + 1), -1, "a context: a JavaScript frame");
}

Test(v8_layout, other_schemes_and_versions_are_refused)
{
	struct v8_meta_entry t[160];
	struct v8_layout l;
	size_t n;

	for (n = 0; v8_meta_node20[n].name; n++)
		t[n] = v8_meta_node20[n];
	t[n].name = NULL;
	cr_assert_eq(v8_layout__from(table_lookup, t, 9, 3, 0, &l), -ENOTSUP);
	cr_assert_eq(v8_layout__from(table_lookup, t, 12, 9, 0, &l), -ENOTSUP);
	/* pointer compression: 4-byte tagged values */
	for (n = 0; t[n].name; n++)
		if (strcmp(t[n].name, "TaggedSize") == 0)
			t[n].value = 4;
	cr_assert_eq(v8_layout__from(table_lookup, t, 11, 3, 244, &l), -EPROTO);
	cr_assert_eq(v8_layout__from(table_lookup, (void *)&t[n], 11, 3, 244, &l), -ENOENT);
}

/* A heap image built with a layout. */
struct image {
	struct v8_layout l;
	uint8_t *heap;
	uint8_t stack[SSIZE];
	uint64_t next;        /* bump allocation */
	uint64_t meta, undef;
	struct memimage_region regions[2];
	struct memimage img;
};

static void put64(struct image *im, uint64_t at, uint64_t v)
{
	cr_assert(at >= HB && at + 8 <= HB + HSIZE);
	memcpy(im->heap + (at - HB), &v, 8);
}

static void put32(struct image *im, uint64_t at, uint32_t v)
{
	memcpy(im->heap + (at - HB), &v, 4);
}

static uint64_t alloc(struct image *im, size_t bytes)
{
	uint64_t at = im->next;

	im->next += (bytes + 7) & ~(size_t)7;
	cr_assert(im->next <= HB + HSIZE);
	return at;
}

static uint64_t smi(int64_t v)
{
	return (uint64_t)v << 32;
}

/* A map of type t (tagged). */
static uint64_t map(struct image *im, uint16_t t)
{
	uint64_t m = alloc(im, 80);

	put64(im, m, im->meta);
	memcpy(im->heap + (m + im->l.map_instance_type - HB), &t, 2);
	return m + 1;
}

/* An object of `bytes` whose map has type t; returns it tagged. */
static uint64_t object(struct image *im, uint16_t t, size_t bytes)
{
	uint64_t m = map(im, t), o = alloc(im, bytes);

	put64(im, o, m);
	return o + 1;
}

static uint64_t string(struct image *im, const char *s)
{
	/* one-byte, sequential, internalized */
	uint64_t o = object(im, 8, im->l.seq_one_byte_chars + strlen(s) + 8) - 1;

	put32(im, o + im->l.str_length, (uint32_t)strlen(s));
	memcpy(im->heap + (o + im->l.seq_one_byte_chars - HB), s, strlen(s));
	return o + 1;
}

static void init(struct image *im, int node)
{
	memset(im, 0, sizeof(*im));
	layout(node, &im->l);
	im->heap = calloc(1, HSIZE);
	cr_assert_not_null(im->heap);
	im->next = HB + 4096;
	/* the meta map: a map whose map is itself */
	im->meta = alloc(im, 80) + 1;
	put64(im, im->meta - 1, im->meta);
	memcpy(im->heap + (im->meta - 1 + im->l.map_instance_type - HB), &(uint16_t){ MAP_TYPE }, 2);
	im->undef = object(im, 131 + 1000, 16);
	im->regions[0] = (struct memimage_region){ HB, im->heap, HSIZE };
	im->regions[1] = (struct memimage_region){ SB, im->stack, SSIZE };
	im->img.regions = im->regions;
	im->img.n = 2;
}

static void fini(struct image *im)
{
	free(im->heap);
}

/* A Script of source src named name; the function of it named fname
 * starting at start: its JSFunction (tagged). *sfi_out its SFI. */
static uint64_t script(struct image *im, const char *name, const char *src)
{
	uint64_t s = object(im, im->l.t_script, 128) - 1;

	put64(im, s + im->l.script_name, string(im, name));
	put64(im, s + im->l.script_source, string(im, src));
	put64(im, s + im->l.script_line_ends, im->undef);
	return s + 1;
}

static uint64_t function(struct image *im, uint64_t scr, const char *fname, int start, int end,
			 uint64_t *sfi_out)
{
	uint64_t si = object(im, im->l.t_scope_info, 8 * 16) - 1, sfi, fn, base;

	base = si + im->l.scope_data;
	put64(im, base, smi(1234));       /* flags */
	put64(im, base + 8, smi(1));      /* parameters */
	put64(im, base + 16, smi(0));     /* context locals */
	put64(im, base + 24, string(im, fname));
	put64(im, base + 32, smi(-1));    /* its slot */
	put64(im, base + 40, im->undef);  /* no inferred name */
	put64(im, base + 48, smi(start));
	put64(im, base + 56, smi(end));
	put64(im, base + 64, im->undef);
	sfi = object(im, im->l.t_sfi, 64) - 1;
	put64(im, sfi + im->l.sfi_name_or_scope_info, si + 1);
	put64(im, sfi + im->l.sfi_script, scr);
	fn = object(im, im->l.t_function_first, 64) - 1;
	put64(im, fn + im->l.fn_shared, sfi + 1);
	put64(im, fn + im->l.fn_code, smi(0));
	if (sfi_out)
		*sfi_out = sfi + 1;
	return fn + 1;
}

/* A frame at fp of the copied stack running function fn (or a typed
 * frame when fn is a marker). */
static void frame_slots(struct image *im, uint64_t fp, uint64_t marker, uint64_t fn)
{
	memcpy(im->stack + (fp - 8 - SB), &marker, 8);
	memcpy(im->stack + (fp - 16 - SB), &fn, 8);
}

static const char *SRC = "// a\n// b\nfunction leafWork(n) { return n; }\nfunction outerLoop() {}\n";

struct sample {
	struct unwind_frame frames[4];
	struct unwind_stack stack;
	struct unwind_regs regs;
	struct runtime_sample s;
};

static void sample(struct image *im, struct sample *sm, size_t n, const uint64_t *fps, const uint64_t *pcs,
		   const int *codes)
{
	size_t i;

	memset(sm, 0, sizeof(*sm));
	sm->stack = (struct unwind_stack){ SB, im->stack, SSIZE, NULL };
	for (i = 0; i < n; i++) {
		sm->frames[i].pc = pcs[i];
		sm->frames[i].exact = i == 0;
		sm->frames[i].keeps = true;
		sm->frames[i].runtime = 1;
		sm->frames[i].code = (uint8_t)codes[i];
		sm->frames[i].kept = 1u << 1;
		sm->frames[i].kept_regs[1] = fps[i];
	}
	sm->s.tag = 1;
	sm->s.now_ns = 1;
	sm->s.stack = &sm->stack;
	sm->s.regs = &sm->regs;
	sm->s.frames = sm->frames;
	sm->s.nframes = n;
}

/* The splices of a read as "frame:name|name frame:name". */
static const char *splices(struct strtab *t, const struct runtime_stack *out)
{
	static char buf[2048];
	size_t k, j;

	buf[0] = '\0';
	for (k = 0; k < out->nsplices; k++) {
		char one[600];

		snprintf(one, sizeof(one), "%s%u:", k ? " " : "", out->at[k].frame);
		strcat(buf, one);
		for (j = 0; j < out->at[k].count; j++) {
			if (j)
				strcat(buf, "|");
			strcat(buf, strtab__str(t, out->ids[out->at[k].first + j]));
		}
	}
	return buf;
}

static struct v8 *open_v8_lines(struct image *im, struct strtab *t, bool lines)
{
	struct memsource m;
	struct v8 *v = NULL;

	memsource__image(&m, &im->img);
	cr_assert_eq(v8__open(&m, &im->l, lines, t, &v), 0);
	return v;
}

static struct v8 *open_v8(struct image *im, struct strtab *t)
{
	return open_v8_lines(im, t, false);
}

static void check_names(int node)
{
	struct image im;
	struct sample sm;
	struct runtime_stack out;
	struct strtab *t = strtab__new();
	uint64_t scr, leaf, outer;
	uint64_t fps[3] = { SB + 0x100, SB + 0x180, SB + 0x200 }, pcs[3] = { 0x1000, 0x2000, 0x3000 };
	int codes[3] = { UNWIND_CODE_NATIVE, UNWIND_CODE_FRAME_POINTER, UNWIND_CODE_FRAME_POINTER };
	struct v8 *v;

	init(&im, node);
	scr = script(&im, "/srv/app/node_loop.js", SRC);
	leaf = function(&im, scr, "leafWork", 10, 40, NULL);
	outer = function(&im, scr, "outerLoop", 45, 70, NULL);
	frame_slots(&im, fps[0], scr, leaf);        /* a context: JavaScript */
	frame_slots(&im, fps[1], 17 << 1, 0);       /* a stub's marker */
	frame_slots(&im, fps[2], scr, outer);
	cr_assert_eq(im.l.frame_kind[17], V8_FRAME_STUB);
	v = open_v8(&im, t);
	sample(&im, &sm, 3, fps, pcs, codes);
	memset(&out, 0, sizeof(out));
	cr_assert_eq(v8__read_stack(v, &sm.s, &out), 0);
	/* 17 is a stub frame's type in 20 and 22, a builtin continuation's in 16 */
	cr_assert_str_eq(splices(t, &out),
			 "0:leafWork (node_loop.js:3)_[j] 1:[v8 stub]_[j] 2:outerLoop (node_loop.js:4)_[j]");
	cr_assert_eq(out.confirmed, 2);
	/* read again: names are cached, two batched reads */
	{
		uint64_t before = v8__mem(v)->reads;

		memset(&out, 0, sizeof(out));
		cr_assert_eq(v8__read_stack(v, &sm.s, &out), 0);
		cr_assert_leq(v8__mem(v)->reads - before, 4, "%llu reads",
			      (unsigned long long)(v8__mem(v)->reads - before));
	}
	v8__delete(v);
	strtab__delete(t);
	fini(&im);
}

/* A stack deeper than the frames named per sample, every frame optimized
 * code: its functions, then their SharedFunctionInfos and code, are read
 * in batches twice as many as the frames. */
Test(v8, a_deep_stack_of_optimized_frames)
{
	enum { N = 3 * V8_MAX_FRAMES, STACK = N * 16 + 64 };
	static struct unwind_frame frames[N];
	static uint8_t stack[STACK];
	struct unwind_regs regs;
	struct runtime_sample rs;
	struct unwind_stack us = { SB, stack, STACK, NULL };
	static struct runtime_stack out;
	struct image im;
	struct strtab *t = strtab__new();
	uint64_t scr, fn, code;
	struct v8 *v;
	size_t i;

	init(&im, 20);
	scr = script(&im, "/srv/app/deep.js", SRC);
	fn = function(&im, scr, "leafWork", 10, 40, NULL);
	code = object(&im, im.l.t_code, 256);
	put64(&im, fn - 1 + im.l.fn_code, code);
	memset(frames, 0, sizeof(frames));
	for (i = 0; i < N; i++) {
		uint64_t fp = SB + 32 + 16 * i;

		memcpy(stack + (fp - 8 - SB), &scr, 8);
		memcpy(stack + (fp - 16 - SB), &fn, 8);
		frames[i].pc = 0x10000 + i;
		frames[i].keeps = true;
		frames[i].runtime = 1;
		frames[i].code = UNWIND_CODE_FRAME_POINTER;
		frames[i].kept = 1u << 1;
		frames[i].kept_regs[1] = fp;
	}
	memset(&regs, 0, sizeof(regs));
	memset(&rs, 0, sizeof(rs));
	rs.tag = 1;
	rs.now_ns = 1;
	rs.stack = &us;
	rs.regs = &regs;
	rs.frames = frames;
	rs.nframes = N;
	v = open_v8(&im, t);
	memset(&out, 0, sizeof(out));
	cr_assert_eq(v8__read_stack(v, &rs, &out), 0);
	cr_assert_eq(out.nsplices, V8_MAX_FRAMES, "%zu frames named", out.nsplices);
	v8__delete(v);
	strtab__delete(t);
	fini(&im);
}

Test(v8, frames_named_from_the_copied_stack_16) { check_names(16); }
Test(v8, frames_named_from_the_copied_stack_20) { check_names(20); }
Test(v8, frames_named_from_the_copied_stack_22) { check_names(22); }

/* One entry of a source position table: V8's zigzag base-128. */
static size_t vlq(uint8_t *p, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 0;

	do {
		p[n] = (uint8_t)(u & 0x7f);
		u >>= 7;
		if (u)
			p[n] |= 0x80;
		n++;
	} while (u);
	return n;
}

/* Optimized code for fn: outer inlines `inner` from pc offset 16 on. The
 * instructions are at instr (64-aligned); with osr, the function points
 * to other code and the frame's code is found from its pc. */
static uint64_t optimized_with(struct image *im, uint64_t fn, uint64_t inner_sfi, uint64_t instr, bool osr,
			       const uint8_t *positions, size_t npositions, int64_t site)
{
	const struct v8_layout *l = &im->l;
	uint64_t code, spt, deopt, lits, inl;
	uint8_t tab[64];
	size_t n = 0;

	if (l->code_start_is_pointer) {
		uint64_t is = instr - l->stream_header;

		code = object(im, l->t_code, 128) - 1;
		put64(im, is, map(im, 252));
		put64(im, is + l->stream_code, code + 1);
		put64(im, code + l->code_instruction_start, instr);
	} else {
		code = instr - l->code_instruction_start;
		put64(im, code, map(im, l->t_code));
	}
	put32(im, code + l->code_instruction_size, 256);
	put32(im, code + l->code_flags, (uint32_t)(l->code_kind_baseline + 2) << l->code_kind_shift);
	n += vlq(tab + n, 1);
	n += vlq(tab + n, 20);
	n += vlq(tab + n, 16);
	n += vlq(tab + n, (int64_t)(1ull << 31) - 10);
	if (positions) {
		cr_assert_leq(npositions, sizeof(tab));
		memcpy(tab, positions, npositions);
		n = npositions;
	}
	spt = object(im, l->t_byte_array, 16 + n) - 1;
	put64(im, spt + l->array_length, smi((int64_t)n));
	memcpy(im->heap + (spt + l->array_data - HB), tab, n);
	put64(im, code + l->code_source_positions, spt + 1);
	lits = object(im, l->t_fixed_array, 24) - 1;
	put64(im, lits + l->array_length, smi(1));
	put64(im, lits + l->array_data, inner_sfi);
	inl = object(im, l->t_byte_array, 32) - 1;
	put64(im, inl + l->array_length, smi(16));
	put64(im, inl + l->array_data, (uint64_t)site); /* the call site, not inlined */
	put32(im, inl + l->array_data + 8, 0);   /* literal 0 */
	deopt = object(im, l->t_fixed_array, 16 + 8 * 8) - 1;
	put64(im, deopt + l->array_length, smi(8));
	put64(im, deopt + l->array_data + 8u * l->deopt_inlined_count, smi(1));
	put64(im, deopt + l->array_data + 8u * l->deopt_literals, lits + 1);
	put64(im, deopt + l->array_data + 8u * l->deopt_inlining_positions, inl + 1);
	put64(im, code + l->code_deopt_data, deopt + 1);
	if (!osr) {
		put64(im, fn - 1 + l->fn_code, code + 1);
	} else {
		/* the function's own code is baseline code elsewhere */
		uint64_t base = object(im, l->t_code, 128) - 1;

		put64(im, base + l->code_instruction_start, HB + 0x30000);
		put32(im, base + l->code_instruction_size, 64);
		put32(im, base + l->code_flags, (uint32_t)l->code_kind_baseline << l->code_kind_shift);
		put64(im, fn - 1 + l->fn_code, base + 1);
	}
	return code + 1;
}

static uint64_t optimized(struct image *im, uint64_t fn, uint64_t inner_sfi, uint64_t instr, bool osr)
{
	return optimized_with(im, fn, inner_sfi, instr, osr, NULL, 0, 20);
}

static void check_inlined(int node, bool osr)
{
	struct image im;
	struct sample sm;
	struct runtime_stack out;
	struct strtab *t = strtab__new();
	uint64_t scr, outer, inner_sfi, instr = HB + 0x20000;
	uint64_t fps[1] = { SB + 0x100 }, pcs[1] = { instr + 24 };
	int codes[1] = { UNWIND_CODE_FRAME_POINTER };
	struct v8 *v;

	init(&im, node);
	scr = script(&im, "/srv/app/node_modules/pkg/lib/x.js", SRC);
	(void)function(&im, scr, "leafWork", 10, 40, &inner_sfi);
	outer = function(&im, scr, "outerLoop", 45, 70, NULL);
	optimized(&im, outer, inner_sfi, instr, osr);
	frame_slots(&im, fps[0], scr, outer);
	v = open_v8(&im, t);
	sample(&im, &sm, 1, fps, pcs, codes);
	memset(&out, 0, sizeof(out));
	cr_assert_eq(v8__read_stack(v, &sm.s, &out), 0);
	cr_assert_str_eq(splices(t, &out), "0:outerLoop (pkg/lib/x.js:4)_[j]|leafWork (pkg/lib/x.js:3)_[i]");
	/* before the inlined call: the function alone */
	sm.frames[0].pc = instr + 8;
	memset(&out, 0, sizeof(out));
	cr_assert_eq(v8__read_stack(v, &sm.s, &out), 0);
	cr_assert_str_eq(splices(t, &out), "0:outerLoop (pkg/lib/x.js:4)_[j]");
	v8__delete(v);
	strtab__delete(t);
	fini(&im);
}

Test(v8_inline, optimized_code_names_what_it_inlined_16) { check_inlined(16, false); }
Test(v8_inline, optimized_code_names_what_it_inlined_20) { check_inlined(20, false); }
Test(v8_inline, optimized_code_names_what_it_inlined_22) { check_inlined(22, false); }
Test(v8_inline, replaced_on_stack_code_is_found_from_the_pc_16) { check_inlined(16, true); }
Test(v8_inline, replaced_on_stack_code_is_found_from_the_pc_20) { check_inlined(20, true); }
Test(v8_inline, replaced_on_stack_code_is_found_from_the_pc_22) { check_inlined(22, true); }

/* --lines. A script whose functions run on other lines than they start
 * on; positions are found by their text. */
static const char *const SRC_LINES = "// lines\n"
			       "function hot(n) {\n"
			       "  let x = 0;\n"
			       "  for (let i = 0; i < n; i++) x += i;\n"
			       "  return x;\n"
			       "}\n"
			       "function caller() {\n"
			       "  return hot(5);\n"
			       "}\n";

static int64_t at_text(const char *text)
{
	const char *p = strstr(SRC_LINES, text);

	cr_assert_not_null(p, "%s", text);
	return p - SRC_LINES;
}

/* A SourcePosition: script offset off, in inlining id (-1: none). */
static int64_t source_position(int64_t off, int64_t inlining)
{
	return (off + 1) << 1 | (inlining + 1) << 31;
}

/* A source position table of n (code offset, SourcePosition) entries. */
static size_t positions(uint8_t *tab, const int64_t (*e)[2], size_t n)
{
	int64_t code = -1, pos = 0;
	size_t len = 0, i;

	for (i = 0; i < n; i++) {
		len += vlq(tab + len, e[i][0] - code);
		len += vlq(tab + len, e[i][1] - pos);
		code = e[i][0];
		pos = e[i][1];
	}
	return len;
}

/* hot's BytecodeArray of 16 bytecodes: `let x` at 0, the loop at 4, the
 * return at 12; its table is undefined (not collected) when !collected. */
static uint64_t bytecode_array(struct image *im, bool collected)
{
	const struct v8_layout *l = &im->l;
	const int64_t e[][2] = { { -1, source_position(at_text("function hot"), -1) },
				 { 0, source_position(at_text("let x"), -1) },
				 { 4, source_position(at_text("for (let"), -1) },
				 { 12, source_position(at_text("return x"), -1) } };
	uint8_t tab[64];
	size_t n = positions(tab, e, 4);
	uint64_t ba = object(im, l->t_bytecode_array, l->bytecode_data + 16) - 1, spt;

	put64(im, ba + l->array_length, smi(16));
	if (collected) {
		spt = object(im, l->t_byte_array, 16 + n) - 1;
		put64(im, spt + l->array_length, smi((int64_t)n));
		memcpy(im->heap + (spt + l->array_data - HB), tab, n);
		put64(im, ba + l->bytecode_positions, spt + 1);
	} else {
		put64(im, ba + l->bytecode_positions, im->undef);
	}
	return ba + 1;
}

/* An interpreted frame at fp running ba at bytecode offset off (or, with
 * a feedback vector in the offset slot, a baseline frame). */
static void interpreted_slots(struct image *im, uint64_t fp, uint64_t ba, uint64_t offset_word)
{
	memcpy(im->stack + (fp + im->l.fp_bytecode_array - SB), &ba, 8);
	memcpy(im->stack + (fp + im->l.fp_bytecode_offset - SB), &offset_word, 8);
}

static uint64_t bytecode_offset(const struct image *im, int64_t off)
{
	return smi(off + im->l.bytecode_data - 1);
}

/* app.js's hot, interpreted at its loop (bytecode offset 6), called by
 * caller: their frames at fps[0] and fps[1], sampled into sm. Returns the
 * script, *ba hot's BytecodeArray. */
static uint64_t hot_under_caller(struct image *im, struct sample *sm, const uint64_t *fps, uint64_t *ba)
{
	const uint64_t pcs[2] = { 0x1000, 0x2000 };
	const int codes[2] = { UNWIND_CODE_NATIVE, UNWIND_CODE_NATIVE };
	uint64_t scr = script(im, "/srv/app/app.js", SRC_LINES), hot, caller;

	hot = function(im, scr, "hot", (int)at_text("function hot"), (int)at_text("function caller"), NULL);
	caller = function(im, scr, "caller", (int)at_text("function caller"), (int)strlen(SRC_LINES), NULL);
	*ba = bytecode_array(im, true);
	frame_slots(im, fps[0], scr, hot);
	frame_slots(im, fps[1], scr, caller);
	interpreted_slots(im, fps[0], *ba, bytecode_offset(im, 6));
	sample(im, sm, 2, fps, pcs, codes);
	return scr;
}

/* Reads the sample with and without lines: the innermost splice. */
static const char *read_one(struct image *im, struct sample *sm, bool lines, char *buf, size_t size)
{
	struct strtab *t = strtab__new();
	struct runtime_stack out;
	struct v8 *v = open_v8_lines(im, t, lines);

	memset(&out, 0, sizeof(out));
	cr_assert_eq(v8__read_stack(v, &sm->s, &out), 0);
	snprintf(buf, size, "%s", splices(t, &out));
	v8__delete(v);
	strtab__delete(t);
	return buf;
}

Test(v8_lines, interpreted_frames_carry_the_line_they_run)
{
	struct image im;
	struct sample sm;
	struct runtime_stack out;
	struct strtab *t = strtab__new();
	uint64_t ba, fv;
	uint64_t fps[2] = { SB + 0x100, SB + 0x180 };
	char buf[1024];
	struct v8 *v;
	uint64_t before;

	init(&im, 20);
	cr_assert_eq(im.l.t_bytecode_array, 191);
	(void)hot_under_caller(&im, &sm, fps, &ba);
	/* without lines: where the functions are defined, as always */
	cr_assert_str_eq(read_one(&im, &sm, false, buf, sizeof(buf)), "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]");
	/* the loop's line; the caller is no interpreted frame we can place */
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:4)_[j] 1:caller (app.js:7)_[j]");
	interpreted_slots(&im, fps[0], ba, bytecode_offset(&im, 12));
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:5)_[j] 1:caller (app.js:7)_[j]");
	interpreted_slots(&im, fps[0], ba, bytecode_offset(&im, -1));
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]",
			 "the function's entry");
	/* the handler's registers: the offset it runs now, when the array
	 * register holds the frame's array */
	interpreted_slots(&im, fps[0], ba, bytecode_offset(&im, 0));
	sm.regs.val[12] = ba;
	sm.regs.val[9] = (uint64_t)(12 + im.l.bytecode_data - 1);
	sm.regs.valid = 1u << 12 | 1u << 9;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:5)_[j] 1:caller (app.js:7)_[j]");
	sm.regs.val[12] = ba + 64;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:3)_[j] 1:caller (app.js:7)_[j]",
			 "another array in the register: the slot's offset");
	sm.regs.val[12] = ba;
	sm.regs.val[9] = 9999;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:3)_[j] 1:caller (app.js:7)_[j]",
			 "a register outside the array: the slot's offset");
	sm.regs.valid = 0;
	/* offsets outside the array, a baseline frame's feedback vector, a
	 * table not collected: where the function is defined */
	interpreted_slots(&im, fps[0], ba, bytecode_offset(&im, 16));
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]");
	fv = object(&im, 249, 64);
	interpreted_slots(&im, fps[0], ba, fv);
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]");
	interpreted_slots(&im, fps[0], bytecode_array(&im, false), bytecode_offset(&im, 6));
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]");
	/* not the interpreter's code: no bytecode read */
	interpreted_slots(&im, fps[0], ba, bytecode_offset(&im, 6));
	sm.frames[0].code = UNWIND_CODE_FRAME_POINTER;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]");
	sm.frames[0].code = UNWIND_CODE_NATIVE;
	/* cached: a sample costs its two batched reads (five objects: two
	 * functions, their SharedFunctionInfos, the array's header) and
	 * nothing more: no table, no script, no name read again */
	v = open_v8_lines(&im, t, true);
	memset(&out, 0, sizeof(out));
	cr_assert_eq(v8__read_stack(v, &sm.s, &out), 0);
	before = v8__mem(v)->reads;
	memset(&out, 0, sizeof(out));
	cr_assert_eq(v8__read_stack(v, &sm.s, &out), 0);
	cr_assert_str_eq(splices(t, &out), "0:hot (app.js:4)_[j] 1:caller (app.js:7)_[j]");
	cr_assert_leq(v8__mem(v)->reads - before, 5, "%llu reads", (unsigned long long)(v8__mem(v)->reads - before));
	{
		struct v8_stats st;

		v8__stats(v, &st);
		cr_assert_eq(st.lines, 2, "one frame placed per read");
	}
	v8__delete(v);
	strtab__delete(t);
	fini(&im);
}

/* Reads sm with v (kept across reads) at now_ns: the splices. */
static const char *read_at(struct v8 *v, struct strtab *t, struct sample *sm, uint64_t now_ns)
{
	static struct runtime_stack out;

	memset(&out, 0, sizeof(out));
	sm->s.now_ns = now_ns;
	cr_assert_eq(v8__read_stack(v, &sm->s, &out), 0);
	return splices(t, &out);
}

/* A script whose source could not be read when its frames were first
 * named (its map word was no map: a string read as the GC moved it)
 * names them without a line for now, keeps none of those names, and
 * reads its lines again V8_SCRIPT_RETRY_NS later. Seen on node 20 under
 * load: with the first failure kept, no frame of the script named in
 * that run had a line. A source that is an external string has no
 * lines to wait for: its names are kept at once. */
Test(v8_lines, a_source_that_failed_to_read_is_read_again)
{
	struct image im;
	struct sample sm;
	struct strtab *t = strtab__new();
	uint64_t scr, ba, src, map_word, reads;
	uint64_t fps[2] = { SB + 0x100, SB + 0x180 };
	uint16_t external = 0, type;
	struct v8 *v;
	int lines;

	init(&im, 20);
	scr = hot_under_caller(&im, &sm, fps, &ba);
	memcpy(&src, im.heap + (scr - 1 + im.l.script_source - HB), 8);
	memcpy(&map_word, im.heap + (src - 1 - HB), 8);
	for (lines = 0; lines < 2; lines++) {
		const char *settled = lines ? "0:hot (app.js:4)_[j] 1:caller (app.js:7)_[j]"
					    : "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]";
		uint64_t now = 1000;
		int k;

		v = open_v8_lines(&im, t, lines);
		put64(&im, src - 1, 8); /* no map */
		cr_assert_str_eq(read_at(v, t, &sm, now), "0:hot (app.js)_[j] 1:caller (app.js)_[j]");
		/* readable again, but not yet time to look */
		put64(&im, src - 1, map_word);
		cr_assert_str_eq(read_at(v, t, &sm, now + V8_SCRIPT_RETRY_NS - 1),
				 "0:hot (app.js)_[j] 1:caller (app.js)_[j]", "no name without its line was kept");
		cr_assert_str_eq(read_at(v, t, &sm, now + V8_SCRIPT_RETRY_NS), settled);
		reads = v8__mem(v)->reads;
		cr_assert_str_eq(read_at(v, t, &sm, now + V8_SCRIPT_RETRY_NS + 1), settled);
		cr_assert_leq(v8__mem(v)->reads - reads, 5, "the names with lines are kept");
		v8__delete(v);

		/* a source that never reads: tried again, doubling, then no
		 * more (each try reads its words: bounded) */
		v = open_v8_lines(&im, t, lines);
		put64(&im, src - 1, 8);
		for (k = 0; k <= V8_SCRIPT_RETRIES; k++) {
			cr_assert_str_eq(read_at(v, t, &sm, now), "0:hot (app.js)_[j] 1:caller (app.js)_[j]");
			now += V8_SCRIPT_RETRY_NS << k;
		}
		reads = v8__mem(v)->reads;
		cr_assert_str_eq(read_at(v, t, &sm, now + 1), "0:hot (app.js)_[j] 1:caller (app.js)_[j]");
		cr_assert_str_eq(read_at(v, t, &sm, now + 2), "0:hot (app.js)_[j] 1:caller (app.js)_[j]");
		cr_assert_leq(v8__mem(v)->reads - reads, 10, "given up: its names kept, %llu reads",
			      (unsigned long long)(v8__mem(v)->reads - reads));
		put64(&im, src - 1, map_word);
		v8__delete(v);
	}

	/* an external string: settled at once, its names kept */
	for (type = 0; type <= im.l.str_repr_mask; type++)
		if ((type & im.l.str_repr_mask) == type && type != im.l.str_seq && type != im.l.str_cons &&
		    type != im.l.str_thin && type != im.l.str_sliced) {
			external = type;
			break;
		}
	cr_assert(external, "a representation for external strings");
	memcpy(im.heap + (map_word - 1 + im.l.map_instance_type - HB), &(uint16_t){ (uint16_t)(8 | external) }, 2);
	v = open_v8_lines(&im, t, true);
	cr_assert_str_eq(read_at(v, t, &sm, 1000), "0:hot (app.js)_[j] 1:caller (app.js)_[j]");
	reads = v8__mem(v)->reads;
	cr_assert_str_eq(read_at(v, t, &sm, 1001), "0:hot (app.js)_[j] 1:caller (app.js)_[j]");
	cr_assert_leq(v8__mem(v)->reads - reads, 5, "%llu reads", (unsigned long long)(v8__mem(v)->reads - reads));
	v8__delete(v);
	strtab__delete(t);
	fini(&im);
}

/* Node 16's and 22's metadata here say nothing of BytecodeArray: their
 * interpreted frames keep their definition's line. */
static void interpreted_unknown(int node)
{
	struct image im;
	struct sample sm;
	uint64_t scr, hot, fps[1] = { SB + 0x100 }, pcs[1] = { 0x1000 };
	int codes[1] = { UNWIND_CODE_NATIVE };
	char buf[512];

	init(&im, node);
	cr_assert_eq(im.l.t_bytecode_array, 0);
	scr = script(&im, "/srv/app/app.js", SRC_LINES);
	hot = function(&im, scr, "hot", (int)at_text("function hot"), (int)at_text("function caller"), NULL);
	frame_slots(&im, fps[0], scr, hot);
	interpreted_slots(&im, fps[0], object(&im, 191, 80), smi(60));
	sample(&im, &sm, 1, fps, pcs, codes);
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:2)_[j]");
	fini(&im);
}

Test(v8_lines, interpreted_frames_of_unknown_layouts_keep_their_definition_16) { interpreted_unknown(16); }
Test(v8_lines, interpreted_frames_of_unknown_layouts_keep_their_definition_22) { interpreted_unknown(22); }

/* Optimized code: caller inlined hot; at pc offset 0 caller runs its own
 * line, from 16 on hot runs its loop, inlined at caller's call. */
static void optimized_lines(int node, bool osr)
{
	struct image im;
	struct sample sm;
	uint64_t scr, caller, hot_sfi, instr = HB + 0x20000;
	uint64_t fps[1] = { SB + 0x100 }, pcs[1] = { instr + 24 };
	int codes[1] = { UNWIND_CODE_FRAME_POINTER };
	const int64_t e[][2] = { { 0, source_position(at_text("return hot"), -1) },
				 { 16, source_position(at_text("for (let"), 0) },
				 { 40, source_position((int64_t)strlen(SRC_LINES) - 2, -1) } };
	uint8_t tab[64];
	size_t n = positions(tab, e, 3);
	char buf[1024];

	init(&im, node);
	scr = script(&im, "/srv/app/app.js", SRC_LINES);
	(void)function(&im, scr, "hot", (int)at_text("function hot"), (int)at_text("function caller"), &hot_sfi);
	caller = function(&im, scr, "caller", (int)at_text("function caller"), (int)strlen(SRC_LINES), NULL);
	optimized_with(&im, caller, hot_sfi, instr, osr, tab, n, source_position(at_text("hot(5)"), -1));
	frame_slots(&im, fps[0], scr, caller);
	sample(&im, &sm, 1, fps, pcs, codes);
	cr_assert_str_eq(read_one(&im, &sm, false, buf, sizeof(buf)), "0:caller (app.js:7)_[j]|hot (app.js:2)_[i]");
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:caller (app.js:8)_[j]|hot (app.js:4)_[i]");
	sm.frames[0].pc = instr + 8;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:caller (app.js:8)_[j]");
	sm.frames[0].pc = instr + 48;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:caller (app.js:9)_[j]");
	/* a return address is inside the call before it */
	sm.frames[0].pc = instr + 16;
	sm.frames[0].exact = false;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:caller (app.js:8)_[j]");
	fini(&im);
}

Test(v8_lines, optimized_frames_carry_the_lines_they_run_16) { optimized_lines(16, false); }
Test(v8_lines, optimized_frames_carry_the_lines_they_run_20) { optimized_lines(20, false); }
Test(v8_lines, optimized_frames_carry_the_lines_they_run_22) { optimized_lines(22, false); }
Test(v8_lines, replaced_on_stack_code_carries_its_lines_20) { optimized_lines(20, true); }

/* Baseline code: eight bytecodes, 0-3 the prefixes; 4 one byte, 5 an
 * operand, 6 two (their sizes at operand scales 1, 2, 4). hot's array:
 * 5 x | 6 x y | Wide 5 x x | 4, at offsets 0, 2, 5, 9; its code: the
 * prologue to pc 10, then 10 bytes for the first, 15, 5 and 10. */
static const uint8_t SIZES[3][8] = { { 1, 1, 1, 1, 1, 2, 3, 1 }, { 1, 1, 1, 1, 1, 3, 5, 1 },
				     { 1, 1, 1, 1, 1, 5, 9, 1 } };
static const uint8_t BYTECODES[10] = { 5, 0, 6, 0, 0, 0, 5, 0, 0, 4 };
static const uint8_t PC_DELTAS[5] = { 10, 10, 15, 5, 10 };

static void baseline_layout(struct v8_layout *l)
{
	cr_assert_eq(v8_layout__bytecode_sizes(l, &SIZES[0][0], sizeof(SIZES)), 0);
	cr_assert_eq(l->nbytecodes, 8);
}

Test(v8_lines, baseline_pcs_map_to_their_bytecodes)
{
	struct v8_layout l;
	uint8_t bad[16];
	int64_t off;
	size_t k;
	const struct {
		uint64_t pc;
		int64_t want;
	} at[] = { { 0, -1 }, { 10, -1 }, { 11, 0 }, { 20, 0 }, { 21, 2 }, { 35, 2 }, { 36, 5 }, { 40, 5 }, { 41, 9 },
		   { 50, 9 } };

	memset(&l, 0, sizeof(l));
	baseline_layout(&l);
	/* V8's BytecodeOffsetIterator: a pc offset maps to the bytecode whose
	 * code ends at or after it (a return address as it is) */
	for (k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		cr_assert_eq(v8_lines__baseline_offset(&l, PC_DELTAS, 5, BYTECODES, 10, at[k].pc, &off), 0, "pc %llu",
			     (unsigned long long)at[k].pc);
		cr_assert_eq(off, at[k].want, "pc %llu: %lld", (unsigned long long)at[k].pc, (long long)off);
	}
	cr_assert_eq(v8_lines__baseline_offset(&l, PC_DELTAS, 5, BYTECODES, 10, 51, &off), -ENOENT, "past the code");
	/* tables that do not agree: fewer bytecodes than deltas, a bytecode
	 * the version has not, a prefix of a prefix, a delta cut short */
	cr_assert_eq(v8_lines__baseline_offset(&l, PC_DELTAS, 5, BYTECODES, 6, 45, &off), -ENOENT);
	memcpy(bad, BYTECODES, 10);
	bad[2] = 200;
	cr_assert_eq(v8_lines__baseline_offset(&l, PC_DELTAS, 5, bad, 10, 30, &off), -ENOENT);
	memcpy(bad, BYTECODES, 10);
	bad[6] = 1;
	cr_assert_eq(v8_lines__baseline_offset(&l, PC_DELTAS, 5, bad, 10, 40, &off), -ENOENT);
	bad[0] = 0x80;
	cr_assert_eq(v8_lines__baseline_offset(&l, bad, 1, BYTECODES, 10, 5, &off), -ENOENT);
	/* sizes no version has: refused, and the layout keeps none */
	memcpy(bad, &SIZES[0][0], 8);
	bad[5] = 0;
	cr_assert_eq(v8_layout__bytecode_sizes(&l, bad, 8), -EPROTO);
	cr_assert_eq(l.nbytecodes, 0);
	cr_assert_eq(v8_lines__baseline_offset(&l, PC_DELTAS, 5, BYTECODES, 10, 30, &off), -ENOENT);
}

/* An image of hot running in baseline code at instr, called by caller
 * from an interpreted frame: the function's code is baseline code compiled
 * from its array, the frame holds the array and a feedback vector. */
struct baseline {
	uint64_t scr, hot, caller, ba, code;
};

static void baseline_image(struct image *im, uint64_t instr, const uint64_t *fps, struct baseline *b)
{
	const struct v8_layout *l = &im->l;
	const int64_t e[][2] = { { -1, source_position(at_text("function hot"), -1) },
				 { 0, source_position(at_text("let x"), -1) },
				 { 2, source_position(at_text("for (let"), -1) },
				 { 9, source_position(at_text("return x"), -1) } };
	uint64_t spt, offsets;
	uint8_t tab[64];
	size_t n;

	init(im, 20);
	baseline_layout(&im->l);
	b->scr = script(im, "/srv/app/app.js", SRC_LINES);
	b->hot = function(im, b->scr, "hot", (int)at_text("function hot"), (int)at_text("function caller"), NULL);
	b->caller = function(im, b->scr, "caller", (int)at_text("function caller"), (int)strlen(SRC_LINES), NULL);
	/* the array: its bytecodes and positions */
	b->ba = bytecode_array(im, true);
	memcpy(im->heap + (b->ba - 1 + l->bytecode_data - HB), BYTECODES, sizeof(BYTECODES));
	put64(im, b->ba - 1 + l->array_length, smi(sizeof(BYTECODES)));
	n = positions(tab, e, 4);
	spt = object(im, l->t_byte_array, 16 + n) - 1;
	put64(im, spt + l->array_length, smi((int64_t)n));
	memcpy(im->heap + (spt + l->array_data - HB), tab, n);
	put64(im, b->ba - 1 + l->bytecode_positions, spt + 1);
	/* the code: 11.3 keeps its instructions apart, behind a pointer */
	b->code = object(im, l->t_code, 128) - 1;
	put64(im, b->code + l->code_instruction_start, instr);
	put32(im, b->code + l->code_instruction_size, 50);
	put32(im, b->code + l->code_flags, (uint32_t)l->code_kind_baseline << l->code_kind_shift);
	put64(im, b->code + l->code_deopt_data, b->ba);
	offsets = object(im, l->t_byte_array, 16 + sizeof(PC_DELTAS)) - 1;
	put64(im, offsets + l->array_length, smi(sizeof(PC_DELTAS)));
	memcpy(im->heap + (offsets + l->array_data - HB), PC_DELTAS, sizeof(PC_DELTAS));
	put64(im, b->code + l->code_source_positions, offsets + 1);
	put64(im, b->hot - 1 + l->fn_code, b->code + 1);
	frame_slots(im, fps[0], b->scr, b->hot);
	frame_slots(im, fps[1], b->scr, b->caller);
	interpreted_slots(im, fps[0], b->ba, object(im, 249, 64));
	interpreted_slots(im, fps[1], bytecode_array(im, true), bytecode_offset(im, 6));
}

Test(v8_lines, baseline_frames_carry_the_line_they_run)
{
	struct image im;
	struct sample sm;
	struct baseline b;
	const struct v8_layout *l = &im.l;
	uint64_t instr = HB + 0x20000, code;
	uint64_t fps[2] = { SB + 0x100, SB + 0x180 }, pcs[2] = { instr + 30, 0x2000 };
	int codes[2] = { UNWIND_CODE_FRAME_POINTER, UNWIND_CODE_NATIVE };
	char buf[1024];

	baseline_image(&im, instr, fps, &b);
	code = b.code;
	sample(&im, &sm, 2, fps, pcs, codes);
	cr_assert_str_eq(read_one(&im, &sm, false, buf, sizeof(buf)), "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]");
	/* the caller is interpreted, at an offset of hot's table */
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:4)_[j] 1:caller (app.js:4)_[j]");
	interpreted_slots(&im, fps[1], 0, 0);
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:4)_[j] 1:caller (app.js:7)_[j]");
	sm.frames[0].pc = instr + 45;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:5)_[j] 1:caller (app.js:7)_[j]");
	sm.frames[0].pc = instr + 3;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]",
			 "the prologue: the function's entry");
	/* the first instruction of a bytecode's code is that bytecode's; a
	 * return address there is the call that ends the one before */
	sm.frames[0].pc = instr + 20;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:4)_[j] 1:caller (app.js:7)_[j]");
	sm.frames[0].exact = false;
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:3)_[j] 1:caller (app.js:7)_[j]");
	sm.frames[0].exact = true;
	/* code compiled from another array, or not baseline code: where the
	 * function is defined */
	put64(&im, code + l->code_deopt_data, b.ba + 4096);
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]");
	put64(&im, code + l->code_deopt_data, b.ba);
	put32(&im, code + l->code_flags, (uint32_t)(l->code_kind_baseline - 1) << l->code_kind_shift);
	cr_assert_str_eq(read_one(&im, &sm, true, buf, sizeof(buf)), "0:hot (app.js:2)_[j] 1:caller (app.js:7)_[j]");
	fini(&im);
}

/* Damaged images: any byte of the heap or stack may be anything. The
 * reader returns, never crashes, and its reads stay bounded. */
static void damage(int node)
{
	struct image im;
	uint8_t *clean;
	uint64_t scr, outer, inner_sfi, instr = HB + 0x20000;
	uint64_t fps[2] = { SB + 0x100, SB + 0x180 }, pcs[2] = { instr + 24, 0x1000 };
	int codes[2] = { UNWIND_CODE_FRAME_POINTER, UNWIND_CODE_NATIVE };
	unsigned seed = 42, round;

	init(&im, node);
	scr = script(&im, "file:///srv/app.mjs", SRC);
	(void)function(&im, scr, "leafWork", 10, 40, &inner_sfi);
	outer = function(&im, scr, "outerLoop", 45, 70, NULL);
	optimized(&im, outer, inner_sfi, instr, node == 20);
	frame_slots(&im, fps[0], scr, outer);
	frame_slots(&im, fps[1], scr, outer);
	/* the second frame interpreted, where the layout knows bytecode */
	if (im.l.t_bytecode_array)
		interpreted_slots(&im, fps[1], bytecode_array(&im, true), bytecode_offset(&im, 6));
	clean = malloc(HSIZE);
	cr_assert_not_null(clean);
	memcpy(clean, im.heap, HSIZE);
	for (round = 0; round < (unsigned)test_rounds(1500); round++) {
		struct strtab *t = strtab__new();
		struct runtime_stack out;
		struct sample sm;
		struct v8 *v;
		unsigned k, flips = 1 + rand_r(&seed) % 8;

		memcpy(im.heap, clean, HSIZE);
		for (k = 0; k < flips; k++) {
			/* where the objects are: the first pages */
			size_t at = 4096 + (size_t)rand_r(&seed) % (size_t)(im.next - HB - 4096);

			im.heap[at] = (uint8_t)rand_r(&seed);
		}
		if (round % 4 == 0)
			im.stack[SSIZE - 0x100 - 16 + rand_r(&seed) % 16] = (uint8_t)rand_r(&seed);
		if (round % 4 == 1)
			im.stack[fps[1] - SB - 40 + rand_r(&seed) % 16] = (uint8_t)rand_r(&seed);
		/* with --lines every other round: tables and offsets read too */
		v = open_v8_lines(&im, t, round & 1);
		sample(&im, &sm, 2, fps, pcs, codes);
		memset(&out, 0, sizeof(out));
		cr_assert_eq(v8__read_stack(v, &sm.s, &out), 0);
		cr_assert_leq(out.nids, RUNTIME_MAX_IDS);
		cr_assert_lt(v8__mem(v)->reads, 2000, "round %u: %llu reads", round,
			     (unsigned long long)v8__mem(v)->reads);
		v8__delete(v);
		strtab__delete(t);
	}
	free(clean);
	fini(&im);
}

/* The same for baseline and interpreted frames read with --lines: any
 * byte of the image may be anything. */
Test(v8_lines, damaged_baseline_images_never_crash)
{
	struct image im;
	struct baseline b;
	uint8_t *clean;
	uint64_t instr = HB + 0x20000;
	uint64_t fps[2] = { SB + 0x100, SB + 0x180 }, pcs[2] = { instr + 30, 0x2000 };
	int codes[2] = { UNWIND_CODE_FRAME_POINTER, UNWIND_CODE_NATIVE };
	unsigned seed = 43, round;

	baseline_image(&im, instr, fps, &b);
	clean = malloc(HSIZE);
	cr_assert_not_null(clean);
	memcpy(clean, im.heap, HSIZE);
	for (round = 0; round < (unsigned)test_rounds(1500); round++) {
		struct strtab *t = strtab__new();
		struct runtime_stack out;
		struct sample sm;
		struct v8 *v;
		unsigned k, flips = 1 + rand_r(&seed) % 8;

		memcpy(im.heap, clean, HSIZE);
		for (k = 0; k < flips; k++) {
			size_t at = 4096 + (size_t)rand_r(&seed) % (size_t)(im.next - HB - 4096);

			im.heap[at] = (uint8_t)rand_r(&seed);
		}
		v = open_v8_lines(&im, t, true);
		sample(&im, &sm, 2, fps, pcs, codes);
		sm.frames[0].pc = instr + (uint64_t)(rand_r(&seed) % 64);
		memset(&out, 0, sizeof(out));
		cr_assert_eq(v8__read_stack(v, &sm.s, &out), 0);
		cr_assert_leq(out.nids, RUNTIME_MAX_IDS);
		cr_assert_lt(v8__mem(v)->reads, 2000, "round %u: %llu reads", round,
			     (unsigned long long)v8__mem(v)->reads);
		v8__delete(v);
		strtab__delete(t);
	}
	free(clean);
	fini(&im);
}

Test(v8, damaged_images_never_crash_16) { damage(16); }
Test(v8, damaged_images_never_crash_20) { damage(20); }
Test(v8, damaged_images_never_crash_22) { damage(22); }

Test(v8_script, short_names_and_lines)
{
	const uint32_t ends[] = { 4, 9, 44, 70 };
	const char *s;
	size_t n;

	v8_scripts__short_name("/srv/app/node_loop.js", &s, &n);
	cr_assert_eq(strncmp(s, "node_loop.js", n), 0);
	cr_assert_eq(n, strlen("node_loop.js"));
	v8_scripts__short_name("/a/node_modules/x/node_modules/@s/p/lib/i.js", &s, &n);
	cr_assert_str_eq(s, "@s/p/lib/i.js");
	v8_scripts__short_name("node:internal/modules/cjs/loader", &s, &n);
	cr_assert_str_eq(s, "node:internal/modules/cjs/loader");
	v8_scripts__short_name("file:///srv/app/main.mjs", &s, &n);
	cr_assert_str_eq(s, "main.mjs");
	cr_assert_eq(v8_scripts__line(ends, 4, 0), 1);
	cr_assert_eq(v8_scripts__line(ends, 4, 4), 1);
	cr_assert_eq(v8_scripts__line(ends, 4, 5), 2);
	cr_assert_eq(v8_scripts__line(ends, 4, 44), 3);
	cr_assert_eq(v8_scripts__line(ends, 4, 71), 0);
	cr_assert_eq(v8_scripts__line(ends, 4, -1), 0);
}

static int label(const char *args, size_t len, char *out)
{
	return nodecmd__main(args, len, out, 64);
}

#define CMD(s) s, sizeof(s)

Test(nodecmd, main_script_of_a_command_line)
{
	char out[64];

	cr_assert_eq(label(CMD("node\0/srv/api/server.js\0--port\0008080"), out), (int)strlen("api/server.js"));
	cr_assert_str_eq(out, "api/server.js");
	cr_assert_gt(label(CMD("/usr/bin/node\0--max-old-space-size=4096\0-r\0dotenv/config\0/usr/bin/tsc\0-p\0."), out), 0);
	cr_assert_str_eq(out, "tsc");
	cr_assert_gt(label(CMD("node\0--inspect-port\0009229\0--\0--weird.js"), out), 0);
	cr_assert_str_eq(out, "--weird.js");
	cr_assert_gt(label(CMD("node\0--stack-size\0004000\0index.js"), out), 0);
	cr_assert_str_eq(out, "index.js");
	cr_assert_eq(label(CMD("node\0-e\0while(1);"), out), -ENOENT);
	cr_assert_eq(label(CMD("node\0-"), out), -ENOENT);
	cr_assert_eq(label(CMD("node\0--version"), out), -ENOENT);
	cr_assert_eq(label("node\0app.j", 10, out), -ENOENT, "cut: no NUL after the script");
	cr_assert_eq(nodecmd__main(CMD("node\0/a/very-long-name.js"), out, 8), -ENAMETOOLONG);
}
