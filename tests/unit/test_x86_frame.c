/* runtimes/x86_insn, runtimes/x86_frame: x86-64 instructions decoded for
 * stack walks, and a frame's layout read from the code after a pc, on code
 * in the shapes HotSpot emits (x86_code.h) and on random bytes. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/x86_frame.h"
#include "runtimes/x86_insn.h"
#include "x86_code.h"

#define ADDR 0x7f0000001000ull

static int len_of(const uint8_t *b, size_t n)
{
	struct x86_insn in;

	return x86_insn__decode(b, n, &in);
}

#define LEN(expect, ...)                                                                     \
	do {                                                                                 \
		static const uint8_t b_[] = { __VA_ARGS__ };                                 \
		cr_assert_eq(len_of(b_, sizeof(b_)), (expect), "bytes %02x %02x %02x: %d", b_[0], \
			     sizeof(b_) > 1 ? b_[1] : 0, sizeof(b_) > 2 ? b_[2] : 0,          \
			     len_of(b_, sizeof(b_)));                                          \
	} while (0)

/* Lengths checked against objdump, from HotSpot's code cache and libjvm. */
Test(x86_insn, lengths_of_what_hotspot_emits)
{
	LEN(1, 0x55);                                          /* push rbp */
	LEN(3, 0x48, 0x8b, 0xec);                              /* mov rbp, rsp */
	LEN(7, 0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff);      /* stack bang */
	LEN(4, 0x48, 0x83, 0xec, 0x30);                        /* sub rsp, 0x30 */
	LEN(7, 0x48, 0x81, 0xec, 0x18, 0x01, 0x00, 0x00);      /* sub rsp, 0x118 */
	LEN(10, 0x48, 0xb9, 0, 0, 0, 0, 0, 0, 0, 0);           /* movabs rcx, 0 */
	LEN(5, 0xc4, 0xe2, 0xb8, 0xf5, 0xc0);                  /* bzhi rax, rax, r8 */
	LEN(5, 0xc4, 0xe1, 0xfb, 0x92, 0xd0);                  /* kmovq k2, rax */
	LEN(7, 0x62, 0xf1, 0x7e, 0xaa, 0x6f, 0x0c, 0x8f);      /* vmovdqu32 ymm1{k2}{z}, [rdi+rcx*4] */
	LEN(8, 0x62, 0xf1, 0x7f, 0xaa, 0x6f, 0x4c, 0x0f, 0x01); /* vmovdqu8 ..., [rdi+rcx+0x20] */
	LEN(6, 0xc4, 0xe3, 0x79, 0x61, 0x03, 0x0c);            /* vpcmpestri xmm0, [rbx], 0xc */
	LEN(3, 0xc5, 0xf8, 0x77);                              /* vzeroupper */
	LEN(7, 0x49, 0x3b, 0xa7, 0x40, 0x03, 0x00, 0x00);      /* cmp rsp, [r15+0x340] */
	LEN(6, 0x0f, 0x87, 0xfd, 0x00, 0x00, 0x00);            /* ja rel32 */
	LEN(2, 0x7f, 0x27);                                    /* jg rel8 */
	LEN(5, 0xe8, 0x8c, 0xc0, 0xab, 0xff);                  /* call rel32 */
	LEN(0, 0x41, 0x0f, 0x0d);                              /* cut short: no ModRM */
	LEN(0, 0x66, 0x66, 0x66, 0x0f, 0x1f, 0x84, 0, 0, 0, 0); /* cut short: 11 bytes long */
	LEN(11, 0x66, 0x66, 0x66, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0); /* nop, prefixed */
	LEN(5, 0x48, 0x83, 0x2c, 0x24, 0x05, 0x90);            /* sub qword [rsp], 5 */
	LEN(3, 0xf2, 0x48, 0xaf);                              /* repnz scas */
	LEN(3, 0xc2, 0x10, 0x00, 0x90);                        /* ret 16 */
	LEN(0, 0x06);                                          /* push es: not in 64-bit mode */
	LEN(0, 0x48, 0xc5, 0xf8, 0x77);                        /* REX before VEX: #UD */
	LEN(0, 0x62, 0xf1, 0x7b, 0xaa);                        /* EVEX without its fixed bit, cut */
}

