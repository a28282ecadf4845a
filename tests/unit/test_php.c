/* runtimes/php*, runtimes/phpcmd.c, runtimes/interp_place.c: the PHP
 * reader on synthetic executor images of every layout of the table (7.0,
 * 7.4, 8.0, 8.2, 8.3, 8.4): frames walked and named, what a sample's
 * registers prove of the frames read at it, lines from the instruction
 * register, a function's memory reused for another renamed, frames read
 * ahead never used where they no longer hold, loops and
 * damaged images never crashing it, reads bounded by the ledger, the
 * version from a build id, labels from command lines. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "runtimes/accountant.h"
#include "runtimes/interp_place.h"
#include "runtimes/memsource.h"
#include "dying_source.h"
#include "tests/unit/vectored_image.h"
#include "runtimes/php.h"
#include "runtimes/php_layout.h"
#include "runtimes/phpcmd.h"
#include "tests/unit/rounds.h"

#define BASE 0x20000000ull
#define SIZE 0x4000u
/* The image: objects at fixed offsets. */
#define O_EG 0x000   /* executor globals (their head: 0x200) */
#define O_EX 0x400   /* frames of 0x80 */
#define O_FN 0x1000  /* functions of 0x100 */
#define O_CE 0x1800  /* class entries of 0x40 */
#define O_OPS 0x2000 /* opcodes: 0x400 per function (32 ops) */
#define O_STR 0x3400 /* strings of 0x40 */
#define O_JIT 0x3c00 /* JIT code */

struct image {
	uint8_t b[SIZE];
	struct memimage_region r;
	struct memimage img;
	const struct php_layout *l;
};

static void put64(struct image *im, uint32_t off, uint64_t v) { memcpy(im->b + off, &v, 8); }
static void put32(struct image *im, uint32_t off, uint32_t v) { memcpy(im->b + off, &v, 4); }
static uint64_t at(uint32_t off) { return BASE + off; }

static uint64_t zstr(struct image *im, int i, const char *s)
{
	uint32_t o = O_STR + 0x40u * (uint32_t)i;

	put64(im, o + 8, 0x1234567ull + (uint64_t)i); /* h */
	put64(im, o + im->l->str_len, strlen(s));
	memcpy(im->b + o + im->l->str_val, s, strlen(s) + 1);
	return at(o);
}

/* The opcodes of user function i: 32 ops, op j at line 10 * (i + 1) + j. */
static uint64_t ops(struct image *im, int i)
{
	uint32_t o = O_OPS + 0x400u * (uint32_t)i, j;

	for (j = 0; j < 32; j++)
		put32(im, o + j * 32 + im->l->zop_lineno, 10u * (uint32_t)(i + 1) + j);
	return at(o);
}

/* Function i: user (named, or the script's code when name is NULL) or
 * internal, of class cls (NULL: none). */
static uint64_t func(struct image *im, int i, int type, const char *name, const char *cls)
{
	const struct php_layout *l = im->l;
	uint32_t o = O_FN + 0x100u * (uint32_t)i;

	im->b[o + l->fn_type] = (uint8_t)type;
	put64(im, o + l->fn_name, name ? zstr(im, 3 * i, name) : 0);
	if (cls) {
		uint32_t ce = O_CE + 0x40u * (uint32_t)i;

		put64(im, ce + l->ce_name, zstr(im, 3 * i + 1, cls));
		put64(im, o + l->fn_scope, at(ce));
	}
	if (type != PHP_INTERNAL_FUNCTION) {
		put64(im, o + l->op_opcodes, ops(im, i));
		put32(im, o + l->op_last, 32);
		put64(im, o + l->op_filename, zstr(im, 3 * i + 2, "/srv/app/index.php"));
	}
	return at(o);
}

/* Frame i running fn at instruction op (op < 0: none saved), called by prev. */
static uint64_t frame(struct image *im, int i, uint64_t fn, int op, uint64_t prev, bool top)
{
	const struct php_layout *l = im->l;
	uint32_t o = O_EX + 0x80u * (uint32_t)i;
	uint64_t opcodes;

	put64(im, o + l->ex_func, fn);
	memcpy(&opcodes, im->b + (fn - BASE) + l->op_opcodes, 8);
	put64(im, o + l->ex_opline, op >= 0 ? opcodes + 32u * (uint32_t)op : 0);
	put32(im, o + l->ex_call_info, top ? l->call_top : 0);
	put64(im, o + l->ex_prev, prev);
	return at(o);
}

/* {main} -> outer -> array_map (internal) -> Klass::run (a callback) ->
 * inner, inner running. */
