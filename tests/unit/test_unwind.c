/* Unit tests for unwind/: register mapping, DWARF expressions, and real unwinds of this process. */
#include "config.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/cfi.h"
#include "unwind/dwarf_expr.h"
#include "unwind/regs.h"
#include "unwind/stackmem.h"
#include "unwind/unwind.h"

#include "stack_capture.h"

/* ---------- registers ---------- */

Test(unwind_regs, perf_mask_and_mapping)
{
	uint64_t mask = unwind__perf_regs_mask();
	uint64_t vals[17];
	struct unwind_regs r;
	size_t i;

	/* AX..IP (0..8) and R8..R15 (16..23), no flags or segments */
	cr_assert_eq(mask, 0xff01ffull);
	for (i = 0; i < 17; i++)
		vals[i] = 100 + i;
	cr_assert_eq(unwind_regs__from_perf(&r, mask, vals, 17), 0);
	cr_assert_eq(r.val[0], 100);  /* rax <- AX */
	cr_assert_eq(r.val[3], 101);  /* rbx <- BX */
	cr_assert_eq(r.val[2], 102);  /* rcx <- CX */
	cr_assert_eq(r.val[1], 103);  /* rdx <- DX */
	cr_assert_eq(r.val[6], 106);  /* rbp */
	cr_assert_eq(r.val[7], 107);  /* rsp */
	cr_assert_eq(r.val[16], 108); /* rip */
	cr_assert_eq(r.val[8], 109);  /* r8 is perf bit 16, the 10th value */
	cr_assert_eq(r.val[15], 116);
	cr_assert_eq(r.valid, 0x1ffffu);

	/* a mask without bp: bp stays invalid */
	cr_assert_eq(unwind_regs__from_perf(&r, (1u << 7) | (1u << 8), vals, 2), 0);
	cr_assert_eq(r.valid, (1u << 7) | (1u << 16));
	cr_assert_eq(r.val[16], 101);
	memset(&r, 0xab, sizeof(r));
	cr_assert_eq(unwind_regs__from_perf(&r, mask, vals, 16), -EINVAL);
	cr_assert_eq(r.valid, 0xababababu, "output touched on failure");
}

Test(unwind_regs, stop_names)
{
	cr_assert_str_eq(unwind__stop_name(UNWIND_COMPLETE), "complete");
	cr_assert_str_eq(unwind__stop_name(UNWIND_TRUNCATED), "truncated");
	cr_assert_str_eq(unwind__stop_name(UNWIND_NSTOP), "unknown");
}

/* ---------- DWARF expressions ---------- */

#define OP(a) { .atom = (a) }
#define OPN(a, n) { .atom = (a), .number = (Dwarf_Word)(n) }

static int eval(const Dwarf_Op *ops, size_t n, const struct unwind_regs *regs,
		const struct unwind_stack *st, uint64_t *out)
{
	struct dwarf_expr_ctx ctx = { regs, st, 0x5000, true };

	return dwarf_expr__eval(ops, n, &ctx, out);
}

Test(dwarf_expr, plt_cfa_expression)
{
	/* the x86-64 .plt CFA: rsp + 8 + ((rip & 15) >= 11) << 3 */
	Dwarf_Op plt[] = {
		OPN(DW_OP_breg7, 8), OPN(DW_OP_breg16, 0), OP(DW_OP_lit15), OP(DW_OP_and),
		OP(DW_OP_lit11), OP(DW_OP_ge), OP(DW_OP_lit3), OP(DW_OP_shl), OP(DW_OP_plus),
	};
	struct unwind_regs r;
	uint64_t v = 0;

	memset(&r, 0, sizeof(r));
	r.valid = (1u << 7) | (1u << 16);
	r.val[7] = 0x7ffc1000;
	r.val[16] = 0x401026; /* before the push in the PLT entry */
	cr_assert_eq(eval(plt, 9, &r, NULL, &v), 0);
	cr_assert_eq(v, 0x7ffc1008);
	r.val[16] = 0x40102b; /* after the push */
	cr_assert_eq(eval(plt, 9, &r, NULL, &v), 0);
	cr_assert_eq(v, 0x7ffc1010);
	/* rip unknown: no guessing */
	r.valid = 1u << 7;
	cr_assert_eq(eval(plt, 9, &r, NULL, &v), -EINVAL);
}

