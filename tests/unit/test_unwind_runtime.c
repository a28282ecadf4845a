/* unwind/: stepping over code a runtime describes (no CFI): HotSpot's
 * compiled frames by their size, interpreter frames by their layout,
 * frameless stubs and the call stub, code hosted in a function's frame
 * (by that function's real CFI), on synthetic stacks. */
#define _GNU_SOURCE
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "unwind/cfi.h"
#include "unwind/unwind.h"

#define BASE 0x7ffd0000ull
#define A_PC 0x600000ull       /* a compiled method: 48-byte frame, set up at +0x10 */
#define B_PC 0x601000ull       /* a compiled method: 32-byte frame */
#define INTERP_PC 0x602000ull  /* the interpreter */
#define STUB_PC 0x603000ull    /* a stub without a frame */
#define CALL_STUB_RA 0x603100ull
#define NATIVE_PC 0x400000ull  /* native code without CFI */
#define READ_PC 0x604000ull    /* code whose shape at each pc was read: `at_pc` */
#define HOSTED_PC 0x605000ull  /* code run in the frame of `hosting` */

static int owner;
static struct unwind_module at_pc;
/* this program's CFI, for `hosting`: loaded by load_self */
static struct cfi *self_cfi;
static uint64_t self_bias;
static uint64_t host_pc;       /* the host HOSTED_PC names */
static uint32_t host_delta;

int hosting(int x);

static int java_find(void *ctx, uint64_t pc, struct unwind_module *out)
{
	(void)ctx;
	memset(out, 0, sizeof(*out));
	out->owner = &owner;
	if (pc >= NATIVE_PC && pc < NATIVE_PC + 0x100000)
		return 0;
	if (pc >= A_PC && pc < A_PC + 0x1000) {
		out->code = UNWIND_CODE_SIZED;
		out->frame_bytes = 48;
		out->frame_complete = A_PC + 0x10;
	} else if (pc >= B_PC && pc < B_PC + 0x1000) {
		out->code = UNWIND_CODE_SIZED;
		out->frame_bytes = 32;
		out->frame_complete = B_PC + 0x10;
	} else if (pc >= INTERP_PC && pc < INTERP_PC + 0x1000) {
		out->code = UNWIND_CODE_INTERPRETED;
		out->slot_method = -3;
		out->slot_sender_sp = -1;
		out->slot_bcp = -8;
		out->reg_bcp = 13 + 1; /* r13 */
	} else if (pc == CALL_STUB_RA) {
		out->code = UNWIND_CODE_FRAME_POINTER;
	} else if (pc >= STUB_PC && pc < STUB_PC + 0x100) {
		out->code = UNWIND_CODE_FRAMELESS;
	} else if (pc >= READ_PC && pc < READ_PC + 0x1000) {
		*out = at_pc;
		out->owner = &owner;
	} else if (pc >= HOSTED_PC && pc < HOSTED_PC + 0x1000) {
		out->code = UNWIND_CODE_HOSTED;
		out->host_pc = host_pc;
		out->host_sp_delta = host_delta;
	} else if (self_cfi && pc == (uintptr_t)hosting) {
		out->cfi = self_cfi;
		out->bias = self_bias;
	} else {
		return -ENOENT;
	}
	return 0;
}

static uint64_t w[64];

static void put(uint64_t addr, uint64_t v)
{
	w[(addr - BASE) / 8] = v;
}

static void regs(struct unwind_regs *r, uint64_t ip, uint64_t sp, uint64_t bp)
{
	memset(r, 0, sizeof(*r));
	r->val[UNWIND_REG_IP] = ip;
	r->val[UNWIND_REG_SP] = sp;
	r->val[UNWIND_REG_BP] = bp;
	r->valid = (1u << UNWIND_REG_IP) | (1u << UNWIND_REG_SP) | (1u << UNWIND_REG_BP);
}

static size_t walk(const struct unwind_regs *r, struct unwind_frame *f, enum unwind_stop *stop)
{
	struct unwind_stack st = { BASE, (const uint8_t *)w, sizeof(w), NULL };
	size_t n = 0;

	cr_assert_eq(unwind__dwarf(r, &st, java_find, NULL, f, 16, &n, stop), 0);
	return n;
}

