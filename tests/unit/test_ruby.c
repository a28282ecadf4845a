/* runtimes/ruby*: the CRuby reader on synthetic VM images of every layout
 * it has (2.0, 2.5-2.7, 3.0-3.3; tests/unit/ruby_image.h): a thread found
 * by its TID, its control frames walked and named, what a sample's
 * registers prove of the stack read after it, line tables, a reused
 * instruction sequence renamed, reads a sample costs, and damaged images or
 * a process exiting mid-read never crashing it; the binary's facts from
 * Debian's libruby when it is installed; command lines. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/strtab.h"
#include "runtimes/accountant.h"
#include "runtimes/elf_symbols.h"
#include "runtimes/readers.h"
#include "runtimes/ruby.h"
#include "runtimes/ruby_layout.h"
#include "runtimes/ruby_lines.h"
#include "runtimes/rubycmd.h"
#include "ruby_image.h"
#include "tests/unit/rounds.h"

static struct ruby *open_image(struct ruby_image *im, struct strtab *t, bool lines)
{
	struct ruby_symbols sym;
	struct memsource m;
	struct ruby *r = NULL;

	rb_symbols_of(im, &sym);
	memsource__image(&m, &im->img);
	cr_assert_eq(ruby__open(&m, &sym, lines, t, &r), 0);
	return r;
}

static const char *name(struct strtab *t, const struct ruby_frame *f)
{
	return strtab__str(t, f->name);
}

/* What each version names: class names where it keeps them where the
 * reader reads them (2.5-3.1: the class's iv_tbl, 3.3: its classpath), C
 * methods where its symbol table is read (2.5+). */
static void check_stack(unsigned major, unsigned minor)
{
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	bool classes, cfuncs;
	struct ruby *r;
	size_t k = 0;

	rb_build(im, major, minor);
	cr_assert_not_null(im->l);
	classes = im->l->class_names != RUBY_CLASS_NAMES_NONE;
	cfuncs = im->l->symbols_ids != 0;
	r = open_image(im, t, false);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 1, st), 0);
	cr_assert_eq(st->n, cfuncs ? 6u : 5u, "%u.%u: %zu frames", major, minor, st->n);
	cr_assert_str_eq(name(t, &st->f[k]), classes ? "block in Other.spin (app.rb)_[rb]" : "block in spin (app.rb)_[rb]");
	cr_assert(st->f[k].entry_end, "the block's frame ends the inner vm_exec call");
	cr_assert_eq(st->f[k].addr, im->frame[0]);
	cr_assert_eq(st->f[k].code, rb_at(O_CODE + 0x100u * IS_BLOCK));
	cr_assert_eq(st->f[k].code_end, st->f[k].code + 8 * 32);
	k++;
	if (cfuncs) {
		cr_assert_str_eq(name(t, &st->f[k]), classes ? "Integer#times_[rb]" : "times_[rb]");
		cr_assert_eq(st->f[k].cfunc, im->times_func);
		cr_assert_not(st->f[k].entry_end);
		k++;
	}
	cr_assert_str_eq(name(t, &st->f[k++]), classes ? "Other.spin (app.rb)_[rb]" : "spin (app.rb)_[rb]");
	cr_assert_str_eq(name(t, &st->f[k++]), classes ? "Klass#run (app.rb)_[rb]" : "run (app.rb)_[rb]");
	cr_assert_str_eq(name(t, &st->f[k++]), classes ? "Object#outer (app.rb)_[rb]" : "outer (app.rb)_[rb]");
	cr_assert_not(st->f[k - 1].entry_end);
	cr_assert_str_eq(name(t, &st->f[k]), "<main> (app.rb)_[rb]");
	cr_assert(st->f[k].entry_end);
	/* read again from the caches: the same */
	cr_assert_eq(ruby__read_stack(r, RB_TID, 2, st), 0);
	cr_assert_eq(st->n, cfuncs ? 6u : 5u);
	cr_assert_eq(ruby__read_stack(r, RB_TID + 1, 3, st), -ENOENT);
	ruby__delete(r);
	strtab__delete(t);
	free(st);
	free(im);
}

Test(ruby, reads_and_names_a_threads_stack_20) { check_stack(2, 0); }
Test(ruby, reads_and_names_a_threads_stack_25) { check_stack(2, 5); }
Test(ruby, reads_and_names_a_threads_stack_26) { check_stack(2, 6); }
Test(ruby, reads_and_names_a_threads_stack_27) { check_stack(2, 7); }
Test(ruby, reads_and_names_a_threads_stack_30) { check_stack(3, 0); }
Test(ruby, reads_and_names_a_threads_stack_31) { check_stack(3, 1); }
Test(ruby, reads_and_names_a_threads_stack_32) { check_stack(3, 2); }
Test(ruby, reads_and_names_a_threads_stack_33) { check_stack(3, 3); }