static void build(struct image *im, uint32_t api)
{
	uint64_t f_main, f_outer, f_map, f_run, f_inner, x;

	memset(im->b, 0, sizeof(im->b));
	im->l = php_layout__by_api(api);
	cr_assert_not_null(im->l, "no layout for %u", api);
	f_main = func(im, 0, PHP_USER_FUNCTION, NULL, NULL);
	f_outer = func(im, 1, PHP_USER_FUNCTION, "outer", NULL);
	f_map = func(im, 2, PHP_INTERNAL_FUNCTION, "array_map", NULL);
	f_run = func(im, 3, PHP_USER_FUNCTION, "run", "Klass");
	f_inner = func(im, 4, PHP_USER_FUNCTION, "inner", NULL);
	x = frame(im, 0, f_main, 3, 0, true);
	x = frame(im, 1, f_outer, 4, x, false);
	x = frame(im, 2, f_map, -1, x, false);
	x = frame(im, 3, f_run, 5, x, true);
	x = frame(im, 4, f_inner, 6, x, false);
	put64(im, O_EG + im->l->eg_current_execute_data, x);
	im->r.addr = BASE;
	im->r.bytes = im->b;
	im->r.len = SIZE;
	im->img.regions = &im->r;
	im->img.n = 1;
}

/* JIT code at O_JIT: the start of trace num (mov rax, &EG.jit_trace_num;
 * mov dword [rax], num), entered at inner's instruction op. */
static void trace_start(struct image *im, uint32_t num, uint32_t op)
{
	im->b[O_JIT] = 0x48;
	im->b[O_JIT + 1] = 0xb8;
	put64(im, O_JIT + 2, at(O_EG) + 0x1f8);
	im->b[O_JIT + 10] = 0xc7;
	im->b[O_JIT + 11] = 0x00;
	put32(im, O_JIT + 12, num);
	put64(im, O_OPS + 0x400 * 4 + 32 * op, at(O_JIT));
}

static struct php *open_image(struct image *im, struct strtab *t, bool lines, struct memsource *m)
{
	struct php *p = NULL;

	memsource__image(m, &im->img);
	cr_assert_eq(php__open(m, at(O_EG), im->l, lines, t, &p), 0);
	return p;
}

static const uint32_t apis[] = { 20151012, 20190902, 20200930, 20220829, 20230831, 20240924 };

Test(php, reads_and_names_the_frames_of_every_layout)
{
	static const char *const want[] = { "inner (index.php)_[php]", "Klass::run (index.php)_[php]",
					    "array_map_[php]", "outer (index.php)_[php]",
					    "{main} (index.php)_[php]" };
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	size_t v, j;

	for (v = 0; v < sizeof(apis) / sizeof(apis[0]); v++) {
		struct strtab *t = strtab__new();
		struct memsource m;
		struct php *p;

		build(im, apis[v]);
		p = open_image(im, t, false, &m);
		cr_assert_eq(php__read_stack(p, 1, st), 0, "api %u", apis[v]);
		cr_assert_eq(st->n, 5);
		for (j = 0; j < 5; j++)
			cr_assert_str_eq(strtab__str(t, st->f[j].name), want[j], "api %u frame %zu", apis[v], j);
		/* the code an instruction register points into: user frames' */
		cr_assert_eq(st->f[0].code_lo, at(O_OPS + 4 * 0x400));
		cr_assert_eq(st->f[0].code_hi, at(O_OPS + 4 * 0x400 + 32 * 32));
		cr_assert_eq(st->f[2].code_lo, st->f[2].code_hi, "a builtin has no code");
		/* entry ends: the callback's frame and the script's */
		cr_assert(!st->f[0].entry_end && st->f[1].entry_end && !st->f[2].entry_end &&
			  !st->f[3].entry_end && st->f[4].entry_end);
		php__delete(p);
		strtab__delete(t);
	}
	free(st);
	free(im);
}

/* A thread-safe build: no globals to read (each thread's are in its TLS),
 * the walk starts at the frame the VM's register holds and goes on as
 * from the globals; the register of a callback's frame reads the callback
 * and its callers. A register holding no frame reads none. */