Test(dwarf_expr, arithmetic_constants_and_stack_ops)
{
	Dwarf_Op a[] = { OPN(DW_OP_const1s, -3), OPN(DW_OP_const2u, 10), OP(DW_OP_mul) };
	Dwarf_Op b[] = { OPN(DW_OP_consts, -64), OPN(DW_OP_lit2, 0), OP(DW_OP_shra) };
	Dwarf_Op c[] = { OP(DW_OP_lit1), OP(DW_OP_lit2), OP(DW_OP_lit3), OPN(DW_OP_pick, 2),
			 OP(DW_OP_swap), OP(DW_OP_minus), OP(DW_OP_over), OP(DW_OP_plus),
			 OP(DW_OP_drop), OP(DW_OP_dup), OP(DW_OP_xor), OP(DW_OP_not) };
	Dwarf_Op d[] = { OPN(DW_OP_constu, 5), OPN(DW_OP_plus_uconst, 7), OP(DW_OP_neg),
			 OPN(DW_OP_const4s, -12), OP(DW_OP_eq) };
	Dwarf_Op e[] = { OP(DW_OP_call_frame_cfa), OPN(DW_OP_const8u, 0x10), OP(DW_OP_or),
			 OP(DW_OP_stack_value) };
	Dwarf_Op f[] = { { .atom = DW_OP_bregx, .number = 6, .number2 = (Dwarf_Word)-16 } };
	struct unwind_regs r;
	uint64_t v = 0;

	memset(&r, 0, sizeof(r));
	r.valid = 1u << 6;
	r.val[6] = 0x1000;
	cr_assert_eq(eval(a, 3, &r, NULL, &v), 0);
	cr_assert_eq((int64_t)v, -30);
	cr_assert_eq(eval(b, 3, &r, NULL, &v), 0);
	cr_assert_eq((int64_t)v, -16);
	/* 1 2 3 -> pick2: 1 2 3 1 -> swap: 1 2 1 3 -> minus: 1 2 -2 -> over: 1 2 -2 2
	 * -> plus: 1 2 0 -> drop: 1 2 -> dup: 1 2 2 -> xor: 1 0 -> not: 1 ~0 */
	cr_assert_eq(eval(c, 12, &r, NULL, &v), 0);
	cr_assert_eq(v, ~(uint64_t)0);
	cr_assert_eq(eval(d, 5, &r, NULL, &v), 0);
	cr_assert_eq(v, 1);
	cr_assert_eq(eval(e, 4, &r, NULL, &v), 0);
	cr_assert_eq(v, 0x5010);
	cr_assert_eq(eval(f, 1, &r, NULL, &v), 0);
	cr_assert_eq(v, 0xff0);
}

Test(dwarf_expr, deref_reads_only_the_copy)
{
	uint64_t words[4] = { 0x1111, 0x2222, 0x3333, 0x4444 };
	struct unwind_stack st = { 0x7000, (const uint8_t *)words, sizeof(words), NULL };
	Dwarf_Op in[] = { OPN(DW_OP_breg7, 16), OP(DW_OP_deref) };
	Dwarf_Op edge[] = { OPN(DW_OP_breg7, 25), OP(DW_OP_deref) };
	Dwarf_Op below[] = { OPN(DW_OP_breg7, -8), OP(DW_OP_deref) };
	Dwarf_Op small[] = { OPN(DW_OP_breg7, 8), OPN(DW_OP_deref_size, 2) };
	struct unwind_regs r;
	uint64_t v = 0;

	memset(&r, 0, sizeof(r));
	r.valid = 1u << 7;
	r.val[7] = 0x7000;
	cr_assert_eq(eval(in, 2, &r, &st, &v), 0);
	cr_assert_eq(v, 0x3333);
	cr_assert_eq(eval(small, 2, &r, &st, &v), 0);
	cr_assert_eq(v, 0x2222);
	v = 77;
	cr_assert_eq(eval(edge, 2, &r, &st, &v), -EFAULT);
	cr_assert_eq(eval(below, 2, &r, &st, &v), -EFAULT);
	cr_assert_eq(v, 77, "output touched on failure");
}

Test(dwarf_expr, branches_and_errors)
{
	/* lit0; bra +1 (not taken); lit5; skip +1; lit7; (end) -> 5 */
	Dwarf_Op br[] = {
		{ .atom = DW_OP_lit0, .offset = 0 },
		{ .atom = DW_OP_bra, .number = 1, .offset = 1 },
		{ .atom = DW_OP_lit5, .offset = 4 },
		{ .atom = DW_OP_skip, .number = 1, .offset = 5 },
		{ .atom = DW_OP_lit7, .offset = 8 },
	};
	/* skip -3: jumps to itself forever */
	Dwarf_Op loop[] = { { .atom = DW_OP_skip, .number = (Dwarf_Word)-3, .offset = 0 } };
	Dwarf_Op unknown[] = { OP(DW_OP_lit1), OP(DW_OP_push_object_address) };
	Dwarf_Op underflow[] = { OP(DW_OP_lit1), OP(DW_OP_plus) };
	Dwarf_Op divzero[] = { OP(DW_OP_lit1), OP(DW_OP_lit0), OP(DW_OP_div) };
	Dwarf_Op deep[DWARF_EXPR_MAX_STACK + 1];
	struct unwind_regs r;
	uint64_t v = 0;
	size_t i;

	memset(&r, 0, sizeof(r));
	cr_assert_eq(eval(br, 5, &r, NULL, &v), 0);
	cr_assert_eq(v, 5);
	br[0].atom = DW_OP_lit1; /* bra taken: jumps over lit5 to skip */
	cr_assert_eq(eval(br, 5, &r, NULL, &v), -EINVAL, "skip to the end leaves nothing");
	cr_assert_eq(eval(loop, 1, &r, NULL, &v), -EINVAL);
	cr_assert_eq(eval(unknown, 2, &r, NULL, &v), -ENOTSUP);
	cr_assert_eq(eval(underflow, 2, &r, NULL, &v), -EINVAL);
	cr_assert_eq(eval(divzero, 3, &r, NULL, &v), -EINVAL);
	for (i = 0; i < DWARF_EXPR_MAX_STACK + 1; i++)
		deep[i] = (Dwarf_Op)OP(DW_OP_lit1);
	cr_assert_eq(eval(deep, DWARF_EXPR_MAX_STACK + 1, &r, NULL, &v), -EINVAL);
	cr_assert_eq(eval(deep, DWARF_EXPR_MAX_STACK, &r, NULL, &v), 0);
}

