/* runtimes/perl*, runtimes/perlcmd.c: the Perl reader on synthetic
 * interpreter images of every layout of the table (5.16, 5.18, 5.20,
 * 5.22, 5.24, 5.26, 5.32, 5.34, 5.36, 5.40): subs walked across stack infos and named (by their
 * GV, or by their own HEK), what a sample's words prove of the subs read
 * at it (the pad, its SVs, its ops; a recursive sub by its pad alone),
 * lines from the COPs, a sub's memory reused renamed, the stack's head
 * read ahead never used where it no longer holds, loops and damaged
 * images never crashing it, reads bounded by the ledger, the version's
 * rows, labels from command lines. */
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
#include "runtimes/perl.h"
#include "runtimes/perl_layout.h"
#include "runtimes/perlcmd.h"
#include "tests/unit/rounds.h"

#define BASE 0x20000000ull
#define SIZE 0x5000u
/* The image: objects at fixed offsets. */
#define O_PTR 0x000    /* PL_curinterp */
#define O_INTERP 0x4400 /* the interpreter (its head: 0x400) */
#define O_SI 0x200     /* stack infos of 0x40 */
#define O_CX 0x300     /* context arrays of 0x300 (up to 7 contexts) */
#define O_COP 0x900    /* COPs of 0x40 */
#define O_CV 0xb00     /* CV heads of 0x20 */
#define O_CVB 0xc00    /* CV bodies of 0x80 */
#define O_GV 0x1000    /* GV heads of 0x20 */
#define O_GVB 0x1100   /* GV bodies of 0x40 */
#define O_HEK 0x1300   /* HEKs of 0x40 */
#define O_HV 0x1700    /* stash heads of 0x20 */
#define O_HVB 0x1780   /* stash bodies of 0x80 */
#define O_HVA 0x1980   /* stash bucket arrays (8) and, before 5.36, aux: 0x80 */
#define O_FILE 0x1c00  /* file names of 0x40 */
#define O_PADL 0x1d00  /* padlists of 0x20 */
#define O_PADS 0x1e00  /* a padlist's pads by depth: 0x20 (depths 0..3) */
#define O_AV 0x2000    /* pad AV heads of 0x20, 2 a sub (depth 1, 2) */
#define O_AVB 0x2200   /* pad AV bodies of 0x20 */
#define O_PADA 0x2400  /* pad arrays of 0x40 (8 entries) */
#define O_SV 0x2800    /* SVs the pads hold: 0x10 each, 8 a pad */
#define O_SLAB 0x3000  /* op slabs of 0x200 */
#define O_PADLB 0x4000 /* 5.16: padlist AV bodies of 0x20 */
#define CXT_BLOCK 2

struct image {
	uint8_t b[SIZE];
	struct memimage_region r;
	struct memimage img;
	const struct perl_layout *l;
};

static void put64(struct image *im, uint32_t off, uint64_t v) { memcpy(im->b + off, &v, 8); }
static void put32(struct image *im, uint32_t off, uint32_t v) { memcpy(im->b + off, &v, 4); }
static void put16(struct image *im, uint32_t off, uint16_t v) { memcpy(im->b + off, &v, 2); }
static uint64_t at(uint32_t off) { return BASE + off; }

static uint64_t hek(struct image *im, int i, const char *s)
{
	uint32_t o = O_HEK + 0x40u * (uint32_t)i;

	put32(im, o, 0x9e37u * (uint32_t)(i + 1));
	put32(im, o + PERL_HEK_LEN, (uint32_t)strlen(s));
	memcpy(im->b + o + PERL_HEK_KEY, s, strlen(s) + 1);
	return at(o);
}

/* Stash i named name: its aux in the body (5.36+) or after 8 buckets. */
static uint64_t stash(struct image *im, int i, const char *name)
{
	const struct perl_layout *l = im->l;
	uint32_t h = O_HV + 0x20u * (uint32_t)i, b = O_HVB + 0x80u * (uint32_t)i,
		 a = O_HVA + 0x80u * (uint32_t)i, aux = l->hv_aux ? b + l->hv_aux : a + 8 * 8;

	put64(im, h, at(b));
	put32(im, h + PERL_SV_FLAGS, PERL_SVT_PVHV | PERL_SVF_OOK);
	put64(im, h + PERL_SV_U, at(a));
	put64(im, b + PERL_XHV_MAX, 7);
	put64(im, aux, hek(im, 8 + i, name));
	put32(im, aux + l->aux_name_count, 0);
	return at(h);
}

static bool has_slabs(const struct perl_layout *l)
{
	return l->slab_slots || l->slots_linked;
}

/* Sub i's one slab of 64 pointers, at O_SLAB + 0x200 i: 5.32+, its own
 * head with its size; 5.18-5.31, 14 slots of 0x20 from 0x20 linked up
 * to the sentinel in its last pointer, each naming the slab its owner. */
static void slab_image(struct image *im, int i)
{
	uint32_t slab = O_SLAB + 0x200u * (uint32_t)i, k;

	if (im->l->slab_slots) {
		put64(im, slab + 8, at(slab));
		put16(im, slab + 0x22, 0x200 / 8);
	} else if (im->l->slots_linked) {
		put64(im, slab, at(slab + 0x20)); /* opslab_first */
		for (k = 0; k < 14; k++) {
			uint32_t slot = slab + 0x20 + 0x20 * k;

			put64(im, slot, at(k < 13 ? slot + 0x20 : slab + 0x1f8));
			put64(im, slot + 8, at(slab));
		}
	}
}

/* The op in slot r of sub i's slab (where the version has slabs). */
static uint64_t root_op(struct image *im, int i, uint32_t r)
{
	uint32_t slab = O_SLAB + 0x200u * (uint32_t)i;

	if (im->l->slab_slots) {
		put16(im, slab + 0x28 + r * 8, 2);
		put16(im, slab + 0x28 + r * 8 + 2, (uint16_t)r);
		return at(slab + 0x28 + r * 8 + 8);
	}
	return at(slab + 0x20 + 0x20 * r + 0x10);
}

