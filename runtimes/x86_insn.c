/* x86-64 instruction decoding for stack walks (runtimes/x86_insn.h). The
 * encodings are the Intel SDM's, volume 2, chapter 2 and appendix A (the
 * opcode maps); each opcode's operands are listed where it is decoded.
 * Long file: the opcode maps (one-byte, 0F, 0F 38, 0F 3A, VEX and EVEX)
 * in one place, so that the decoder can be checked against the manual
 * table by table. Checked against objdump on all 3.3 million instructions
 * of JDK 17's libjvm.so and on every blob of a running JVM's code cache. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "runtimes/x86_insn.h"

#define BIT(r) ((uint16_t)(1u << ((r) & 15)))
/* what a call or an unknown system instruction may leave in registers */
#define ALL_BUT_STACK ((uint16_t)~(BIT(X86_RSP) | BIT(X86_RBP)))

struct prefix {
	bool opsize;   /* 66 */
	bool adsize;   /* 67: 32-bit addresses */
	bool seg;      /* 64, 65: an fs/gs-relative memory operand */
	uint8_t rep;   /* the last of F2, F3 */
	uint8_t rex;   /* 40..4F, 0 when none */
	bool w, r, x, b;
	uint8_t vex;   /* 0, or the escape byte: C4/C5 (VEX), 62 (EVEX) */
	uint8_t map;   /* 0 one-byte, 1 0F, 2 0F 38, 3 0F 3A, 5 and 6 (EVEX) */
	uint8_t pp;    /* VEX/EVEX implied prefix: 0 none, 1 66, 2 F3, 3 F2 */
	uint8_t vvvv;  /* VEX/EVEX extra register (0..15) */
};

struct modrm {
	uint8_t mod, reg, rm; /* reg and rm with their REX extensions */
	int8_t base, index;   /* memory operand: registers, -1 none (or rip) */
	int64_t disp;
	uint8_t len;          /* ModRM, SIB and displacement bytes */
};

static int parse_modrm(const uint8_t *c, size_t n, size_t p, const struct prefix *px,
		       struct modrm *m)
{
	size_t q = p, dsize;
	uint8_t b;

	if (q >= n)
		return -1;
	b = c[q++];
	m->mod = b >> 6;
	m->reg = (uint8_t)(((b >> 3) & 7) | (px->r ? 8 : 0));
	m->rm = (uint8_t)((b & 7) | (px->b ? 8 : 0));
	m->base = m->index = -1;
	m->disp = 0;
	if (m->mod == 3) {
		m->len = 1;
		return 0;
	}
	dsize = m->mod == 1 ? 1 : m->mod == 2 ? 4 : 0;
	if ((b & 7) == 4) { /* a SIB byte follows */
		uint8_t sib, base, index;

		if (q >= n)
			return -1;
		sib = c[q++];
		base = sib & 7;
		index = (sib >> 3) & 7;
		if (index != 4 || px->x)
			m->index = (int8_t)(index | (px->x ? 8 : 0));
		if (base == 5 && m->mod == 0)
			dsize = 4; /* no base, a 32-bit displacement */
		else
			m->base = (int8_t)(base | (px->b ? 8 : 0));
	} else if ((b & 7) == 5 && m->mod == 0) {
		dsize = 4; /* rip-relative */
	} else {
		m->base = (int8_t)m->rm;
	}
	if (q + dsize > n)
		return -1;
	if (dsize == 1) {
		m->disp = (int8_t)c[q];
	} else if (dsize == 4) {
		int32_t d;

		memcpy(&d, c + q, sizeof(d));
		m->disp = d;
	}
	m->len = (uint8_t)(q + dsize - p);
	return 0;
}

static int64_t imm_at(const uint8_t *c, size_t size)
{
	int16_t w;
	int32_t d;
	int64_t q;

	switch (size) {
	case 1:
		return (int8_t)c[0];
	case 2:
		memcpy(&w, c, sizeof(w));
		return w;
	case 4:
		memcpy(&d, c, sizeof(d));
		return d;
	default:
		memcpy(&q, c, sizeof(q));
		return q;
	}
}

/* An 8-bit register operand: without REX, 4..7 are ah, ch, dh, bh. */
static unsigned byte_reg(unsigned r, const struct prefix *px)
{
	return !px->rex && r >= 4 && r < 8 ? r - 4 : r;
}