Test(unwind_runtime, compiled_interpreted_and_call_stub_frames)
{
	struct unwind_frame f[16];
	struct unwind_regs r;
	enum unwind_stop stop;
	size_t n;

	memset(w, 0, sizeof(w));
	/* A at BASE (48 bytes): returns into B; its saved rbp is junk */
	put(BASE + 40, B_PC + 0x80);
	put(BASE + 32, 0x5555);
	/* B at BASE+48 (32 bytes): returns into the interpreter, saving its rbp */
	put(BASE + 48 + 24, INTERP_PC + 0x200);
	put(BASE + 48 + 16, BASE + 0x80);
	/* the interpreter frame at rbp BASE+0x80 */
	put(BASE + 0x80, BASE + 0xc0);
	put(BASE + 0x88, CALL_STUB_RA);
	put(BASE + 0x80 - 8, BASE + 0x90);
	put(BASE + 0x80 - 24, 0xdead0);
	/* the call stub: an rbp frame into native code */
	put(BASE + 0xc0, 0);
	put(BASE + 0xc8, NATIVE_PC + 0x1500);
	regs(&r, A_PC + 0x100, BASE, 0x1111);
	n = walk(&r, f, &stop);
	cr_assert_eq(n, 5, "%zu frames, stop %s", n, unwind__stop_name(stop));
	cr_assert_eq(f[0].pc, A_PC + 0x100);
	cr_assert(f[0].exact);
	cr_assert_eq(f[0].code, UNWIND_CODE_SIZED);
	cr_assert_eq(f[1].pc, B_PC + 0x80);
	cr_assert_not(f[1].exact);
	cr_assert_eq(f[2].pc, INTERP_PC + 0x200);
	cr_assert_eq(f[2].code, UNWIND_CODE_INTERPRETED);
	cr_assert_eq(f[2].method, 0xdead0, "the interpreter's Method* is kept for naming");
	cr_assert_eq(f[3].pc, CALL_STUB_RA);
	cr_assert_eq(f[3].code, UNWIND_CODE_FRAME_POINTER);
	cr_assert_eq(f[4].pc, NATIVE_PC + 0x1500);
	cr_assert_eq(f[4].code, UNWIND_CODE_NATIVE);
}

/* Where an interpreted frame is in its method: the interpreter keeps it
 * in r13 and writes the frame's slot only before calling out, so the
 * leaf's (whose registers are the sample's) is r13, its callers' the
 * slot; without r13, the slot. */
Test(unwind_runtime, an_interpreted_frames_bytecode_pointer_is_live_in_the_leaf)
{
	struct unwind_frame f[16];
	struct unwind_regs r;
	enum unwind_stop stop;
	size_t n;

	memset(w, 0, sizeof(w));
	/* the leaf at rbp BASE+0x60, called by an interpreted frame at rbp
	 * BASE+0x100, called by native code */
	put(BASE + 0x60, BASE + 0x100);
	put(BASE + 0x68, INTERP_PC + 0x300);
	put(BASE + 0x60 - 24, 0xbeef0);
	put(BASE + 0x60 - 64, 0x7000); /* stale: written at its last call */
	put(BASE + 0x100, 0);
	put(BASE + 0x108, NATIVE_PC + 0x10);
	put(BASE + 0x100 - 24, 0xcafe0);
	put(BASE + 0x100 - 64, 0x8003);
	regs(&r, INTERP_PC + 0x100, BASE, BASE + 0x60);
	r.val[13] = 0x7005;
	r.valid |= 1u << 13;
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 3);
	cr_assert_eq(f[0].method, 0xbeef0);
	cr_assert_eq(f[0].bcp, 0x7005, "the leaf's is r13: %#llx", (unsigned long long)f[0].bcp);
	cr_assert_eq(f[1].code, UNWIND_CODE_INTERPRETED);
	cr_assert_eq(f[1].method, 0xcafe0);
	cr_assert_eq(f[1].bcp, 0x8003, "a caller's is its slot");
	cr_assert_eq(f[2].bcp, 0, "native code has none");

	r.valid &= ~(1u << 13);
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 2);
	cr_assert_eq(f[0].bcp, 0x7000, "without r13, the slot");
}