/* Sub i: pads at depths 1 and 2 (their entries SVs of O_SV), ops in slab
 * i, named by a GV (hek_named false) or its own HEK. */
static uint64_t sub(struct image *im, int i, const char *name, uint64_t pkg, bool hek_named)
{
	const struct perl_layout *l = im->l;
	uint32_t h = O_CV + 0x20u * (uint32_t)i, b = O_CVB + 0x80u * (uint32_t)i;
	uint32_t pl = O_PADL + 0x20u * (uint32_t)i, pads = O_PADS + 0x20u * (uint32_t)i;
	uint32_t d, e;

	put64(im, h, at(b));
	put32(im, h + PERL_SV_FLAGS, PERL_SVT_PVCV);
	put64(im, b + l->cv_file, at(O_FILE));
	put64(im, b + l->cv_padlist, at(pl));
	if (hek_named) {
		put32(im, b + l->cv_flags, PERL_CVF_NAMED);
		put64(im, b + l->cv_gv, hek(im, i, name));
		put64(im, b + l->cv_stash, pkg);
	} else {
		uint32_t g = O_GV + 0x20u * (uint32_t)i, gb = O_GVB + 0x40u * (uint32_t)i;

		put64(im, b + l->cv_stash, pkg);
		put64(im, b + l->cv_gv, at(g));
		put64(im, g, at(gb));
		put32(im, g + PERL_SV_FLAGS, PERL_SVT_PVGV);
		put64(im, gb + l->gv_namehek, hek(im, i, name));
		put64(im, gb + l->gv_stash, pkg);
	}
	if (l->padlist_av) { /* an AV of fill 2 */
		uint32_t plb = O_PADLB + 0x20u * (uint32_t)i;

		put64(im, pl, at(plb));
		put32(im, pl + PERL_SV_FLAGS, PERL_SVT_PVAV);
		put64(im, pl + PERL_SV_U, at(pads));
		put64(im, plb + PERL_XAV_FILL, 2);
	} else {
		put64(im, pl, 2); /* xpadl_max */
		put64(im, pl + PERL_PADLIST_ARRAY, at(pads));
	}
	for (d = 1; d <= 2; d++) {
		uint32_t k = 2 * (uint32_t)i + d - 1, av = O_AV + 0x20 * k, avb = O_AVB + 0x20 * k,
			 arr = O_PADA + 0x40 * k;

		put64(im, pads + 8 * d, at(av));
		put64(im, av, at(avb));
		put32(im, av + PERL_SV_FLAGS, PERL_SVT_PVAV);
		put64(im, av + PERL_SV_U, at(arr));
		put64(im, avb + PERL_XAV_FILL, 7);
		for (e = 1; e < 8; e++) /* entry 0 (@_) left empty */
			put64(im, arr + 8 * e, at(O_SV + 0x80 * k + 0x10 * e));
	}
	slab_image(im, i);
	put64(im, b + l->cv_root, root_op(im, i, 3));
	return at(h);
}

static uint64_t cop(struct image *im, int i, uint32_t line)
{
	uint32_t o = O_COP + 0x40u * (uint32_t)i;

	put32(im, o + im->l->cop_line, line);
	return at(o);
}

/* Context j of stack info s: a sub's (cv) or a block's (cv 0). */
static void context(struct image *im, int s, int j, uint64_t cv, int depth, uint64_t oldcop,
		    bool from_c)
{
	const struct perl_layout *l = im->l;
	uint32_t o = O_CX + 0x300u * (uint32_t)s + l->cx_size * (uint32_t)j;

	im->b[o] = cv ? l->cxt_sub : CXT_BLOCK;
	put64(im, o + l->cx_oldcop, oldcop);
	if (!cv)
		return;
	put64(im, o + l->cx_cv, cv);
	put64(im, o + l->cx_retop, from_c ? 0 : at(O_SLAB + 0x100));
	put32(im, o + l->cx_olddepth, (uint32_t)(depth - 1));
}

static void stackinfo(struct image *im, int s, int cxix, uint64_t prev)
{
	uint32_t o = O_SI + 0x40u * (uint32_t)s;

	put64(im, o + im->l->si_cxstack, at(O_CX + 0x300u * (uint32_t)s));
	put64(im, o + im->l->si_prev, prev);
	put32(im, o + im->l->si_cxix, (uint32_t)cxix);
	put32(im, o + im->l->si_cxmax, 0x300u / im->l->cx_size - 1);
}

static void finish(struct image *im, uint64_t curcop, uint64_t si)
{
	put64(im, O_PTR, at(O_INTERP));
	put64(im, O_INTERP + im->l->i_curcop, curcop);
	put64(im, O_INTERP + im->l->i_curstackinfo, si);
	im->r.addr = BASE;
	im->r.bytes = im->b;
	im->r.len = SIZE;
	im->img.regions = &im->r;
	im->img.n = 1;
}

/* main::outer -> Pkg::run -> main::inner (named by its own HEK), inner
 * running at line 11, with a block context in the file's code and one
 * in run; one stack info. */