/* A register operand in ModRM.rm written (nothing when rm is memory). */
static void write_rm(struct x86_insn *o, const struct modrm *m, const struct prefix *px, bool byte)
{
	if (m->mod == 3)
		o->writes |= BIT(byte ? byte_reg(m->rm, px) : m->rm);
}

static void write_reg(struct x86_insn *o, const struct modrm *m, const struct prefix *px, bool byte)
{
	o->writes |= BIT(byte ? byte_reg(m->reg, px) : m->reg);
}

/* A memory operand at a register plus a displacement, no index, in the
 * flat 64-bit address space: [base + disp]. */
static bool plain_mem(const struct modrm *m, const struct prefix *px)
{
	return m->mod != 3 && m->base >= 0 && m->index < 0 && !px->adsize && !px->seg;
}

static void set_op(struct x86_insn *o, uint8_t op, unsigned dst, int src, int64_t imm)
{
	o->op = op;
	o->dst = (int8_t)dst;
	o->src = (int8_t)src;
	o->imm = imm;
}

/* What the decoding of one map needs besides the bytes. */
struct ctx {
	const struct prefix *px;
	struct modrm m;
	bool has_modrm;
	size_t imm;      /* immediate bytes */
	bool rel;        /* the immediate is a branch displacement */
	bool lea_imm;    /* the immediate is added (add) or subtracted (sub) */
};

