/* runtimes/cpython*: the CPython reader on synthetic interpreter images
 * (3.11's and 2.7's layouts from the table, 3.13's from its own offsets):
 * thread states found by TID, frames walked and named, what a sample's
 * words prove of the stack read after it, a reused code address renamed,
 * and damaged images or a process exiting mid-read never crashing it. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "runtimes/accountant.h"
#include "runtimes/cpython.h"
#include "runtimes/cpython_layout.h"
#include "runtimes/cpython_lines.h"
#include "runtimes/memsource.h"
#include "dying_source.h"
#include "cpython_linetables.h"
#include "tests/unit/rounds.h"

#define BASE 0x10000000ull
#define SIZE 0x4000u
#define CODE_TYPE 0x7000100ull
#define TID 4242

/* The image: one region, objects at fixed offsets. */
#define O_RUNTIME 0x000
#define O_INTERP 0x200
#define O_TSTATE 0x400
#define O_CFRAME 0x600
#define O_FRAMES 0x700 /* 3 frames of 0x80 */
#define O_CODES 0x1000 /* 4 codes of 0x200 */
#define O_STRS 0x2000  /* strings of 0x80, 16 of them */

struct image {
	uint8_t b[SIZE];
	struct memimage_region r;
	struct memimage img;
	const struct cpython_layout *l;
};

static void put64(struct image *im, uint32_t off, uint64_t v) { memcpy(im->b + off, &v, 8); }
static void put32(struct image *im, uint32_t off, uint32_t v) { memcpy(im->b + off, &v, 4); }
static uint64_t at(uint32_t off) { return BASE + off; }

/* A str object at O_STRS + 0x80 * i. */
static uint64_t str(struct image *im, int i, const char *s)
{
	uint32_t o = O_STRS + 0x80u * (uint32_t)i;
	const struct cpython_layout *l = im->l;

	put64(im, o + l->str_size, strlen(s));
	if (!l->py2_str)
		put32(im, o + l->str_state, (1u << 2) | (1u << 5) | (1u << 6)); /* kind 1, compact, ascii */
	memcpy(im->b + o + l->str_data, s, strlen(s) + 1);
	return at(o);
}

/* Code object i named name (file app.py), bytecode of 32 units. */
static uint64_t code(struct image *im, int i, const char *name)
{
	const struct cpython_layout *l = im->l;
	uint32_t o = O_CODES + 0x200u * (uint32_t)i;
	uint64_t n = str(im, 2 * i, name), f = str(im, 2 * i + 1, "/srv/app/app.py");

	put64(im, o + 8, CODE_TYPE);
	put64(im, o + 16, 32);
	put64(im, o + l->code_name, n);
	put64(im, o + l->code_filename, f);
	if (l->code_qualname >= 0)
		put64(im, o + (uint32_t)l->code_qualname, n);
	put32(im, o + l->code_firstlineno, 10u + (uint32_t)i);
	if (l->frames == CPYTHON_FRAME_OBJECTS) {
		/* co_code: a bytes object inside the code's slot */
		put64(im, o + l->code_bytecode, at(o + 0x100));
		put64(im, o + 0x100 + 16, 64);
	}
	return at(o);
}

/* Frame i running code c, called from frame `back` (0: none). */
static uint64_t frame(struct image *im, int i, uint64_t c, uint64_t back, int entry)
{
	const struct cpython_layout *l = im->l;
	uint32_t o = O_FRAMES + 0x80u * (uint32_t)i;

	put64(im, o + l->frame_code, c);
	put64(im, o + l->frame_back, back);
	if (l->frame_entry >= 0)
		im->b[o + (uint32_t)l->frame_entry] = (uint8_t)entry;
	return at(o);
}

/* An interpreter whose one thread (TID) runs main -> outer -> inner; in
 * 3.11, outer and inner in one native eval call, main in another. */
static void build(struct image *im, unsigned major, unsigned minor)
{
	const struct cpython_layout *l;
	uint64_t cm, co, ci, f0, f1, f2;

	memset(im, 0, sizeof(*im));
	im->l = l = cpython_layout__table(major, minor);
	cr_assert_not_null(l);
	cm = code(im, 0, "main");
	co = code(im, 1, "outer");
	ci = code(im, 2, "inner");
	(void)code(im, 3, "other");
	f0 = frame(im, 0, cm, 0, 1);
	f1 = frame(im, 1, co, f0, 1);
	f2 = frame(im, 2, ci, f1, 0);
	if (l->runtime_interp_head)
		put64(im, O_RUNTIME + l->runtime_interp_head, at(O_INTERP));
	else
		put64(im, O_RUNTIME, at(O_INTERP)); /* interp_head */
	put64(im, O_INTERP + l->interp_tstate_head, at(O_TSTATE));
	if (l->cframe_current >= 0) {
		put64(im, O_TSTATE + l->tstate_frame, at(O_CFRAME));
		put64(im, O_CFRAME + (uint32_t)l->cframe_current, f2);
	} else {
		put64(im, O_TSTATE + l->tstate_frame, f2);
	}
	if (l->tstate_native_id >= 0) {
		put64(im, O_TSTATE + l->tstate_thread_id, 0x7f0000001000ull);
		put32(im, O_TSTATE + (uint32_t)l->tstate_native_id, TID);
	} else {
		/* pthread_t: a struct pthread in the image with tid at 0x2d0 */
		put64(im, O_TSTATE + l->tstate_thread_id, at(0x3000));
		put32(im, 0x3000 + 0x2d0, TID);
	}
	im->r.addr = BASE;
	im->r.bytes = im->b;
	im->r.len = SIZE;
	im->img.regions = &im->r;
	im->img.n = 1;
}

/* What the image's binary would say. */
static void symbols_of(const struct image *im, unsigned major, unsigned minor, struct cpython_symbols *sym)
{
	memset(sym, 0, sizeof(*sym));
	if (im->l->runtime_interp_head)
		sym->runtime = at(O_RUNTIME);
	else
		sym->interp_head = at(O_RUNTIME);
	sym->code_type = CODE_TYPE;
	sym->major = major;
	sym->minor = minor;
	sym->pthread_tid = 0x2d0;
}

static struct cpython *open_image(struct image *im, struct strtab *t, unsigned major, unsigned minor)
{
	struct cpython_symbols sym;
	struct memsource m;
	struct cpython *c = NULL;

	symbols_of(im, major, minor, &sym);
	memsource__image(&m, &im->img);
	cr_assert_eq(cpython__open(&m, &sym, false, t, &c), 0);
	return c;
}