static void build(struct image *im, unsigned version)
{
	uint64_t pmain, ppkg, outer, run, inner;

	memset(im->b, 0, sizeof(im->b));
	im->l = perl_layout__by_version(5, version);
	cr_assert_not_null(im->l, "no layout for 5.%u", version);
	memcpy(im->b + O_FILE, "/srv/tools/work.pl", 19);
	pmain = stash(im, 0, "main");
	ppkg = stash(im, 1, "Pkg");
	outer = sub(im, 0, "outer", pmain, false);
	run = sub(im, 1, "run", ppkg, false);
	inner = sub(im, 2, "inner", pmain, version >= 18); /* CVf_NAMED: 5.18+ */
	context(im, 0, 0, 0, 0, cop(im, 0, 40), false);
	context(im, 0, 1, outer, 1, cop(im, 1, 41), false);
	context(im, 0, 2, run, 1, cop(im, 2, 31), false);
	context(im, 0, 3, 0, 0, cop(im, 3, 20), false);
	context(im, 0, 4, inner, 1, cop(im, 4, 21), false);
	stackinfo(im, 0, 4, 0);
	finish(im, cop(im, 5, 11), at(O_SI));
}

static struct perl *open_image(struct image *im, struct strtab *t, bool lines, struct memsource *m)
{
	struct perl *p = NULL;

	memsource__image(m, &im->img);
	cr_assert_eq(perl__open(m, at(O_PTR), 0, 0, im->l, lines, t, &p), 0);
	return p;
}

static const unsigned versions[] = { 16, 18, 20, 22, 24, 26, 32, 34, 36, 40 };
#define NVERSIONS (sizeof(versions) / sizeof(versions[0]))

/* The SV entry e of sub i's pad at depth d. */
static uint64_t pad_sv(int i, int d, int e)
{
	return at(O_SV + 0x80u * (uint32_t)(2 * i + d - 1) + 0x10u * (uint32_t)e);
}

static uint64_t pad_array(int i, int d)
{
	return at(O_PADA + 0x40u * (uint32_t)(2 * i + d - 1));
}

/* An op of sub i's slab. */
static uint64_t op_of(int i)
{
	return at(O_SLAB + 0x200u * (uint32_t)i + 0x28 + 9 * 8);
}

Test(perl, reads_and_names_the_subs_of_every_layout)
{
	static const char *const want[] = { "main::inner (work.pl)_[pl]", "Pkg::run (work.pl)_[pl]",
					    "main::outer (work.pl)_[pl]" };
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	size_t v, j;

	for (v = 0; v < NVERSIONS; v++) {
		struct strtab *t = strtab__new();
		struct memsource m;
		struct perl *p;

		build(im, versions[v]);
		p = open_image(im, t, false, &m);
		cr_assert_eq(perl__read_stack(p, 1, st), 0, "5.%u", versions[v]);
		cr_assert_eq(st->n, 3);
		for (j = 0; j < 3; j++)
			cr_assert_str_eq(strtab__str(t, st->f[j].name), want[j], "5.%u frame %zu",
					 versions[v], j);
		/* the innermost sub carries its pad at its depth */
		cr_assert_eq(st->f[0].addr, pad_array(2, 1));
		cr_assert_eq(st->f[0].code_lo, pad_array(2, 1));
		cr_assert_eq(st->f[0].code_hi, pad_array(2, 1) + 8 * 8);
		cr_assert_eq(st->f[1].code_lo, st->f[1].code_hi, "only the innermost is provable");
		cr_assert(!st->f[0].entry_end && !st->f[1].entry_end && st->f[2].entry_end);
		perl__delete(p);
		strtab__delete(t);
	}
	free(st);
	free(im);
}

/* The rows as perl_layout.c documents them (a fact changed by mistake
 * fails here; the images above are built from the rows themselves). The
 * rows before 5.24 were checked against gdb's view of 5.16.3, 5.18.4,
 * 5.20.3 and 5.22.4 built with -Dusethreads. */
Test(perl, layout_rows_are_the_documented_ones)
{
	static const struct {
		unsigned v;
		uint16_t curcop, cursi, cxsize, cv, depth, aux, slabs;
	} doc[] = {
		{ 16, 0x250, 0x260, 0x50, 0x28, 0x40, 0, 0 },   { 17, 0x250, 0x260, 0x50, 0x28, 0x40, 0, 0 },
		{ 18, 0xb0, 0xc0, 0x50, 0x28, 0x40, 0, 0 },     { 20, 0xd0, 0xe0, 0x50, 0x28, 0x40, 0, 0 },
		{ 22, 0xd8, 0xe8, 0x58, 0x28, 0x40, 0, 0 },
		{ 24, 0xd8, 0xe8, 0x60, 0x40, 0x48, 0, 0 },     { 25, 0xd8, 0xe8, 0x60, 0x40, 0x48, 0, 0 },
		{ 26, 0xe0, 0xf0, 0x60, 0x40, 0x48, 0, 0 },     { 30, 0xe0, 0xf0, 0x60, 0x40, 0x48, 0, 0 },
		{ 32, 0xe0, 0xf0, 0x68, 0x48, 0x50, 0, 0x28 },  { 34, 0xd0, 0xe0, 0x68, 0x48, 0x50, 0, 0x28 },
		{ 36, 0xd0, 0xe0, 0x68, 0x48, 0x50, 0x20, 0x28 }, { 38, 0xd0, 0xe0, 0x68, 0x48, 0x50, 0x20, 0x28 },
		{ 40, 0xd0, 0xe0, 0x68, 0x48, 0x50, 0x20, 0x28 },
	};
	size_t i;

	for (i = 0; i < sizeof(doc) / sizeof(doc[0]); i++) {
		const struct perl_layout *l = perl_layout__by_version(5, doc[i].v);
		bool old = doc[i].v < 24;

		cr_assert_not_null(l, "5.%u", doc[i].v);
		cr_assert(l->i_curcop == doc[i].curcop && l->i_curstackinfo == doc[i].cursi &&
			  l->cx_size == doc[i].cxsize && l->cx_cv == doc[i].cv &&
			  l->cx_olddepth == doc[i].depth && l->hv_aux == doc[i].aux &&
			  l->slab_slots == doc[i].slabs, "5.%u", doc[i].v);
		cr_assert(l->si_cxix == 0x20 && l->cop_line == 0x24 && l->cv_gv == 0x38 &&
			  l->cv_padlist == 0x48 && l->gv_namehek == 0x20, "5.%u", doc[i].v);
		cr_assert(l->cxt_sub == (old ? 8 : 9) && l->cx_oldcop == (old ? 8 : 0x10) &&
			  l->cx_retop == (old ? 0x20 : 0x30), "5.%u's context block", doc[i].v);
		cr_assert_eq(l->padlist_av, doc[i].v < 18, "5.%u's padlist", doc[i].v);
		cr_assert_eq(l->slots_linked, doc[i].v >= 18 && doc[i].v < 32, "5.%u's op slots", doc[i].v);
	}
}

