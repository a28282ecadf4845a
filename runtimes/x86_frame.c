/* A frame's layout at a pc, from the code that follows it
 * (runtimes/x86_frame.h). */
#include "config.h"

#include <string.h>

#include "runtimes/x86_frame.h"
#include "runtimes/x86_insn.h"

/* What a value is, in terms of the registers and stack at the pc. */
enum vkind {
	V_UNKNOWN = 0,
	V_ADDR, /* base + v */
	V_WORD, /* the word at base + v, as it was at the pc */
};

/* The bases: the sp at the pc, a stack pointer the code had saved on the
 * stack (the word at the pc's sp + sp_at), and B_REG + r: register r as it
 * was at the pc. */
enum vbase { B_SP = 0, B_SAVED, B_REG };
#define B_RBP (B_REG + X86_RBP)

struct val {
	uint8_t kind, base;
	int32_t v;
};

/* Stack words written along a path (by push or mov [rsp+d]): they no
 * longer hold what they held at the pc. */
#define MAX_SLOTS 16
/* Paths waiting to be followed. */
#define MAX_PATHS 16
/* Offsets farther than this from a base are no frame of code we read. */
#define MAX_OFFSET (1 << 16)

struct slot {
	uint8_t base;
	int32_t off;
	struct val v;
};

struct path {
	uint32_t at;        /* offset in the code of the next instruction */
	int32_t high;       /* the highest rsp the path has had in its base */
	bool saved;         /* B_SAVED is defined: sp_at is set */
	int32_t sp_at;
	struct val reg[16]; /* reg[X86_RSP] is always a V_ADDR */
	uint8_t nslots;     /* slot[] is a ring of the last MAX_SLOTS writes */
	uint8_t next_slot;
	struct slot slot[MAX_SLOTS];
};

enum step { STEP_ON, STEP_DONE, STEP_FAIL };

static struct val addr(uint8_t base, int64_t v)
{
	struct val x = { V_ADDR, base, (int32_t)v };

	if (v <= -MAX_OFFSET || v >= MAX_OFFSET)
		x.kind = V_UNKNOWN;
	return x;
}


static const struct slot *slot_find(const struct path *p, uint8_t base, int32_t off)
{
	unsigned i;

	for (i = 0; i < p->nslots; i++)
		if (p->slot[i].base == base && p->slot[i].off == off)
			return &p->slot[i];
	return NULL;
}

static void slot_set(struct path *p, uint8_t base, int64_t off, struct val v)
{
	struct slot *s = (struct slot *)slot_find(p, base, (int32_t)off);

	if (off <= -MAX_OFFSET || off >= MAX_OFFSET)
		return;
	if (!s) {
		s = &p->slot[p->next_slot];
		p->next_slot = (uint8_t)((p->next_slot + 1) % MAX_SLOTS);
		if (p->nslots < MAX_SLOTS)
			p->nslots++;
	}
	s->base = base;
	s->off = (int32_t)off;
	s->v = v;
}

/* The word at base + off: what the path wrote there, else what was
 * there at the pc. A slot pushed out of the ring reads as unknown. */
static struct val word_at(const struct path *p, uint8_t base, int64_t off)
{
	const struct slot *s = slot_find(p, base, (int32_t)off);
	struct val w = { V_WORD, base, (int32_t)off };

	if (s)
		return s->v;
	if (off <= -MAX_OFFSET || off >= MAX_OFFSET || p->nslots == MAX_SLOTS)
		w.kind = V_UNKNOWN;
	return w;
}

/* rsp = v. A stack pointer read from the stack as it was at the pc
 * becomes the path's saved base. */
static bool set_sp(struct path *p, struct val v)
{
	if (v.kind == V_WORD && v.base == B_SP && !p->saved) {
		p->saved = true;
		p->sp_at = v.v;
		v = addr(B_SAVED, 0);
	}
	if (v.kind != V_ADDR)
		return false;
	p->reg[X86_RSP] = v;
	return true;
}

/* The caller's rbp, given rbp's value at a return from base + ra. */
static uint8_t caller_bp(struct val rbp, uint8_t base, int32_t ra)
{
	if (rbp.kind == V_ADDR && rbp.base == B_RBP && rbp.v == 0)
		return X86_BP_LIVE;
	if (rbp.kind == V_WORD && rbp.base == base && rbp.v == ra - 8)
		return X86_BP_BELOW_RA;
	return X86_BP_LOST;
}