Test(php, a_thread_safe_build_reads_from_the_frame_register)
{
	static const char *const want[] = { "inner (index.php)_[php]", "Klass::run (index.php)_[php]",
					    "array_map_[php]", "outer (index.php)_[php]",
					    "{main} (index.php)_[php]" };
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	struct memsource m;
	struct php *p = NULL;
	uint64_t opline;
	size_t j;

	build(im, 20220829);
	put64(im, O_EG + im->l->eg_current_execute_data, 0); /* not where a TS build keeps it */
	memsource__image(&m, &im->img);
	cr_assert_eq(php__open(&m, 0, im->l, false, t, &p), 0);
	cr_assert_eq(php__read_stack(p, 1, st), -ENOENT, "no globals: nothing read from them");
	cr_assert_eq(st->n, 0);
	cr_assert_eq(php__read_stack_from(p, at(O_EX + 4 * 0x80), 1, st), 0);
	cr_assert_eq(st->n, 5);
	for (j = 0; j < 5; j++)
		cr_assert_str_eq(strtab__str(t, st->f[j].name), want[j], "frame %zu", j);
	cr_assert(st->f[1].entry_end && st->f[4].entry_end);
	cr_assert_eq(php__read_stack_from(p, at(O_EX + 3 * 0x80), 1, st), 0);
	cr_assert_eq(st->n, 4);
	cr_assert_str_eq(strtab__str(t, st->f[0].name), want[1]);
	cr_assert_eq(php__read_stack_from(p, 0x7, 1, st), -EFAULT, "a register holding no frame");
	/* no trace is told apart without the globals */
	trace_start(im, 7, 6);
	cr_assert_eq(php__read_stack_from(p, at(O_EX + 4 * 0x80), 1, st), 0);
	cr_assert_eq(php__jit_witness(p, at(O_EX + 4 * 0x80), at(O_JIT) + 20, 1, &opline), -ENOENT);
	php__delete(p);
	strtab__delete(t);
	free(st);
	free(im);
}

/* The rows as php_layout.c documents them (a fact changed by mistake
 * fails here; the images above are built from the rows themselves). */
Test(php, layout_rows_are_the_documented_ones)
{
	static const struct { uint32_t api; uint16_t ced, prev, last, opcodes, filename; uint32_t top; } doc[] = {
		{ 20151012, 480, 56, 60, 64, 120, 1u << 25 }, { 20160303, 480, 48, 56, 64, 120, 1u << 17 },
		{ 20170718, 480, 48, 56, 64, 120, 1u << 17 }, { 20180731, 488, 48, 60, 64, 128, 1u << 17 },
		{ 20190902, 488, 48, 60, 64, 136, 1u << 17 }, { 20200930, 488, 48, 68, 72, 144, 1u << 17 },
		{ 20210902, 488, 48, 68, 72, 144, 1u << 17 }, { 20220829, 488, 48, 80, 88, 152, 1u << 17 },
		{ 20230831, 488, 48, 76, 80, 144, 1u << 17 }, { 20240924, 488, 48, 96, 104, 168, 1u << 17 },
	};
	size_t i;

	for (i = 0; i < sizeof(doc) / sizeof(doc[0]); i++) {
		const struct php_layout *l = php_layout__by_api(doc[i].api);

		cr_assert_not_null(l);
		cr_assert(l->eg_current_execute_data == doc[i].ced && l->ex_prev == doc[i].prev &&
			  l->op_last == doc[i].last && l->op_opcodes == doc[i].opcodes &&
			  l->op_filename == doc[i].filename && l->call_top == doc[i].top,
			  "row %u", doc[i].api);
		cr_assert_leq(l->ex_size, 64);
		cr_assert_leq(l->op_size, 192);
		cr_assert_geq(l->op_size, l->op_filename + 8);
	}
}

Test(php, versions_without_a_layout_have_none)
{
	cr_assert_null(php_layout__by_api(20131226)); /* 5.6 */
	cr_assert_null(php_layout__by_api(20100525)); /* 5.4 */
	cr_assert_null(php_layout__by_api(20990101));
	cr_assert_eq(php_layout__by_api(20220829)->minor, 2);
	cr_assert_eq(php_layout__by_api(20151012)->ex_prev, 56);
}

Test(php, the_build_id_says_the_version_and_thread_safety)
{
	static const char nts[] = "xx\0API420220829,NTS\0API20220829,NTS\0tail";
	static const char zts[] = "API20190902,TS\0";
	static const char none[] = "API2022,NTS API420220829,NTS APIabcdefgh,NTS";
	uint32_t api = 0;
	int ts = -1;

	cr_assert_eq(php_layout__build_id(nts, sizeof(nts), &api, &ts), 0);
	cr_assert_eq(api, 20220829u);
	cr_assert_eq(ts, 0);
	cr_assert_eq(php_layout__build_id(zts, sizeof(zts), &api, &ts), 0);
	cr_assert_eq(api, 20190902u);
	cr_assert_eq(ts, 1);
	cr_assert_eq(php_layout__build_id(none, sizeof(none), &api, &ts), -ENOENT);
	cr_assert_eq(php_layout__build_id("API2022", 7, &api, &ts), -ENOENT);
}

/* The words of a native execute_ex call: registers and stack words. */
static void native(struct interp_native *ev, const uint64_t *regs, size_t nregs, const uint64_t *words,
		   size_t nwords)
{
	ev->regs = regs;
	ev->nregs = nregs;
	ev->words = (const uint8_t *)words;
	ev->nbytes = nwords * 8;
	ev->witness = ev->witness_frame = 0;
}