/* ---------- frame-pointer walks over a synthetic stack ---------- */

#define FAKE_BASE 0x7ffd0000ull
static int fake_owner;

static int fake_find(void *ctx, uint64_t pc, struct unwind_module *out)
{
	(void)ctx;
	if (pc < 0x400000 || pc >= 0x500000)
		return -ENOENT;
	out->cfi = NULL;
	out->bias = 0x400000;
	out->owner = &fake_owner;
	return 0;
}

static void fake_stack(uint64_t *w, struct unwind_regs *r)
{
	memset(w, 0, 32 * 8);
	/* frame of pc0: rbp = base+0x20 -> saved rbp base+0x60, ra 0x401234 */
	w[0x20 / 8] = FAKE_BASE + 0x60;
	w[0x28 / 8] = 0x401234;
	/* outermost: saved rbp 0 (as _start leaves it), ra 0x401500 */
	w[0x60 / 8] = 0;
	w[0x68 / 8] = 0x401500;
	memset(r, 0, sizeof(*r));
	r->val[UNWIND_REG_IP] = 0x401100;
	r->val[UNWIND_REG_SP] = FAKE_BASE;
	r->val[UNWIND_REG_BP] = FAKE_BASE + 0x20;
	r->valid = (1u << UNWIND_REG_IP) | (1u << UNWIND_REG_SP) | (1u << UNWIND_REG_BP);
}