/* The one-byte map (SDM A.3, table A-2). */
static int map0(uint8_t op, struct ctx *x, struct x86_insn *o)
{
	const struct prefix *px = x->px;
	const size_t z = px->opsize ? 2 : 4; /* Iz */

	if (op < 0x40) {
		unsigned col = op & 7, kind = op >> 3; /* add or adc sbb and sub xor cmp */

		if (col >= 6)
			return -1; /* segment pushes, BCD, prefixes: invalid here */
		x->has_modrm = col < 4;
		x->imm = col == 4 ? 1 : col == 5 ? z : 0;
		if (kind == 7)
			return 0;
		if (col == 4 || col == 5)
			o->writes |= BIT(0);
		/* op r/m, r and op r, r/m: the destination is rm, then reg */
		o->op = 0xff; /* decided once ModRM is read */
		return 0;
	}
	if (op >= 0x50 && op <= 0x5f) { /* push r64 / pop r64 */
		unsigned r = (op & 7) | (px->b ? 8 : 0);

		if (px->opsize) { /* a 16-bit push moves rsp by 2 */
			o->writes |= BIT(X86_RSP);
			return 0;
		}
		o->op = op < 0x58 ? X86_OP_PUSH : X86_OP_POP;
		if (op < 0x58)
			o->src = (int8_t)r;
		else
			o->dst = (int8_t)r;
		return 0;
	}
	if (op >= 0x70 && op <= 0x7f) { /* jcc rel8 */
		o->flow = X86_BRANCH;
		x->imm = 1;
		x->rel = true;
		return 0;
	}
	if (op >= 0x91 && op <= 0x97) { /* xchg rax, r */
		o->writes |= BIT(0) | BIT((op & 7) | (px->b ? 8 : 0));
		return 0;
	}
	if (op >= 0xb0 && op <= 0xbf) { /* mov r, imm */
		unsigned r = (op & 7) | (px->b ? 8 : 0);

		if (op < 0xb8) {
			o->writes |= BIT(byte_reg(r, px));
			x->imm = 1;
		} else {
			o->writes |= BIT(r);
			x->imm = px->w ? 8 : z;
		}
		return 0;
	}
	if (op >= 0xd8 && op <= 0xdf) { /* x87: "fnstsw ax" (DF E0) writes rax */
		x->has_modrm = true;
		o->op = 0xfe;
		return 0;
	}
	switch (op) {
	case 0x63: /* movsxd r, r/m */
	case 0x69: /* imul r, r/m, Iz */
	case 0x6b: /* imul r, r/m, Ib */
	case 0x8a: /* mov r8, r/m8 */
	case 0x8b: /* mov r, r/m */
	case 0x8d: /* lea r, m */
	case 0x86: /* xchg r/m8, r8 */
	case 0x87: /* xchg r/m, r */
	case 0x88: /* mov r/m8, r8 */
	case 0x89: /* mov r/m, r */
	case 0x8c: /* mov r/m, sreg */
	case 0x84: /* test */
	case 0x85:
	case 0x8e: /* mov sreg, r/m */
	case 0x8f: /* pop r/m */
	case 0xc0: /* shifts */
	case 0xc1:
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
	case 0xc6: /* mov r/m8, Ib; xabort */
	case 0xc7: /* mov r/m, Iz; xbegin */
	case 0xf6: /* test not neg mul imul div idiv */
	case 0xf7:
	case 0xfe: /* inc dec */
	case 0xff: /* inc dec call jmp push */
	case 0x80: /* group 1: op r/m, Ib */
	case 0x81: /* op r/m, Iz */
	case 0x83: /* op r/m, Ib */
		x->has_modrm = true;
		x->imm = op == 0x69 || op == 0x81 || op == 0xc7 ? z
			 : op == 0x6b || op == 0x80 || op == 0x83 || op == 0xc0 || op == 0xc1 ||
					   op == 0xc6
				 ? 1
				 : 0;
		o->op = 0xff; /* decided once ModRM is read */
		return 0;
	case 0x68: /* push Iz */
	case 0x6a: /* push Ib */
		if (px->opsize) {
			o->writes |= BIT(X86_RSP);
		} else {
			o->op = X86_OP_PUSH;
		}
		x->imm = op == 0x68 ? z : 1;
		return 0;
	case 0x6c: /* ins, outs */
	case 0x6d:
	case 0x6e:
	case 0x6f:
		o->writes |= BIT(1) | BIT(6) | BIT(7);
		return 0;
	case 0x90: /* nop, pause (without REX.B; with it, xchg rax, r8) */
		if (px->b)
			o->writes |= BIT(0) | BIT(8);
		return 0;
	case 0x98: /* cbw/cwde/cdqe */
	case 0x9f: /* lahf */
		o->writes |= BIT(0);
		return 0;
	case 0x99: /* cwd/cdq/cqo */
		o->writes |= BIT(2);
		return 0;
	case 0x9b: /* fwait */
	case 0x9e: /* sahf */
	case 0xf5: /* cmc */
	case 0xf8: /* clc stc cli sti cld std */
	case 0xf9:
	case 0xfa:
	case 0xfb:
	case 0xfc:
	case 0xfd:
		return 0;
	case 0x9c: /* pushf */
		o->op = X86_OP_PUSH;
		return 0;
	case 0x9d: /* popf */
		o->op = X86_OP_POP;
		return 0;
	case 0xa0: /* mov al/rax, moffs */
	case 0xa1:
		o->writes |= BIT(0);
		/* fall through */
	case 0xa2: /* mov moffs, al/rax */
	case 0xa3:
		x->imm = px->adsize ? 4 : 8; /* the address */
		return 0;
	case 0xa4: /* movs, cmps */
	case 0xa5:
	case 0xa6:
	case 0xa7:
		o->writes |= BIT(1) | BIT(6) | BIT(7);
		return 0;
	case 0xa8: /* test al, Ib */
		x->imm = 1;
		return 0;
	case 0xa9: /* test rax, Iz */
		x->imm = z;
		return 0;
	case 0xaa: /* stos */
	case 0xab:
	case 0xae: /* scas */
	case 0xaf:
		o->writes |= BIT(1) | BIT(7);
		return 0;
	case 0xac: /* lods */
	case 0xad:
		o->writes |= BIT(0) | BIT(1) | BIT(6);
		return 0;
	case 0xc2: /* ret Iw */
		o->flow = X86_RET;
		x->imm = 2;
		return 0;
	case 0xc3:
		o->flow = X86_RET;
		return 0;
	case 0xc8: /* enter Iw, Ib */
		o->writes |= BIT(X86_RSP) | BIT(X86_RBP);
		x->imm = 3;
		return 0;
	case 0xc9:
		o->op = X86_OP_LEAVE;
		return 0;
	case 0xca: /* far returns, traps */
	case 0xcb:
	case 0xcc:
	case 0xcf:
	case 0xf1:
	case 0xf4: /* hlt */
		o->flow = X86_END;
		return 0;
	case 0xcd: /* int Ib */
		o->flow = X86_END;
		x->imm = 1;
		return 0;
	case 0xd7: /* xlat */
		o->writes |= BIT(0);
		return 0;
	case 0xe0: /* loopne, loope, loop */
	case 0xe1:
	case 0xe2:
		o->writes |= BIT(1);
		/* fall through */
	case 0xe3: /* jrcxz */
		o->flow = X86_BRANCH;
		x->imm = 1;
		x->rel = true;
		return 0;
	case 0xe4: /* in al/eax, Ib */
	case 0xe5:
		o->writes |= BIT(0);
		/* fall through */
	case 0xe6: /* out Ib */
	case 0xe7:
		x->imm = 1;
		return 0;
	case 0xec: /* in, out through dx */
	case 0xed:
		o->writes |= BIT(0);
		return 0;
	case 0xee:
	case 0xef:
		return 0;
	case 0xe8: /* call rel32 */
		o->flow = X86_CALL;
		x->imm = 4;
		x->rel = true;
		return 0;
	case 0xe9: /* jmp rel32 */
		o->flow = X86_JUMP;
		x->imm = 4;
		x->rel = true;
		return 0;
	case 0xeb: /* jmp rel8 */
		o->flow = X86_JUMP;
		x->imm = 1;
		x->rel = true;
		return 0;
	default: /* 82, 9A, C4/C5/62 handled before, CE, D4-D6, EA, prefixes: invalid here */
		return -1;
	}
}