Test(unwind_runtime, a_compiled_caller_counts_from_the_unextended_sp)
{
	struct unwind_frame f[16];
	struct unwind_regs r;
	enum unwind_stop stop;
	size_t n;

	memset(w, 0, sizeof(w));
	/* interpreted leaf, rbp BASE+0x20; the adapter that called it moved
	 * the compiled caller's sp down by 0x10: the caller's frame counts
	 * from BASE+0x40, not BASE+0x30 */
	put(BASE + 0x20, 0);
	put(BASE + 0x28, B_PC + 0x80);
	put(BASE + 0x20 - 8, BASE + 0x40);
	put(BASE + 0x20 - 24, 0xbeef0);
	put(BASE + 0x40 + 24, NATIVE_PC + 0x10);
	put(BASE + 0x30 + 24, 0x9999); /* where a walk from the sp would look */
	regs(&r, INTERP_PC + 0x100, BASE, BASE + 0x20);
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 3);
	cr_assert_eq(f[0].method, 0xbeef0);
	cr_assert_eq(f[1].pc, B_PC + 0x80);
	cr_assert_eq(f[2].pc, NATIVE_PC + 0x10);

	/* an unextended sp below the frame is not believed */
	put(BASE + 0x20 - 8, BASE + 0x8);
	put(BASE + 0x30 + 24, NATIVE_PC + 0x20);
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 3);
	cr_assert_eq(f[2].pc, NATIVE_PC + 0x20);
}

Test(unwind_runtime, prologue_epilogue_and_frameless_stubs)
{
	struct unwind_frame f[16];
	struct unwind_regs r;
	enum unwind_stop stop;
	size_t n;

	/* in A's prologue, nothing pushed yet: the return address is at sp */
	memset(w, 0, sizeof(w));
	put(BASE, B_PC + 0x80);
	put(BASE + 8 + 24, NATIVE_PC + 0x30);
	regs(&r, A_PC + 0x4, BASE, 0);
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 3);
	cr_assert_eq(f[1].pc, B_PC + 0x80);
	cr_assert_eq(f[2].pc, NATIVE_PC + 0x30);

	/* after "push rbp": one word up */
	memset(w, 0, sizeof(w));
	put(BASE, 0x1234);
	put(BASE + 8, B_PC + 0x80);
	put(BASE + 16 + 24, NATIVE_PC + 0x40);
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 3);
	cr_assert_eq(f[1].pc, B_PC + 0x80);
	cr_assert_eq(f[2].pc, NATIVE_PC + 0x40);

	/* in A's epilogue, its frame popped: the frame size would find no
	 * code, the return address is at sp */
	memset(w, 0, sizeof(w));
	put(BASE, B_PC + 0x80);
	put(BASE + 40, 0x77);
	put(BASE + 8 + 24, NATIVE_PC + 0x50);
	regs(&r, A_PC + 0x200, BASE, 0);
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 3);
	cr_assert_eq(f[1].pc, B_PC + 0x80);
	cr_assert_eq(f[2].pc, NATIVE_PC + 0x50);

	/* a frameless stub (an itable stub) jumps on with the return address at sp */
	memset(w, 0, sizeof(w));
	put(BASE, B_PC + 0x80);
	put(BASE + 8 + 24, NATIVE_PC + 0x60);
	regs(&r, STUB_PC + 0x10, BASE, 0);
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 3);
	cr_assert_eq(f[0].code, UNWIND_CODE_FRAMELESS);
	cr_assert_eq(f[1].pc, B_PC + 0x80);
	cr_assert_eq(f[2].pc, NATIVE_PC + 0x60);

	/* a frame size reaching past the copy is truncation, not garbage */
	memset(w, 0, sizeof(w));
	regs(&r, B_PC + 0x100, BASE + sizeof(w) - 16, 0);
	n = walk(&r, f, &stop);
	cr_assert_eq(n, 1);
	cr_assert_eq(stop, UNWIND_TRUNCATED, "stop %s", unwind__stop_name(stop));
}

/* A shape the runtime read from the code at the pc (sized_at_pc). */
static void read_shape(uint32_t frame_bytes, uint8_t base, int32_t base_at, uint8_t caller_bp)
{
	memset(&at_pc, 0, sizeof(at_pc));
	at_pc.code = UNWIND_CODE_SIZED;
	at_pc.frame_bytes = frame_bytes;
	at_pc.frame_complete = READ_PC + 0x800; /* would make the pc a prologue */
	at_pc.sized_at_pc = true;
	at_pc.base = base;
	at_pc.base_at = base_at;
	at_pc.caller_bp = caller_bp;
}