/* Frames whose environments are no local ones (blocks, evals) have them
 * read a level further before the frames' bodies: what the first call read
 * for the other frames is still theirs, and every frame is named at the
 * first read. */
Test(ruby, environments_read_later_leave_the_first_reads_alone)
{
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	struct ruby *r;
	int k;

	rb_build(im, 3, 1);
	/* spin, run and outer made in <main>'s environment */
	for (k = 2; k <= 4; k++) {
		uint32_t ep = rb_off(im->ep[k]);
		uint64_t flags;

		memcpy(&flags, im->b + ep, 8);
		rb_put64(im, ep - 8, im->ep[5] | 1);
		rb_put64(im, ep, flags & ~im->l->flag_local);
	}
	r = open_image(im, t, false);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 1, st), 0);
	cr_assert_eq(st->n, 6);
	cr_assert_str_eq(name(t, &st->f[0]), "block in Other.spin (app.rb)_[rb]");
	cr_assert_str_eq(name(t, &st->f[2]), "Other.spin (app.rb)_[rb]");
	cr_assert_str_eq(name(t, &st->f[3]), "Klass#run (app.rb)_[rb]");
	cr_assert_str_eq(name(t, &st->f[4]), "Object#outer (app.rb)_[rb]");
	ruby__delete(r);
	strtab__delete(t);
	free(st);
	free(im);
}

/* From 2.4 a frame's method entry is in its environment, read after the
 * frames: a call that returned in between leaves its place to the next,
 * whose entry is not the frame's. An entry is the frame's only when it
 * runs the frame's sequence, or the method its block is in; else the frame
 * is named without a class. define_method's entries run their block. */
static void check_entries_match_their_frames(unsigned major, unsigned minor)
{
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	const uint32_t proc = 0x1f00, data = 0x1f40, spin_def = O_DEFS + 0x40u * ME_SPIN;
	struct ruby *r;

	rb_build(im, major, minor);
	/* run's environment now holds outer's entry */
	rb_put64(im, rb_off(im->ep[3]) - 16, rb_at(O_MES + 0x40u * ME_OUTER));
	r = open_image(im, t, false);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 1, st), 0);
	cr_assert_eq(st->n, 6);
	cr_assert_str_eq(name(t, &st->f[3]), "run (app.rb)_[rb]", "%u.%u: %s", major, minor, name(t, &st->f[3]));
	cr_assert_str_eq(name(t, &st->f[4]), "Object#outer (app.rb)_[rb]");
	cr_assert_str_eq(name(t, &st->f[0]), "block in Other.spin (app.rb)_[rb]");
	/* the block is one of run's: spin's entry is not its method's */
	rb_iseq_in(im, IS_BLOCK, IS_RUN);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 2, st), 0);
	cr_assert_str_eq(name(t, &st->f[0]), "block in spin (app.rb)_[rb]");
	cr_assert_str_eq(name(t, &st->f[2]), "Other.spin (app.rb)_[rb]");
	ruby__delete(r);
	/* spin defined by define_method: a Proc (typed data) whose block runs
	 * spin's sequence, then another's */
	rb_put32(im, spin_def, RUBY_METHOD_BMETHOD);
	rb_put64(im, spin_def + im->l->def_body, rb_at(proc));
	rb_put64(im, proc, RUBY_T_DATA);
	rb_put64(im, proc + RUBY_TYPED_DATA_PTR, rb_at(data));
	rb_put64(im, data + 8, im->iseq[IS_SPIN]);
	r = open_image(im, t, false);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 3, st), 0);
	cr_assert_str_eq(name(t, &st->f[2]), "Other.spin (app.rb)_[rb]");
	ruby__delete(r);
	rb_put64(im, data + 8, im->iseq[IS_OTHER]);
	r = open_image(im, t, false);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 4, st), 0);
	cr_assert_str_eq(name(t, &st->f[2]), "spin (app.rb)_[rb]");
	ruby__delete(r);
	strtab__delete(t);
	free(st);
	free(im);
}

Test(ruby, method_entries_read_after_their_frame_left_are_not_shown_25) { check_entries_match_their_frames(2, 5); }
Test(ruby, method_entries_read_after_their_frame_left_are_not_shown_31) { check_entries_match_their_frames(3, 1); }
Test(ruby, method_entries_read_after_their_frame_left_are_not_shown_33) { check_entries_match_their_frames(3, 3); }

/* A thread whose context has no stack yet (being created) runs no Ruby,
 * and one whose native thread now runs another TID (3.2+ M:N) is not it. */
Test(ruby, threads_without_a_stack_or_another_tid_are_not_read)
{
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	struct ruby *r;

	rb_build(im, 3, 1);
	rb_put64(im, O_EC + im->l->ec_cfp, 0);
	r = open_image(im, t, false);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 1, st), -ENOENT);
	ruby__delete(r);
	rb_build(im, 3, 3);
	r = open_image(im, t, false);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 1, st), 0);
	rb_put32(im, O_NT + (uint32_t)im->l->nt_tid, RB_TID + 7);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 2, st), -ENOENT);
	ruby__delete(r);
	strtab__delete(t);
	free(st);
	free(im);
}