/* Operands of the one-byte map that ModRM decides. */
static int map0_modrm(uint8_t op, struct ctx *x, struct x86_insn *o)
{
	const struct prefix *px = x->px;
	const struct modrm *m = &x->m;
	unsigned g = m->reg & 7; /* a group's operation */

	if (op < 0x40) {
		unsigned col = op & 7, kind = op >> 3;

		if (kind == 7 || col >= 4)
			return 0;
		if (col < 2)
			write_rm(o, m, px, col == 0);
		else
			write_reg(o, m, px, col == 2);
		return 0;
	}
	switch (op) {
	case 0x63:
	case 0x69:
	case 0x6b:
	case 0x8a:
		write_reg(o, m, px, op == 0x8a);
		return 0;
	case 0x8b: /* mov r, r/m */
		if (px->w && m->mod == 3)
			set_op(o, X86_OP_MOV, m->reg, m->rm, 0);
		else if (px->w && plain_mem(m, px))
			set_op(o, X86_OP_LOAD, m->reg, m->base, m->disp);
		else
			write_reg(o, m, px, false);
		return 0;
	case 0x89: /* mov r/m, r */
		if (px->w && m->mod == 3)
			set_op(o, X86_OP_MOV, m->rm, m->reg, 0);
		else if (px->w && plain_mem(m, px))
			set_op(o, X86_OP_STORE, (unsigned)m->base, m->reg, m->disp);
		else
			write_rm(o, m, px, false);
		return 0;
	case 0x8d: /* lea r, m */
		if (m->mod == 3)
			return -1;
		if (px->w && plain_mem(m, px))
			set_op(o, X86_OP_LEA, m->reg, m->base, m->disp);
		else
			write_reg(o, m, px, false);
		return 0;
	case 0x86:
	case 0x87:
		write_reg(o, m, px, op == 0x86);
		write_rm(o, m, px, op == 0x86);
		return 0;
	case 0x88:
	case 0x8c:
		write_rm(o, m, px, op == 0x88);
		return 0;
	case 0x84:
	case 0x85:
	case 0x8e:
		return 0;
	case 0x8f: /* pop r/m (other /r: AMD's XOP, refused) */
		if (g != 0)
			return -1;
		o->op = X86_OP_POP;
		o->dst = m->mod == 3 ? (int8_t)m->rm : -1;
		return 0;
	case 0xc0:
	case 0xc1:
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
		write_rm(o, m, px, !(op & 1));
		return 0;
	case 0xc6:
	case 0xc7:
		if (g == 7 && m->mod == 3 && (m->rm & 7) == 0) { /* xabort Ib, xbegin rel */
			if (op == 0xc6) {
				o->writes |= BIT(0);
			} else {
				o->flow = X86_BRANCH;
				x->rel = true;
			}
			return 0;
		}
		if (g != 0)
			return -1;
		write_rm(o, m, px, op == 0xc6);
		return 0;
	case 0xf6:
	case 0xf7:
		if (g <= 1) { /* test r/m, imm */
			x->imm = op == 0xf6 ? 1 : px->opsize ? 2 : 4;
		} else if (g <= 3) { /* not, neg */
			write_rm(o, m, px, op == 0xf6);
		} else { /* mul imul div idiv: rdx:rax */
			o->writes |= BIT(0) | (op == 0xf7 ? BIT(2) : 0);
		}
		return 0;
	case 0xfe:
		if (g > 1)
			return -1;
		write_rm(o, m, px, true);
		return 0;
	case 0xff:
		switch (g) {
		case 0: /* inc, dec */
		case 1:
			write_rm(o, m, px, false);
			return 0;
		case 2: /* call r/m: the target is not known */
			o->flow = X86_CALL;
			return 0;
		case 6: /* push r/m */
			o->op = X86_OP_PUSH;
			o->src = m->mod == 3 ? (int8_t)m->rm : -1;
			return 0;
		case 7:
			return -1;
		default: /* far call, jmp r/m, far jmp */
			o->flow = X86_END;
			return 0;
		}
	case 0x80:
	case 0x81:
	case 0x83:
		if (g == 7) /* cmp */
			return 0;
		if (px->w && m->mod == 3 && (g == 0 || g == 5)) { /* add, sub r64, imm */
			set_op(o, X86_OP_LEA, m->rm, m->rm, 0);
			x->lea_imm = true; /* the immediate, read after */
			return 0;
		}
		write_rm(o, m, px, op == 0x80);
		return 0;
	default: /* x87 */
		if (op == 0xdf && m->mod == 3 && g == 4)
			o->writes |= BIT(0); /* fnstsw ax */
		return 0;
	}
}