/* The answer of a path at a return from base + ra. */
static enum step answer(const struct path *p, uint8_t base, int32_t ra, uint8_t bp,
			struct x86_frame *out)
{
	if (ra < 0 || (ra & 7))
		return STEP_FAIL;
	memset(out, 0, sizeof(*out));
	if (base == B_RBP && ra == 8 && bp == X86_BP_BELOW_RA) {
		out->kind = X86_FRAME_RBP; /* "leave; ret" with rbp as it was */
		return STEP_DONE;
	}
	out->kind = X86_FRAME_SP;
	out->ra = ra;
	out->bp = bp;
	if (base == B_SAVED) {
		out->base = X86_BASE_SAVED;
		out->base_at = p->sp_at;
	} else if (base >= B_REG) {
		out->base = X86_BASE_REG;
		out->base_at = base - B_REG;
	}
	return STEP_DONE;
}

/* At the point where the frame is whole. */
static enum step whole(const struct path *p, uint32_t frame_bytes, struct x86_frame *out)
{
	struct val sp = p->reg[X86_RSP];
	int64_t ra = (int64_t)sp.v + frame_bytes - 8;
	const struct slot *bp;
	uint8_t where = X86_BP_BELOW_RA;

	if (frame_bytes < 16 || frame_bytes >= MAX_OFFSET || slot_find(p, sp.base, (int32_t)ra))
		return STEP_FAIL; /* its return address written on the way: not ours */
	bp = slot_find(p, sp.base, (int32_t)(ra - 8));
	if (bp)
		where = bp->v.kind == V_ADDR && bp->v.base == B_RBP && bp->v.v == 0 ? X86_BP_LIVE
										   : X86_BP_LOST;
	return answer(p, sp.base, (int32_t)ra, where, out);
}

/* What one instruction does to the path. */
static enum step apply(struct path *p, const struct x86_insn *in, struct x86_frame *out)
{
	struct val *sp = &p->reg[X86_RSP], v;
	unsigned r;

	for (r = 0; r < 16; r++)
		if (in->writes & (1u << r)) {
			if (r == X86_RSP)
				return STEP_FAIL; /* moved in a way not followed */
			p->reg[r].kind = V_UNKNOWN;
		}
	switch (in->op) {
	case X86_OP_PUSH:
		v = in->src >= 0 ? p->reg[in->src] : (struct val){ V_UNKNOWN, 0, 0 };
		*sp = addr(sp->base, (int64_t)sp->v - 8);
		if (sp->kind != V_ADDR)
			return STEP_FAIL;
		slot_set(p, sp->base, sp->v, v);
		break;
	case X86_OP_POP:
		v = word_at(p, sp->base, sp->v);
		*sp = addr(sp->base, (int64_t)sp->v + 8);
		if (sp->kind != V_ADDR)
			return STEP_FAIL;
		if (in->dst == X86_RSP)
			return set_sp(p, v) ? STEP_ON : STEP_FAIL;
		if (in->dst >= 0)
			p->reg[in->dst] = v;
		break;
	case X86_OP_MOV:
		if (in->dst == X86_RSP)
			return set_sp(p, p->reg[in->src]) ? STEP_ON : STEP_FAIL;
		p->reg[in->dst] = p->reg[in->src];
		break;
	case X86_OP_LEA:
		v = p->reg[in->src];
		v = v.kind == V_ADDR ? addr(v.base, (int64_t)v.v + in->imm) : (struct val){ 0, 0, 0 };
		if (in->dst == X86_RSP)
			return set_sp(p, v) ? STEP_ON : STEP_FAIL;
		p->reg[in->dst] = v;
		break;
	case X86_OP_LOAD:
		v = p->reg[in->src];
		v = v.kind == V_ADDR ? word_at(p, v.base, (int64_t)v.v + in->imm)
				     : (struct val){ V_UNKNOWN, 0, 0 };
		if (in->dst == X86_RSP)
			return set_sp(p, v) ? STEP_ON : STEP_FAIL;
		p->reg[in->dst] = v;
		break;
	case X86_OP_STORE:
		v = p->reg[in->dst];
		if (v.kind == V_ADDR)
			slot_set(p, v.base, (int64_t)v.v + in->imm, p->reg[in->src]);
		break;
	case X86_OP_LEAVE:
		if (!set_sp(p, p->reg[X86_RBP]))
			return STEP_FAIL;
		p->reg[X86_RBP] = word_at(p, sp->base, sp->v);
		*sp = addr(sp->base, (int64_t)sp->v + 8);
		break;
	default:
		break;
	}
	if (in->flow == X86_CALL) {
		/* the callee may use every register but the stack and frame
		 * pointers, and the stack below sp */
		for (r = 0; r < 16; r++)
			if (r != X86_RSP && r != X86_RBP)
				p->reg[r].kind = V_UNKNOWN;
		for (r = 0; r < p->nslots; r++)
			if (p->slot[r].base == sp->base && p->slot[r].off < sp->v)
				p->slot[r].v.kind = V_UNKNOWN;
	}
	if (in->flow == X86_RET) {
		if (sp->kind != V_ADDR)
			return STEP_FAIL;
		return answer(p, sp->base, sp->v, caller_bp(p->reg[X86_RBP], sp->base, sp->v), out);
	}
	return STEP_ON;
}