/* Where a code object's bytecode starts, from the object (3.11+: inline). */
static uint32_t im_bytecode(unsigned major, unsigned minor)
{
	return cpython_layout__table(major, minor)->code_bytecode;
}

static const char *name(struct strtab *t, const struct cpython_frame *f)
{
	return strtab__str(t, f->name);
}

static const char *placed_name(struct strtab *t, const struct interp_frame *f)
{
	return strtab__str(t, f->name);
}

/* st placed on the sample's nev eval calls, as the reader places it. */
static void place(const struct cpython_stack *st, const struct interp_native *ev, size_t nev, bool rooted,
		  struct interp_placed *out)
{
	struct interp_stack *proof = malloc(sizeof(*proof));

	cr_assert_not_null(proof);
	cpython__proof(st, proof);
	interp_place(proof, ev, nev, rooted, out);
	free(proof);
}

static void check_stack(unsigned major, unsigned minor)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	struct cpython *c;

	build(im, major, minor);
	c = open_image(im, t, major, minor);
	cr_assert_eq(cpython__read_stack(c, TID, 1, st), 0);
	cr_assert_eq(st->n, 3);
	cr_assert_str_eq(name(t, &st->f[0]), "inner (app.py)_[py]");
	cr_assert_str_eq(name(t, &st->f[1]), "outer (app.py)_[py]");
	cr_assert_str_eq(name(t, &st->f[2]), "main (app.py)_[py]");
	cr_assert(st->f[2].entry_end);
	if (major == 3 && minor == 11) {
		/* outer was called by main's eval call into a new one (is_entry) */
		cr_assert_not(st->f[0].entry_end);
		cr_assert(st->f[1].entry_end);
	} else {
		cr_assert(st->f[0].entry_end && st->f[1].entry_end);
	}
	cr_assert_eq(cpython__read_stack(c, TID + 1, 1, st), -ENOENT);
	cpython__delete(c);
	strtab__delete(t);
	free(st);
	free(im);
}

Test(cpython, reads_and_names_a_threads_stack_311) { check_stack(3, 11); }

/* A list of states that take new TIDs at every walk (decoys renumbered
 * as fast as they are read), before the thread's own: the walks for new
 * threads find thousands of new TIDs each time, and what the reader maps
 * stays bounded all the same. The decoys are made up as they are read. */
#define DECOYS 1500u
#define DECOY_BASE 0x40000000ull
#define DECOY_STRIDE 0x1000u

struct decoys {
	struct image *im;
	struct memsource img; /* the image, for everything else */
	uint64_t epoch;       /* walks that started at the first decoy */
};

static int decoy_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct decoys *d = ctx;
	const struct cpython_layout *l = d->im->l;
	uint64_t i = (addr - DECOY_BASE) / DECOY_STRIDE, next;
	uint8_t *b = buf;

	if (addr < DECOY_BASE || i >= DECOYS || (addr - DECOY_BASE) % DECOY_STRIDE || len > DECOY_STRIDE)
		return memsource__read(&d->img, addr, buf, len);
	d->epoch += i == 0;
	memset(b, 0, len);
	next = i + 1 < DECOYS ? DECOY_BASE + (i + 1) * DECOY_STRIDE : at(O_TSTATE);
	if (l->tstate_next + 8 <= len)
		memcpy(b + l->tstate_next, &next, 8);
	if (l->tstate_native_id >= 0 && (size_t)l->tstate_native_id + 4 <= len) {
		uint32_t tid = (uint32_t)(100000 + d->epoch * DECOYS + i);

		memcpy(b + l->tstate_native_id, &tid, 4);
	}
	return 0;
}

Test(cpython, threads_mapped_stay_bounded_however_the_list_changes)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	struct cpython_symbols sym;
	struct cpython_stats s;
	struct decoys d;
	struct memsource m;
	struct cpython *c = NULL;
	int k;

	build(im, 3, 11);
	put64(im, O_INTERP + im->l->interp_tstate_head, DECOY_BASE);
	d.im = im;
	d.epoch = 0;
	memsource__image(&d.img, &im->img);
	symbols_of(im, 3, 11, &sym);
	memset(&m, 0, sizeof(m));
	m.read = decoy_read;
	m.ctx = &d;
	cr_assert_eq(cpython__open(&m, &sym, false, t, &c), 0);
	for (k = 0; k < 40; k++)
		(void)cpython__read_stack(c, TID + 1, 1 + (uint64_t)k, st);
	cpython__stats(c, &s);
	cr_assert_gt(d.epoch, 10, "the list was walked %llu times", (unsigned long long)d.epoch);
	cr_assert_leq(s.threads, 4096, "%llu threads mapped", (unsigned long long)s.threads);
	cpython__delete(c);
	strtab__delete(t);
	free(st);
	free(im);
}

/* A thread no state matches has the whole list walked again, but less
 * often after each walk in vain: over ten seconds of samples every 10 ms,
 * six walks, not fifty. */
Test(cpython, walks_in_vain_back_off)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	struct cpython_stats s0, s1;
	uint64_t base = 0, now, walks = 0;
	struct cpython *c;

	build(im, 3, 11);
	c = open_image(im, t, 3, 11);
	for (now = 1; now < 10000000000ull; now += 10000000ull) {
		cpython__stats(c, &s0);
		cr_assert_eq(cpython__read_stack(c, TID + 1, now, st), -ENOENT);
		cpython__stats(c, &s1);
		/* the second call walks only what is new: that is the base */
		if (now == 10000001ull)
			base = s1.reads - s0.reads;
		walks += now > 1 && s1.reads - s0.reads > base;
	}
	cr_assert_gt(base, 0);
	cr_assert(walks >= 4 && walks <= 6, "%llu walks after the first", (unsigned long long)walks);
	/* the thread's own samples still read at once */
	cr_assert_eq(cpython__read_stack(c, TID, now, st), 0);
	cpython__delete(c);
	strtab__delete(t);
	free(st);
	free(im);
}
Test(cpython, reads_and_names_a_threads_stack_27) { check_stack(2, 7); }
Test(cpython, reads_and_names_a_threads_stack_310) { check_stack(3, 10); }

/* 3.11, 3.12: the innermost frame is the one the sample's copy of the eval
 * loop's _PyCFrame names, unless the data stack has since popped it; then
 * the frame running now (a popped frame still holds its code and would
 * pass for the sample's, at the line it returned from). */