/* Two execute_ex calls: the leaf ran inner (r14 = its frame, r15 its
 * instruction), the outer one called array_map for outer. Each is proven
 * by its own registers; a frame address without a pointer into that
 * frame's code proves nothing; frames inside the proven one are not
 * shown. */
Test(php, the_samples_registers_prove_what_ran)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct interp_placed *pl = malloc(sizeof(*pl));
	struct strtab *t = strtab__new();
	struct interp_native ev[2] = { { .words = NULL }, { .words = NULL } };
	uint64_t leaf[2], outer[2], stale[2], words[2];
	struct memsource m;
	struct php *p;

	build(im, 20220829);
	p = open_image(im, t, false, &m);
	cr_assert_eq(php__read_stack(p, 1, st), 0);
	leaf[0] = at(O_EX + 4 * 0x80);
	leaf[1] = st->f[0].code_lo + 6 * 32;
	outer[0] = at(O_EX + 1 * 0x80);
	outer[1] = st->f[3].code_lo + 4 * 32;
	/* the outer call's stack holds the leaf's frame (execute_ex saves its
	 * caller's r14): registers come first */
	words[0] = leaf[0];
	words[1] = leaf[1];
	native(&ev[0], leaf, 2, NULL, 0);
	native(&ev[1], outer, 2, words, 2);
	interp_place(st, ev, 2, true, pl);
	cr_assert_eq(pl->confirmed, 2);
	cr_assert_eq(pl->unproven, 0);
	cr_assert_eq(pl->count[0], 2); /* inner, Klass::run */
	cr_assert_eq(pl->frames[pl->first[0]].name, st->f[0].name);
	cr_assert_eq(pl->count[1], 3); /* array_map, outer, {main} */
	cr_assert_eq(pl->frames[pl->proven_at[1]].addr, outer[0]);
	cr_assert_eq(pl->code_word[0], leaf[1]);

	/* the leaf's registers name a frame but not its code: a later
	 * activation at the same address would pass; unproven */
	stale[0] = leaf[0];
	stale[1] = st->f[1].code_lo;
	native(&ev[0], stale, 2, NULL, 0);
	interp_place(st, ev, 2, true, pl);
	cr_assert_eq(pl->state[0], INTERP_UNPROVEN);
	cr_assert_eq(pl->state[1], INTERP_PROVEN);
	cr_assert_eq(pl->unproven, 1);
	/* outer, {main}: array_map, which outer called, is inside the
	 * proven frame (proven only as a caller of a proven frame) */
	cr_assert_eq(pl->count[1], 2, "what is inside the proven frame is not shown");
	cr_assert_eq(pl->frames[pl->first[1]].addr, outer[0]);

	/* the outer call proves nothing either: nothing is placed */
	native(&ev[1], stale, 2, NULL, 0);
	interp_place(st, ev, 2, true, pl);
	cr_assert_eq(pl->n, 0);
	cr_assert_eq(pl->unproven, 2);

	/* the leaf proven alone: the outer call runs the next group
	 * (chained), and a native stack cut short keeps what is older apart */
	native(&ev[0], leaf, 2, NULL, 0);
	interp_place(st, ev, 1, false, pl);
	cr_assert_eq(pl->count[0], 2);
	cr_assert_eq(pl->count[1], 3, "older than the native stack: kept at nev");
	interp_place(st, ev, 2, false, pl);
	cr_assert_eq(pl->state[1], INTERP_CHAINED);
	cr_assert_eq(pl->count[1], 3);
	php__delete(p);
	strtab__delete(t);
	free(pl);
	free(st);
	free(im);
}

/* opcache's tracing JIT keeps the frame in r14 and uses r15 as scratch:
 * the trace a sample's pc is in proves the frame in r14 when one of that
 * frame's function's instructions starts it (its handler is the trace's
 * first byte), and stands for the pointer into its code. */
