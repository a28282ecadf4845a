/* runtimes/gojoin, gobinary: a sample that ended at runtime.systemstack on
 * a thread's g0 stack joined to the goroutine it worked for, on a memory
 * image of a Go 1.20 process (the synthetic table of gopclntab_image.h):
 * the goroutine's frames to runtime.goexit, named from the table, spliced
 * as the sample's root; and every check that refuses a join the sample
 * does not prove, and damaged images that must not crash it. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "gopclntab_image.h"
#include "runtimes/gobinary.h"
#include "runtimes/gojoin.h"
#include "runtimes/memsource.h"
#include "tests/unit/rounds.h"

/* The process: g0, its m and the goroutine (one region), the goroutine's
 * stack (another), the g0 stack the sample copied (a third, also in the
 * process). Go 1.20's layout: g.m 48, g.sched 56, gobuf.bp 48, m.curg 192. */
#define G0 0x20000ull
#define M 0x20400ull
#define CURG 0x20800ull
#define GSTACK 0x40000ull
#define GSTACK_HI 0x42000ull
#define SCHED_SP 0x41f00ull
#define SCHED_BP 0x41f18ull /* main.worker's frame pointer */
#define G0STACK 0x30000ull
#define G0STACK_HI 0x38000ull
#define SAMPLE_SP 0x30f00ull
#define TAG 3

struct proc {
	struct goimg img;
	struct gobinary *g;
	uint8_t gs[0xc00];          /* G0 .. CURG + 0x400 */
	uint8_t stack[GSTACK_HI - GSTACK];
	uint8_t copy[0x100];        /* the sample's copy of the g0 stack */
	struct memimage_region regions[2];
	struct memimage mi;
	struct memsource mem;
	struct strtab *names;
	struct unwind_frame frames[2];
	struct unwind_regs regs;
	struct unwind_stack ustack;
	struct runtime_sample s;
	struct gojoin_process p;
	struct gojoin *j;
	uint8_t code[GOIMG_END - GOIMG_TEXT];
	uint64_t chain[8];
};

static void put(uint8_t *b, uint64_t at, uint64_t v)
{
	memcpy(b + at, &v, 8);
}

static void put32(uint8_t *b, uint64_t at, uint32_t v)
{
	memcpy(b + at, &v, 4);
}

/* The kernel's frame-pointer walk of the sample: the leaf, the switch
 * frame's return address, then the goroutine's (main.worker's into
 * runtime.goexit), then whatever the last frame pointer led to. */
static void with_chain(struct proc *x, bool to_goexit)
{
	size_t n = 0;

	x->chain[n++] = 0x10a4;
	x->chain[n++] = 0x1080;
	x->chain[n++] = 0x1040;
	if (to_goexit)
		x->chain[n++] = 0x1011;
	x->chain[n++] = 0x7777;
	x->s.user_chain = x->chain;
	x->s.user_chain_nr = n;
}