struct walk {
	const struct x86_frame_code *c;
	struct path queue[MAX_PATHS];
	unsigned head, count;
	bool seen[X86_FRAME_MAX_BYTES]; /* instructions reached */
	/* the frame at the best call reached (c->whole_at_calls), kept in
	 * case no return or whole_pc is reached */
	bool have_call;
	struct x86_frame at_call;
	int rank_base;
	int32_t rank_sp;
};

/* A call where the frame is whole says where it is, but a call to a leaf
 * stub may follow words pushed for it (C1 pushes a type check's operands
 * for its slow_subtype_check stub), and HotSpot walks no frame there. The
 * frame is where the stack is highest at a call: pushes only lower it, so
 * a call below where the path's stack has been is none of the frame's,
 * and a stack pointer restored from where the code saved it (a base other
 * than the pc's sp) is the frame's. */
static void at_call(struct walk *w, const struct path *p)
{
	struct x86_frame f;
	struct val sp = p->reg[X86_RSP];
	int base = sp.base != B_SP;

	if (sp.v < p->high || whole(p, w->c->frame_bytes, &f) != STEP_DONE)
		return;
	if (w->have_call && (base < w->rank_base || (base == w->rank_base && sp.v <= w->rank_sp)))
		return;
	w->have_call = true;
	w->at_call = f;
	w->rank_base = base;
	w->rank_sp = sp.v;
}

static void enqueue(struct walk *w, const struct path *p, int64_t at)
{
	struct path *q;

	if (at < 0 || (uint64_t)at >= w->c->n || w->count == MAX_PATHS)
		return; /* out of the code given, or too many: that path ends */
	q = &w->queue[(w->head + w->count++) % MAX_PATHS];
	*q = *p;
	q->at = (uint32_t)at;
}

void x86_frame__at(const struct x86_frame_code *c, struct x86_frame *out)
{
	struct walk w;
	struct path p;
	unsigned budget = X86_FRAME_MAX_INSNS, r;

	memset(out, 0, sizeof(*out));
	if (!c->code || c->n == 0 || c->n > X86_FRAME_MAX_BYTES || c->pc < c->addr ||
	    c->pc - c->addr >= c->n)
		return;
	w.c = c;
	w.head = w.count = 0;
	w.have_call = false;
	memset(w.seen, 0, c->n);
	memset(&p, 0, sizeof(p));
	for (r = 0; r < 16; r++)
		p.reg[r] = addr((uint8_t)(B_REG + r), 0);
	p.reg[X86_RSP] = addr(B_SP, 0);
	enqueue(&w, &p, (int64_t)(c->pc - c->addr));
	while (w.count && budget) {
		struct x86_insn in;
		struct path *q = &w.queue[w.head];
		enum step s;
		uint32_t at = q->at;
		uint8_t q_base;

		p = *q;
		q_base = p.reg[X86_RSP].base;
		w.head = (w.head + 1) % MAX_PATHS;
		w.count--;
		/* reached before: followed from here already, with the same
		 * stack pointer, or with another when one of the two ways here
		 * is no real path (the fall-through of a call that does not
		 * return): the first, shortest, is kept */
		if (w.seen[at])
			continue;
		w.seen[at] = true;
		if (c->whole_pc && c->addr + at == c->whole_pc) {
			if (whole(&p, c->frame_bytes, out) == STEP_DONE)
				return;
			continue;
		}
		budget--;
		if (x86_insn__decode(c->code + at, c->n - at, &in) == 0)
			continue;
		if (in.flow == X86_CALL && c->whole_at_calls && c->frame_bytes)
			at_call(&w, &p);
		s = apply(&p, &in, out);
		if (s == STEP_DONE)
			return;
		if (p.reg[X86_RSP].base != q_base)
			p.high = p.reg[X86_RSP].v;
		else if (p.reg[X86_RSP].v > p.high)
			p.high = p.reg[X86_RSP].v;
		if (s == STEP_FAIL || in.flow == X86_RET || in.flow == X86_END)
			continue;
		if (in.flow != X86_JUMP)
			enqueue(&w, &p, (int64_t)at + in.len);
		if (in.has_target && in.flow != X86_CALL)
			enqueue(&w, &p, (int64_t)at + in.target);
	}
	if (w.have_call)
		*out = w.at_call;
	else
		memset(out, 0, sizeof(*out));
}