Test(unwind_runtime, frames_counted_from_a_saved_sp_or_a_register)
{
	struct unwind_frame f[16];
	struct unwind_regs r;
	enum unwind_stop stop;
	size_t n;

	/* C2's string search: sp 32 bytes below the 48-byte frame at
	 * BASE+32, whose sp was pushed at [sp] */
	memset(w, 0, sizeof(w));
	put(BASE, BASE + 32);
	put(BASE + 32 + 40, NATIVE_PC + 0x70);
	put(BASE + 32 + 32, BASE + 0x100);
	put(BASE + 40, NATIVE_PC + 0x99); /* what the frame size from sp would take */
	read_shape(48, UNWIND_BASE_SAVED, 0, UNWIND_BP_BELOW_RA);
	regs(&r, READ_PC + 0x10, BASE, 0x1111);
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 2, "%zu frames, stop %s", n, unwind__stop_name(stop));
	cr_assert_eq(f[1].pc, NATIVE_PC + 0x70);
	cr_assert_eq(f[1].sp, BASE + 32 + 48);

	/* before it is pushed, the frame's sp is in rcx (DWARF 2) */
	read_shape(48, UNWIND_BASE_REG, 2, UNWIND_BP_BELOW_RA);
	r.val[2] = BASE + 32;
	r.valid |= 1u << 2;
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 2);
	cr_assert_eq(f[1].pc, NATIVE_PC + 0x70);
	/* a register the sample lacks, or a base below sp, is no frame */
	r.valid &= ~(1u << 2);
	n = walk(&r, f, &stop);
	cr_assert_eq(n, 1);
	cr_assert_eq(stop, UNWIND_BAD_PC);
	read_shape(48, UNWIND_BASE_SAVED, 0, UNWIND_BP_BELOW_RA);
	put(BASE, BASE - 64);
	n = walk(&r, f, &stop);
	cr_assert_eq(n, 1);
	cr_assert_eq(stop, UNWIND_BAD_PC);
}

/* Where the caller's rbp is decides what an interpreted caller (whose
 * frame is found by rbp) sees. */
Test(unwind_runtime, the_callers_rbp_where_the_code_left_it)
{
	struct unwind_frame f[16];
	struct unwind_regs r;
	enum unwind_stop stop;
	size_t n;

	/* at its first instruction: the return address at sp, rbp the
	 * interpreter's own */
	memset(w, 0, sizeof(w));
	put(BASE, INTERP_PC + 0x200);
	put(BASE + 0x40, 0);
	put(BASE + 0x48, NATIVE_PC + 0x80);
	put(BASE + 0x40 - 24, 0xbeef0);
	read_shape(8, UNWIND_BASE_SP, 0, UNWIND_BP_LIVE);
	regs(&r, READ_PC + 0x10, BASE, BASE + 0x40);
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 3, "%zu frames, stop %s", n, unwind__stop_name(stop));
	cr_assert_eq(f[1].code, UNWIND_CODE_INTERPRETED);
	cr_assert_eq(f[1].method, 0xbeef0);
	cr_assert_eq(f[2].pc, NATIVE_PC + 0x80);
	/* the same frame read as if rbp were saved below the return address
	 * (what the frame size alone would say): the interpreter frame is lost */
	read_shape(8, UNWIND_BASE_SP, 0, UNWIND_BP_BELOW_RA);
	n = walk(&r, f, &stop);
	cr_assert(n < 3 || f[2].pc != NATIVE_PC + 0x80);
	/* not known: the interpreter's frame cannot be found */
	read_shape(8, UNWIND_BASE_SP, 0, UNWIND_BP_LOST);
	n = walk(&r, f, &stop);
	cr_assert_eq(n, 2);
	cr_assert_eq(stop, UNWIND_NO_CFI);
}

/* A shape read at the pc is not second-guessed: no prologue from
 * frame_complete, no epilogue from a return address that is no code. */