static void check_sample_frame(unsigned major, unsigned minor)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	const uint64_t f1 = at(O_FRAMES + 0x80), f2 = at(O_FRAMES + 0x100);
	uint8_t copy[8];
	uint32_t ds;
	struct cpython *c;

	build(im, major, minor);
	ds = im->l->tstate_datastack;
	cr_assert_gt(ds, 0);
	/* now: outer runs (inner returned); at the sample: inner */
	put64(im, O_CFRAME + (uint32_t)im->l->cframe_current, f1);
	memcpy(copy, &f2, 8);
	put64(im, O_TSTATE + ds, at(O_FRAMES - 0x20));
	put64(im, O_TSTATE + ds + 16, at(O_FRAMES + 0x400));
	c = open_image(im, t, major, minor);
	cpython__set_sample_stack(c, at(O_CFRAME + (uint32_t)im->l->cframe_current), copy, 8);
	/* inner's frame still below the top: the sample's */
	put64(im, O_TSTATE + ds + 8, f2 + 0x80);
	cr_assert_eq(cpython__read_stack(c, TID, 1, st), 0);
	cr_assert_eq(st->n, 3);
	cr_assert_str_eq(name(t, &st->f[0]), "inner (app.py)_[py]");
	/* the top at inner's frame: popped, outer's stack is read */
	put64(im, O_TSTATE + ds + 8, f2);
	cr_assert_eq(cpython__read_stack(c, TID, 2, st), 0);
	cr_assert_eq(st->n, 2);
	cr_assert_str_eq(name(t, &st->f[0]), "outer (app.py)_[py]");
	cr_assert_str_eq(name(t, &st->f[1]), "main (app.py)_[py]");
	/* a frame outside the current chunk (an older one) is taken */
	put64(im, O_TSTATE + ds, at(O_FRAMES + 0x180));
	put64(im, O_TSTATE + ds + 8, at(O_FRAMES + 0x200));
	cr_assert_eq(cpython__read_stack(c, TID, 3, st), 0);
	cr_assert_eq(st->n, 3);
	cpython__set_sample_stack(c, 0, NULL, 0);
	cpython__delete(c);
	strtab__delete(t);
	free(st);
	free(im);
}

Test(cpython, a_frame_popped_since_the_sample_is_not_read_311) { check_sample_frame(3, 11); }
Test(cpython, a_frame_popped_since_the_sample_is_not_read_312) { check_sample_frame(3, 12); }

/* A source whose thread returns while a call reads it: after the first
 * range of a readv, the data stack's top drops to `top`. */
struct returning {
	struct image *im;
	uint32_t top_at;
	uint64_t top;
};

static int returning_readv(void *ctx, const uint64_t *addrs, const size_t *lens, void *const *bufs,
			   bool *ok, size_t n)
{
	struct returning *r = ctx;
	struct memsource m;
	size_t i;
	int got = 0;

	memsource__image(&m, &r->im->img);
	for (i = 0; i < n; i++) {
		ok[i] = m.read(m.ctx, addrs[i], bufs[i], lens[i]) == 0;
		got += ok[i];
		if (i == 0 && n > 1)
			put64(r->im, r->top_at, r->top);
	}
	return got;
}

static int returning_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct returning *r = ctx;
	struct memsource m;

	memsource__image(&m, &r->im->img);
	return m.read(m.ctx, addr, buf, len);
}

/* im opened through a source that reads many ranges in one call (as
 * process_vm_readv does) and in which nothing returns. */
static struct cpython *open_batched(struct image *im, struct returning *r, struct memsource *m,
				    struct strtab *t, unsigned major, unsigned minor)
{
	struct cpython_symbols sym;
	struct cpython *c = NULL;

	symbols_of(im, major, minor, &sym);
	r->im = im;
	r->top_at = O_STRS + 0x7f8; /* unused bytes */
	r->top = 0;
	m->read = returning_read;
	m->readv = returning_readv;
	m->ctx = r;
	m->reads = 0;
	m->ledger = NULL;
	cr_assert_eq(cpython__open(m, &sym, false, t, &c), 0);
	return c;
}

/* Frames read after the thread left them (the program ending between the
 * read of its thread state and that of its frames) are not a stack: the
 * read fails, counted, and nothing read before stands in for it. */
static void check_returned_mid_read(unsigned major, unsigned minor)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	struct interp_placed *pl = malloc(sizeof(*pl));
	const uint64_t f2 = at(O_FRAMES + 0x100);
	struct cpython_symbols sym;
	struct cpython_stats stats;
	struct returning r;
	struct memsource m;
	struct interp_native ev = { .words = NULL };
	struct cpython *c = NULL;
	uint64_t reg = at(O_CODES + 0x400) + im_bytecode(major, minor) + 2; /* into inner's code */
	uint64_t regs[2];
	uint32_t ds;

	build(im, major, minor);
	ds = im->l->tstate_datastack;
	put64(im, O_TSTATE + ds, at(O_FRAMES - 0x20));
	put64(im, O_TSTATE + ds + 8, f2 + 0x80);
	put64(im, O_TSTATE + ds + 16, at(O_FRAMES + 0x400));
	memset(&sym, 0, sizeof(sym));
	sym.runtime = at(O_RUNTIME);
	sym.code_type = CODE_TYPE;
	sym.major = major;
	sym.minor = minor;
	r.im = im;
	r.top_at = O_TSTATE + ds + 8;
	r.top = f2 + 0x80; /* nothing returns */
	m.read = returning_read;
	m.readv = returning_readv;
	m.ctx = &r;
	m.reads = 0;
	m.ledger = NULL;
	cr_assert_eq(cpython__open(&m, &sym, false, t, &c), 0);
	cr_assert_eq(cpython__read_stack(c, TID, 1, st), 0);
	cr_assert_eq(st->n, 3);
	memset(&ev, 0, sizeof(ev));
	regs[0] = f2;
	regs[1] = reg;
	ev.regs = regs;
	ev.nregs = 2;
	place(st, &ev, 1, false, pl);
	cr_assert_eq(pl->confirmed, 1);
	/* inner, outer and main return while their page is read */
	r.top = at(O_FRAMES);
	cr_assert_eq(cpython__read_stack(c, TID, 2, st), -EAGAIN);
	cr_assert_eq(st->n, 0);
	cpython__stats(c, &stats);
	cr_assert_eq(stats.failures, 1);
	cpython__delete(c);
	strtab__delete(t);
	free(pl);
	free(st);
	free(im);
}