/* The proof (runtimes/ruby_stack.c), on 3.1's layout: the loop's r15 holds
 * the frame it runs, r14 a pc into that frame's instructions. */
Test(ruby, a_sample_proves_the_frames_it_ran)
{
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	struct ruby_placed *pl = malloc(sizeof(*pl));
	uint64_t called[2] = { 0x7f0000999000ull, 0 };
	struct ruby_native ev[2];
	struct ruby *r;

	rb_build(im, 3, 1);
	r = open_image(im, t, false);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 1, st), 0);
	cr_assert_eq(st->n, 6);
	memset(ev, 0, sizeof(ev));
	/* the inner call runs the block, the outer spin (having called times,
	 * whose C function the frames between them run) */
	ev[0].have_regs = true;
	ev[0].cfp = im->frame[0];
	ev[0].pc = st->f[0].code + 8 * 5;
	ev[1].have_regs = true;
	ev[1].cfp = im->frame[2];
	ev[1].pc = st->f[2].code + 8 * 12;
	called[1] = im->times_func;
	ev[1].called = called;
	ev[1].ncalled = 2;
	ruby__place(st, ev, 2, true, pl);
	cr_assert_eq(pl->confirmed, 2);
	cr_assert_eq(pl->unproven, 0);
	cr_assert_eq(pl->count[0], 1);
	cr_assert_str_eq(name(t, &pl->frames[pl->first[0]]), "block in Other.spin (app.rb)_[rb]");
	cr_assert_eq(pl->native[pl->first[0]], -1);
	cr_assert_eq(pl->count[1], 5);
	cr_assert_str_eq(name(t, &pl->frames[pl->first[1]]), "Integer#times_[rb]");
	cr_assert_eq(pl->native[pl->first[1]], 1, "times sits where its C function runs");
	cr_assert_str_eq(name(t, &pl->frames[pl->first[1] + 4]), "<main> (app.rb)_[rb]");

	/* the inner call's r15 at the block's frame, its pc in another
	 * method's instructions: a later call took the frame's place */
	ev[0].pc = st->f[2].code + 8;
	ruby__place(st, ev, 2, true, pl);
	cr_assert_eq(pl->state[0], RUBY_UNPROVEN);
	cr_assert_eq(pl->state[1], RUBY_PROVEN);
	cr_assert_eq(pl->unproven, 1);
	cr_assert_eq(pl->count[1], 5);

	/* only the outer call proven, at spin; the inner has no registers: the
	 * block is not shown, times is (its C function runs above spin) */
	ev[0].have_regs = false;
	ruby__place(st, ev, 2, true, pl);
	cr_assert_eq(pl->count[0], 0);
	cr_assert_eq(pl->count[1], 5);

	/* one call, proven at spin, whose native frames do not run times's C
	 * function: the sample ran spin itself, times came later */
	ev[1].ncalled = 1;
	ruby__place(st, &ev[1], 1, true, pl);
	cr_assert_eq(pl->count[0], 4);
	cr_assert_str_eq(name(t, &pl->frames[pl->first[0]]), "Other.spin (app.rb)_[rb]");

	/* proven at outer: run and what it called since are not shown; not
	 * rooted, <main>... is still outer's caller within the same call */
	ev[1].cfp = im->frame[4];
	ev[1].pc = st->f[4].code + 8 * 3;
	ruby__place(st, &ev[1], 1, false, pl);
	cr_assert_eq(pl->count[0], 2);
	cr_assert_str_eq(name(t, &pl->frames[pl->first[0]]), "Object#outer (app.rb)_[rb]");
	cr_assert_eq(pl->count[1], 0);

	/* the inner call proven, the outer not unwound (a stack cut short):
	 * the rest is kept at the root, apart */
	ev[0].have_regs = true;
	ev[0].cfp = im->frame[0];
	ev[0].pc = st->f[0].code + 8 * 5;
	ruby__place(st, ev, 1, false, pl);
	cr_assert_eq(pl->count[0], 1);
	cr_assert_eq(pl->count[1], 5);

	/* nothing at all */
	memset(ev, 0, sizeof(ev));
	ruby__place(st, ev, 2, true, pl);
	cr_assert_eq(pl->unproven, 2);
	cr_assert_eq(pl->n, 0);
	ruby__delete(r);
	strtab__delete(t);
	free(pl);
	free(st);
	free(im);
}

/* C methods called inside C methods (rb_funcall): each is shown when a
 * native frame the proven call made runs its C function, the inner one
 * in a frame inside the outer's; one native frame proves one of them. */