Test(x86_insn, stack_and_frame_pointer_operations)
{
	static const uint8_t mov_rcx_rsp[] = { 0x48, 0x8b, 0xcc };
	static const uint8_t pop_rsp[] = { 0x5c };
	static const uint8_t push_r12[] = { 0x41, 0x54 };
	static const uint8_t add_rsp[] = { 0x48, 0x81, 0xc4, 0x80, 0x00, 0x00, 0x00 };
	static const uint8_t sub_rsp[] = { 0x48, 0x83, 0xec, 0x10 };
	static const uint8_t and_rsp[] = { 0x48, 0x83, 0xe4, 0xf0 };
	static const uint8_t save_rbp[] = { 0x48, 0x89, 0x6c, 0x24, 0x20 };
	static const uint8_t load_rdi[] = { 0x48, 0x8b, 0x7c, 0x24, 0x08 };
	static const uint8_t lea[] = { 0x48, 0x8d, 0x64, 0x24, 0xf0 };
	static const uint8_t esp32[] = { 0x83, 0xc4, 0x10 };
	static const uint8_t pcmpestri[] = { 0x66, 0x0f, 0x3a, 0x61, 0x07, 0x0c };
	static const uint8_t blsr_rsp[] = { 0xc4, 0xe2, 0xd8, 0xf3, 0xc8 }; /* blsr rsp, rax */
	struct x86_insn in;

	cr_assert_eq(x86_insn__decode(mov_rcx_rsp, 3, &in), 3);
	cr_assert(in.op == X86_OP_MOV && in.dst == 1 && in.src == X86_RSP && !in.writes);
	cr_assert_eq(x86_insn__decode(pop_rsp, 1, &in), 1);
	cr_assert(in.op == X86_OP_POP && in.dst == X86_RSP);
	cr_assert_eq(x86_insn__decode(push_r12, 2, &in), 2);
	cr_assert(in.op == X86_OP_PUSH && in.src == 12);
	cr_assert_eq(x86_insn__decode(add_rsp, sizeof(add_rsp), &in), 7);
	cr_assert(in.op == X86_OP_LEA && in.dst == X86_RSP && in.src == X86_RSP && in.imm == 0x80);
	cr_assert_eq(x86_insn__decode(sub_rsp, sizeof(sub_rsp), &in), 4);
	cr_assert(in.op == X86_OP_LEA && in.imm == -0x10);
	/* an alignment is not followed: rsp written */
	cr_assert_eq(x86_insn__decode(and_rsp, sizeof(and_rsp), &in), 4);
	cr_assert(in.op == X86_OP_NONE && (in.writes & (1u << X86_RSP)));
	cr_assert_eq(x86_insn__decode(save_rbp, sizeof(save_rbp), &in), 5);
	cr_assert(in.op == X86_OP_STORE && in.dst == X86_RSP && in.src == X86_RBP && in.imm == 0x20);
	cr_assert_eq(x86_insn__decode(load_rdi, sizeof(load_rdi), &in), 5);
	cr_assert(in.op == X86_OP_LOAD && in.dst == 7 && in.src == X86_RSP && in.imm == 8);
	cr_assert_eq(x86_insn__decode(lea, sizeof(lea), &in), 5);
	cr_assert(in.op == X86_OP_LEA && in.dst == X86_RSP && in.imm == -0x10);
	/* 32-bit arithmetic on esp zero-extends: rsp unknown */
	cr_assert_eq(x86_insn__decode(esp32, sizeof(esp32), &in), 3);
	cr_assert(in.writes & (1u << X86_RSP));
	cr_assert_eq(x86_insn__decode(pcmpestri, sizeof(pcmpestri), &in), 6);
	cr_assert_eq(in.writes, 1u << 1, "pcmpestri writes ecx");
	cr_assert_eq(x86_insn__decode(blsr_rsp, sizeof(blsr_rsp), &in), 5);
	cr_assert(in.writes & (1u << X86_RSP), "BMI writes its VEX register");
}

static struct x86_frame frame_at(unsigned pc, unsigned whole, uint32_t frame_bytes)
{
	struct x86_frame_code c;
	struct x86_frame f;

	memset(&c, 0, sizeof(c));
	c.code = x86_code;
	c.n = sizeof(x86_code);
	c.addr = ADDR;
	c.pc = ADDR + pc;
	if (frame_bytes) {
		c.whole_pc = whole ? ADDR + whole : 0;
		c.frame_bytes = frame_bytes;
		c.whole_at_calls = true;
	}
	x86_frame__at(&c, &f);
	return f;
}

#define EXPECT_SP(f, ra_, bp_, base_, at_)                                                     \
	do {                                                                                   \
		struct x86_frame f_ = (f);                                                     \
		cr_assert(f_.kind == X86_FRAME_SP && f_.ra == (ra_) && f_.bp == (bp_) &&       \
				  f_.base == (base_) && f_.base_at == (at_),                    \
			  "%s: kind %d ra %d bp %d base %d at %d", #f, f_.kind, f_.ra, f_.bp,     \
			  f_.base, f_.base_at);                                                 \
	} while (0)

#define C2(pc) frame_at(pc, X_C2_BODY, 64)