/* The two-byte map, 0F xx (SDM table A-3), without VEX. */
static int map1(uint8_t op, struct ctx *x, struct x86_insn *o)
{
	const struct prefix *px = x->px;

	x->has_modrm = true;
	if (op >= 0x80 && op <= 0x8f) { /* jcc rel32 */
		x->has_modrm = false;
		o->flow = X86_BRANCH;
		x->imm = 4;
		x->rel = true;
		return 0;
	}
	if (op >= 0xc8 && op <= 0xcf) { /* bswap */
		x->has_modrm = false;
		o->writes |= BIT((op & 7) | (px->b ? 8 : 0));
		return 0;
	}
	switch (op) {
	case 0x04:
	case 0x0a:
	case 0x0c:
	case 0x24:
	case 0x25:
	case 0x26:
	case 0x27:
	case 0x36:
	case 0x39:
	case 0x3b:
	case 0x3c:
	case 0x3d:
	case 0x3e:
	case 0x3f:
	case 0xa6:
	case 0xa7:
		return -1;
	case 0x05: /* syscall */
		x->has_modrm = false;
		o->writes |= BIT(0) | BIT(1) | BIT(11);
		return 0;
	case 0x06: /* clts, invd, wbinvd, femms, wrmsr, emms */
	case 0x08:
	case 0x09:
	case 0x0e:
	case 0x30:
	case 0x77:
		x->has_modrm = false;
		return 0;
	case 0x07: /* sysret, ud2, rsm, sysenter, sysexit */
	case 0x0b:
	case 0xaa:
	case 0x34:
	case 0x35:
		x->has_modrm = false;
		o->flow = X86_END;
		return 0;
	case 0x31: /* rdtsc, rdmsr, rdpmc */
	case 0x32:
	case 0x33:
		x->has_modrm = false;
		o->writes |= BIT(0) | BIT(2);
		return 0;
	case 0x37: /* getsec */
	case 0xa2: /* cpuid */
		x->has_modrm = false;
		o->writes |= BIT(0) | BIT(1) | BIT(2) | BIT(3);
		return 0;
	case 0xa0: /* push fs/gs, pop fs/gs */
	case 0xa8:
		x->has_modrm = false;
		o->op = X86_OP_PUSH;
		return 0;
	case 0xa1:
	case 0xa9:
		x->has_modrm = false;
		o->op = X86_OP_POP;
		return 0;
	case 0x0f: /* 3DNow!: an opcode byte after the operands */
	case 0x70: /* pshuf*, shifts by immediate */
	case 0x71:
	case 0x72:
	case 0x73:
	case 0xa4: /* shld, shrd Ib */
	case 0xac:
	case 0xba: /* bt* Ib */
	case 0xc2: /* cmpps */
	case 0xc4: /* pinsrw */
	case 0xc5: /* pextrw r, xmm, Ib */
	case 0xc6: /* shufps */
		x->imm = 1;
		break;
	case 0x78: /* vmread, or SSE4a extrq with 66 (two immediates) */
		if (px->opsize)
			x->imm = 2;
		break;
	default:
		break;
	}
	o->op = 0xff; /* decided once ModRM is read */
	return 0;
}