Test(perl, versions_without_a_layout_have_none)
{
	cr_assert_null(perl_layout__by_version(5, 14), "no version symbols before 5.15");
	cr_assert_null(perl_layout__by_version(5, 41));
	cr_assert_null(perl_layout__by_version(6, 36));
	cr_assert_null(perl_layout__by_version(0, 0), "no version read");
}

/* Perl_pp_nextstate's first bytes, as gcc built it for threaded perls:
 * PL_curcop = (COP *)PL_op through the interpreter in rdi. */
Test(perl, the_code_tells_where_curcop_is)
{
	/* 5.16.3: push rbx; mov 0x260(rdi),rdx; mov rdi,rbx; mov 8(rdi),rax;
	 * movb $0,0x4a5(rdi); mov rax,0x250(rdi); movslq 0x20(rdx),rax */
	static const uint8_t p516[] = { 0x53, 0x48, 0x8b, 0x97, 0x60, 0x02, 0x00, 0x00, 0x48, 0x89, 0xfb,
					0x48, 0x8b, 0x47, 0x08, 0xc6, 0x87, 0xa5, 0x04, 0x00, 0x00, 0x00,
					0x48, 0x89, 0x87, 0x50, 0x02, 0x00, 0x00, 0x48, 0x63, 0x42, 0x20 };
	/* Debian's 5.36: the same shape at 0xe0 and 0xd0 */
	static const uint8_t p536[] = { 0x53, 0x48, 0x8b, 0x97, 0xe0, 0x00, 0x00, 0x00, 0x48, 0x89, 0xfb,
					0x48, 0x8b, 0x47, 0x08, 0xc6, 0x87, 0xb1, 0x00, 0x00, 0x00, 0x00,
					0x48, 0x89, 0x87, 0xd0, 0x00, 0x00, 0x00, 0x48, 0x63, 0x42, 0x20 };
	/* the interpreter copied first, the op loaded through the copy
	 * (mov rdi,rbx; mov 8(rbx),rcx; mov rcx,0xc8(rbx)) */
	static const uint8_t copied[] = { 0x48, 0x89, 0xfb, 0x48, 0x8b, 0x4b, 0x08, 0x48, 0x89, 0x8b, 0xc8,
					  0x00, 0x00, 0x00 };
	/* a store of something else than the op: mov 0x10(rdi),rax; mov
	 * rax,0xd0(rdi); then a call before any op store */
	static const uint8_t other[] = { 0x48, 0x8b, 0x47, 0x10, 0x48, 0x89, 0x87, 0xd0, 0x00, 0x00, 0x00,
					 0xe8, 0x00, 0x00, 0x00, 0x00, 0x48, 0x8b, 0x47, 0x08, 0x48, 0x89,
					 0x87, 0xd0, 0x00, 0x00, 0x00 };
	/* the interpreter register overwritten before the store: mov 8(rdi),
	 * rax; mov rsi,rdi; mov rax,0xd0(rdi) */
	static const uint8_t clobbered[] = { 0x48, 0x8b, 0x47, 0x08, 0x48, 0x89, 0xf7, 0x48, 0x89, 0x87,
					     0xd0, 0x00, 0x00, 0x00 };
	/* a non-threaded build: PL_op and PL_curcop are globals (rip) */
	static const uint8_t globals[] = { 0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00, 0x48, 0x89, 0x05,
					   0x00, 0x20, 0x00, 0x00, 0xc3 };

	cr_assert_eq(perl_layout__curcop_in_code(p516, sizeof(p516)), 0x250);
	cr_assert_eq(perl_layout__curcop_in_code(p536, sizeof(p536)), 0xd0);
	cr_assert_eq(perl_layout__curcop_in_code(copied, sizeof(copied)), 0xc8);
	cr_assert_eq(perl_layout__curcop_in_code(other, sizeof(other)), 0, "nothing past a call");
	cr_assert_eq(perl_layout__curcop_in_code(clobbered, sizeof(clobbered)), 0);
	cr_assert_eq(perl_layout__curcop_in_code(globals, sizeof(globals)), 0);
	cr_assert_eq(perl_layout__curcop_in_code(p536, 20), 0, "cut short");
	cr_assert_eq(perl_layout__curcop_in_code(p536, 0), 0);
}

static long prove(struct perl *p, uint64_t w)
{
	uint64_t words[3] = { 0x1234, w, 7 };

	return perl__proof(p, words, 3);
}

/* 5.18-5.31 slabs keep no size: each is walked from opslab_first along
 * its slots to the sentinel that ends it, and a walk that goes anywhere
 * else proves no op (the read stands, its pads and SVs still prove). */