Test(ruby, c_methods_inside_c_methods_need_a_frame_each)
{
	struct ruby_stack *st = calloc(1, sizeof(*st));
	struct ruby_placed *pl = malloc(sizeof(*pl));
	const uint64_t fa = 0x7f00000a0000ull, fb = 0x7f00000b0000ull;
	uint64_t called[3];
	struct ruby_native ev;
	size_t i;

	/* innermost first: B (C), A (C), x (proven), main */
	st->n = 4;
	for (i = 0; i < 4; i++) {
		st->f[i].addr = 0x1000 + 0x40 * i;
		st->f[i].name = (uint32_t)(i + 1);
	}
	st->f[0].cfunc = fb;
	st->f[1].cfunc = fa;
	st->f[2].code = 0x9000;
	st->f[2].code_end = 0x9100;
	st->f[3].code = 0xa000;
	st->f[3].code_end = 0xa100;
	st->f[3].entry_end = true;
	memset(&ev, 0, sizeof(ev));
	ev.have_regs = true;
	ev.cfp = st->f[2].addr;
	ev.pc = 0x9010;
	ev.called = called;
	ev.ncalled = 3;
	/* native frames above the call, innermost first: B's, something, A's */
	called[0] = fb;
	called[1] = 0x1234;
	called[2] = fa;
	ruby__place(st, &ev, 1, true, pl);
	cr_assert_eq(pl->count[0], 4);
	cr_assert_eq(pl->native[0], 0);
	cr_assert_eq(pl->native[1], 2);
	/* B's function outside A's: A called nothing running now */
	called[0] = fa;
	called[2] = fb;
	ruby__place(st, &ev, 1, true, pl);
	cr_assert_eq(pl->count[0], 3);
	cr_assert_eq(pl->frames[0].name, 2);
	/* both the same function, one frame of it: only the outer */
	st->f[0].cfunc = fa;
	called[0] = fa;
	called[2] = 0x5678;
	ruby__place(st, &ev, 1, true, pl);
	cr_assert_eq(pl->count[0], 3);
	cr_assert_eq(pl->frames[0].name, 2);
	free(pl);
	free(st);
}

/* Lines from each kind of line table: 2.0's and 2.5's positioned entries,
 * 2.6+'s positions array, and the succinct bit vector CRuby leaves when it
 * frees them. The frame's pc is the next instruction's. */
static void check_lines(unsigned major, unsigned minor, bool succinct)
{
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	struct ruby *r;
	const char *spin;

	rb_build(im, major, minor);
	if (succinct) {
		/* positions 0, 8, 16, 24 of 32: ranks 1..4 in the immediate part */
		uint32_t tbl = O_LINES + 0x80u * IS_SPIN + 0x40;
		uint64_t w[4] = { 0, 0, 0, 0 };
		uint32_t pos;

		for (pos = 0; pos < 36; pos++)
			w[pos / 9] |= (uint64_t)(pos / 8 + 1) << (7 * (pos % 9));
		memcpy(im->b + tbl, w, sizeof(w));
		rb_put64(im, O_BODIES + 0x100u * IS_SPIN + im->l->lines_succ, rb_at(tbl));
		rb_put64(im, O_BODIES + 0x100u * IS_SPIN + im->l->lines_positions, 0);
	}
	r = open_image(im, t, true);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 1, st), 0);
	spin = im->l->class_names != RUBY_CLASS_NAMES_NONE ? "Other.spin" : "spin";
	{
		char want[64];
		size_t k = im->l->symbols_ids ? 2 : 1;

		/* pc at instruction 12: position 11, the second entry's */
		snprintf(want, sizeof(want), "%s (app.rb:11)_[rb]", spin);
		cr_assert_str_eq(name(t, &st->f[k]), want);
		/* run at 20 -> 19: the third; outer at 3 -> 2: the first */
		cr_assert(strstr(name(t, &st->f[k + 1]), "(app.rb:12)_[rb]"), "%s", name(t, &st->f[k + 1]));
		cr_assert(strstr(name(t, &st->f[k + 2]), "(app.rb:10)_[rb]"), "%s", name(t, &st->f[k + 2]));
		/* <main> at 30 -> 29: the fourth */
		cr_assert(strstr(name(t, &st->f[k + 3]), "(app.rb:13)_[rb]"), "%s", name(t, &st->f[k + 3]));
	}
	ruby__delete(r);
	strtab__delete(t);
	free(st);
	free(im);
}

Test(ruby, frames_carry_their_line_20) { check_lines(2, 0, false); }
Test(ruby, frames_carry_their_line_25) { check_lines(2, 5, false); }
Test(ruby, frames_carry_their_line_27) { check_lines(2, 7, false); }
Test(ruby, frames_carry_their_line_31_succinct) { check_lines(3, 1, true); }
Test(ruby, frames_carry_their_line_33_succinct) { check_lines(3, 3, true); }

/* CRuby's succinct_index_table_create (iseq.c), the table the reader's
 * lookup reads: written here from its definition to check the reader
 * against it on tables with blocks. */