Test(cpython, frames_left_while_read_are_no_stack_311) { check_returned_mid_read(3, 11); }
Test(cpython, frames_left_while_read_are_no_stack_312) { check_returned_mid_read(3, 12); }

/* 3.11's image read once, main -> outer -> inner, for the placement
 * tests: what the reader read, and where each test places it. */
struct placing {
	struct image *im;
	struct strtab *t;
	struct cpython_stack *st;
	struct interp_placed *pl;
	struct cpython *c;
};

static void placing_open(struct placing *p)
{
	p->im = malloc(sizeof(*p->im));
	p->t = strtab__new();
	p->st = malloc(sizeof(*p->st));
	p->pl = malloc(sizeof(*p->pl));
	cr_assert(p->im && p->t && p->st && p->pl);
	build(p->im, 3, 11);
	p->c = open_image(p->im, p->t, 3, 11);
	cr_assert_eq(cpython__read_stack(p->c, TID, 1, p->st), 0);
	cr_assert_eq(p->st->n, 3);
}

static void placing_close(struct placing *p)
{
	cpython__delete(p->c);
	strtab__delete(p->t);
	free(p->pl);
	free(p->st);
	free(p->im);
}

/* What the sample proves (runtimes/cpython_proof.c), on 3.11's layout:
 * main runs in the outermost eval call, outer -> inner in the innermost.
 * An eval call whose words hold a read frame's address and point into that
 * frame's code ran it; its callers are the read's; what no word proves is
 * unproven, not what the read found there. */
Test(cpython, a_sample_proves_the_frames_it_ran)
{
	struct placing p;
	const uint32_t bc = im_bytecode(3, 11);
	const uint64_t f0 = at(O_FRAMES), f1 = at(O_FRAMES + 0x80), f2 = at(O_FRAMES + 0x100);
	const uint64_t main_bc = at(O_CODES + bc + 2), outer_bc = at(O_CODES + 0x200 + bc + 4);
	const uint64_t inner_bc = at(O_CODES + 0x400 + bc + 6), other_bc = at(O_CODES + 0x600 + bc + 4);
	struct interp_native ev[2] = { { .words = NULL }, { .words = NULL } };
	uint64_t r0[2], r1[2];

	placing_open(&p);
	memset(ev, 0, sizeof(ev));
	ev[0].regs = r0;
	ev[0].nregs = 2;

	/* inner's frame and code in the innermost call: proven, and main,
	 * which nothing of its own proves, with it: the caller of a live frame */
	r0[0] = inner_bc;
	r0[1] = f2;
	place(p.st, ev, 2, true, p.pl);
	cr_assert_eq(p.pl->confirmed, 1);
	cr_assert_eq(p.pl->chained, 1);
	cr_assert_eq(p.pl->unproven, 0);
	cr_assert_eq(p.pl->count[0], 2);
	cr_assert_str_eq(placed_name(p.t, &p.pl->frames[p.pl->first[0]]), "inner (app.py)_[py]");
	cr_assert_str_eq(placed_name(p.t, &p.pl->frames[p.pl->first[0] + 1]), "outer (app.py)_[py]");
	cr_assert_eq(p.pl->count[1], 1);
	cr_assert_str_eq(placed_name(p.t, &p.pl->frames[p.pl->first[1]]), "main (app.py)_[py]");

	/* inner's frame, but pointing into another code: the frame at that
	 * address is not the one the sample ran (a new call took its place);
	 * the outer eval call's own words prove main */
	r0[1] = other_bc;
	r0[0] = f2;
	ev[1].regs = r1;
	ev[1].nregs = 2;
	r1[0] = f0;
	r1[1] = main_bc;
	place(p.st, ev, 2, true, p.pl);
	cr_assert_eq(p.pl->state[0], INTERP_UNPROVEN);
	cr_assert_eq(p.pl->count[0], 0);
	cr_assert_eq(p.pl->state[1], INTERP_PROVEN);
	cr_assert_eq(p.pl->count[1], 1);
	cr_assert_eq(p.pl->unproven, 1);

	/* outer's frame: the sample ran outer, inner was called since */
	r0[0] = f1;
	r0[1] = outer_bc;
	place(p.st, ev, 2, true, p.pl);
	cr_assert_eq(p.pl->count[0], 1);
	cr_assert_str_eq(placed_name(p.t, &p.pl->frames[p.pl->first[0]]), "outer (app.py)_[py]");

	/* nothing at all: no eval call is proven */
	memset(ev, 0, sizeof(ev));
	place(p.st, ev, 2, true, p.pl);
	cr_assert_eq(p.pl->unproven, 2);
	cr_assert_eq(p.pl->n, 0);
	placing_close(&p);
}

/* Registers before stack slots: a slot the call no longer uses may hold an
 * older frame's address and a pointer into its code. */
Test(cpython, registers_prove_before_slots)
{
	struct placing p;
	const uint32_t bc = im_bytecode(3, 11);
	const uint64_t f1 = at(O_FRAMES + 0x80), f2 = at(O_FRAMES + 0x100);
	const uint64_t outer_bc = at(O_CODES + 0x200 + bc + 4), inner_bc = at(O_CODES + 0x400 + bc + 6);
	struct interp_native ev = { .words = NULL };
	uint64_t regs[2];
	uint8_t words[32];

	placing_open(&p);
	memset(&ev, 0, sizeof(ev));
	memset(words, 0, sizeof(words));
	memcpy(words + 8, &f1, 8);
	memcpy(words + 16, &outer_bc, 8);
	regs[0] = f2;
	regs[1] = inner_bc;
	ev.regs = regs;
	ev.nregs = 2;
	ev.words = words;
	ev.nbytes = sizeof(words);
	place(p.st, &ev, 1, true, p.pl);
	cr_assert_eq(p.pl->confirmed, 1);
	cr_assert_str_eq(placed_name(p.t, &p.pl->frames[p.pl->first[0]]), "inner (app.py)_[py]");
	/* no register says: the slots do */
	ev.nregs = 0;
	place(p.st, &ev, 1, true, p.pl);
	cr_assert_eq(p.pl->confirmed, 1);
	cr_assert_str_eq(placed_name(p.t, &p.pl->frames[p.pl->first[0]]), "outer (app.py)_[py]");
	placing_close(&p);
}

/* An eval call's words hold other frames' addresses than its own: the
 * frame it passed to the eval call it made (a Python function called from
 * C), a caller's. The first whose code they do not point into proves
 * nothing, and the next is looked at (a thread-per-request service's
 * handlers, called from C through __init__, were unproven in 12 % of its
 * samples while only the first address was looked at). */