Test(perl, linked_slabs_are_walked_to_their_end)
{
	static const struct {
		const char *what;
		uint32_t off;  /* a word of sub 2's slab changed */
		uint32_t word; /* to the address of this offset in the slab, */
		bool null;     /* or to 0 */
	} damage[] = {
		{ "a slot linking downwards", 0x20 + 0x20 * 4, 0x20 + 0x20 * 2, false },
		{ "a slot linking past the slab's largest size", 0x20 + 0x20 * 4, 0x20 + 0x8000, false },
		{ "a misaligned slot", 0x20 + 0x20 * 4, 0x20 + 0x20 * 5 + 3, false },
		{ "an end no slab has (0x1e8 bytes)", 0x20 + 0x20 * 13, 0x1e0, false },
		{ "opslab_first in the header", 0, 0x8, false },
		{ "a sentinel that is no end: 0 mid-slab", 0x20 + 0x20 * 6, 0, true },
		{ "a chain of slabs in a loop (opslab_next: itself)", 8, 0, false },
	};
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	size_t d;

	for (d = 0; d <= sizeof(damage) / sizeof(damage[0]); d++) {
		struct strtab *t = strtab__new();
		struct memsource m;
		struct perl *p;
		uint32_t slab = O_SLAB + 2 * 0x200;

		build(im, 26);
		if (d < sizeof(damage) / sizeof(damage[0]))
			put64(im, slab + damage[d].off, damage[d].null ? 0 : at(slab + damage[d].word));
		p = open_image(im, t, false, &m);
		cr_assert_eq(perl__read_stack(p, 1, st), 0);
		if (d == sizeof(damage) / sizeof(damage[0])) {
			cr_assert_eq(prove(p, op_of(2)), 0, "the whole slab");
			cr_assert_eq(prove(p, at(slab + 0x1f0)), 0, "its last slot's op");
			cr_assert_eq(prove(p, at(slab + 0x200)), -1, "past its end");
			cr_assert_eq(prove(p, at(slab + 0x18)), -1, "its header");
		} else {
			cr_assert_eq(prove(p, op_of(2)), -1, "%s", damage[d].what);
		}
		cr_assert_eq(prove(p, pad_array(2, 1)), 0, "%s: the pad still proves",
			     d < sizeof(damage) / sizeof(damage[0]) ? damage[d].what : "");
		perl__delete(p);
		strtab__delete(t);
	}
	free(st);
	free(im);
}

Test(perl, the_samples_words_prove_what_ran)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	size_t v;

	for (v = 0; v < NVERSIONS; v++) {
		struct strtab *t = strtab__new();
		struct memsource m;
		struct perl *p;

		build(im, versions[v]);
		p = open_image(im, t, false, &m);
		cr_assert_eq(perl__read_stack(p, 1, st), 0);
		cr_assert_eq(prove(p, pad_array(2, 1)), 0, "PL_curpad");
		cr_assert_eq(prove(p, pad_array(2, 1) + 5 * 8), 0, "an entry's address");
		cr_assert_eq(prove(p, pad_sv(2, 1, 3)), 0, "an op's target");
		cr_assert_eq(prove(p, op_of(2)), has_slabs(im->l) ? 0 : -1, "5.%u: an op", versions[v]);
		cr_assert_eq(prove(p, pad_array(2, 2)), -1, "another depth's pad");
		cr_assert_eq(prove(p, pad_sv(2, 2, 3)), -1, "another depth's SV");
		cr_assert_eq(prove(p, pad_array(1, 1)), -1, "a caller's pad proves nothing");
		cr_assert_eq(prove(p, op_of(1)), -1, "a caller's op");
		cr_assert_eq(prove(p, pad_sv(2, 1, 0)), -1, "an empty slot");
		cr_assert_eq(prove(p, at(O_SLAB + 0x400 + 8)), -1, "a slab's header");
		/* read again: the slabs from the cache (a live sub's do not
		 * change), three reads fewer where there are slabs */
		{
			struct runtime_counters c0, c1, c2;

			perl__counters(p, &c0);
			cr_assert_eq(perl__read_stack(p, 1, st), 0);
			perl__counters(p, &c1);
			cr_assert_eq(prove(p, op_of(2)), has_slabs(im->l) ? 0 : -1);
			/* another root op: the slabs read again */
			put64(im, O_CVB + 2 * 0x80 + im->l->cv_root, root_op(im, 2, 5));
			cr_assert_eq(perl__read_stack(p, 1, st), 0);
			perl__counters(p, &c2);
			if (has_slabs(im->l))
				cr_assert_gt(c2.reads - c1.reads, c1.reads - c0.reads, "5.%u", versions[v]);
			cr_assert_eq(prove(p, op_of(2)), has_slabs(im->l) ? 0 : -1);
		}

		/* inner recursing: inner at depth 2 under inner at depth 1;
		 * its ops and the SVs its depths share (entry 5: a constant)
		 * tell no depth, its pad and its own lexicals do */
		context(im, 0, 5, 0, 0, cop(im, 6, 22), false);
		context(im, 0, 6, at(O_CV + 0x40), 2, cop(im, 7, 12), false);
		stackinfo(im, 0, 6, 0);
		put64(im, O_PADA + 0x40 * (2 * 2 + 1) + 8 * 5, pad_sv(2, 1, 5));
		cr_assert_eq(perl__read_stack(p, 2, st), 0);
		cr_assert_eq(st->n, 4);
		cr_assert_eq(st->f[0].addr, pad_array(2, 2));
		cr_assert_eq(prove(p, pad_array(2, 2)), 0);
		cr_assert_eq(prove(p, pad_sv(2, 2, 3)), 0, "5.%u: a lexical of its depth", versions[v]);
		cr_assert_eq(prove(p, pad_sv(2, 1, 5)), -1, "5.%u: an SV its depths share", versions[v]);
		cr_assert_eq(prove(p, op_of(2)), -1, "a recursive sub's op");
		/* the outer call's own pad proves the outer call */
		cr_assert_eq(st->f[1].addr, pad_array(2, 1));
		cr_assert_eq(prove(p, pad_array(2, 1) + 8), 1, "5.%u: the outer depth", versions[v]);
		{
			uint64_t both[2] = { pad_array(2, 2), pad_array(2, 1) };

			cr_assert_eq(perl__proof(p, both, 2), 1, "the outermost depth held");
		}
		cr_assert_eq(prove(p, pad_sv(2, 1, 3)), -1, "the outer depth's SV");
		perl__delete(p);
		strtab__delete(t);
	}
	free(st);
	free(im);
}