Test(php, a_jit_trace_proves_the_frame_whose_function_starts_it)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct interp_placed *pl = malloc(sizeof(*pl));
	struct strtab *t = strtab__new();
	struct interp_native ev = { .words = NULL };
	uint64_t regs[2], op, start = at(O_JIT);
	struct memsource m;
	struct php *p;

	build(im, 20220829);
	/* trace 7, entered at inner's instruction 2 */
	trace_start(im, 7, 2);
	p = open_image(im, t, false, &m);
	cr_assert_eq(php__jit_witness(p, at(O_EX + 4 * 0x80), start + 0x40, 1, &op), -ENOENT,
		     "no read yet: no frame");
	cr_assert_eq(php__read_stack(p, 1, st), 0);
	cr_assert_eq(php__jit_witness(p, at(O_EX + 4 * 0x80), start + 0x40, 1, &op), 0);
	cr_assert_eq(op, st->f[0].code_lo + 2 * 32);
	cr_assert_eq(php__jit_witness(p, at(O_EX + 3 * 0x80), start + 0x40, 1, &op), -ENOENT,
		     "Klass::run starts no trace there");
	cr_assert_eq(php__jit_witness(p, at(O_EX + 2 * 0x80), start + 0x40, 1, &op), -ENOENT,
		     "array_map has no opcodes");
	cr_assert_eq(php__jit_witness(p, at(O_EX + 6 * 0x80), start + 0x40, 1, &op), -ENOENT,
		     "a frame the read did not find");
	cr_assert_eq(php__jit_witness(p, at(O_EX + 4 * 0x80), start - 0x10, 1, &op), -ENOENT,
		     "code before the trace");

	/* r14 names inner's frame, r15 holds no pointer into its code */
	regs[0] = at(O_EX + 4 * 0x80);
	regs[1] = regs[0];
	native(&ev, regs, 2, NULL, 0);
	interp_place(st, &ev, 1, true, pl);
	cr_assert_eq(pl->state[0], INTERP_UNPROVEN);
	ev.witness = st->f[0].code_lo + 2 * 32;
	ev.witness_frame = regs[0];
	interp_place(st, &ev, 1, true, pl);
	cr_assert_eq(pl->state[0], INTERP_PROVEN);
	cr_assert_eq(pl->frames[pl->proven_at[0]].addr, regs[0]);
	cr_assert_eq(pl->code_word[0], ev.witness);
	/* a witness holds for the frame it was found for, no other */
	ev.witness_frame = at(O_EX + 3 * 0x80);
	regs[1] = ev.witness_frame;
	interp_place(st, &ev, 1, true, pl);
	cr_assert_eq(pl->state[0], INTERP_UNPROVEN);
	php__delete(p);
	strtab__delete(t);
	free(pl);
	free(st);
	free(im);
}

/* --lines: a frame's line from the instruction its call's register held at
 * the sample, not the one its frame saved (older in the frame running). */
Test(php, lines_come_from_the_samples_instruction)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	struct memsource m;
	struct php *p;
	uint32_t id;

	build(im, 20220829);
	p = open_image(im, t, true, &m);
	cr_assert_eq(php__read_stack(p, 1, st), 0);
	cr_assert_str_eq(strtab__str(t, st->f[0].name), "inner (index.php:56)_[php]");
	cr_assert_str_eq(strtab__str(t, st->f[2].name), "array_map_[php]");
	cr_assert_str_eq(strtab__str(t, st->f[4].name), "{main} (index.php:13)_[php]");
	cr_assert_eq(php__name_at(p, st->f[0].addr, st->f[0].code_lo + 9 * 32, &id), 0);
	cr_assert_str_eq(strtab__str(t, id), "inner (index.php:59)_[php]");
	cr_assert_eq(php__name_at(p, at(O_EX + 0x7f0), st->f[0].code_lo, &id), -ENOENT);
	php__delete(p);
	strtab__delete(t);
	free(st);
	free(im);
}

/* A request's functions freed and the next request's compiled at the same
 * addresses: the string's head changed, and so does the name. */
Test(php, a_function_reused_for_another_is_renamed)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	struct memsource m;
	struct php *p;

	build(im, 20220829);
	p = open_image(im, t, false, &m);
	cr_assert_eq(php__read_stack(p, 1, st), 0);
	cr_assert_str_eq(strtab__str(t, st->f[0].name), "inner (index.php)_[php]");
	zstr(im, 3 * 4, "other");
	cr_assert_eq(php__read_stack(p, 2, st), 0);
	cr_assert_str_eq(strtab__str(t, st->f[0].name), "other (index.php)_[php]");
	/* its reference count changing is no other function: no new read */
	{
		struct runtime_counters c0, c1, c2;

		php__counters(p, &c0);
		cr_assert_eq(php__read_stack(p, 3, st), 0);
		php__counters(p, &c1);
		im->b[O_STR + 0x40 * 3 * 4] = 7;
		cr_assert_eq(php__read_stack(p, 4, st), 0);
		php__counters(p, &c2);
		cr_assert_eq(c2.reads - c1.reads, c1.reads - c0.reads, "a name read again");
	}
	php__delete(p);
	strtab__delete(t);
	free(st);
	free(im);
}

static struct php *open_vectored(struct image *im, struct strtab *t, bool lines,
				 struct memsource *m)
{
	struct php *p = open_image(im, t, lines, m);

	m->readv = vectored_image_readv;
	php__delete(p);
	cr_assert_eq(php__open(m, at(O_EG), im->l, lines, t, &p), 0);
	return p;
}

/* {main} -> fib -> fib ... (depth frames of fib), the innermost running;
 * depth < 0: frame -depth alone, being pushed (its caller not yet set). */