static void make_succinct(const uint32_t *pos, int n, uint32_t max_pos, uint8_t *out, size_t len)
{
	int imm = (int)((max_pos < 54 ? max_pos + 8 : 54) / 9);
	int blocks = (int)((max_pos < 54 ? 0 : max_pos - 54 + 511) / 512);
	int i, j, k, r = 0;

	memset(out, 0, len);
	for (j = 0; j < imm; j++)
		for (i = 0; i < 9; i++) {
			uint64_t v;

			if (r < n && pos[r] == (uint32_t)(j * 9 + i))
				r++;
			memcpy(&v, out + 8 * j, 8);
			v |= (uint64_t)r << (7 * i);
			memcpy(out + 8 * j, &v, 8);
		}
	for (k = 0; k < blocks; k++) {
		uint8_t *b = out + 48 + 80 * k;
		uint64_t small = 0;
		int small_rank = 0;
		uint32_t rank = (uint32_t)r;

		memcpy(b, &rank, 4);
		for (j = 0; j < 8; j++) {
			uint64_t bits = 0;

			if (j)
				small |= (uint64_t)small_rank << (9 * (j - 1));
			for (i = 0; i < 64; i++)
				if (r < n && pos[r] == (uint32_t)(k * 512 + j * 64 + i + 54)) {
					bits |= 1ull << i;
					r++;
				}
			memcpy(b + 16 + 8 * j, &bits, 8);
			small_rank += __builtin_popcountll(bits);
		}
		memcpy(b + 8, &small, 8);
	}
}

Test(ruby, succinct_tables_agree_with_a_search_of_their_positions)
{
	static uint32_t pos[2000];
	static uint8_t table[48 + 80 * 8];
	uint32_t max_pos = 3000, x;
	int round, n;

	srand(7);
	cr_assert_eq(ruby_lines__succinct_bytes(3000), 48 + 80 * ((3000 - 54 + 511) / 512));
	for (round = 0; round < 20; round++) {
		uint32_t p = 0;

		for (n = 0; n < 2000 && p < max_pos; n++) {
			pos[n] = p;
			p += 1 + (uint32_t)(rand() % (round + 2));
		}
		make_succinct(pos, n, max_pos, table, ruby_lines__succinct_bytes(max_pos));
		for (x = 0; x < max_pos; x++) {
			long want = ruby_lines__in_positions((const uint8_t *)pos, (uint32_t)n, x);
			long got = ruby_lines__succinct(table, ruby_lines__succinct_bytes(max_pos), x);

			cr_assert_eq(got, want, "round %d position %u: %ld, not %ld", round, x, got, want);
		}
	}
	/* a table too short for the position asked: no answer */
	cr_assert_eq(ruby_lines__succinct(table, 48, 100), -1);
	cr_assert_eq(ruby_lines__by_position(NULL, 0, 8, 0, 5), -1);
}

/* An instruction sequence freed and its address reused by another: the
 * reader sees its words change and names the new one. */
Test(ruby, a_reused_iseq_address_gets_its_new_name)
{
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	struct ruby *r;

	rb_build(im, 3, 1);
	r = open_image(im, t, false);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 1, st), 0);
	cr_assert_str_eq(name(t, &st->f[3]), "Klass#run (app.rb)_[rb]");
	/* run's sequence now has other's body */
	rb_put64(im, rb_off(im->iseq[IS_RUN]) + (uint32_t)im->l->iseq_body, im->body[IS_OTHER]);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 2, st), 0);
	cr_assert_str_eq(name(t, &st->f[3]), "Klass#other (app.rb)_[rb]");
	/* and the same body relabelled in place */
	rb_put64(im, rb_off(im->body[IS_OTHER]) + im->l->body_label, rb_string(im, "again"));
	rb_put64(im, rb_off(im->body[IS_OTHER]) + im->l->body_base_label, rb_string(im, "again"));
	cr_assert_eq(ruby__read_stack(r, RB_TID, 3, st), 0);
	cr_assert_str_eq(name(t, &st->f[3]), "Klass#again (app.rb)_[rb]");
	ruby__delete(r);
	strtab__delete(t);
	free(st);
	free(im);
}

/* A source that counts its calls, each of them one process_vm_readv. */
struct counting {
	struct memsource img;
	unsigned calls;
};

static int counting_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct counting *c = ctx;

	c->calls++;
	return c->img.read(c->img.ctx, addr, buf, len);
}

static int counting_readv(void *ctx, const uint64_t *addrs, const size_t *lens, void *const *bufs, bool *ok,
			  size_t n)
{
	struct counting *c = ctx;
	size_t i;
	int got = 0;

	c->calls++;
	for (i = 0; i < n; i++) {
		ok[i] = c->img.read(c->img.ctx, addrs[i], bufs[i], lens[i]) == 0;
		got += ok[i];
	}
	return got;
}

/* A stack read before costs two calls: the thread with its context and
 * frames, then every frame's environment, sequence, body and method entry
 * with what they held last time. */