static void setup(struct proc *x)
{
	struct goversion v = { 1, 20 };
	struct gopclntab *t;

	memset(x, 0, sizeof(*x));
	goimg_build(&x->img, GOPCLNTAB_MAGIC_120);
	cr_assert_eq(gopclntab__open(&x->img.src, &t), 0);
	cr_assert_eq(gobinary__from_table(t, &v, &x->g), 0);
	cr_assert(x->g->joins);
	/* g0: its stack, its m */
	put(x->gs, G0 - G0 + 0, G0STACK);
	put(x->gs, G0 - G0 + 8, G0STACK_HI);
	put(x->gs, G0 - G0 + 48, M);
	/* m: g0, curg */
	put(x->gs, M - G0 + 0, G0);
	put(x->gs, M - G0 + 192, CURG);
	/* the goroutine, switched out by systemstack: sched.pc is
	 * systemstack_switch, sched.sp where systemstack was called */
	put(x->gs, CURG - G0 + 0, GSTACK);
	put(x->gs, CURG - G0 + 8, GSTACK_HI);
	put(x->gs, CURG - G0 + 48, M);
	put(x->gs, CURG - G0 + 56 + 0, SCHED_SP);
	put(x->gs, CURG - G0 + 56 + 8, 0x1060);
	put(x->gs, CURG - G0 + 56 + 48, SCHED_BP);
	/* its stack: the return address into main.worker (delta 24 there),
	 * worker's saved rbp, its return address into runtime.goexit */
	put(x->stack, SCHED_SP - GSTACK, 0x1040);
	put(x->stack, SCHED_BP - GSTACK, 0x41f80);
	put(x->stack, SCHED_BP + 8 - GSTACK, 0x1010);
	x->regions[0] = (struct memimage_region){ G0, x->gs, sizeof(x->gs) };
	x->regions[1] = (struct memimage_region){ GSTACK, x->stack, sizeof(x->stack) };
	x->mi.regions = x->regions;
	x->mi.n = 2;
	memsource__image(&x->mem, &x->mi);
	x->names = strtab__new();
	cr_assert_not_null(x->names);
	/* the sample: main.leaf on g0, called by systemstack's call of fn;
	 * the first g0 frame saved the goroutine's rbp below the switch
	 * frame's sp */
	put(x->copy, 0, SCHED_BP);
	x->frames[0].pc = 0x10a4;
	x->frames[0].vaddr = 0x10a4;
	x->frames[0].sp = SAMPLE_SP;
	x->frames[0].exact = true;
	x->frames[0].runtime = TAG;
	x->frames[1].pc = 0x1080;
	x->frames[1].vaddr = 0x107f;
	x->frames[1].sp = SAMPLE_SP + 0x10;
	x->frames[1].runtime = TAG;
	x->frames[1].keeps = true;
	x->regs.val[UNWIND_REG_IP] = 0x10a4;
	x->regs.val[UNWIND_REG_SP] = SAMPLE_SP;
	x->regs.val[14] = G0;
	x->regs.valid = (1u << UNWIND_REG_IP) | (1u << UNWIND_REG_SP) | (1u << 14);
	x->ustack.base = SAMPLE_SP;
	x->ustack.data = x->copy;
	x->ustack.size = sizeof(x->copy);
	x->s.tag = TAG;
	x->s.regs = &x->regs;
	x->s.stack = &x->ustack;
	x->s.frames = x->frames;
	x->s.nframes = 2;
	x->s.rooted = true;
	/* main.worker's call before 0x1040 is a direct call of main.leaf */
	x->code[0x103b - GOIMG_TEXT] = 0xe8;
	put32(x->code, 0x103c - GOIMG_TEXT, 0x10a0 - 0x1040);
	x->g->code = x->code;
	x->g->code_vaddr = GOIMG_TEXT;
	x->g->code_size = sizeof(x->code);
	x->p.g = x->g;
	x->p.bias = 0;
	x->p.mem = &x->mem;
	x->p.names = x->names;
	cr_assert_eq(gojoin__new(&x->j), 0);
}

static void teardown(struct proc *x)
{
	gojoin__delete(x->j);
	gobinary__delete(x->g);
	strtab__delete(x->names);
}

static int join(struct proc *x, struct runtime_stack *out)
{
	memset(out, 0, sizeof(*out));
	return gojoin__read(x->j, &x->p, &x->s, out);
}

Test(gojoin, the_goroutine_is_the_root_of_the_sample)
{
	struct proc x;
	struct runtime_stack out;
	struct gojoin_stats st;

	setup(&x);
	cr_assert_eq(join(&x, &out), 0);
	cr_assert_eq(out.nsplices, 1);
	cr_assert_eq(out.at[0].frame, 2, "older than every native frame");
	cr_assert_eq(out.at[0].count, 2);
	/* outermost first; systemstack_switch stands for the switch frame */
	cr_assert_str_eq(strtab__str(x.names, out.ids[out.at[0].first]), "runtime.goexit");
	cr_assert_str_eq(strtab__str(x.names, out.ids[out.at[0].first + 1]), "main.worker");
	cr_assert_eq(out.confirmed, 1);
	gojoin__stats(x.j, &st);
	cr_assert_eq(st.joined, 1);
	teardown(&x);
}

Test(gojoin, the_kernels_walk_at_the_sample_joins_without_a_read)
{
	struct proc x;
	struct runtime_stack out;
	struct gojoin_stats st;

	setup(&x);
	with_chain(&x, true);
	/* nothing of the process is read: even a goroutine that ran on */
	put(x.gs, CURG - G0 + 56, 0);
	x.mem.reads = 0;
	cr_assert_eq(join(&x, &out), 0);
	cr_assert_eq(x.mem.reads, 0);
	cr_assert_eq(out.at[0].count, 3);
	cr_assert_str_eq(strtab__str(x.names, out.ids[0]), "runtime.goexit");
	cr_assert_str_eq(strtab__str(x.names, out.ids[1]), "main.worker");
	/* the caller of the switch: the callee of worker's direct call */
	cr_assert_str_eq(strtab__str(x.names, out.ids[2]), "main.leaf");
	gojoin__stats(x.j, &st);
	cr_assert_eq(st.chained, 1);
	teardown(&x);
}