static void recurse(struct image *im, uint64_t f_fib, int depth)
{
	uint64_t x = at(O_EX);
	int i;

	if (depth < 0)
		x = frame(im, -depth, f_fib, 3, 0, false);
	for (i = 1; i <= depth; i++)
		x = frame(im, i, f_fib, 3, x, false);
	put64(im, O_EG + im->l->eg_current_execute_data, x);
}

/* A sample of a chain read before costs one call of the process's memory
 * (two with lines): the frames, where the last read found them, and the
 * heads of its functions and their names, in one range each, read
 * together; a function many frames run is read once. The chain grows
 * and shrinks between the reads, as a recursion's does, and one read
 * finds it cut short (a frame read while it is pushed): the next still
 * reads its callers with it. */
Test(php, a_chain_read_before_is_read_in_one_call)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	int lines;

	for (lines = 0; lines < 2; lines++) {
		static const int depths[] = { 12, 12, 5, 11, 1, -8, 12, 3 };
		struct strtab *t = strtab__new();
		struct runtime_counters c0, c1;
		struct memsource m;
		struct php *p;
		uint64_t f_fib;
		size_t d;

		build(im, 20220829);
		f_fib = func(im, 4, PHP_USER_FUNCTION, "fib", NULL);
		recurse(im, f_fib, depths[0]);
		p = open_vectored(im, t, lines, &m);
		cr_assert_eq(php__read_stack(p, 1, st), 0);
		for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
			recurse(im, f_fib, depths[d]);
			php__counters(p, &c0);
			cr_assert_eq(php__read_stack(p, 2 + d, st), 0);
			php__counters(p, &c1);
			cr_assert_eq(st->n, depths[d] < 0 ? 1 : (size_t)depths[d] + 1);
			cr_assert_str_eq(strtab__str(t, st->f[0].name),
					 lines ? "fib (index.php:53)_[php]" : "fib (index.php)_[php]");
			if (depths[d] > 0)
				cr_assert_str_eq(strtab__str(t, st->f[depths[d]].name),
						 lines ? "{main} (index.php:13)_[php]"
						       : "{main} (index.php)_[php]");
			cr_assert_eq(c1.reads - c0.reads, 1u + (unsigned)lines,
				     "depth %d, lines %d: %llu calls", depths[d], lines,
				     (unsigned long long)(c1.reads - c0.reads));
		}
		php__delete(p);
		strtab__delete(t);
	}
	free(st);
	free(im);
}

/* Memory posing as PHP: a frame chain that loops, one longer than any
 * stack kept, a frame whose instruction is outside its function's code,
 * a function of no known type: errors or a bounded stack, in bounded reads. */
/* Each read begins by reading again, in one call, the frames where the
 * last one found them (runtimes/prefetch.h): what was read ahead is used
 * only where the chain read now leads to it. The chain changes under
 * the guess: its top returns, a call is made above it, a frame is reused
 * by another function, the whole chain moves elsewhere. */
Test(php, a_read_ahead_that_no_longer_holds_is_not_used)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	size_t v;

	for (v = 0; v < sizeof(apis) / sizeof(apis[0]); v++) {
		struct strtab *t = strtab__new();
		const struct php_layout *l;
		uint64_t f_outer, f_inner, x;
		struct memsource m;
		struct php *p;
		int i;

		build(im, apis[v]);
		l = im->l;
		memcpy(&f_outer, im->b + O_EX + 0x80 + l->ex_func, 8);
		memcpy(&f_inner, im->b + O_EX + 4 * 0x80 + l->ex_func, 8);
		p = open_image(im, t, false, &m);
		cr_assert_eq(php__read_stack(p, 1, st), 0);
		cr_assert_eq(st->n, 5);
		/* inner returns */
		put64(im, O_EG + l->eg_current_execute_data, at(O_EX + 3 * 0x80));
		cr_assert_eq(php__read_stack(p, 2, st), 0);
		cr_assert_eq(st->n, 4, "api %u: the guess's top was used", apis[v]);
		cr_assert_str_eq(strtab__str(t, st->f[0].name), "Klass::run (index.php)_[php]");
		/* run calls inner, which calls outer, above the last top */
		x = frame(im, 4, f_inner, 6, at(O_EX + 3 * 0x80), false);
		x = frame(im, 5, f_outer, 4, x, false);
		put64(im, O_EG + l->eg_current_execute_data, x);
		cr_assert_eq(php__read_stack(p, 3, st), 0);
		cr_assert_eq(st->n, 6, "api %u", apis[v]);
		cr_assert_str_eq(strtab__str(t, st->f[0].name), "outer (index.php)_[php]");
		/* the same frame, another function */
		put64(im, O_EX + 5 * 0x80 + l->ex_func, f_inner);
		cr_assert_eq(php__read_stack(p, 4, st), 0);
		cr_assert_str_eq(strtab__str(t, st->f[0].name), "inner (index.php)_[php]",
				 "api %u: the guess's frame was used", apis[v]);
		/* the chain moves: the same frames 0x400 higher, the old ones
		 * left as they were */
		memcpy(im->b + O_EX + 0x400, im->b + O_EX, 6 * 0x80);
		for (i = 1; i < 6; i++)
			put64(im, O_EX + 0x400 + 0x80u * (uint32_t)i + l->ex_prev,
			      at(O_EX + 0x400 + 0x80u * (uint32_t)(i - 1)));
		put64(im, O_EX + 0x400 + 5 * 0x80 + l->ex_func, f_outer);
		put64(im, O_EG + l->eg_current_execute_data, at(O_EX + 0x400 + 5 * 0x80));
		cr_assert_eq(php__read_stack(p, 5, st), 0);
		cr_assert_eq(st->n, 6);
		cr_assert_str_eq(strtab__str(t, st->f[0].name), "outer (index.php)_[php]",
				 "api %u: the old chain was used", apis[v]);
		php__delete(p);
		strtab__delete(t);
	}
	free(st);
	free(im);
}