static int map1_modrm(uint8_t op, struct ctx *x, struct x86_insn *o)
{
	const struct prefix *px = x->px;
	const struct modrm *m = &x->m;
	unsigned g = m->reg & 7;

	if (op >= 0x40 && op <= 0x4f) { /* cmov */
		write_reg(o, m, px, false);
		return 0;
	}
	if (op >= 0x90 && op <= 0x9f) { /* setcc r/m8 */
		write_rm(o, m, px, true);
		return 0;
	}
	switch (op) {
	case 0x00: /* sldt, str, ... */
	case 0x20: /* mov r, cr/dr */
	case 0x21:
	case 0xa4: /* shld, shrd, bts, btr, btc */
	case 0xa5:
	case 0xab:
	case 0xac:
	case 0xad:
	case 0xb3:
	case 0xbb:
		write_rm(o, m, px, false);
		return 0;
	case 0x01: /* system group: some forms write rax, rcx, rdx (rdtscp, xgetbv) */
		o->writes |= BIT(0) | BIT(1) | BIT(2);
		write_rm(o, m, px, false);
		return 0;
	case 0x02: /* lar, lsl */
	case 0x03:
	case 0x2c: /* cvt(t)ss/sd2si */
	case 0x2d:
	case 0x50: /* movmskps/pd */
	case 0xaf: /* imul r, r/m */
	case 0xb2: /* lss, lfs, lgs */
	case 0xb4:
	case 0xb5:
	case 0xb6: /* movzx, movsx */
	case 0xb7:
	case 0xbe:
	case 0xbf:
	case 0xb8: /* popcnt */
	case 0xbc: /* bsf/tzcnt, bsr/lzcnt */
	case 0xbd:
	case 0xc5: /* pextrw r, xmm */
	case 0xd7: /* pmovmskb */
		write_reg(o, m, px, false);
		return 0;
	case 0x78: /* vmread r/m, r; extrq */
	case 0x79:
		write_reg(o, m, px, false);
		write_rm(o, m, px, false);
		return 0;
	case 0x7e: /* movd/movq r/m, xmm (F3: movq xmm, xmm/m64) */
		if (px->rep != 0xf3)
			write_rm(o, m, px, false);
		return 0;
	case 0xae: /* fences, fxsave...; F3 with a register: rd/wr fs/gs base */
		if (px->rep == 0xf3)
			write_rm(o, m, px, false);
		return 0;
	case 0xb0: /* cmpxchg: rax too */
	case 0xb1:
		o->writes |= BIT(0);
		write_rm(o, m, px, op == 0xb0);
		return 0;
	case 0xb9: /* ud1 */
	case 0xff: /* ud0 */
		o->flow = X86_END;
		return 0;
	case 0xba:
		if (g < 4)
			return -1;
		if (g > 4)
			write_rm(o, m, px, false);
		return 0;
	case 0xc0: /* xadd */
	case 0xc1:
		write_reg(o, m, px, op == 0xc0);
		write_rm(o, m, px, op == 0xc0);
		return 0;
	case 0xc7: /* cmpxchg8b/16b, rdrand, rdseed */
		o->writes |= BIT(0) | BIT(2);
		write_rm(o, m, px, false);
		return 0;
	default: /* SSE and the like: XMM or memory destinations */
		return 0;
	}
}