Test(cpython, a_frame_not_run_does_not_hide_the_one_run)
{
	struct placing p;
	const uint32_t bc = im_bytecode(3, 11);
	const uint64_t f1 = at(O_FRAMES + 0x80), f2 = at(O_FRAMES + 0x100);
	const uint64_t inner_bc = at(O_CODES + 0x400 + bc + 6);
	struct interp_native ev = { .words = NULL };
	uint64_t regs[3];

	placing_open(&p);
	memset(&ev, 0, sizeof(ev));
	regs[0] = f1; /* outer's frame, and nothing points into outer's code */
	regs[1] = f2;
	regs[2] = inner_bc;
	ev.regs = regs;
	ev.nregs = 3;
	place(p.st, &ev, 1, true, p.pl);
	cr_assert_eq(p.pl->confirmed, 1);
	cr_assert_eq(p.pl->unproven, 0);
	cr_assert_str_eq(placed_name(p.t, &p.pl->frames[p.pl->first[0]]), "inner (app.py)_[py]");
	placing_close(&p);
}

/* Python frames older than the native stack reaches: the root of the
 * sample when the native stack was cut short, the outermost eval call's
 * callers when it reached its root. Either way they are there: a Python
 * stack does not depend on how much of the native stack was copied. */
Test(cpython, frames_older_than_the_native_stack_are_kept)
{
	struct placing p;
	const uint64_t f2 = at(O_FRAMES + 0x100);
	const uint64_t inner_bc = at(O_CODES + 0x400 + im_bytecode(3, 11) + 6);
	struct interp_native ev = { .words = NULL };
	uint64_t regs[2] = { f2, inner_bc };

	placing_open(&p);
	memset(&ev, 0, sizeof(ev));
	ev.regs = regs;
	ev.nregs = 2;
	place(p.st, &ev, 1, false, p.pl);
	cr_assert_eq(p.pl->count[0], 2);
	cr_assert_eq(p.pl->count[1], 1, "main kept apart, at the root");
	cr_assert_str_eq(placed_name(p.t, &p.pl->frames[p.pl->first[1]]), "main (app.py)_[py]");
	place(p.st, &ev, 1, true, p.pl);
	cr_assert_eq(p.pl->count[0], 3, "main with the outermost eval call");
	cr_assert_eq(p.pl->count[1], 0);
	placing_close(&p);
}

/* CPython's entry shims (3.12's trampoline, "<interpreter trampoline>" in
 * "<shim>"; 3.13's "__init__" cleanup in "__init__") run no code of the
 * program: they are no frames. */
static void check_shims(unsigned major, unsigned minor, const char *shim_name, const char *shim_file)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	const uint32_t o = O_CODES + 0x200u * 3;
	struct cpython *c;

	build(im, major, minor);
	/* outer's frame runs code 3, renamed to the shim */
	put64(im, o + im->l->code_name, str(im, 6, shim_name));
	if (im->l->code_qualname >= 0)
		put64(im, o + (uint32_t)im->l->code_qualname, str(im, 6, shim_name));
	put64(im, o + im->l->code_filename, str(im, 7, shim_file));
	put64(im, O_FRAMES + 0x80 + im->l->frame_code, at(o));
	c = open_image(im, t, major, minor);
	cr_assert_eq(cpython__read_stack(c, TID, 1, st), 0);
	cr_assert_eq(st->n, 2, "%zu frames", st->n);
	cr_assert_str_eq(name(t, &st->f[0]), "inner (app.py)_[py]");
	cr_assert_str_eq(name(t, &st->f[1]), "main (app.py)_[py]");
	cpython__delete(c);
	strtab__delete(t);
	free(st);
	free(im);
}

Test(cpython, entry_shims_are_no_frames_312) { check_shims(3, 12, "<interpreter trampoline>", "<shim>"); }
Test(cpython, entry_shims_are_no_frames_311) { check_shims(3, 11, "__init__", "__init__"); }

/* A thread read again while it runs the same frames costs one call of
 * the source: its thread state, the pages its frames were on and its codes'
 * heads are read together (runtimes/cpython_ahead.c). When it has moved
 * on, what was not read ahead is read after, and the stack is the new one. */
static void check_read_ahead(unsigned major, unsigned minor)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	struct cpython_stats s0, s1;
	struct returning r;
	struct memsource m;
	struct cpython *c = NULL;
	uint8_t copy[64];
	uint32_t frame_code;
	int i;

	build(im, major, minor);
	frame_code = O_FRAMES + 0x80u * 2 + im->l->frame_code;
	c = open_batched(im, &r, &m, t, major, minor);
	if (im->l->cframe_current >= 0) {
		/* the sample's copy of its stack holds the eval loop's _PyCFrame */
		memcpy(copy, im->b + O_CFRAME, sizeof(copy));
		cpython__set_sample_stack(c, at(O_CFRAME), copy, sizeof(copy));
	}
	cr_assert_eq(cpython__read_stack(c, TID, 1, st), 0);
	for (i = 0; i < 3; i++) {
		cpython__stats(c, &s0);
		cr_assert_eq(cpython__read_stack(c, TID, 2 + (uint64_t)i, st), 0);
		cpython__stats(c, &s1);
		cr_assert_eq(s1.reads - s0.reads, 1, "%s.%u: %llu reads for a stack read again", major == 2 ? "2" : "3",
			     minor, (unsigned long long)(s1.reads - s0.reads));
		cr_assert_eq(st->n, 3);
		cr_assert_str_eq(name(t, &st->f[0]), "inner (app.py)_[py]");
	}
	/* inner calls "other" (named on first sight: its strings are read),
	 * then returns: inner's head, not among those read ahead, is read
	 * after them */
	put64(im, frame_code, at(O_CODES + 0x200 * 3));
	cr_assert_eq(cpython__read_stack(c, TID, 10, st), 0);
	cr_assert_eq(st->n, 3);
	cr_assert_str_eq(name(t, &st->f[0]), "other (app.py)_[py]");
	cr_assert_str_eq(name(t, &st->f[2]), "main (app.py)_[py]");
	put64(im, frame_code, at(O_CODES + 0x200 * 2));
	cpython__stats(c, &s0);
	cr_assert_eq(cpython__read_stack(c, TID, 11, st), 0);
	cpython__stats(c, &s1);
	cr_assert_str_eq(name(t, &st->f[0]), "inner (app.py)_[py]");
	cr_assert_eq(s1.reads - s0.reads, 2, "%llu reads", (unsigned long long)(s1.reads - s0.reads));
	cr_assert_eq(cpython__read_stack(c, TID, 12, st), 0);
	cpython__stats(c, &s0);
	cr_assert_str_eq(name(t, &st->f[0]), "inner (app.py)_[py]");
	cr_assert_eq(s0.reads - s1.reads, 1);
	cpython__delete(c);
	strtab__delete(t);
	free(st);
	free(im);
}