/* Proven subs placed on the sample's runops calls: a sub called from C
 * (a sort block, a callback: call_sv) ends its call's group, its caller
 * is in the next stack info out. */
Test(perl, nested_runops_calls_are_placed_apart)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct interp_placed *pl = malloc(sizeof(*pl));
	struct strtab *t = strtab__new();
	struct interp_native ev[2] = { { .words = NULL }, { .words = NULL } };
	uint64_t r0[2], r1[2];
	struct memsource m;
	struct perl *p;

	build(im, 36);
	/* outer in the outer stack info; run (from C) -> inner in the inner */
	context(im, 1, 0, 0, 0, cop(im, 0, 40), false);
	context(im, 1, 1, at(O_CV), 1, cop(im, 1, 41), false);
	stackinfo(im, 1, 1, 0);
	memset(im->b + O_CX, 0, 0x300);
	context(im, 0, 0, at(O_CV + 0x20), 1, cop(im, 2, 31), true);
	context(im, 0, 1, at(O_CV + 0x40), 1, cop(im, 4, 21), false);
	stackinfo(im, 0, 1, at(O_SI + 0x40));
	p = open_image(im, t, true, &m);
	cr_assert_eq(perl__read_stack(p, 1, st), 0);
	cr_assert_eq(st->n, 3);
	cr_assert_str_eq(strtab__str(t, st->f[0].name), "main::inner (work.pl:11)_[pl]");
	cr_assert_str_eq(strtab__str(t, st->f[1].name), "Pkg::run (work.pl:21)_[pl]");
	cr_assert_str_eq(strtab__str(t, st->f[2].name), "main::outer (work.pl:31)_[pl]");
	cr_assert(!st->f[0].entry_end && st->f[1].entry_end && st->f[2].entry_end);
	/* outer is the innermost of its group: it carries its pad too */
	cr_assert_eq(st->f[2].addr, pad_array(0, 1));
	cr_assert_eq(prove(p, pad_sv(0, 1, 2)), 2);
	/* the inner runops call proven by inner's pad, the outer by outer's:
	 * each call runs its own group */
	r0[0] = r0[1] = pad_array(2, 1);
	r1[0] = r1[1] = pad_array(0, 1);
	memset(ev, 0, sizeof(ev));
	ev[0].regs = r0;
	ev[0].nregs = 2;
	ev[1].regs = r1;
	ev[1].nregs = 2;
	interp_place(st, ev, 2, true, pl);
	cr_assert_eq(pl->confirmed, 2);
	cr_assert(pl->first[0] == 0 && pl->count[0] == 2 && pl->first[1] == 2 && pl->count[1] == 1);
	/* the inner call unproven: the outer call alone is shown */
	ev[0].nregs = 0;
	interp_place(st, ev, 2, true, pl);
	cr_assert(pl->state[0] == INTERP_UNPROVEN && pl->state[1] == INTERP_PROVEN);
	cr_assert(pl->n == 1 && pl->frames[0].name == st->f[2].name);
	perl__delete(p);
	strtab__delete(t);
	free(pl);
	free(st);
	free(im);
}

Test(perl, lines_come_from_the_cops)
{
	static const char *const want[] = { "main::inner (work.pl:11)_[pl]", "Pkg::run (work.pl:21)_[pl]",
					    "main::outer (work.pl:31)_[pl]" };
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	struct memsource m;
	struct perl *p;
	size_t j;

	build(im, 36);
	p = open_image(im, t, true, &m);
	cr_assert_eq(perl__read_stack(p, 1, st), 0);
	for (j = 0; j < 3; j++)
		cr_assert_str_eq(strtab__str(t, st->f[j].name), want[j]);
	/* the statement moves on: a new name */
	put32(im, O_COP + 5 * 0x40 + im->l->cop_line, 12);
	cr_assert_eq(perl__read_stack(p, 2, st), 0);
	cr_assert_str_eq(strtab__str(t, st->f[0].name), "main::inner (work.pl:12)_[pl]");
	perl__delete(p);
	strtab__delete(t);
	free(st);
	free(im);
}

Test(perl, a_sub_reused_for_another_is_renamed)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	struct runtime_counters c0, c1, c2;
	struct memsource m;
	struct perl *p;

	build(im, 36);
	p = open_image(im, t, false, &m);
	cr_assert_eq(perl__read_stack(p, 1, st), 0);
	perl__counters(p, &c0);
	cr_assert_eq(perl__read_stack(p, 2, st), 0);
	perl__counters(p, &c1);
	/* the same name HEK's bytes now say another name */
	memcpy(im->b + O_HEK + 2 * 0x40 + PERL_HEK_KEY, "other", 6);
	cr_assert_eq(perl__read_stack(p, 3, st), 0);
	perl__counters(p, &c2);
	cr_assert_str_eq(strtab__str(t, st->f[0].name), "main::other (work.pl)_[pl]");
	cr_assert_gt(c2.reads - c1.reads, c1.reads - c0.reads, "the new name was read");
	perl__delete(p);
	strtab__delete(t);
	free(st);
	free(im);
}

/* Each read begins by reading again, in one call, where the last one
 * found the stack's head (runtimes/prefetch.h): what was read ahead is
 * used only where the pointers read now lead to it. The stack changes
 * under the guess every way it can: its top falls and rises, its stack
 * info and its context array move, the interpreter moves. */