Test(ruby, a_stack_read_again_costs_two_calls)
{
	static const unsigned versions[][2] = { { 2, 5 }, { 2, 7 }, { 3, 1 }, { 3, 3 } };
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	size_t v;

	for (v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
		struct ruby_symbols sym;
		struct counting c;
		struct memsource m;
		struct ruby *r = NULL;

		rb_build(im, versions[v][0], versions[v][1]);
		rb_symbols_of(im, &sym);
		memsource__image(&c.img, &im->img);
		c.calls = 0;
		memset(&m, 0, sizeof(m));
		m.read = counting_read;
		m.readv = counting_readv;
		m.ctx = &c;
		cr_assert_eq(ruby__open(&m, &sym, false, t, &r), 0);
		cr_assert_eq(ruby__read_stack(r, RB_TID, 1, st), 0);
		cr_assert_eq(ruby__read_stack(r, RB_TID, 2, st), 0);
		c.calls = 0;
		cr_assert_eq(ruby__read_stack(r, RB_TID, 3, st), 0);
		cr_assert_eq(c.calls, 2, "%u.%u: %u calls", versions[v][0], versions[v][1], c.calls);
		cr_assert_geq(st->n, 5);
		ruby__delete(r);
	}
	strtab__delete(t);
	free(st);
	free(im);
}

/* A source that reads the image until `left` reads are spent, then fails as
 * a process that exited does. */
struct dying {
	struct memimage *img;
	int left;
};

static int dying_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct dying *d = ctx;
	struct memsource m;

	if (d->left-- <= 0)
		return -ESRCH;
	memsource__image(&m, d->img);
	return m.read(m.ctx, addr, buf, len);
}

/* Damaged images (bytes changed between reads, everywhere) and a process
 * exiting after any number of reads: errors or stacks, never a crash, a
 * frame without a name or a walk out of bounds. Run under ASan/valgrind
 * by the suite. */
Test(ruby, damaged_images_and_exits_mid_read_never_crash)
{
	static const unsigned versions[][2] = { { 2, 0 }, { 2, 5 }, { 2, 7 }, { 3, 1 }, { 3, 2 }, { 3, 3 } };
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	struct ruby_placed *pl = malloc(sizeof(*pl));
	int round;

	srand(30);
	for (round = 0; round < test_rounds(3000); round++) {
		const unsigned *v = versions[round % 6];
		struct ruby_symbols sym;
		struct ruby_native ev[2];
		uint64_t called[4];
		struct memsource m;
		struct dying d;
		struct ruby *r;
		int k, flips = 1 + rand() % 24;
		size_t j;

		rb_build(im, v[0], v[1]);
		rb_symbols_of(im, &sym);
		d.img = &im->img;
		d.left = round % 7 == 0 ? rand() % 20 : 1 << 30;
		memset(&m, 0, sizeof(m));
		m.read = dying_read;
		m.ctx = &d;
		cr_assert_eq(ruby__open(&m, &sym, round % 2 == 0, t, &r), 0);
		for (k = 0; k < 3; k++) {
			int f;

			for (f = 0; f < flips; f++) {
				uint32_t off = (uint32_t)rand() % RB_SIZE;

				im->b[off] = (uint8_t)(rand() % 3 == 0 ? (unsigned)im->b[off] ^ (1u << (rand() % 8))
								  : (unsigned)rand());
			}
			if (ruby__read_stack(r, RB_TID, (uint64_t)k * 300000000ull + 1, st) != 0)
				continue;
			cr_assert_leq(st->n, RUBY_MAX_FRAMES);
			for (j = 0; j < st->n; j++)
				cr_assert_neq(st->f[j].name, 0);
			memset(ev, 0, sizeof(ev));
			for (j = 0; j < 2; j++) {
				ev[j].have_regs = true;
				ev[j].cfp = im->frame[rand() % (RB_NFRAMES + 1)];
				ev[j].pc = rb_at(O_CODE) + 8u * (uint64_t)(rand() % 256);
			}
			for (j = 0; j < 4; j++)
				called[j] = rand() % 2 ? im->times_func : (uint64_t)rand();
			ev[1].called = called;
			ev[1].ncalled = 4;
			ruby__place(st, ev, 2, k & 1, pl);
			cr_assert_leq(pl->n, st->n);
		}
		ruby__delete(r);
	}
	strtab__delete(t);
	free(pl);
	free(st);
	free(im);
}

/* Reading past the ledger's share for the second is refused (the native
 * frames stand), and the next second reads again. */