/* 0F 38 xx and 0F 3A xx without VEX (SDM tables ). */
static void map23_modrm(uint8_t map, uint8_t op, struct ctx *x, struct x86_insn *o)
{
	const struct prefix *px = x->px;
	const struct modrm *m = &x->m;

	if (map == 2) {
		/* movbe r, m; crc32 (F2); adcx, adox (66, F3) */
		if ((op == 0xf0 && (px->rep == 0xf2 || m->mod != 3)) ||
		    (op == 0xf1 && px->rep == 0xf2) || op == 0xf6)
			write_reg(o, m, px, false);
		return;
	}
	if (op >= 0x14 && op <= 0x17) /* pextrb/w/d/q, extractps */
		write_rm(o, m, px, false);
	else if (op == 0x61 || op == 0x63) /* pcmpestri, pcmpistri: ecx */
		o->writes |= BIT(1);
}

/* VEX and EVEX instructions: vector, mask and BMI (SDM 2.3, 2.7). Only a
 * few write a general register. */
static void vex_writes(const struct prefix *px, uint8_t op, struct ctx *x, struct x86_insn *o)
{
	const struct modrm *m = &x->m;

	switch (px->map) {
	case 1:
		if (op == 0x50 || op == 0xc5 || op == 0xd7 || op == 0x2c || op == 0x2d ||
		    (op == 0x93 && px->vex != 0x62) || op == 0x78 || op == 0x79)
			write_reg(o, m, px, false);
		else if (op == 0x7e && px->pp != 2)
			write_rm(o, m, px, false);
		break;
	case 2:
		if (px->vex == 0x62)
			break;
		if (op == 0xf2 || op == 0xf5 || op == 0xf7) {
			write_reg(o, m, px, false);
		} else if (op == 0xf3) { /* blsr, blsmsk, blsi: into vvvv */
			o->writes |= BIT(px->vvvv);
		} else if (op == 0xf6) { /* mulx */
			write_reg(o, m, px, false);
			o->writes |= BIT(px->vvvv);
		}
		break;
	case 3:
		if (op >= 0x14 && op <= 0x17)
			write_rm(o, m, px, false);
		else if (op == 0x61 || op == 0x63)
			o->writes |= BIT(1);
		else if (op == 0xf0 && px->vex != 0x62) /* rorx */
			write_reg(o, m, px, false);
		break;
	case 5: /* EVEX FP16 conversions to integers */
		if (op == 0x2c || op == 0x2d || op == 0x78 || op == 0x79)
			write_reg(o, m, px, false);
		break;
	default:
		break;
	}
}

/* Reads a VEX or EVEX prefix at c[p] (the escape byte). Returns the bytes
 * it took, or 0. */
static size_t vex_prefix(const uint8_t *c, size_t n, size_t p, struct prefix *px)
{
	uint8_t e = c[p];

	px->vex = e;
	if (e == 0xc5) {
		if (p + 1 >= n)
			return 0;
		px->r = !(c[p + 1] & 0x80);
		px->vvvv = (uint8_t)((~c[p + 1] >> 3) & 15);
		px->pp = c[p + 1] & 3;
		px->map = 1;
		return 2;
	}
	if (e == 0xc4) {
		if (p + 2 >= n)
			return 0;
		px->r = !(c[p + 1] & 0x80);
		px->x = !(c[p + 1] & 0x40);
		px->b = !(c[p + 1] & 0x20);
		px->map = c[p + 1] & 0x1f;
		px->w = (c[p + 2] & 0x80) != 0;
		px->vvvv = (uint8_t)((~c[p + 2] >> 3) & 15);
		px->pp = c[p + 2] & 3;
		return px->map >= 1 && px->map <= 3 ? 3 : 0;
	}
	/* EVEX: 62 P0 P1 P2; P1 bit 2 is always 1 */
	if (p + 3 >= n || !(c[p + 2] & 0x04))
		return 0;
	px->r = !(c[p + 1] & 0x80);
	px->x = !(c[p + 1] & 0x40);
	px->b = !(c[p + 1] & 0x20);
	px->map = c[p + 1] & 0x07;
	px->w = (c[p + 2] & 0x80) != 0;
	px->vvvv = (uint8_t)((~c[p + 2] >> 3) & 15);
	px->pp = c[p + 2] & 3;
	return (px->map >= 1 && px->map <= 3) || px->map == 5 || px->map == 6 ? 4 : 0;
}