Test(cpython, a_thread_read_again_costs_one_call_27) { check_read_ahead(2, 7); }
Test(cpython, a_thread_read_again_costs_one_call_310) { check_read_ahead(3, 10); }
Test(cpython, a_thread_read_again_costs_one_call_311) { check_read_ahead(3, 11); }
Test(cpython, a_thread_read_again_costs_one_call_312) { check_read_ahead(3, 12); }

/* 2.7-3.10 frame objects of a deep stack lie one to a page: the frames
 * themselves are read ahead, not their pages, so a thread read again
 * still costs one call however deep it is (pages alone cost one more
 * call for each frame past the few pages kept). */
#define DEEP 40
#define DEEP_BASE (BASE + 0x100000u)
#define DEEP_PAGE 4096u
static void check_deep_read_ahead(unsigned major, unsigned minor)
{
	struct image *im = malloc(sizeof(*im));
	uint8_t *deep = calloc(DEEP, DEEP_PAGE);
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	struct memimage_region regions[2];
	struct cpython_stats s0, s1;
	struct returning r;
	struct memsource m;
	struct cpython *c = NULL;
	uint64_t back = at(O_FRAMES + 0x80u); /* outer's frame */
	int i, j;

	build(im, major, minor);
	cr_assert_eq(im->l->frames, CPYTHON_FRAME_OBJECTS);
	for (j = DEEP - 1; j >= 0; j--) {
		uint8_t *f = deep + (size_t)j * DEEP_PAGE + 0x100;
		uint64_t code_inner = at(O_CODES + 0x200u * 2);

		memcpy(f + im->l->frame_code, &code_inner, 8);
		memcpy(f + im->l->frame_back, &back, 8);
		back = DEEP_BASE + (uint64_t)j * DEEP_PAGE + 0x100;
	}
	put64(im, O_TSTATE + im->l->tstate_frame, back);
	regions[0] = im->r;
	regions[1].addr = DEEP_BASE;
	regions[1].bytes = deep;
	regions[1].len = (size_t)DEEP * DEEP_PAGE;
	im->img.regions = regions;
	im->img.n = 2;
	c = open_batched(im, &r, &m, t, major, minor);
	cr_assert_eq(cpython__read_stack(c, TID, 1, st), 0);
	cr_assert_eq(st->n, DEEP + 2);
	for (i = 0; i < 3; i++) {
		cpython__stats(c, &s0);
		cr_assert_eq(cpython__read_stack(c, TID, 2 + (uint64_t)i, st), 0);
		cpython__stats(c, &s1);
		cr_assert_eq(s1.reads - s0.reads, 1, "%u.%u: %llu reads for a stack of %d frames read again",
			     major, minor, (unsigned long long)(s1.reads - s0.reads), DEEP + 2);
		cr_assert_eq(st->n, DEEP + 2);
		cr_assert_str_eq(name(t, &st->f[0]), "inner (app.py)_[py]");
		cr_assert_str_eq(name(t, &st->f[DEEP]), "outer (app.py)_[py]");
		cr_assert_str_eq(name(t, &st->f[DEEP + 1]), "main (app.py)_[py]");
	}
	/* the thread returns from five frames: the stack read is the new one,
	 * still in one call */
	put64(im, O_TSTATE + im->l->tstate_frame, DEEP_BASE + 5u * DEEP_PAGE + 0x100);
	cpython__stats(c, &s0);
	cr_assert_eq(cpython__read_stack(c, TID, 10, st), 0);
	cpython__stats(c, &s1);
	cr_assert_eq(st->n, DEEP + 2 - 5);
	cr_assert_eq(s1.reads - s0.reads, 1);
	cpython__delete(c);
	strtab__delete(t);
	free(st);
	free(deep);
	free(im);
}

Test(cpython, a_deep_stack_read_again_costs_one_call_27) { check_deep_read_ahead(2, 7); }
Test(cpython, a_deep_stack_read_again_costs_one_call_310) { check_deep_read_ahead(3, 10); }

/* A code object freed and another allocated at its address: the new name. */
Test(cpython, a_reused_code_address_gets_its_new_name)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	struct cpython *c;

	build(im, 3, 12);
	c = open_image(im, t, 3, 12);
	cr_assert_eq(cpython__read_stack(c, TID, 1, st), 0);
	cr_assert_str_eq(name(t, &st->f[0]), "inner (app.py)_[py]");
	/* a new object: its own name string, its own first line */
	put64(im, O_CODES + 0x200 * 2 + im->l->code_name, str(im, 9, "reborn"));
	put64(im, O_CODES + 0x200 * 2 + (uint32_t)im->l->code_qualname, str(im, 9, "reborn"));
	put32(im, O_CODES + 0x200 * 2 + im->l->code_firstlineno, 99);
	cr_assert_eq(cpython__read_stack(c, TID, 2, st), 0);
	cr_assert_str_eq(name(t, &st->f[0]), "reborn (app.py)_[py]");
	cpython__delete(c);
	strtab__delete(t);
	free(st);
	free(im);
}