Test(ruby, reads_per_second_are_bounded)
{
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct accountant *acct = accountant__new(NULL, t);
	struct ruby_stack *st = malloc(sizeof(*st));
	struct ledger *l = NULL;
	struct ruby_symbols sym;
	struct ruby_stats s0, s1;
	struct memsource m;
	struct ruby *r = NULL;
	int i, busy = 0, rc;

	cr_assert_eq(accountant__ledger(acct, 1000, &l), 0);
	rb_build(im, 3, 1);
	rb_symbols_of(im, &sym);
	memsource__image(&m, &im->img);
	m.ledger = l;
	cr_assert_eq(ruby__open(&m, &sym, false, t, &r), 0);
	for (i = 0; i < 40000; i++) {
		rc = ruby__read_stack(r, RB_TID, 5000000000ull + (uint64_t)i, st);
		cr_assert(rc == 0 || rc == -EBUSY);
		busy += rc == -EBUSY;
	}
	ruby__stats(r, &s0);
	cr_assert_gt(busy, 0, "the share was never spent");
	cr_assert_leq(s0.reads, ACCOUNTANT_PROCESS_READS_PER_SEC + 200, "%llu reads in one second",
		      (unsigned long long)s0.reads);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 6000000001ull, st), 0);
	ruby__stats(r, &s1);
	cr_assert_gt(s1.reads, s0.reads);
	ruby__delete(r);
	ledger__delete(l);
	accountant__delete(acct);
	strtab__delete(t);
	free(st);
	free(im);
}

/* A thread started after the lists were walked is found at its first
 * sample, from the list's tail, without a whole walk (those are rationed). */
Test(ruby, a_thread_started_since_is_read_at_its_first_sample)
{
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	const uint32_t th2 = 0x3600, pt2 = 0x3700, ec2 = 0x3a00;
	uint64_t head, node1, node2;
	struct ruby *r;

	rb_build(im, 3, 1);
	head = rb_at(O_RACTOR + im->l->ractor_threads);
	node1 = rb_at(O_THREAD + im->l->thread_node);
	node2 = rb_at(th2 + im->l->thread_node);
	rb_put64(im, rb_off(head) + 8, node1);
	rb_put64(im, rb_off(node1) + 8, head);
	r = open_image(im, t, false);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 1, st), 0);
	/* a second thread, appended */
	memcpy(im->b + th2, im->b + O_THREAD, im->l->thread_head);
	rb_put64(im, th2 + (uint32_t)im->l->thread_ec, rb_at(ec2));
	memcpy(im->b + ec2, im->b + O_EC, 24);
	rb_put64(im, th2 + (uint32_t)im->l->thread_id, rb_at(pt2));
	rb_put32(im, pt2 + RB_PTHREAD_TID, RB_TID + 1);
	rb_put64(im, rb_off(node1), node2);
	rb_put64(im, rb_off(node2), head);
	rb_put64(im, rb_off(node2) + 8, node1);
	rb_put64(im, rb_off(head) + 8, node2);
	cr_assert_eq(ruby__read_stack(r, RB_TID + 1, 2, st), 0);
	cr_assert_eq(st->n, 6);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 3, st), 0);
	ruby__delete(r);
	strtab__delete(t);
	free(st);
	free(im);
}

/* A thread list built to be walked (a loop of nodes, thousands of
 * threads that are none): a walk stops at its bound, and a thread no walk
 * finds has the lists walked again rarer and rarer. */
Test(ruby, thread_lists_built_to_be_walked_cost_bounded_walks)
{
	struct ruby_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct ruby_stack *st = malloc(sizeof(*st));
	struct ruby_symbols sym;
	struct counting c;
	struct memsource m;
	struct ruby *r = NULL;
	unsigned walks_calls, i;

	rb_build(im, 3, 1);
	/* the thread's node points back to itself: a list without an end */
	rb_put64(im, O_THREAD + im->l->thread_node, rb_at(O_THREAD + im->l->thread_node));
	rb_symbols_of(im, &sym);
	memsource__image(&c.img, &im->img);
	c.calls = 0;
	memset(&m, 0, sizeof(m));
	m.read = counting_read;
	m.ctx = &c;
	cr_assert_eq(ruby__open(&m, &sym, false, t, &r), 0);
	/* the thread is found all the same, the walk ends at its bound */
	cr_assert_eq(ruby__read_stack(r, RB_TID + 1, 1, st), -ENOENT);
	walks_calls = c.calls;
	cr_assert_lt(walks_calls, 5 * (4096 + 256) + 64, "%u reads for one walk", walks_calls);
	cr_assert_eq(ruby__read_stack(r, RB_TID, 2, st), 0);
	/* a TID no thread has: ten seconds of samples walk a handful of times */
	c.calls = 0;
	for (i = 0; i < 1000; i++)
		(void)ruby__read_stack(r, RB_TID + 1, 3 + (uint64_t)i * 10000000ull, st);
	cr_assert_lt(c.calls, 10 * walks_calls, "%u reads (%u a walk)", c.calls, walks_calls);
	ruby__delete(r);
	strtab__delete(t);
	free(st);
	free(im);
}