Test(gojoin, a_walk_cut_short_is_under_truncated_and_an_indirect_call_names_nothing)
{
	struct proc x;
	struct runtime_stack out;

	setup(&x);
	with_chain(&x, false);
	x.code[0x103b - GOIMG_TEXT] = 0xff; /* call *%rax */
	cr_assert_eq(join(&x, &out), 0);
	cr_assert_eq(out.at[0].count, 2);
	cr_assert_str_eq(strtab__str(x.names, out.ids[0]), "[truncated]");
	cr_assert_str_eq(strtab__str(x.names, out.ids[1]), "main.worker");
	teardown(&x);
}

Test(gojoin, a_walk_that_never_left_g0_falls_back_to_the_read)
{
	struct proc x;
	struct runtime_stack out;
	struct gojoin_stats st;

	setup(&x);
	with_chain(&x, true);
	x.chain[1] = 0x1234; /* the switch frame's return address is not there */
	cr_assert_eq(join(&x, &out), 0);
	cr_assert_eq(out.at[0].count, 2, "goexit and worker, from the read");
	gojoin__stats(x.j, &st);
	cr_assert_eq(st.chained, 0);
	cr_assert_eq(st.joined, 1);
	teardown(&x);
}

Test(gojoin, a_goroutine_the_sample_does_not_prove_is_not_joined)
{
	struct proc x;
	struct runtime_stack out;
	struct gojoin_stats st;

	setup(&x);
	/* the goroutine's rbp is not what the first g0 frame saved: another
	 * switch than the sample's */
	put(x.copy, 0, SCHED_BP + 0x40);
	cr_assert_eq(join(&x, &out), -ESTALE);
	cr_assert_eq(out.nsplices, 0);
	cr_assert_eq(out.nids, 0);
	gojoin__stats(x.j, &st);
	cr_assert_eq(st.unproven, 1);
	teardown(&x);
}

Test(gojoin, a_goroutine_that_runs_again_is_not_joined)
{
	struct proc x;
	struct runtime_stack out;

	setup(&x);
	put(x.gs, CURG - G0 + 56, 0); /* sched.sp cleared: it resumed */
	cr_assert_eq(join(&x, &out), -ENOENT);
	cr_assert_eq(out.nsplices, 0);
	teardown(&x);
}

Test(gojoin, no_goroutine_no_join)
{
	struct proc x;
	struct runtime_stack out;

	setup(&x);
	put(x.gs, M - G0 + 192, 0); /* the scheduler's own work */
	cr_assert_eq(join(&x, &out), -ENOENT);
	teardown(&x);
}

Test(gojoin, the_g_register_must_be_the_threads_g0)
{
	struct proc x;
	struct runtime_stack out;

	setup(&x);
	x.regs.val[UNWIND_REG_SP] = G0STACK_HI + 0x100; /* not on that g0's stack */
	cr_assert_eq(join(&x, &out), -EPROTO);
	x.regs.val[UNWIND_REG_SP] = SAMPLE_SP;
	put(x.gs, M - G0, CURG); /* its m's g0 is another g */
	cr_assert_eq(join(&x, &out), -EPROTO);
	put(x.gs, M - G0, G0);
	x.regs.valid &= ~(1u << 14); /* no r14 in the sample */
	cr_assert_eq(join(&x, &out), -EPROTO);
	cr_assert_eq(out.nsplices, 0);
	teardown(&x);
}

Test(gojoin, only_stacks_that_end_at_a_switch)
{
	struct proc x;
	struct runtime_stack out;

	setup(&x);
	x.frames[1].vaddr = 0x1030; /* main.worker: not a switch */
	cr_assert_eq(join(&x, &out), -ENOENT);
	x.frames[1].vaddr = 0x107f;
	x.s.rooted = false;
	cr_assert_eq(join(&x, &out), -ENOENT);
	teardown(&x);
}