/* 3.13's own table: read, and refused when damaged. */
Test(cpython, debug_offsets_of_313)
{
	static const uint64_t fields[][2] = {
		{ 8, 0x030d00f0 }, { 24, 283320 }, { 40, 632 }, { 48, 200000 }, { 64, 7264 },
		{ 72, 7344 }, { 152, 304 }, { 168, 8 }, { 184, 72 }, { 192, 152 }, { 200, 160 }, { 208, 232 },
		{ 224, 80 }, { 232, 8 }, { 240, 0 }, { 248, 56 }, { 264, 70 }, { 272, 208 },
		{ 280, 112 }, { 288, 120 }, { 296, 128 }, { 312, 68 }, { 344, 200 },
		{ 512, 40 }, { 528, 32 }, { 536, 64 }, { 544, 32 }, { 552, 16 }, { 560, 40 },
	};
	uint8_t b[CPYTHON_DEBUG_OFFSETS_SIZE];
	struct cpython_layout l;
	size_t i;

	memset(b, 0, sizeof(b));
	memcpy(b, "xdebugpy", 8);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		memcpy(b + fields[i][0], &fields[i][1], 8);
	cr_assert_eq(cpython_layout__from_debug_offsets(b, sizeof(b), &l), 0);
	cr_assert_eq(l.runtime_interp_head, 632);
	cr_assert_eq(l.interp_tstate_head, 7344);
	cr_assert_eq(l.tstate_frame, 72);
	cr_assert_eq(l.tstate_native_id, 160);
	cr_assert_eq(l.tstate_datastack, 232);
	cr_assert_eq(l.frame_owner, 70);
	cr_assert_eq(l.code_qualname, 128);
	cr_assert_eq(l.code_bytecode, 200);
	cr_assert_eq(l.str_data, 40);
	cr_assert_eq(l.frames, CPYTHON_FRAME_OWNER);
	/* an offset past its structure's size */
	memcpy(b + 184, &(uint64_t){ 400 }, 8);
	cr_assert_eq(cpython_layout__from_debug_offsets(b, sizeof(b), &l), -ERANGE);
	memcpy(b + 184, &(uint64_t){ 72 }, 8);
	/* 3.14's table has another layout */
	memcpy(b + 8, &(uint64_t){ 0x030e00f0 }, 8);
	cr_assert_eq(cpython_layout__from_debug_offsets(b, sizeof(b), &l), -EPROTO);
	memcpy(b + 8, &(uint64_t){ 0x030d00f0 }, 8);
	b[0] = 'y';
	cr_assert_eq(cpython_layout__from_debug_offsets(b, sizeof(b), &l), -EPROTO);
}

Test(cpython, versions_from_file_names)
{
	unsigned ma, mi;

	cr_assert_eq(cpython_layout__version_from_name("/usr/lib/libpython3.11.so.1.0", &ma, &mi), 0);
	cr_assert(ma == 3 && mi == 11);
	cr_assert_eq(cpython_layout__version_from_name("/opt/lib/libpython3.6m.so.1.0", &ma, &mi), 0);
	cr_assert(ma == 3 && mi == 6);
	cr_assert_eq(cpython_layout__version_from_name("/usr/bin/python2.7", &ma, &mi), 0);
	cr_assert(ma == 2 && mi == 7);
	cr_assert_eq(cpython_layout__version_from_name("/usr/bin/python3.13t", &ma, &mi), 0);
	cr_assert_eq(cpython_layout__version_from_name("/usr/bin/python3", &ma, &mi), -ENOENT);
	cr_assert_eq(cpython_layout__version_from_name("/usr/bin/python3.x", &ma, &mi), -ENOENT);
	cr_assert_eq(cpython_layout__version_from_name("/usr/bin/pythonista", &ma, &mi), -ENOENT);
	cr_assert_null(cpython_layout__table(3, 5));
	cr_assert_null(cpython_layout__table(3, 13)); /* from its own table */
}

/* Damaged images (bytes changed between calls, everywhere) and a process
 * exiting after any number of reads: errors or stacks, never a crash or a
 * frame without a name. Run under ASan/valgrind by the suite. */
Test(cpython, damaged_images_and_exits_mid_read_never_crash)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	struct interp_placed *pl = malloc(sizeof(*pl));
	static const unsigned versions[][2] = { { 2, 7 }, { 3, 8 }, { 3, 11 }, { 3, 12 } };
	int round;

	srand(20);
	for (round = 0; round < test_rounds(3000); round++) {
		const unsigned *v = versions[round % 4];
		struct cpython_symbols sym;
		struct memsource m;
		struct dying d;
		struct cpython *c;
		uint8_t words[128];
		struct interp_native ev = { .words = NULL };
		int k, flips = 1 + rand() % 24;
		size_t j;

		build(im, v[0], v[1]);
		memset(&sym, 0, sizeof(sym));
		sym.runtime = im->l->runtime_interp_head ? at(O_RUNTIME) : 0;
		sym.interp_head = sym.runtime ? 0 : at(O_RUNTIME);
		sym.code_type = CODE_TYPE;
		sym.major = v[0];
		sym.minor = v[1];
		sym.pthread_tid = 0x2d0;
		d.img = &im->img;
		d.left = round % 7 == 0 ? rand() % 12 : 1 << 30;
		m.read = dying_read;
		m.readv = NULL;
		m.ctx = &d;
		m.reads = 0;
		m.ledger = NULL;
		cr_assert_eq(cpython__open(&m, &sym, round % 2 == 0, t, &c), 0);
		for (k = 0; k < 3; k++) {
			int f;

			for (f = 0; f < flips; f++) {
				uint32_t off = (uint32_t)rand() % (O_STRS + 0x800);

				im->b[off] = (uint8_t)(rand() % 3 == 0 ? (unsigned)im->b[off] ^ (1u << (rand() % 8)) : (unsigned)rand());
			}
			if (cpython__read_stack(c, TID, (uint64_t)k * 300000000ull + 1, st) != 0)
				continue;
			for (j = 0; j < st->n; j++)
				cr_assert_neq(st->f[j].name, 0);
			for (j = 0; j < sizeof(words); j += 8) {
				uint64_t w = BASE + (uint64_t)(rand() % SIZE);

				memcpy(words + j, &w, 8);
			}
			memset(&ev, 0, sizeof(ev));
			ev.words = words;
			ev.nbytes = sizeof(words);
			place(st, &ev, 1, k & 1, pl);
			cr_assert_leq(pl->n, CPYTHON_MAX_FRAMES);
		}
		cpython__delete(c);
	}
	strtab__delete(t);
	free(pl);
	free(st);
	free(im);
}

/* A stack built to be walked costs a bounded number of reads a second
 * (its ledger's, runtimes/accountant.h); beyond, the stack is not read
 * (the native frames stand), and the next second reads. */