Test(perl, a_read_ahead_that_no_longer_holds_is_not_used)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	size_t v;

	for (v = 0; v < NVERSIONS; v++) {
		struct strtab *t = strtab__new();
		uint32_t si1 = O_SI + 0x40, cx1 = O_CX + 0x300;
		struct memsource m;
		struct perl *p;

		build(im, versions[v]);
		p = open_image(im, t, false, &m);
		cr_assert_eq(perl__read_stack(p, 1, st), 0);
		cr_assert_eq(st->n, 3, "5.%u", versions[v]);
		/* inner returns: the top falls below it */
		put32(im, O_SI + im->l->si_cxix, 2);
		cr_assert_eq(perl__read_stack(p, 2, st), 0);
		cr_assert_eq(st->n, 2, "5.%u: the guess's inner was used", versions[v]);
		cr_assert_str_eq(strtab__str(t, st->f[0].name), "Pkg::run (work.pl)_[pl]");
		/* and is called again */
		put32(im, O_SI + im->l->si_cxix, 4);
		cr_assert_eq(perl__read_stack(p, 3, st), 0);
		cr_assert_eq(st->n, 3, "5.%u", versions[v]);
		/* another stack info, whose own array holds outer alone */
		memcpy(im->b + cx1, im->b + O_CX, 2 * im->l->cx_size);
		stackinfo(im, 1, 1, 0);
		put64(im, O_INTERP + im->l->i_curstackinfo, at(si1));
		cr_assert_eq(perl__read_stack(p, 4, st), 0);
		cr_assert_eq(st->n, 1, "5.%u: the guess's stack info was used", versions[v]);
		cr_assert_str_eq(strtab__str(t, st->f[0].name), "main::outer (work.pl)_[pl]");
		/* the first stack info's array moves to where the second's was */
		put64(im, O_INTERP + im->l->i_curstackinfo, at(O_SI));
		cr_assert_eq(perl__read_stack(p, 5, st), 0);
		cr_assert_eq(st->n, 3);
		put64(im, O_SI + im->l->si_cxstack, at(cx1));
		cr_assert_eq(perl__read_stack(p, 6, st), 0);
		cr_assert_eq(st->n, 1, "5.%u: the guess's context array was used", versions[v]);
		/* the interpreter moves: a copy of it whose stack is empty */
		put64(im, O_SI + im->l->si_cxstack, at(O_CX));
		memcpy(im->b + O_INTERP + 0x400, im->b + O_INTERP, 0x400);
		put64(im, O_INTERP + 0x400 + im->l->i_curstackinfo, at(si1));
		put32(im, si1 + im->l->si_cxix, (uint32_t)-1);
		put64(im, O_PTR, at(O_INTERP + 0x400));
		cr_assert_eq(perl__read_stack(p, 7, st), -ENOENT, "5.%u: the guess's interpreter was used",
			     versions[v]);
		perl__delete(p);
		strtab__delete(t);
	}
	free(st);
	free(im);
}

Test(perl, stacks_posing_as_perl_cost_bounded_work)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	struct runtime_counters s0, s1;
	struct memsource m;
	struct perl *p;
	int j;

	build(im, 36);
	p = open_image(im, t, false, &m);
	/* stack infos in a loop */
	stackinfo(im, 0, 4, at(O_SI + 0x40));
	stackinfo(im, 1, -1, at(O_SI));
	perl__counters(p, &s0);
	cr_assert_eq(perl__read_stack(p, 1, st), -EPROTO);
	perl__counters(p, &s1);
	cr_assert_leq(s1.reads - s0.reads, 8);
	/* a context index no program reaches, a negative one */
	build(im, 36);
	stackinfo(im, 0, 1 << 24, 0);
	cr_assert_eq(perl__read_stack(p, 2, st), -EPROTO);
	stackinfo(im, 0, -7, 0);
	cr_assert_eq(perl__read_stack(p, 3, st), -EPROTO);
	/* a context array of 2 million subs: CX_SCAN_MAX contexts looked at,
	 * INTERP_MAX_FRAMES kept (here the array's end is unmapped first) */
	build(im, 36);
	stackinfo(im, 0, 2000000, 0);
	perl__counters(p, &s0);
	cr_assert_lt(perl__read_stack(p, 4, st), 0);
	perl__counters(p, &s1);
	cr_assert_leq(s1.reads - s0.reads, 8);
	/* every context a sub's, the same CV: kept to INTERP_MAX_FRAMES */
	build(im, 36);
	for (j = 0; j < 7; j++)
		context(im, 0, j, at(O_CV + 0x40), 1, cop(im, 4, 21), false);
	stackinfo(im, 0, 6, 0);
	cr_assert_eq(perl__read_stack(p, 5, st), 0);
	cr_assert_eq(st->n, 7);
	/* not a CV, not a GV, a stash with no name */
	build(im, 36);
	put32(im, O_CV + 0x20 + PERL_SV_FLAGS, PERL_SVT_PVHV);
	cr_assert_eq(perl__read_stack(p, 6, st), -EPROTO, "a CV that is a hash");
	build(im, 36);
	put32(im, O_GV + PERL_SV_FLAGS, PERL_SVT_PVCV);
	cr_assert_eq(perl__read_stack(p, 7, st), -EPROTO, "a GV that is a CV");
	build(im, 36);
	put32(im, O_HV + 0x20 + PERL_SV_FLAGS, PERL_SVT_PVHV);
	cr_assert_eq(perl__read_stack(p, 8, st), -EPROTO, "a stash with no aux");
	/* no interpreter (not started, or destroyed): no Perl code */
	build(im, 36);
	put64(im, O_PTR, 0);
	cr_assert_eq(perl__read_stack(p, 9, st), -ENOENT);
	build(im, 36);
	stackinfo(im, 0, -1, 0);
	cr_assert_eq(perl__read_stack(p, 10, st), -ENOENT, "only the file's code runs");
	perl__delete(p);
	strtab__delete(t);
	free(st);
	free(im);
}

/* Damaged images (bytes changed everywhere, between reads) and a process
 * exiting after any number of reads: errors or stacks of named subs,
 * never a crash. Run under ASan and valgrind by the suite. */