Test(php, chains_posing_as_php_cost_bounded_work)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	struct runtime_counters s0, s1;
	struct memsource m;
	struct php *p;
	uint32_t i;

	build(im, 20220829);
	p = open_image(im, t, false, &m);
	/* inner's frame calls itself back */
	put64(im, O_EX + 4 * 0x80 + im->l->ex_prev, at(O_EX + 3 * 0x80));
	put64(im, O_EX + 3 * 0x80 + im->l->ex_prev, at(O_EX + 4 * 0x80));
	php__counters(p, &s0);
	cr_assert_eq(php__read_stack(p, 1, st), -EPROTO);
	php__counters(p, &s1);
	cr_assert_leq(s1.reads - s0.reads, 4);

	/* 24 frames of 0x80 each calling the next, in a loop of 24: walked
	 * until a repeat, never more than INTERP_MAX_FRAMES */
	for (i = 0; i < 24; i++) {
		uint32_t o = O_EX + 0x80 * i;

		put64(im, o + im->l->ex_func, at(O_FN + 4 * 0x100));
		put64(im, o + im->l->ex_opline, 0);
		put64(im, o + im->l->ex_prev, at(O_EX + 0x80 * ((i + 1) % 24)));
	}
	put64(im, O_EG + im->l->eg_current_execute_data, at(O_EX));
	php__counters(p, &s0);
	cr_assert_eq(php__read_stack(p, 2, st), -EPROTO);
	php__counters(p, &s1);
	cr_assert_leq(s1.reads - s0.reads, 26);

	/* a caller's saved instruction outside its code: no PHP frame; the
	 * running frame's may be stale (not saved yet): no line, no error */
	build(im, 20220829);
	put64(im, O_EX + 3 * 0x80 + im->l->ex_opline, at(O_OPS + 0x400 * 4));
	cr_assert_eq(php__read_stack(p, 3, st), -EPROTO, "an instruction outside its code");
	build(im, 20220829);
	put64(im, O_EX + 4 * 0x80 + im->l->ex_opline, at(O_OPS + 0x400 * 3));
	cr_assert_eq(php__read_stack(p, 3, st), 0, "the running frame's stale instruction");
	cr_assert_eq(st->n, 5);
	build(im, 20220829);
	im->b[O_FN + 4 * 0x100 + im->l->fn_type] = 7;
	cr_assert_eq(php__read_stack(p, 4, st), -EPROTO, "no function's type");
	build(im, 20220829);
	put64(im, O_EG + im->l->eg_current_execute_data, 0);
	cr_assert_eq(php__read_stack(p, 5, st), -ENOENT, "no PHP code runs");
	php__delete(p);
	strtab__delete(t);
	free(st);
	free(im);
}

/* Damaged images (bytes changed everywhere, between reads) and a process
 * exiting after any number of reads: errors or stacks of named frames,
 * never a crash. Run under ASan and valgrind by the suite. */