Test(unwind_fp, synthetic_chain)
{
	uint64_t w[32];
	struct unwind_stack st = { FAKE_BASE, (const uint8_t *)w, sizeof(w), NULL };
	struct unwind_regs r;
	struct unwind_frame f[8];
	enum unwind_stop stop;
	size_t n;

	fake_stack(w, &r);
	cr_assert_eq(unwind__fp(&r, &st, fake_find, NULL, f, 8, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_COMPLETE, "stop %s", unwind__stop_name(stop));
	cr_assert_eq(n, 3);
	cr_assert_eq(f[0].pc, 0x401100);
	cr_assert_eq(f[0].vaddr, 0x1100, "the sampled ip is looked up as is");
	cr_assert_eq(f[1].pc, 0x401234);
	cr_assert_eq(f[1].vaddr, 0x1233, "return addresses are looked up at pc - 1");
	cr_assert_eq(f[2].pc, 0x401500);
	cr_assert_eq(f[2].owner, &fake_owner);

	/* depth limit */
	cr_assert_eq(unwind__fp(&r, &st, fake_find, NULL, f, 2, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_DEPTH);
	cr_assert_eq(n, 2);

	/* the same stack through the DWARF unwinder: no CFI anywhere, so one
	 * frame-pointer step per frame, until rbp is no longer usable */
	cr_assert_eq(unwind__dwarf(&r, &st, fake_find, NULL, f, 8, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_NO_CFI, "stop %s", unwind__stop_name(stop));
	cr_assert_eq(n, 3);
	cr_assert_eq(f[2].pc, 0x401500);

	/* a return address outside every mapping: frame kept, owner NULL */
	w[0x28 / 8] = 0x900000;
	cr_assert_eq(unwind__fp(&r, &st, fake_find, NULL, f, 8, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_NO_MAP);
	cr_assert_eq(n, 2);
	cr_assert_null(f[1].owner);
	cr_assert_eq(f[1].vaddr, 0);
	cr_assert_eq(unwind__dwarf(&r, &st, fake_find, NULL, f, 8, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_NO_MAP);
	cr_assert_eq(n, 2);

	/* a chain leaving the copy */
	fake_stack(w, &r);
	w[0x20 / 8] = FAKE_BASE + 0x400;
	cr_assert_eq(unwind__fp(&r, &st, fake_find, NULL, f, 8, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_TRUNCATED);
	cr_assert_eq(n, 2);

	/* a chain going down the stack is garbage */
	fake_stack(w, &r);
	w[0x60 / 8] = FAKE_BASE + 0x10;
	cr_assert_eq(unwind__fp(&r, &st, fake_find, NULL, f, 8, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_BAD_PC);

	/* no ip: unusable input, outputs untouched */
	r.valid = 1u << UNWIND_REG_SP;
	n = 99;
	cr_assert_eq(unwind__dwarf(&r, &st, fake_find, NULL, f, 8, &n, &stop), -EINVAL);
	cr_assert_eq(n, 99);
}

/* fake_find, with the entry point (ELF vaddr) *ctx */
static int fake_find_entry(void *ctx, uint64_t pc, struct unwind_module *out)
{
	int rc = fake_find(NULL, pc, out);

	if (rc == 0)
		out->entry = *(const uint64_t *)ctx;
	return rc;
}

/* ld.so's entry stub (_start, _dl_start_user) has no CFI: a return address
 * into it, or an ip in it, ends the stack as complete, named from the entry
 * point. Regressing this puts "no CFI" roots under every starting program. */
Test(unwind_dwarf, entry_stub_without_cfi_is_outermost)
{
	uint64_t w[32], entry;
	struct unwind_stack st = { FAKE_BASE, (const uint8_t *)w, sizeof(w), NULL };
	struct unwind_regs r;
	struct unwind_frame f[8];
	enum unwind_stop stop;
	size_t n;

	/* the outermost return address 0x401500 is looked up at 0x14ff */
	fake_stack(w, &r);
	entry = 0x14f0;
	cr_assert_eq(unwind__dwarf(&r, &st, fake_find_entry, &entry, f, 8, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_COMPLETE, "stop %s", unwind__stop_name(stop));
	cr_assert_eq(n, 3);
	cr_assert_eq(f[2].pc, 0x401500);
	cr_assert_eq(f[2].func_start, 0x14f0);
	cr_assert_eq(f[1].func_start, 0, "only the entry stub is named from the entry");

	/* sampled in the stub itself */
	r.val[UNWIND_REG_IP] = 0x400000 + entry;
	cr_assert_eq(unwind__dwarf(&r, &st, fake_find_entry, &entry, f, 8, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_COMPLETE);
	cr_assert_eq(n, 1);
	cr_assert_eq(f[0].func_start, entry);

	/* beyond the span, or before the entry: code without CFI as before */
	fake_stack(w, &r);
	entry = 0x14ff - UNWIND_ENTRY_SPAN;
	cr_assert_eq(unwind__dwarf(&r, &st, fake_find_entry, &entry, f, 8, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_NO_CFI, "stop %s", unwind__stop_name(stop));
	cr_assert_eq(n, 3);
	entry = 0x1500;
	cr_assert_eq(unwind__dwarf(&r, &st, fake_find_entry, &entry, f, 8, &n, &stop), 0);
	cr_assert_eq(stop, UNWIND_NO_CFI, "stop %s", unwind__stop_name(stop));
}

/* ---------- real unwinds of this process ---------- */

struct tmod {
	char path[PATH_MAX];
	uint64_t bias;
	uint64_t lo[8], hi[8];
	int nseg;
	int fd;
	Elf *elf;
	struct cfi *cfi;
	bool tried;
};

static struct tmod mods[64];
static int nmods;

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct tmod *m;
	int i;

	(void)size;
	(void)data;
	if (nmods == 64)
		return 1;
	m = &mods[nmods];
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->bias = info->dlpi_addr;
	snprintf(m->path, sizeof(m->path), "%s",
		 info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe");
	for (i = 0; i < info->dlpi_phnum && m->nseg < 8; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		m->lo[m->nseg] = info->dlpi_addr + ph->p_vaddr;
		m->hi[m->nseg] = m->lo[m->nseg] + ph->p_memsz;
		m->nseg++;
	}
	nmods++;
	return 0;
}

static struct tmod *mod_of(uint64_t pc)
{
	int i, s;

	if (nmods == 0) {
		elf_version(EV_CURRENT);
		dl_iterate_phdr(collect, NULL);
	}
	for (i = 0; i < nmods; i++)
		for (s = 0; s < mods[i].nseg; s++)
			if (pc >= mods[i].lo[s] && pc < mods[i].hi[s])
				return &mods[i];
	return NULL;
}

static int real_find(void *ctx, uint64_t pc, struct unwind_module *out)
{
	struct tmod *m = mod_of(pc);

	(void)ctx;
	if (!m)
		return -ENOENT;
	if (!m->tried) {
		m->tried = true;
		m->fd = open(m->path, O_RDONLY | O_CLOEXEC);
		if (m->fd >= 0)
			m->elf = elf_begin(m->fd, ELF_C_READ, NULL);
		if (m->elf && cfi__new(m->elf, &m->cfi) != 0)
			m->cfi = NULL;
	}
	out->cfi = m->cfi;
	out->bias = m->bias;
	out->owner = m;
	return 0;
}

static uint64_t vaddr_of(const void *fn)
{
	struct tmod *m = mod_of((uintptr_t)fn);

	cr_assert_not_null(m, "no module for %p", fn);
	return (uintptr_t)fn - m->bias;
}

int chain_a(int x);
int chain_b(int x);
int chain_c(int x);
int run_chain(int x);
int dbgframe_mid(int x);
int run_dbgframe(int x);

/* Called where the stack was captured, while its frames are still live. */
static void (*at_capture)(void);

__attribute__((noinline, noclone)) int chain_c(int x)
{
	/* rip, rsp and the callee-saved registers as they are here, the way
	 * PERF_SAMPLE_REGS_USER reports them at an interrupt */
	STACK_CAPTURE();
	if (at_capture)
		at_capture();
	return x + 1;
}

/* The arithmetic after each call keeps them real calls, not tail jumps. */
__attribute__((noinline, noclone)) int chain_b(int x)
{
	return chain_c(x + 1) * 3 + 1;
}

__attribute__((noinline, noclone)) int chain_a(int x)
{
	return chain_b(x + 2) * 5 + 2;
}

__attribute__((noinline, noclone)) int run_chain(int x)
{
	cap_end = thread_stack_end();
	return chain_a(x) * 7 + 3;
}

__attribute__((noinline, noclone)) int run_dbgframe(int x)
{
	cap_end = thread_stack_end();
	return dbgframe_mid(x) * 7 + 3;
}

extern char _start[];

static size_t do_unwind(struct unwind_frame *f, size_t max, enum unwind_stop *stop)
{
	size_t n = 0;

	cr_assert_eq(unwind__dwarf(&cap_regs, &cap_stack, real_find, NULL, f, max, &n, stop), 0);
	return n;
}

static void assert_chain(const struct unwind_frame *f, size_t n)
{
	const void *fns[] = { (void *)chain_c, (void *)chain_b, (void *)chain_a, (void *)run_chain };
	size_t i;

	cr_assert_geq(n, 4, "only %zu frames", n);
	for (i = 0; i < 4; i++) {
		cr_assert_not_null(f[i].owner, "frame %zu has no module", i);
		cr_assert_eq(f[i].func_start, vaddr_of(fns[i]),
			     "frame %zu: func_start %#lx, expected %#lx (pc %#lx)", i,
			     (unsigned long)f[i].func_start, (unsigned long)vaddr_of(fns[i]),
			     (unsigned long)f[i].pc);
	}
	cr_assert_eq(f[0].pc, cap_regs.val[UNWIND_REG_IP]);
}

Test(unwind_dwarf, main_thread_complete)
{
	struct unwind_frame f[128];
	enum unwind_stop stop;
	size_t n;

	cap_want = sizeof(stackbuf);
	cr_assert_eq(run_chain(1), ((1 + 2 + 1 + 1) * 3 + 1) * 5 * 7 + 2 * 7 + 3);
	n = do_unwind(f, 128, &stop);
	assert_chain(f, n);
	cr_assert_eq(stop, UNWIND_COMPLETE, "stop %s after %zu frames", unwind__stop_name(stop), n);
	/* the main thread's outermost frame is glibc's _start */
	cr_assert_eq(f[n - 1].func_start, vaddr_of(_start));
}

Test(unwind_dwarf, small_copy_truncates)
{
	struct unwind_frame f[128];
	enum unwind_stop stop;
	size_t n;

	cap_want = 256;
	run_chain(1);
	cr_assert_leq(cap_stack.size, 256);
	n = do_unwind(f, 128, &stop);
	cr_assert_eq(stop, UNWIND_TRUNCATED, "stop %s", unwind__stop_name(stop));
	cr_assert_geq(n, 1);
	cr_assert_eq(f[0].func_start, vaddr_of((void *)chain_c));
}

/* ---------- the live stack beyond a small copy ---------- */

enum live_kind {
	LIVE_NONE,    /* no far source: the copy alone */
	LIVE_SAME,    /* the live stack as it is */
	LIVE_MOVED,   /* ... but no longer what the copy held where they meet */
	LIVE_FAILS,   /* it cannot be read */
	LIVE_GARBAGE, /* it continues the copy, then holds no stack */
};

static enum live_kind live_kind;
static uint8_t live_buf[256 << 10];
static struct stackmem_far live_far;
static struct unwind_frame live_frames[128];
static size_t live_n;
static enum unwind_stop live_stop;

/* The far source: this thread's stack read as it is now, as the agent
 * reads a live thread. */
static ssize_t read_live(void *ctx, uint64_t addr, void *buf, size_t len)
{
	uint8_t *dst = buf;

	(void)ctx;
	if (live_kind == LIVE_FAILS)
		return -ESRCH;
	if (addr >= cap_end)
		return 0;
	if (len > cap_end - addr)
		len = (size_t)(cap_end - addr);
	read_raw(dst, addr, len);
	if (live_kind == LIVE_MOVED)
		dst[8] ^= 0x5a;
	if (live_kind == LIVE_GARBAGE && len > STACKMEM_OVERLAP)
		memset(dst + STACKMEM_OVERLAP, 0, len - STACKMEM_OVERLAP);
	return (ssize_t)len;
}

static void unwind_live(void)
{
	memset(&live_far, 0, sizeof(live_far));
	live_far.read = read_live;
	live_far.buf = live_buf;
	live_far.cap = sizeof(live_buf);
	cap_stack.far = live_kind == LIVE_NONE ? NULL : &live_far;
	cr_assert_eq(unwind__dwarf(&cap_regs, &cap_stack, real_find, NULL, live_frames, 128, &live_n,
				   &live_stop), 0);
	cap_stack.far = NULL;
}

/* A copy of want bytes unwound at the capture, while the frames it was
 * taken from are live, with a far source of the given kind. */
static void run_live(enum live_kind kind, size_t want)
{
	live_kind = kind;
	cap_want = want;
	at_capture = unwind_live;
	run_chain(1);
	at_capture = NULL;
	cr_assert_leq(cap_stack.size, want);
}

/* The frames of a copy of want bytes alone. */
static size_t copy_only(struct unwind_frame *f, size_t want, enum unwind_stop *stop)
{
	run_live(LIVE_NONE, want);
	memcpy(f, live_frames, live_n * sizeof(*f));
	*stop = live_stop;
	return live_n;
}

Test(unwind_dwarf, small_copy_completes_from_the_live_stack)
{
	struct unwind_frame whole[128];
	enum unwind_stop stop;
	size_t n, i;

	n = copy_only(whole, sizeof(stackbuf), &stop);
	cr_assert_eq(stop, UNWIND_COMPLETE);
	/* the copy alone is cut, as in small_copy_truncates */
	copy_only(whole + 64, 256, &stop);
	cr_assert_eq(stop, UNWIND_TRUNCATED);

	run_live(LIVE_SAME, 256);
	assert_chain(live_frames, live_n);
	cr_assert_eq(live_stop, UNWIND_COMPLETE, "stop %s after %zu frames",
		     unwind__stop_name(live_stop), live_n);
	cr_assert_eq(live_frames[live_n - 1].func_start, vaddr_of(_start));
	/* the same frames as the whole copy gives */
	cr_assert_eq(live_n, n, "%zu frames, the whole copy gives %zu", live_n, n);
	for (i = 0; i < n; i++)
		cr_assert_eq(live_frames[i].func_start, whole[i].func_start, "frame %zu", i);
	cr_assert(live_far.used);
	cr_assert_eq(live_far.err, 0);
	cr_assert_geq(live_far.reads, 1);
	/* it met the copy's end */
	cr_assert_leq(live_far.at, cap_stack.base + cap_stack.size - 8);
}

Test(unwind_dwarf, live_stack_that_moved_on_truncates)
{
	struct unwind_frame f[128];
	enum unwind_stop stop;
	size_t n = copy_only(f, 256, &stop), i;

	run_live(LIVE_MOVED, 256);
	cr_assert_eq(live_stop, UNWIND_TRUNCATED, "stop %s", unwind__stop_name(live_stop));
	cr_assert_eq(live_far.err, -ESTALE);
	cr_assert_not(live_far.used);
	/* exactly what the copy alone proves */
	cr_assert_eq(live_n, n, "%zu frames, the copy proves %zu", live_n, n);
	for (i = 0; i < n; i++)
		cr_assert_eq(live_frames[i].func_start, f[i].func_start);
}

Test(unwind_dwarf, live_stack_unreadable_truncates)
{
	struct unwind_frame f[128];
	enum unwind_stop stop;
	size_t n = copy_only(f, 256, &stop);

	run_live(LIVE_FAILS, 256);
	cr_assert_eq(live_stop, UNWIND_TRUNCATED, "stop %s", unwind__stop_name(live_stop));
	cr_assert_eq(live_far.err, -ESRCH);
	cr_assert_eq(live_n, n);
}

Test(unwind_dwarf, no_frame_from_a_live_stack_that_is_no_stack)
{
	size_t i;

	run_live(LIVE_GARBAGE, 256);
	cr_assert_eq(live_stop, UNWIND_TRUNCATED, "stop %s", unwind__stop_name(live_stop));
	for (i = 0; i < live_n; i++)
		cr_assert_not_null(live_frames[i].owner, "frame %zu of %zu: pc %#lx in no module", i,
				   live_n, (unsigned long)live_frames[i].pc);
	cr_assert_lt(live_n, 16);
}

Test(unwind_dwarf, depth_limit)
{
	struct unwind_frame f[3];
	enum unwind_stop stop;
	size_t n;

	cap_want = sizeof(stackbuf);
	run_chain(1);
	n = do_unwind(f, 3, &stop);
	cr_assert_eq(n, 3);
	cr_assert_eq(stop, UNWIND_DEPTH);
	cr_assert_eq(f[2].func_start, vaddr_of((void *)chain_a));
}

static void *thread_main(void *arg)
{
	(void)arg;
	run_chain(1);
	return NULL;
}

Test(unwind_dwarf, thread_complete_through_clone)
{
	struct unwind_frame f[128];
	enum unwind_stop stop;
	pthread_t t;
	size_t n;

	cap_want = sizeof(stackbuf);
	cr_assert_eq(pthread_create(&t, NULL, thread_main, NULL), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	n = do_unwind(f, 128, &stop);
	assert_chain(f, n);
	cr_assert_eq(stop, UNWIND_COMPLETE, "stop %s after %zu frames", unwind__stop_name(stop), n);
	/* thread_main, start_thread, clone3/clone */
	cr_assert_geq(n, 6);
	cr_assert_eq(f[4].func_start, vaddr_of((void *)thread_main));
}

/* A signal handler's stack: the walk must cross the kernel's signal frame
 * through glibc's __restore_rt CFI (a signal FDE with expression rules). */
static void on_signal(int sig)
{
	(void)sig;
	run_chain(1);
	__asm__ volatile("" ::: "memory"); /* a call, not a tail jump */
}

int signal_driver(void);
__attribute__((noinline, noclone)) int signal_driver(void)
{
	raise(SIGUSR1);
	__asm__ volatile("" ::: "memory");
	return 1;
}

Test(unwind_dwarf, through_signal_frame)
{
	struct unwind_frame f[128];
	enum unwind_stop stop;
	size_t n, i;
	bool seen_handler = false, seen_driver = false;

	cap_want = sizeof(stackbuf);
	cr_assert_neq(signal(SIGUSR1, on_signal), SIG_ERR);
	signal_driver();
	n = do_unwind(f, 128, &stop);
	assert_chain(f, n);
	cr_assert_eq(stop, UNWIND_COMPLETE, "stop %s after %zu frames", unwind__stop_name(stop), n);
	for (i = 4; i < n; i++) {
		seen_handler |= f[i].func_start == vaddr_of((void *)on_signal);
		seen_driver |= f[i].func_start == vaddr_of((void *)signal_driver);
	}
	cr_assert(seen_handler);
	cr_assert(seen_driver, "did not get through the signal frame");
}

Test(unwind_dwarf, rule_cache_hits_and_func_start)
{
	struct unwind_frame f[128];
	struct cfi_stats before, after;
	enum unwind_stop stop;
	struct tmod *m;
	uint64_t start = 0;
	size_t n, n2;

	cap_want = sizeof(stackbuf);
	run_chain(1);
	n = do_unwind(f, 128, &stop);
	m = f[0].owner;
	cr_assert_not_null(m);
	cr_assert_not_null(m->cfi);
	cfi__stats(m->cfi, &before);
	cr_assert_gt(before.entries, 0);
	n2 = do_unwind(f, 128, &stop);
	cr_assert_eq(n2, n);
	cfi__stats(m->cfi, &after);
	cr_assert_gt(after.lookups, before.lookups);
	cr_assert_eq(after.hits - before.hits, after.lookups - before.lookups,
		     "a repeated walk must be served from the cache");
	cr_assert_eq(after.entries, before.entries);

	/* any pc inside chain_b maps to its start; a pc in no FDE is a miss */
	cr_assert_eq(cfi__func_start(m->cfi, vaddr_of((void *)chain_b) + 1, &start), 0);
	cr_assert_eq(start, vaddr_of((void *)chain_b));
	cr_assert_eq(cfi__func_start(m->cfi, f[1].vaddr, &start), 0);
	cr_assert_eq(start, vaddr_of((void *)chain_b));
	cr_assert_eq(cfi__func_start(m->cfi, 0, &start), -ENOENT);
	cfi__stats(m->cfi, &before);
	cr_assert_eq(cfi__func_start(m->cfi, 0, &start), -ENOENT);
	cfi__stats(m->cfi, &after);
	cr_assert_eq(after.hits, before.hits + 1, "misses are cached");
}

Test(cfi, no_cfi_is_enoent)
{
	/* an ELF image with neither .eh_frame nor .debug_frame */
	static const unsigned char img[64] = {
		0x7f, 'E', 'L', 'F', ELFCLASS64, ELFDATA2LSB, EV_CURRENT, 0,
		[16] = ET_REL, 0, EM_X86_64, 0, EV_CURRENT, 0, 0, 0,
		[52] = 64, 0, /* e_ehsize */
	};
	char buf[sizeof(img)];
	struct cfi *c = NULL;
	Elf *e;

	elf_version(EV_CURRENT);
	memcpy(buf, img, sizeof(img));
	e = elf_memory(buf, sizeof(buf));
	cr_assert_not_null(e);
	cr_assert_eq(cfi__new(e, &c), -ENOENT);
	cr_assert_null(c);
	cfi__delete(NULL);
	elf_end(e);
}

Test(unwind_dwarf, debug_frame_only_function)
{
	struct unwind_frame f[128];
	enum unwind_stop stop;
	struct tmod *m;
	const struct cfi_row *row;
	uint64_t mid = (uintptr_t)dbgframe_mid;
	size_t n;

	cap_want = sizeof(stackbuf);
	run_dbgframe(1);
	n = do_unwind(f, 128, &stop);
	cr_assert_geq(n, 3);
	cr_assert_eq(f[0].func_start, vaddr_of((void *)chain_c));
	/* dbgframe_mid has no .eh_frame FDE: its row comes from .debug_frame,
	 * whose FDE start is not known without .eh_frame_hdr */
	cr_assert(f[1].pc > mid && f[1].pc < mid + 256, "frame 1 pc %#lx not in dbgframe_mid %#lx",
		  (unsigned long)f[1].pc, (unsigned long)mid);
	cr_assert_eq(f[1].func_start, 0);
	cr_assert_eq(f[2].func_start, vaddr_of((void *)run_dbgframe));
	cr_assert_eq(stop, UNWIND_COMPLETE, "stop %s after %zu frames", unwind__stop_name(stop), n);
	m = f[1].owner;
	cr_assert_eq(cfi__lookup(m->cfi, f[1].vaddr, &row), 0);
	cr_assert(row->start <= f[1].vaddr && f[1].vaddr < row->end);
}

/* Unwinds a known chain into f[8]; the module of its leaf, which has CFI. */
static struct tmod *chain_module(struct unwind_frame *f)
{
	enum unwind_stop stop;
	struct tmod *m;

	cap_want = sizeof(stackbuf);
	run_chain(1);
	do_unwind(f, 8, &stop);
	m = f[0].owner;
	cr_assert_not_null(m->cfi);
	return m;
}

Test(cfi, row_ranges_and_bounded_cache)
{
	struct unwind_frame f[8];
	struct cfi_stats before, after;
	const struct cfi_row *row;
	struct tmod *m;
	uint64_t v, lo, start = 0;
	int s;

	m = chain_module(f);

	/* a new pc inside an already decoded row is a hit, not a decode */
	cr_assert_eq(cfi__lookup(m->cfi, f[1].vaddr, &row), 0);
	v = row->start != f[1].vaddr ? row->start : row->end - 1;
	if (v != f[1].vaddr) {
		cfi__stats(m->cfi, &before);
		cr_assert_eq(cfi__lookup(m->cfi, v, &row), 0);
		cfi__stats(m->cfi, &after);
		cr_assert_eq(after.hits, before.hits + 1);
		cr_assert_eq(row->func_start, vaddr_of((void *)chain_b));
	}

	/* more distinct pcs than the cache holds: it clears itself and stays right */
	lo = UINT64_MAX;
	for (s = 0; s < m->nseg; s++)
		if (m->lo[s] - m->bias < lo)
			lo = m->lo[s] - m->bias;
	for (v = 0; v < CFI_CACHE_PCS + 100; v++) {
		(void)cfi__lookup(m->cfi, lo + v, &row);
		/* defeat the last-row shortcut so every pc gets an entry */
		(void)cfi__lookup(m->cfi, f[0].vaddr, &row);
	}
	cfi__stats(m->cfi, &after);
	cr_assert_geq(after.evictions, 1);
	cr_assert_leq(after.entries, CFI_CACHE_PCS);
	cr_assert_eq(cfi__func_start(m->cfi, vaddr_of((void *)chain_a) + 2, &start), 0);
	cr_assert_eq(start, vaddr_of((void *)chain_a));
}

/* Thousands of rows (every few bytes of this program's code): the rows
 * decoded are kept sorted in batches (a sorted part and a short tail merged
 * into it); a second pass over other pcs of the same rows must find each
 * one's row without decoding anything. */
Test(cfi, many_rows_found_again_without_decoding)
{
	struct unwind_frame f[8];
	struct cfi_stats before, mid, after;
	const struct cfi_row *row;
	struct tmod *m;
	uint64_t lo = 0, hi = 0, v, found = 0, second = 0;
	int s;

	m = chain_module(f);
	for (s = 0; s < m->nseg; s++)
		if (m->hi[s] - m->lo[s] > hi - lo) {
			lo = m->lo[s] - m->bias;
			hi = m->hi[s] - m->bias;
		}
	/* within the cache's bounds (a sanitizer build's code is larger): at
	 * most 12,000 pcs in each pass */
	if (hi - lo > 60000)
		hi = lo + 60000;
	/* first pass, backwards (rows arrive out of order): decode */
	for (v = hi; v-- > lo;)
		if (v % 5 == 0 && cfi__lookup(m->cfi, v, &row) == 0) {
			cr_assert(row->start <= v && v < row->end);
			found++;
		}
	cfi__stats(m->cfi, &before);
	cr_assert_gt(found, 1000, "too few rows in this program's code");
	cr_assert_eq(before.evictions, 0, "the cache was cleared: the test says nothing");
	/* second pass: a pc next to each, in the same row; a lookup of
	 * another row in between defeats the previous-row shortcut */
	for (v = lo; v < hi; v++) {
		uint64_t w;

		if (v % 5 != 0 || cfi__lookup(m->cfi, v, &row) != 0)
			continue;
		w = v + 1 < row->end ? v + 1 : row->start;
		if (w == v || cfi__lookup(m->cfi, f[0].vaddr, &row) != 0)
			continue;
		cfi__stats(m->cfi, &mid);
		cr_assert_eq(cfi__lookup(m->cfi, w, &row), 0);
		cr_assert(row->start <= w && w < row->end);
		cfi__stats(m->cfi, &after);
		cr_assert_eq(after.hits, mid.hits + 1, "0x%" PRIx64 " decoded again", w);
		second++;
	}
	cr_assert_gt(second, 1000);
	cr_assert_eq(after.evictions, before.evictions);
}

/* GCC brackets early-return epilogues with DW_CFA_remember_state /
 * DW_CFA_restore_state. libdw reports the row after restore_state as starting
 * where the state was remembered, which would make a cached "row" cover the
 * epilogue. Looking up the restored body first, then the epilogue, must give
 * each its own rule. */
void cfi_rs_fn(void);
extern const char cfi_rs_epilogue_ret[], cfi_rs_restored[];
__asm__(".text\n"
	".globl cfi_rs_fn\n"
	".type cfi_rs_fn,@function\n"
	"cfi_rs_fn:\n"
	".cfi_startproc\n"
	"push %rbx\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset rbx, -16\n"
	"test %edi, %edi\n"
	"jne 1f\n"
	".cfi_remember_state\n"
	"pop %rbx\n"
	".cfi_def_cfa_offset 8\n"
	".globl cfi_rs_epilogue_ret\n"
	"cfi_rs_epilogue_ret:\n"
	"ret\n"
	"1:\n"
	".cfi_restore_state\n"
	".globl cfi_rs_restored\n"
	"cfi_rs_restored:\n"
	"nop\n"
	"nop\n"
	"pop %rbx\n"
	".cfi_def_cfa_offset 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size cfi_rs_fn, .-cfi_rs_fn\n");

Test(cfi, rows_after_restore_state)
{
	struct tmod *m;
	const struct cfi_row *row;
	uint64_t restored = vaddr_of(cfi_rs_restored), epi = vaddr_of(cfi_rs_epilogue_ret);
	struct unwind_module mod;

	cr_assert_eq(real_find(NULL, (uintptr_t)cfi_rs_restored, &mod), 0);
	m = mod.owner;
	cr_assert_not_null(m->cfi);
	cr_assert_eq(cfi__lookup(m->cfi, restored + 1, &row), 0);
	cr_assert_eq(row->cfa_reg, UNWIND_REG_SP);
	cr_assert_eq(row->cfa_value, 16, "restored body: CFA = rsp + 16");
	cr_assert_eq(cfi__lookup(m->cfi, epi, &row), 0);
	cr_assert_eq(row->cfa_value, 8, "epilogue after the pop: CFA = rsp + 8, got %d", row->cfa_value);
	cr_assert_eq(cfi__lookup(m->cfi, restored, &row), 0);
	cr_assert_eq(row->cfa_value, 16);
	cr_assert_eq(cfi__lookup(m->cfi, epi, &row), 0);
	cr_assert_eq(row->cfa_value, 8);
}