int x86_insn__decode(const uint8_t *c, size_t n, struct x86_insn *o)
{
	struct prefix px;
	struct ctx x;
	size_t p = 0, k;
	uint8_t op;

	memset(o, 0, sizeof(*o));
	o->dst = o->src = -1;
	memset(&px, 0, sizeof(px));
	memset(&x, 0, sizeof(x));
	x.px = &px;
	if (n > X86_MAX_INSN)
		n = X86_MAX_INSN;
	for (;; p++) { /* legacy prefixes, in any order */
		if (p >= n)
			return 0;
		if (c[p] == 0x66)
			px.opsize = true;
		else if (c[p] == 0xf2 || c[p] == 0xf3)
			px.rep = c[p];
		else if (c[p] == 0x67)
			px.adsize = true;
		else if (c[p] == 0x64 || c[p] == 0x65)
			px.seg = true;
		else if (c[p] != 0xf0 && c[p] != 0x2e && c[p] != 0x36 && c[p] != 0x3e &&
			 c[p] != 0x26)
			break;
	}
	if ((c[p] & 0xf0) == 0x40) { /* REX, right before the opcode */
		px.rex = c[p];
		px.w = (px.rex & 8) != 0;
		px.r = (px.rex & 4) != 0;
		px.x = (px.rex & 2) != 0;
		px.b = (px.rex & 1) != 0;
		if (++p >= n)
			return 0;
	}
	op = c[p++];
	if (op == 0xc4 || op == 0xc5 || op == 0x62) {
		if (px.rex || px.opsize || px.rep)
			return 0; /* #UD: no REX, 66, F2 or F3 before VEX */
		k = vex_prefix(c, n, p - 1, &px);
		if (!k || p - 1 + k >= n)
			return 0;
		p = p - 1 + k;
		op = c[p++];
		x.has_modrm = !(px.vex == 0xc5 || px.vex == 0xc4) || !(px.map == 1 && op == 0x77);
		x.imm = px.map == 3 || (px.map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
						     (op >= 0xc4 && op <= 0xc6)))
				? 1
				: 0;
		if (x.has_modrm && parse_modrm(c, n, p, &px, &x.m))
			return 0;
		if (x.has_modrm) {
			p += x.m.len;
			vex_writes(&px, op, &x, o);
		}
	} else if (op == 0x0f) {
		if (p >= n)
			return 0;
		op = c[p++];
		if (op == 0x38 || op == 0x3a) {
			uint8_t map = op == 0x38 ? 2 : 3;

			if (p >= n)
				return 0;
			op = c[p++];
			x.imm = map == 3 ? 1 : 0;
			if (parse_modrm(c, n, p, &px, &x.m))
				return 0;
			p += x.m.len;
			map23_modrm(map, op, &x, o);
		} else {
			if (map1(op, &x, o))
				return 0;
			if (x.has_modrm) {
				if (parse_modrm(c, n, p, &px, &x.m))
					return 0;
				p += x.m.len;
				o->op = X86_OP_NONE;
				if (map1_modrm(op, &x, o))
					return 0;
			}
		}
	} else {
		if (map0(op, &x, o))
			return 0;
		if (x.has_modrm) {
			if (parse_modrm(c, n, p, &px, &x.m))
				return 0;
			p += x.m.len;
			if (o->op == 0xff || o->op == 0xfe) {
				o->op = X86_OP_NONE;
				if (map0_modrm(op, &x, o))
					return 0;
			}
		} else if (o->op == 0xff) {
			o->op = X86_OP_NONE; /* an ALU form on rax with an immediate */
		}
	}
	if (p + x.imm > n)
		return 0;
	if (x.imm == 1 || x.imm == 2 || x.imm == 4 || x.imm == 8) {
		int64_t v = imm_at(c + p, x.imm);

		if (x.rel) {
			o->has_target = 1;
			o->target = (int64_t)(p + x.imm) + v;
		} else if (o->flow == X86_RET) {
			o->ret_pop = (uint16_t)v;
		} else if (x.lea_imm) {
			o->imm = (x.m.reg & 7) == 5 ? -v : v; /* sub: an add of -imm */
		}
	}
	p += x.imm;
	o->len = (uint8_t)p;
	return (int)p;
}