Test(perl, damaged_images_and_exits_mid_read_never_crash)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	int round;

	srand(37);
	for (round = 0; round < test_rounds(3000); round++) {
		struct memsource m;
		struct dying d;
		struct perl *p;
		uint64_t words[16];
		int k, flips = 1 + rand() % 24;
		size_t j;

		build(im, versions[round % NVERSIONS]);
		d.img = &im->img;
		d.left = round % 7 == 0 ? rand() % 16 : 1 << 30;
		dying_source(&m, &d);
		cr_assert_eq(perl__open(&m, at(O_PTR), 0, 0, im->l, round % 2 == 0, t, &p), 0);
		for (k = 0; k < 3; k++) {
			int f;

			for (f = 0; f < flips; f++) {
				uint32_t off = (uint32_t)rand() % SIZE;

				im->b[off] = (uint8_t)(rand() % 3 == 0 ? (unsigned)im->b[off] ^ (1u << (rand() % 8))
								       : (unsigned)rand());
			}
			if (perl__read_stack(p, (uint64_t)k + 1, st) != 0)
				continue;
			cr_assert_leq(st->n, INTERP_MAX_FRAMES);
			for (j = 0; j < st->n; j++)
				cr_assert_neq(st->f[j].name, 0);
			for (j = 0; j < 16; j++)
				words[j] = BASE + (uint64_t)(rand() % SIZE);
			cr_assert_lt(perl__proof(p, words, 16), (long)st->n);
		}
		perl__delete(p);
	}
	strtab__delete(t);
	free(st);
	free(im);
}

/* A stack read at every sample costs a bounded number of reads a second
 * (its ledger's); beyond, it is not read, and the next second it is. */
Test(perl, reads_per_second_are_bounded)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	struct accountant *acct = accountant__new(NULL, t);
	struct ledger *l = NULL;
	struct runtime_counters s0, s1;
	struct memsource m;
	struct perl *p = NULL;
	int i, busy = 0, rc;

	cr_assert_eq(accountant__ledger(acct, 1000, &l), 0);
	build(im, 36);
	memsource__image(&m, &im->img);
	m.ledger = l;
	cr_assert_eq(perl__open(&m, at(O_PTR), 0, 0, im->l, false, t, &p), 0);
	for (i = 0; i < 40000; i++) {
		rc = perl__read_stack(p, 5000000000ull + (uint64_t)i, st);
		cr_assert(rc == 0 || rc == -EBUSY);
		busy += rc == -EBUSY;
	}
	perl__counters(p, &s0);
	cr_assert_leq(s0.reads, ACCOUNTANT_PROCESS_READS_PER_SEC + 64, "%llu reads in one second",
		      (unsigned long long)s0.reads);
	cr_assert_gt(busy, 20000);
	cr_assert_eq(perl__read_stack(p, 6000000000ull, st), 0);
	perl__counters(p, &s1);
	cr_assert_gt(s1.reads, s0.reads);
	perl__delete(p);
	ledger__delete(l);
	accountant__delete(acct);
	strtab__delete(t);
	free(st);
	free(im);
}

/* A non-threaded build: PL_curcop and PL_curstackinfo are globals. */
Test(perl, a_non_threaded_builds_globals_are_read)
{
	struct image *im = malloc(sizeof(*im));
	struct interp_stack *st = malloc(sizeof(*st));
	struct strtab *t = strtab__new();
	struct memsource m;
	struct perl *p = NULL;

	build(im, 36);
	memsource__image(&m, &im->img);
	cr_assert_eq(perl__open(&m, 0, at(O_INTERP + im->l->i_curcop),
				at(O_INTERP + im->l->i_curstackinfo), im->l, true, t, &p), 0);
	cr_assert_eq(perl__read_stack(p, 1, st), 0);
	cr_assert_eq(st->n, 3);
	cr_assert_str_eq(strtab__str(t, st->f[0].name), "main::inner (work.pl:11)_[pl]");
	perl__delete(p);
	strtab__delete(t);
	free(st);
	free(im);
}

static void label_is(const char *cmd, size_t len, const char *want)
{
	char out[64];
	int n = perlcmd__label(cmd, len, out, sizeof(out));

	if (!want) {
		cr_assert_lt(n, 0, "%s: labelled %s", cmd, n > 0 ? out : "");
		return;
	}
	cr_assert_gt(n, 0, "%s: no label", cmd);
	cr_assert_str_eq(out, want);
}

#define L(s) s, sizeof(s)

Test(perl, labels_from_command_lines)
{
	char small[4];

	label_is(L("perl\0/srv/jobs/import.pl\0--full\0"), "import.pl");
	label_is(L("/usr/bin/perl\0-w\0-Ilib\0-I\0/opt/lib\0-MStrict\0-M\0Foo\0cron.pl\0"), "cron.pl");
	label_is(L("perl5.36.0\0-T\0--\0/srv/a/check.pl\0x\0"), "check.pl");
	label_is(L("/usr/bin/perl\0/srv/bugzilla/index.cgi\0"), "bugzilla/index.cgi");
	label_is(L("/usr/bin/perl\0./work.pl\0"), "work.pl");
	label_is(L("perl\0-e\0print 1\0"), NULL);
	label_is(L("perl\0-E\0say 1\0"), NULL);
	label_is(L("perl\0-\0"), NULL);
	label_is(L("perl\0"), NULL);
	label_is(L("python3\0work.pl\0"), NULL);
	label_is(L("/usr/bin/perlx\0work.pl\0"), NULL);
	label_is("perl\0/srv/cut", 13, NULL); /* cut: no NUL at the end */
	cr_assert_eq(perlcmd__label(L("perl\0/srv/jobs/import.pl\0"), small, sizeof(small)), -ENAMETOOLONG);
}