Test(gojoin, a_goroutine_cut_short_is_under_truncated)
{
	struct proc x;
	struct runtime_stack out;

	setup(&x);
	put(x.stack, SCHED_BP + 8 - GSTACK, 0x1030); /* worker called by worker ... */
	put(x.stack, SCHED_BP + 8 + 8 + 24 - GSTACK, 0x7777); /* ... called from nowhere */
	cr_assert_eq(join(&x, &out), 0);
	cr_assert_str_eq(strtab__str(x.names, out.ids[out.at[0].first]), "[truncated]");
	teardown(&x);
}

Test(gojoin, damaged_images_do_not_crash_it)
{
	unsigned seed = 17;
	int round;

	for (round = 0; round < test_rounds(4000); round++) {
		struct proc x;
		struct runtime_stack out;
		int k;

		setup(&x);
		for (k = 0; k < 1 + round % 6; k++) {
			seed = seed * 1103515245u + 12345u;
			if (seed & 0x100)
				x.gs[(seed >> 9) % sizeof(x.gs)] ^= (uint8_t)(seed >> 20);
			else
				x.stack[sizeof(x.stack) - 0x200 + (seed >> 9) % 0x200] ^= (uint8_t)(seed >> 20);
		}
		if (round & 1) {
			with_chain(&x, round & 2);
			x.chain[2 + (seed >> 3) % 3] ^= seed >> 7;
		}
		(void)join(&x, &out);
		cr_assert_leq(out.nids, RUNTIME_MAX_IDS);
		teardown(&x);
	}
}

Test(gobinary, frames_sized_by_the_table_where_there_is_no_cfi)
{
	struct proc x;
	struct unwind_module m;

	setup(&x);
	memset(&m, 0, sizeof(m));
	gobinary__describe(x.g, 0x1040, &m);
	cr_assert_eq(m.code, UNWIND_CODE_SIZED);
	cr_assert_eq(m.frame_bytes, 32, "24 bytes pushed and the return address");
	cr_assert_eq(m.frame_complete, 0);
	cr_assert_eq(m.nroots, 2, "runtime.goexit and runtime.systemstack");
	memset(&m, 0, sizeof(m));
	gobinary__describe(x.g, 0x1021, &m);
	cr_assert_eq(m.frame_bytes, 8, "in the prologue: nothing pushed yet");
	memset(&m, 0, sizeof(m));
	gobinary__describe(x.g, 0x1080, &m);
	cr_assert(m.keep_regs, "a switch keeps its registers for the join");
	memset(&m, 0, sizeof(m));
	m.cfi = (struct cfi *)&m; /* a binary with CFI: the CFI steps */
	gobinary__describe(x.g, 0x1040, &m);
	cr_assert_eq(m.code, UNWIND_CODE_NATIVE);
	cr_assert_eq(m.nroots, 2);
	memset(&m, 0, sizeof(m));
	gobinary__describe(x.g, 0x2000, &m);
	cr_assert_eq(m.code, UNWIND_CODE_NATIVE, "no Go function there");
	teardown(&x);
}

Test(gobinary, a_function_that_writes_sp_ends_the_stack)
{
	struct goversion v = { 1, 20 };
	struct gopclntab *t;
	struct gobinary *g;
	struct goimg img;
	struct unwind_module m;

	goimg_build(&img, GOPCLNTAB_MAGIC_120);
	img.table[img.func_at[1] + 41] = GOPCLNTAB_FLAG_SPWRITE; /* main.worker */
	img.table[img.func_at[3] + 41] = GOPCLNTAB_FLAG_SPWRITE; /* runtime.systemstack */
	cr_assert_eq(gopclntab__open(&img.src, &t), 0);
	cr_assert_eq(gobinary__from_table(t, &v, &g), 0);
	memset(&m, 0, sizeof(m));
	m.cfi = (struct cfi *)&m; /* its CFI is made from the same deltas */
	gobinary__describe(g, 0x1040, &m);
	cr_assert_eq(m.code, UNWIND_CODE_SIZED);
	cr_assert_eq(m.frame_bytes, 0, "no size: the unwinder ends the stack, cut");
	cr_assert_null(m.cfi);
	/* a switch writes sp too, and is stepped by its deltas as a leaf */
	memset(&m, 0, sizeof(m));
	gobinary__describe(g, 0x1075, &m);
	cr_assert_eq(m.frame_bytes, 8);
	gobinary__delete(g);
}