Test(php, damaged_images_and_exits_mid_read_never_crash)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct interp_placed *pl = malloc(sizeof(*pl));
	struct strtab *t = strtab__new();
	int round;

	srand(31);
	for (round = 0; round < test_rounds(3000); round++) {
		struct memsource m;
		struct dying d;
		struct php *p;
		uint64_t words[16], regs[4];
		struct interp_native ev = { .words = NULL };
		int k, flips = 1 + rand() % 24;
		size_t j;

		build(im, apis[round % 6]);
		/* a trace for the flips to damage */
		trace_start(im, 3, 1);
		d.img = &im->img;
		d.left = round % 7 == 0 ? rand() % 12 : 1 << 30;
		dying_source(&m, &d);
		cr_assert_eq(php__open(&m, at(O_EG), im->l, round % 2 == 0, t, &p), 0);
		for (k = 0; k < 3; k++) {
			int f;

			for (f = 0; f < flips; f++) {
				uint32_t off = (uint32_t)rand() % SIZE;

				im->b[off] = (uint8_t)(rand() % 3 == 0 ? (unsigned)im->b[off] ^ (1u << (rand() % 8))
								       : (unsigned)rand());
			}
			if (php__read_stack(p, (uint64_t)k + 1, st) != 0)
				continue;
			for (j = 0; j < st->n; j++)
				cr_assert_neq(st->f[j].name, 0);
			for (j = 0; j < 16; j++)
				words[j] = BASE + (uint64_t)(rand() % SIZE);
			for (j = 0; j < 4; j++)
				regs[j] = j < st->n ? st->f[j].addr + (uint64_t)(rand() % 2) : 0;
			native(&ev, regs, 4, words, 16);
			/* JIT code anywhere in the image, a trace start or not */
			if (st->n && php__jit_witness(p, st->f[0].addr, BASE + (uint64_t)(rand() % SIZE),
						      (uint64_t)k + 1, &ev.witness) == 0) {
				cr_assert(ev.witness >= st->f[0].code_lo && ev.witness < st->f[0].code_hi);
				ev.witness_frame = st->f[0].addr;
			}
			interp_place(st, &ev, 1, k & 1, pl);
			cr_assert_leq(pl->n, st->n);
		}
		php__delete(p);
	}
	strtab__delete(t);
	free(pl);
	free(st);
	free(im);
}

/* A stack read at every sample costs a bounded number of reads a second
 * (its ledger's); beyond, it is not read, and the next second it is. */
Test(php, reads_per_second_are_bounded)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	struct accountant *acct = accountant__new(NULL, t);
	struct ledger *l = NULL;
	struct runtime_counters s0, s1;
	struct memsource m;
	struct php *p = NULL;
	int i, busy = 0, rc;

	cr_assert_eq(accountant__ledger(acct, 1000, &l), 0);
	build(im, 20220829);
	memsource__image(&m, &im->img);
	m.ledger = l;
	cr_assert_eq(php__open(&m, at(O_EG), im->l, false, t, &p), 0);
	for (i = 0; i < 40000; i++) {
		rc = php__read_stack(p, 5000000000ull + (uint64_t)i, st);
		cr_assert(rc == 0 || rc == -EBUSY);
		busy += rc == -EBUSY;
	}
	php__counters(p, &s0);
	cr_assert_leq(s0.reads, ACCOUNTANT_PROCESS_READS_PER_SEC + 64, "%llu reads in one second",
		      (unsigned long long)s0.reads);
	cr_assert_gt(busy, 20000);
	cr_assert_eq(php__read_stack(p, 6000000000ull, st), 0);
	php__counters(p, &s1);
	cr_assert_gt(s1.reads, s0.reads);
	php__delete(p);
	ledger__delete(l);
	accountant__delete(acct);
	strtab__delete(t);
	free(st);
	free(im);
}

static void label_is(const char *cmd, size_t len, const char *want)
{
	char out[64];
	int n = phpcmd__label(cmd, len, out, sizeof(out));

	if (!want) {
		cr_assert_lt(n, 0, "%s: labelled %s", cmd, n > 0 ? out : "");
		return;
	}
	cr_assert_gt(n, 0, "%s: no label", cmd);
	cr_assert_str_eq(out, want);
}

#define L(s) s, sizeof(s)

Test(php, labels_from_command_lines_and_fpm_titles)
{
	char small[4];

	label_is(L("php-fpm: pool www\0\0\0\0"), "pool www");
	label_is(L("php-fpm: pool shop      \0"), "pool shop");
	label_is(L("php-fpm: master process (/etc/php/8.2/fpm/php-fpm.conf)\0"), "master");
	label_is(L("php\0/srv/jobs/import.php\0--full\0"), "import.php");
	label_is(L("/usr/bin/php8.2\0-d\0memory_limit=1G\0-c\0/etc/php.ini\0cron.php\0"), "cron.php");
	label_is(L("php\0-dmemory_limit=1G\0-f\0/srv/a/run.php\0--\0x\0"), "run.php");
	label_is(L("php\0/var/www/shop/index.php\0"), "shop/index.php");
	label_is(L("php\0-r\0echo 1;\0"), NULL);
	label_is(L("php\0-a\0"), NULL);
	label_is(L("php\0-\0"), NULL);
	label_is(L("php\0"), NULL);
	label_is("php\0/srv/cut", 12, NULL); /* cut: no NUL at the end */
	cr_assert_eq(phpcmd__label(L("php\0/srv/jobs/import.php\0"), small, sizeof(small)), -ENAMETOOLONG);
}