Test(unwind_runtime, a_shape_read_at_the_pc_is_not_guessed_at)
{
	struct unwind_frame f[16];
	struct unwind_regs r;
	enum unwind_stop stop;
	size_t n;

	memset(w, 0, sizeof(w));
	put(BASE, B_PC + 0x80);                /* what a guess would take */
	put(BASE + 8 + 24, NATIVE_PC + 0x30);
	put(BASE + 40, 0x77);                  /* the frame's own: no code */
	read_shape(48, UNWIND_BASE_SP, 0, UNWIND_BP_BELOW_RA);
	regs(&r, READ_PC + 0x10, BASE, 0);
	n = walk(&r, f, &stop);
	cr_assert_eq(n, 2);
	cr_assert_eq(f[1].pc, 0x77);
	cr_assert_eq(stop, UNWIND_NO_MAP);
	/* the same without the shape read: the prologue guess */
	at_pc.sized_at_pc = false;
	n = walk(&r, f, &stop);
	cr_assert_geq(n, 2);
	cr_assert_eq(f[1].pc, B_PC + 0x80);
}

/* ---------- code hosted in a function's frame ---------- */

static uint64_t hosting_ra; /* a return address into hosting's body */

__attribute__((noinline, noclone)) static void note_return(void)
{
	hosting_ra = (uintptr_t)__builtin_return_address(0);
}

/* A function with a frame of its own: locals, a call. */
__attribute__((noinline, noclone)) int hosting(int x)
{
	volatile int pad[16];

	pad[x & 15] = x;
	note_return();
	return pad[(x + 1) & 15] + 1;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr;
	return 1;
}

static void load_self(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	Elf *e;

	cr_assert_geq(fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e);
	cr_assert_eq(cfi__new(e, &self_cfi), 0);
	dl_iterate_phdr(first_object, &self_bias);
	hosting(3);
}

/* Code that runs in hosting's frame, jumped to from its body (as PHP's
 * JIT runs in execute_ex's): stepped by hosting's own CFI at its body, a
 * row found here independently of the unwinder (the one at a return
 * address in the body), with the code's sp host_delta below the body's. */
Test(unwind_runtime, hosted_code_is_stepped_as_its_hosts_body)
{
	struct unwind_frame f[16];
	const struct cfi_row *row;
	struct unwind_regs r;
	enum unwind_stop stop;
	uint32_t deltas[] = { 0, 16 };
	size_t n, k;

	load_self();
	cr_assert_eq(cfi__lookup(self_cfi, hosting_ra - 1 - self_bias, &row), 0);
	cr_assert_eq(row->cfa_kind, CFI_CFA_REG_OFFSET);
	for (k = 0; k < 2; k++) {
		uint64_t sp = BASE + 0x20, bp = BASE + 0x100, cfa;

		memset(w, 0, sizeof(w));
		host_pc = (uintptr_t)hosting;
		host_delta = deltas[k];
		/* the body's CFA, from sp (plus the delta) or from rbp (a build
		 * with frame pointers: sanitizers) */
		cfa = row->cfa_reg == UNWIND_REG_SP ? sp + host_delta + (uint64_t)row->cfa_value
						   : bp + (uint64_t)row->cfa_value;
		cr_assert(row->cfa_reg == UNWIND_REG_SP || row->cfa_reg == UNWIND_REG_BP);
		cr_assert_lt(cfa - BASE, sizeof(w), "a frame of %d bytes", row->cfa_value);
		put(cfa - 8, NATIVE_PC + 0x1500);
		if (row->cfa_reg == UNWIND_REG_BP)
			put(bp, 0);
		regs(&r, HOSTED_PC + 0x40, sp, bp);
		n = walk(&r, f, &stop);
		cr_assert_geq(n, 2, "%zu frames, stop %s", n, unwind__stop_name(stop));
		cr_assert_eq(f[0].code, UNWIND_CODE_HOSTED);
		cr_assert_eq(f[1].pc, NATIVE_PC + 0x1500, "delta %u: %#llx", host_delta,
			     (unsigned long long)f[1].pc);
		cr_assert_eq(f[1].sp, cfa);
	}
	/* a host no module holds: the stack ends at the hosted code */
	host_pc = 0x1000;
	regs(&r, HOSTED_PC + 0x40, BASE + 0x20, BASE + 0x100);
	n = walk(&r, f, &stop);
	cr_assert_eq(n, 1);
	cr_assert_eq(stop, UNWIND_NO_CFI);
	cfi__delete(self_cfi);
	self_cfi = NULL;
}