Test(cpython, reads_per_second_are_bounded)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct accountant *acct = accountant__new(NULL, t);
	struct ledger *l = NULL;
	struct cpython_stack *st = malloc(sizeof(*st));
	struct cpython_symbols sym;
	struct cpython_stats s0, s1;
	struct memsource m;
	struct cpython *c = NULL;
	int i, busy = 0, rc;

	cr_assert_eq(accountant__ledger(acct, 1000, &l), 0);
	build(im, 3, 10);
	symbols_of(im, 3, 10, &sym);
	memsource__image(&m, &im->img);
	m.ledger = l;
	cr_assert_eq(cpython__open(&m, &sym, false, t, &c), 0);

	for (i = 0; i < 40000; i++) {
		rc = cpython__read_stack(c, TID, 5000000000ull + (uint64_t)i, st);
		cr_assert(rc == 0 || rc == -EBUSY);
		busy += rc == -EBUSY;
	}
	cpython__stats(c, &s0);
	cr_assert_leq(s0.reads, ACCOUNTANT_PROCESS_READS_PER_SEC + 64, "%llu reads in one second",
		      (unsigned long long)s0.reads);
	cr_assert_gt(busy, 20000);
	cr_assert_eq(cpython__read_stack(c, TID, 6000000000ull, st), 0);
	cpython__stats(c, &s1);
	cr_assert_gt(s1.reads, s0.reads);
	cpython__delete(c);
	ledger__delete(l);
	accountant__delete(acct);
	strtab__delete(t);
	free(st);
	free(im);
}

/* The three line-table formats against the lines CPython itself gives for
 * every instruction of one function (cpython_linetables.h). */
Test(cpython, line_tables_agree_with_cpython)
{
	size_t i, k;

	for (i = 0; i < sizeof(linetable_cases) / sizeof(linetable_cases[0]); i++) {
		const struct linetable_case *lc = &linetable_cases[i];

		for (k = 0; k < lc->nexpect; k++) {
			uint32_t off = (uint32_t)lc->expect[k][0];
			int got;

			switch (lc->kind) {
			case 0:
			case 1:
				got = cpython_lines__lnotab(lc->table, lc->n, lc->first, off, lc->kind == 1);
				break;
			case 2:
				got = cpython_lines__linetable310(lc->table, lc->n, lc->first, off);
				break;
			default:
				got = cpython_lines__locations(lc->table, lc->n, lc->first, off / 2);
				break;
			}
			cr_assert_eq(got, lc->expect[k][1], "%s: offset %u: line %d, CPython says %d",
				     lc->version, off, got, lc->expect[k][1]);
		}
		/* cut tables and garbage: an answer or -1, never a read past */
		for (k = 0; k < lc->n; k++)
			(void)cpython_lines__locations(lc->table, k, lc->first, 40);
	}
}

/* With lines asked for, a 3.11 frame is named with the line its
 * instruction pointer is at, from the code's own location table. */
Test(cpython, frames_carry_their_line)
{
	struct image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	const struct linetable_case *lc = &linetable_cases[3];
	struct cpython_symbols sym;
	struct memsource m;
	struct cpython *c = NULL;
	uint32_t code2 = O_CODES + 0x200u * 2, off = 0;
	uint64_t bc;
	char want[64];
	size_t k;

	cr_assert_str_eq(lc->version, "3.11.7");
	build(im, 3, 11);
	bc = at(code2 + im->l->code_bytecode);
	/* the location table as a bytes object at 0x2800 */
	put64(im, code2 + im->l->code_linetable, at(0x2800));
	put64(im, 0x2800 + 16, lc->n);
	memcpy(im->b + 0x2800 + 32, lc->table, lc->n);
	put32(im, code2 + im->l->code_firstlineno, (uint32_t)lc->first);
	for (k = 0; k < lc->nexpect; k++)
		if (lc->expect[k][0] >= 16 && lc->expect[k][0] < 64 && lc->expect[k][1] > 0) {
			off = (uint32_t)lc->expect[k][0];
			break;
		}
	cr_assert_lt(k, lc->nexpect);
	put64(im, O_FRAMES + 0x80 * 2 + im->l->frame_instr, bc + off);
	memset(&sym, 0, sizeof(sym));
	sym.runtime = at(O_RUNTIME);
	sym.code_type = CODE_TYPE;
	sym.major = 3;
	sym.minor = 11;
	memsource__image(&m, &im->img);
	cr_assert_eq(cpython__open(&m, &sym, true, t, &c), 0);
	cr_assert_eq(cpython__read_stack(c, TID, 1, st), 0);
	snprintf(want, sizeof(want), "inner (app.py:%d)_[py]", lc->expect[k][1]);
	cr_assert_str_eq(name(t, &st->f[0]), want);
	/* no table: the name without a line */
	cr_assert_str_eq(name(t, &st->f[1]), "outer (app.py)_[py]");
	cpython__delete(c);
	strtab__delete(t);
	free(st);
	free(im);
}

/* Hundreds of code objects: the cache grows (its entries move) and the
 * names stay right; a walk that meets a new code after an old one keeps
 * no pointer into the old array (ASan/valgrind see to that). */
Test(cpython, the_code_cache_grows)
{
	enum { NCODES = 300 };
	struct image *im = malloc(sizeof(*im));
	uint8_t *more = calloc(NCODES, 0x200);
	struct memimage_region regions[2];
	struct memimage img;
	struct strtab *t = strtab__new();
	struct cpython_stack *st = malloc(sizeof(*st));
	struct cpython_symbols sym;
	struct memsource m;
	struct cpython *c = NULL;
	const uint64_t base2 = 0x20000000ull;
	uint32_t fc;
	int i;

	build(im, 3, 11);
	fc = O_FRAMES + 0x80 * 2 + im->l->frame_code;
	/* copies of code 2 ("inner"), each its own object */
	for (i = 0; i < NCODES; i++)
		memcpy(more + 0x200 * i, im->b + O_CODES + 0x200 * 2, 0x200);
	regions[0] = im->r;
	regions[1].addr = base2;
	regions[1].bytes = more;
	regions[1].len = (size_t)NCODES * 0x200;
	img.regions = regions;
	img.n = 2;
	memset(&sym, 0, sizeof(sym));
	sym.runtime = at(O_RUNTIME);
	sym.code_type = CODE_TYPE;
	sym.major = 3;
	sym.minor = 11;
	memsource__image(&m, &img);
	cr_assert_eq(cpython__open(&m, &sym, false, t, &c), 0);
	for (i = 0; i < NCODES; i++) {
		put64(im, fc, base2 + 0x200u * (uint64_t)i);
		cr_assert_eq(cpython__read_stack(c, TID, (uint64_t)i + 1, st), 0);
		cr_assert_eq(st->f[0].code, base2 + 0x200u * (uint64_t)i);
		cr_assert_str_eq(name(t, &st->f[0]), "inner (app.py)_[py]");
		cr_assert_str_eq(name(t, &st->f[1]), "outer (app.py)_[py]");
	}
	cpython__delete(c);
	strtab__delete(t);
	free(st);
	free(more);
	free(im);
}