Test(x86_frame, a_c2_method_at_every_stage)
{
	/* nothing pushed before the frame is made */
	EXPECT_SP(C2(X_C2_UNVERIFIED), 0, X86_BP_LIVE, X86_BASE_SP, 0);
	EXPECT_SP(C2(X_C2_VERIFIED), 0, X86_BP_LIVE, X86_BASE_SP, 0);
	EXPECT_SP(C2(X_C2_PUSH), 0, X86_BP_LIVE, X86_BASE_SP, 0);
	/* rbp pushed: one word up, rbp below it */
	EXPECT_SP(C2(X_C2_SUB), 8, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	/* the body: the whole frame, also at a return address */
	EXPECT_SP(C2(X_C2_BODY), 56, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	EXPECT_SP(C2(X_C2_AFTER_CALL), 56, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	EXPECT_SP(C2(X_C2_SEARCH), 56, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	/* the search: the frame's sp kept in rcx, then at [sp] */
	EXPECT_SP(C2(X_C2_SAVED_IN_RCX), 56, X86_BP_BELOW_RA, X86_BASE_REG, 1);
	EXPECT_SP(C2(X_C2_LOOP), 56, X86_BP_BELOW_RA, X86_BASE_SAVED, 0);
	EXPECT_SP(C2(X_C2_FOUND), 56, X86_BP_BELOW_RA, X86_BASE_SAVED, 0);
	EXPECT_SP(C2(X_C2_EPILOGUE), 56, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	/* after "add rsp", after "pop rbp", the poll and the return */
	EXPECT_SP(C2(X_C2_POP), 8, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	EXPECT_SP(C2(X_C2_POLL), 0, X86_BP_LIVE, X86_BASE_SP, 0);
	EXPECT_SP(C2(X_C2_RET), 0, X86_BP_LIVE, X86_BASE_SP, 0);
	/* the poll's slow path leaves the code: nothing to say */
	cr_assert_eq(C2(X_C2_POLL_STUB).kind, X86_FRAME_UNKNOWN);
	cr_assert_eq(C2(X_C2_END).kind, X86_FRAME_UNKNOWN);
}

Test(x86_frame, c1_calls_at_the_frame_and_past_pushed_operands)
{
	/* no frame_complete given: the calls say where the frame is */
	EXPECT_SP(frame_at(X_C1_BODY, 0, 80), 72, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	EXPECT_SP(frame_at(X_C1_PUSHED, 0, 80), 80, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	/* at the leaf call: the frame is at the call after it, higher */
	EXPECT_SP(frame_at(X_C1_PUSHED + 1, 0, 80), 88, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	EXPECT_SP(frame_at(X_C1_POPPED, 0, 80), 88, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	EXPECT_SP(frame_at(X_C1_AFTER_CALL, 0, 80), 72, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	/* a frame size that the code contradicts: its return decides */
	EXPECT_SP(frame_at(X_C1_AFTER_CALL, 0, 400), 72, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	/* only a call below where the stack has been: no frame said */
	cr_assert_eq(frame_at(X_C1B_BODY, 0, 80).kind, X86_FRAME_UNKNOWN);
	/* at the leaf call, and then a call at the frame: the higher wins */
	EXPECT_SP(frame_at(X_C1C_LEAF_CALL, 0, 80), 88, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	EXPECT_SP(frame_at(X_C1C_BODY, 0, 80), 72, X86_BP_BELOW_RA, X86_BASE_SP, 0);
}

/* What a callee may change is not trusted after the call. */
Test(x86_frame, registers_across_a_call)
{
	cr_assert_eq(frame_at(X_CLOBBER_BODY, 0, 0).kind, X86_FRAME_UNKNOWN);
	EXPECT_SP(frame_at(X_CLOBBER_END - 1, 0, 0), 0, X86_BP_LIVE, X86_BASE_SP, 0);
}

Test(x86_frame, a_stub_routine_before_in_and_after_its_rbp_frame)
{
	EXPECT_SP(frame_at(X_STUB_ENTRY, 0, 0), 0, X86_BP_LIVE, X86_BASE_SP, 0);
	EXPECT_SP(frame_at(X_STUB_ENTER, 0, 0), 8, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	cr_assert_eq(frame_at(X_STUB_BODY, 0, 0).kind, X86_FRAME_RBP);
	cr_assert_eq(frame_at(X_STUB_LOOP, 0, 0).kind, X86_FRAME_RBP);
	cr_assert_eq(frame_at(X_STUB_LEAVE, 0, 0).kind, X86_FRAME_RBP);
	EXPECT_SP(frame_at(X_STUB_RET, 0, 0), 0, X86_BP_LIVE, X86_BASE_SP, 0);
}

Test(x86_frame, a_leaf_stub_pushing_over_its_return_address)
{
	EXPECT_SP(frame_at(X_LEAF_ENTRY, 0, 0), 0, X86_BP_LIVE, X86_BASE_SP, 0);
	EXPECT_SP(frame_at(X_LEAF_PUSHED, 0, 0), 24, X86_BP_LIVE, X86_BASE_SP, 0);
	EXPECT_SP(frame_at(X_LEAF_BODY, 0, 0), 32, X86_BP_LIVE, X86_BASE_SP, 0);
	EXPECT_SP(frame_at(X_LEAF_RET, 0, 0), 0, X86_BP_LIVE, X86_BASE_SP, 0);
}

Test(x86_frame, a_frame_made_with_one_sub)
{
	EXPECT_SP(frame_at(X_NOBANG_ENTRY, X_NOBANG_BODY, 48), 0, X86_BP_LIVE, X86_BASE_SP, 0);
	/* the frame is there, rbp not saved in it yet */
	EXPECT_SP(frame_at(X_NOBANG_SAVE, X_NOBANG_BODY, 48), 40, X86_BP_LIVE, X86_BASE_SP, 0);
	EXPECT_SP(frame_at(X_NOBANG_BODY, X_NOBANG_BODY, 48), 40, X86_BP_BELOW_RA, X86_BASE_SP, 0);
	EXPECT_SP(frame_at(X_NOBANG_POP, X_NOBANG_BODY, 48), 8, X86_BP_BELOW_RA, X86_BASE_SP, 0);
}

/* Only the bytes given are looked at: code cut before the return says
 * nothing, and a pc outside them says nothing. */
Test(x86_frame, bounded_by_the_bytes_given)
{
	struct x86_frame_code c;
	struct x86_frame f;

	memset(&c, 0, sizeof(c));
	c.code = x86_code;
	c.n = X_STUB_LEAVE; /* the stub's leave and ret cut off */
	c.addr = ADDR;
	c.pc = ADDR + X_STUB_LOOP;
	x86_frame__at(&c, &f);
	cr_assert_eq(f.kind, X86_FRAME_UNKNOWN);
	c.pc = ADDR + X_STUB_LEAVE;
	x86_frame__at(&c, &f);
	cr_assert_eq(f.kind, X86_FRAME_UNKNOWN);
	c.pc = ADDR - 1;
	x86_frame__at(&c, &f);
	cr_assert_eq(f.kind, X86_FRAME_UNKNOWN);
	c.n = X86_FRAME_MAX_BYTES + 1;
	c.pc = ADDR;
	x86_frame__at(&c, &f);
	cr_assert_eq(f.kind, X86_FRAME_UNKNOWN);
}

/* Random bytes, and HotSpot's shapes with bytes changed: whatever comes
 * out is a frame the unwinder can use (a word-aligned return address,
 * known kinds), and nothing is read past the bytes (ASan in CI). */
Test(x86_frame, damaged_and_random_code)
{
	unsigned seed = 4242, iter, k, answered = 0;

	for (iter = 0; iter < 20000; iter++) {
		size_t n = iter & 1 ? sizeof(x86_code) : 1 + (size_t)rand_r(&seed) % 600;
		uint8_t *b = malloc(n);
		struct x86_frame_code c;
		struct x86_frame f;

		cr_assert_not_null(b);
		if (iter & 1) {
			memcpy(b, x86_code, n);
			for (k = 0; k < 1 + (unsigned)rand_r(&seed) % 6; k++)
				b[rand_r(&seed) % n] = (uint8_t)rand_r(&seed);
		} else {
			for (k = 0; k < n; k++)
				b[k] = (uint8_t)rand_r(&seed);
		}
		memset(&c, 0, sizeof(c));
		c.code = b;
		c.n = n;
		c.addr = ADDR;
		c.pc = ADDR + (size_t)rand_r(&seed) % n;
		if (rand_r(&seed) & 1) {
			c.frame_bytes = 16 + 8 * ((uint32_t)rand_r(&seed) % 64);
			c.whole_at_calls = true;
			c.whole_pc = ADDR + (size_t)rand_r(&seed) % n;
		}
		x86_frame__at(&c, &f);
		cr_assert_leq(f.kind, X86_FRAME_RBP);
		if (f.kind == X86_FRAME_SP) {
			answered++;
			cr_assert(f.ra >= 0 && f.ra % 8 == 0 && f.ra < (1 << 16), "ra %d", f.ra);
			cr_assert_leq(f.bp, X86_BP_LOST);
			cr_assert_leq(f.base, X86_BASE_REG);
			cr_assert(f.base != X86_BASE_REG || (f.base_at >= 0 && f.base_at < 16 &&
							      f.base_at != X86_RSP));
		}
		free(b);
	}
	cr_assert_gt(answered, 1000, "most damaged shapes still answer: %u", answered);
}
