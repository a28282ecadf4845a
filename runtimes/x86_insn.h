/* One x86-64 instruction, decoded for what following code to its return
 * needs: its length, where control goes after it, and what it does to the
 * stack pointer and the general registers.
 *
 * Not a disassembler: operands are kept only for the few forms that move
 * or save a stack or frame pointer (push, pop, mov, lea, add/sub of an
 * immediate, loads and stores at rsp, leave). Any other write to a general
 * register is reported in `writes`, and whatever might write one is
 * reported as writing it, so that code the decoder does not fully know
 * leads a reader to "unknown", never to a wrong frame. Lengths follow the
 * Intel SDM's encoding rules (legacy prefixes, REX, VEX, EVEX, the one-,
 * two- and three-byte opcode maps); a byte sequence no processor would
 * decode is refused. Registers are numbered as in the encoding (rax 0,
 * rcx 1, ..., rsp 4, rbp 5, ..., r15 15). */
#ifndef SMOLDER_RUNTIMES_X86_INSN_H
#define SMOLDER_RUNTIMES_X86_INSN_H
#include <stddef.h>
#include <stdint.h>

#define X86_MAX_INSN 15
#define X86_RSP 4
#define X86_RBP 5

enum x86_flow {
	X86_NEXT = 0, /* falls through */
	X86_JUMP,     /* goes to target only */
	X86_BRANCH,   /* goes to target or falls through */
	X86_CALL,     /* calls, and falls through when the callee returns */
	X86_RET,      /* returns (popping ret_pop more bytes) */
	X86_END,      /* no successor known: indirect jump, halt, trap, far transfer */
};

enum x86_op {
	X86_OP_NONE = 0,
	X86_OP_PUSH,  /* push src (src -1: a value no register holds) */
	X86_OP_POP,   /* pop into dst (dst -1: into memory or flags) */
	X86_OP_MOV,   /* dst = src, all 64 bits */
	X86_OP_LEA,   /* dst = src + imm: lea without index, add or sub of an immediate */
	X86_OP_LOAD,  /* dst = the word at src + imm, 64 bits */
	X86_OP_STORE, /* the word at dst + imm = src, 64 bits */
	X86_OP_LEAVE, /* rsp = rbp, then pop rbp */
};

struct x86_insn {
	uint8_t len;
	uint8_t flow;      /* enum x86_flow */
	uint8_t op;        /* enum x86_op */
	int8_t dst, src;   /* op's registers, or -1 */
	int64_t imm;       /* op's offset */
	uint8_t has_target;
	int64_t target;    /* X86_JUMP, X86_BRANCH, X86_CALL with a relative
	                      target: bytes from this instruction's first byte */
	uint16_t ret_pop;  /* X86_RET: the immediate of "ret imm16" */
	uint16_t writes;   /* bit r: register r is written otherwise (its value
	                      is then unknown) */
};

/* Decodes the instruction at code[0], n bytes of it readable. Returns its
 * length (1..15) with *out filled, or 0 when the bytes are no instruction
 * (invalid in 64-bit mode, too long, or cut short by n). */
int x86_insn__decode(const uint8_t *code, size_t n, struct x86_insn *out);

#endif
