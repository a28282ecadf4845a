/* Where the caller of a frame is, at one pc of x86-64 code that no CFI
 * describes, read from the code itself.
 *
 * JIT code sampled in its prologue or epilogue, or in a stretch that moves
 * the stack pointer inside its body (C2's String.indexOf pushes four
 * words and the old sp and pops it back with "pop rsp"), or a stub that
 * keeps an rbp frame in its body but not yet at its first instruction, has
 * no single frame size that holds at every pc. The code says what holds:
 * following it forward from the pc, along every path, the stack pointer
 * and the frame pointer are tracked as offsets from what they were at the
 * pc, until a point where the frame's layout is known:
 *
 *  - a return: the return address is at the sp of that moment;
 *  - "leave" with rbp still as it was at the pc: an rbp frame;
 *  - the point from which the runtime says the frame is whole (HotSpot's
 *    frame_complete_offset, with its frame size);
 *  - "pop rsp" or "mov rsp, ..." taking a stack pointer the code saved
 *    before the pc, on the stack or in a register: the frame counts from
 *    that word or that register's value at the pc.
 *
 * Paths are explored breadth first and the first such point wins. Where
 * the runtime says the frame is whole at calls too, and no such point is
 * reached, the frame is the one at the call where the stack is highest (a
 * call to a leaf stub may follow words pushed for it). A path
 * that reaches code it cannot decode, an indirect jump, a write to rsp it
 * cannot follow, or the end of the bytes given ends without an answer.
 * Bounded: at most X86_FRAME_MAX_INSNS instructions decoded and
 * X86_FRAME_MAX_BYTES bytes looked at. Pure: reads only the bytes given. */
#ifndef SMOLDER_RUNTIMES_X86_FRAME_H
#define SMOLDER_RUNTIMES_X86_FRAME_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define X86_FRAME_MAX_INSNS 512
#define X86_FRAME_MAX_BYTES 8192

/* The code around a pc. */
struct x86_frame_code {
	const uint8_t *code;  /* the bytes of [addr, addr + n) */
	size_t n;
	uint64_t addr;
	uint64_t pc;          /* where the frame is, in [addr, addr + n) */
	/* from whole_pc on, the frame is whole: frame_bytes above sp, the
	 * return address in its top word and the caller's rbp below it
	 * (0: the code has no such point) */
	uint64_t whole_pc;
	uint32_t frame_bytes;
	/* the frame is whole at every call too: the runtime walks the code's
	 * frames by frame_bytes from any call in it (HotSpot's compiled
	 * methods and runtime stubs), so no code pushes across a call */
	bool whole_at_calls;
};

enum x86_frame_kind {
	X86_FRAME_UNKNOWN = 0, /* the code did not say */
	X86_FRAME_SP,          /* the return address at base + ra */
	X86_FRAME_RBP,         /* an rbp frame: the caller's rbp at rbp, the
	                          return address above it */
};

/* What an X86_FRAME_SP frame counts from. */
enum x86_frame_base {
	X86_BASE_SP = 0, /* the sp at the pc */
	X86_BASE_SAVED,  /* the word at sp + base_at: a stack pointer the code
	                    saved there before moving sp */
	X86_BASE_REG,    /* register base_at as it was at the pc, where the code
	                    keeps a stack pointer it will restore */
};

/* Where the caller's rbp is, for X86_FRAME_SP. */
enum x86_frame_bp {
	X86_BP_BELOW_RA = 0, /* saved in the word below the return address */
	X86_BP_LIVE,         /* still in rbp: not saved yet, or restored */
	X86_BP_LOST,         /* neither (the caller's rbp is not known) */
};

struct x86_frame {
	uint8_t kind;    /* enum x86_frame_kind */
	uint8_t bp;      /* enum x86_frame_bp */
	uint8_t base;    /* enum x86_frame_base */
	int32_t base_at; /* X86_BASE_SAVED: bytes above sp; X86_BASE_REG: the
	                    register (0 rax .. 15 r15, never rsp) */
	int32_t ra;      /* bytes from base, a multiple of 8 */
};

/* Reads the frame at c->pc. Always fills *out (kind X86_FRAME_UNKNOWN
 * when the code said nothing usable). */
void x86_frame__at(const struct x86_frame_code *c, struct x86_frame *out);

#endif