Test(ruby, versions_and_layouts)
{
	unsigned ma = 0, mi = 0;

	cr_assert_eq(ruby_layout__parse_version("3.1.2", &ma, &mi), 0);
	cr_assert(ma == 3 && mi == 1);
	cr_assert_eq(ruby_layout__parse_version("2.0.0", &ma, &mi), 0);
	cr_assert(ma == 2 && mi == 0);
	cr_assert_eq(ruby_layout__parse_version("3.1", &ma, &mi), -EINVAL);
	cr_assert_eq(ruby_layout__parse_version("ruby 3.1.2", &ma, &mi), -EINVAL);
	cr_assert_eq(ruby_layout__parse_version(NULL, &ma, &mi), -EINVAL);
	cr_assert_not_null(ruby_layout__table(2, 0));
	cr_assert_null(ruby_layout__table(2, 3));
	cr_assert_null(ruby_layout__table(3, 4));
	cr_assert_eq(ruby_layout__table(3, 1)->cfp_size, 64);
	cr_assert_eq(ruby_layout__table(3, 3)->cfp_size, 56);
}

static int label_of(const char *cmd, size_t len, char *out)
{
	return rubycmd__main(cmd, len, out, 64);
}

#define CMD(s) s, sizeof(s) - 1

Test(ruby, command_lines_name_the_main_script)
{
	char out[64];

	cr_assert_eq(label_of(CMD("/usr/bin/ruby3.1\0/srv/app/bin/worker.rb\0--fast\0"), out), 9);
	cr_assert_str_eq(out, "worker.rb");
	cr_assert_gt(label_of(CMD("ruby\0-I\0lib\0-r\0json\0-w\0app.rb\0"), out), 0);
	cr_assert_str_eq(out, "app.rb");
	cr_assert_gt(label_of(CMD("ruby\0--\0-odd.rb\0"), out), 0);
	cr_assert_str_eq(out, "-odd.rb");
	cr_assert_eq(label_of(CMD("ruby\0-e\0puts 1\0"), out), -ENOENT);
	cr_assert_eq(label_of(CMD("ruby\0-eputs 1\0"), out), -ENOENT);
	cr_assert_eq(label_of(CMD("ruby\0-\0"), out), -ENOENT);
	cr_assert_eq(label_of(CMD("ruby\0"), out), -ENOENT);
	/* titles a process set itself, master and workers one service */
	cr_assert_gt(label_of(CMD("puma: cluster worker 0: 1234 [shop]\0\0\0"), out), 0);
	cr_assert_str_eq(out, "puma [shop]");
	cr_assert_gt(label_of(CMD("puma 5.6.4 (tcp://0.0.0.0:3000) [shop]"), out), 0);
	cr_assert_str_eq(out, "puma [shop]");
	cr_assert_gt(label_of(CMD("unicorn worker[2] -c config/unicorn.rb -E production\0"), out), 0);
	cr_assert_str_eq(out, "unicorn");
	/* a server's script run by its #! line, before it sets a title */
	cr_assert_gt(label_of(CMD("/srv/shop/bin/puma\0-C\0config/puma.rb\0"), out), 0);
	cr_assert_str_eq(out, "puma");
	/* a cut command line names nothing from its last argument */
	cr_assert_eq(label_of("ruby\0app", 8, out), -ENOENT);
}

static int find_vm_exec(void *arg, const GElf_Sym *sym, const char *name)
{
	if (strcmp(name, "rb_vm_exec") != 0)
		return 0;
	*(uint64_t *)arg = sym->st_value;
	return 1;
}

/* Debian's libruby, when installed: recognised from its exports, its
 * instruction loop found without a symbol table, the version read. */
Test(ruby, recognises_an_installed_libruby)
{
	static const char *const paths[] = { "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1",
					     "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2" };
	struct runtime_file f;
	void *data = NULL;
	Elf *elf;
	size_t i;
	int fd = -1;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && fd < 0; i++)
		fd = open(paths[i], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		cr_skip_test("no libruby 3.1 installed");
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	f.elf = elf;
	f.path = paths[0];
	cr_assert_eq(runtime_ruby.recognise(&f, &data), 1);
	{
		struct unwind_module mod;
		uint64_t v, lo = 0, hi = 0, exec = 0;

		elf_symbols__each(elf, SHT_DYNSYM, find_vm_exec, &exec);
		cr_assert_neq(exec, 0);
		/* the code whose frames keep registers: one function of some
		 * kilobytes near rb_vm_exec, which is not it */
		for (v = exec > (1u << 20) ? exec - (1u << 20) : 0; v < exec + (1u << 20); v += 4) {
			memset(&mod, 0, sizeof(mod));
			runtime_ruby.describe_file(data, v, &mod);
			if (mod.keep_regs && !lo)
				lo = v;
			if (mod.keep_regs)
				hi = v;
		}
		cr_assert_gt(hi - lo, 4096, "vm_exec_core not found");
		cr_assert_lt(hi - lo, 256u << 10);
		cr_assert(exec < lo || exec > hi);
	}
	runtime_ruby.free_data(data);
	elf_end(elf);
	close(fd);
}
