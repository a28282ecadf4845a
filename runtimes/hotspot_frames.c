/* A code blob's frame at one pc, as the blob's code says
 * (runtimes/x86_frame.h): what the unwinder needs where one frame size
 * does not hold at every pc of a blob. A compiled method's prologue and
 * epilogue, C2's String.indexOf moving sp inside the body, and every stub
 * routine (they keep an rbp frame, but not at their first two
 * instructions nor at their last) are read from their instructions. One
 * read of the code around a pc, once: the answer is cached by pc with the
 * identity of the blob it was read in. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/clock.h"
#include "common/hash.h"
#include "common/u64map.h"
#include "runtimes/accountant.h"
#include "runtimes/hotspot_impl.h"
#include "runtimes/x86_frame.h"

/* Code read around a pc: behind it for loops whose head comes first,
 * ahead of it to the blob's exits; all of a blob's code when it fits in
 * X86_FRAME_MAX_BYTES (most compiled methods do). */
#define BEHIND 3072
/* Frames cached per JVM; past it the cache starts over. */
#define MAX_FRAMES 65536

/* The blob a frame was read in: a cached answer is for that blob only (a
 * flushed nmethod's address is reused by others). */
static uint32_t blob_tag(const struct hotspot_blob *b)
{
	return (uint32_t)hash__mix(hash__u64(b->addr), (uint64_t)(uint32_t)b->compile_id);
}

/* A frame packed in the low 32 bits (kind 2, bp 2, base 2, base_at 13,
 * ra / 8 13), the blob's tag in the high ones. */
static uint64_t pack(const struct x86_frame *f, uint32_t tag)
{
	uint64_t v = 0;

	if (f->kind != X86_FRAME_UNKNOWN && f->ra >= 0 && f->ra < (8 << 13) && f->base_at >= 0 &&
	    f->base_at < (1 << 13))
		v = (uint64_t)f->kind | (uint64_t)f->bp << 2 | (uint64_t)f->base << 4 |
		    (uint64_t)f->base_at << 6 | (uint64_t)(f->ra / 8) << 19;
	return v | (uint64_t)tag << 32;
}

static bool unpack(uint64_t v, uint32_t tag, struct x86_frame *f)
{
	if ((uint32_t)(v >> 32) != tag)
		return false;
	memset(f, 0, sizeof(*f));
	f->kind = v & 3;
	f->bp = (v >> 2) & 3;
	f->base = (v >> 4) & 3;
	f->base_at = (int32_t)((v >> 6) & 0x1fff);
	f->ra = (int32_t)((v >> 19) & 0x1fff) * 8;
	return true;
}

/* A stub routine whose code said nothing (a long stub: SHA, AES) begins
 * as every stub routine does, with HotSpot's "enter" (push rbp; mov rbp,
 * rsp), and is an rbp frame after it. */
static void enter(const uint8_t *code, size_t at, struct x86_frame *f)
{
	const uint8_t *p = code + at;

	if (p[0] == 0x55) { /* push rbp: the return address at sp */
		f->kind = X86_FRAME_SP;
		f->bp = X86_BP_LIVE;
	} else if (at >= 1 && p[-1] == 0x55 && p[0] == 0x48 &&
		   ((p[1] == 0x8b && p[2] == 0xec) || (p[1] == 0x89 && p[2] == 0xe5))) {
		f->kind = X86_FRAME_SP; /* mov rbp, rsp: one word up */
		f->ra = 8;
	} else {
		f->kind = X86_FRAME_RBP;
	}
}

int hotspot__frame_at(struct hotspot *h, uint64_t pc, uint64_t now_ns, struct x86_frame *out)
{
	const struct hotspot_blob *b = hotspot_code__blob(h, pc, now_ns);
	uint8_t buf[X86_FRAME_MAX_BYTES];
	struct x86_frame_code c;
	uint64_t v, lo, hi, t0;
	uint32_t tag;

	memset(out, 0, sizeof(*out));
	if (!b || pc < b->code_begin || pc >= b->code_end || b->kind == HOTSPOT_INTERPRETER)
		return -ENOENT;
	tag = blob_tag(b);
	if (u64map__get(h->frames, pc, &v) && unpack(v, tag, out))
		return 0;
	if (!hotspot_code__may_read(h, now_ns))
		return -EAGAIN;
	t0 = clock__mono_ns();
	lo = pc - b->code_begin > BEHIND ? pc - BEHIND : b->code_begin;
	hi = b->code_end - lo > X86_FRAME_MAX_BYTES ? lo + X86_FRAME_MAX_BYTES : b->code_end;
	if (hi - lo < X86_FRAME_MAX_BYTES)
		lo = hi - b->code_begin > X86_FRAME_MAX_BYTES ? hi - X86_FRAME_MAX_BYTES : b->code_begin;
	if (memsource__read(&h->mem, lo, buf, (size_t)(hi - lo))) {
		h->stats.failures++;
		ledger__charge_cpu(h->mem.ledger, clock__mono_ns() - t0);
		return -EFAULT;
	}
	memset(&c, 0, sizeof(c));
	c.code = buf;
	c.n = (size_t)(hi - lo);
	c.addr = lo;
	c.pc = pc;
	/* HotSpot walks a blob with a frame size by that size from its calls
	 * and from its frame_complete_offset on */
	if (b->frame_bytes) {
		c.frame_bytes = b->frame_bytes;
		c.whole_at_calls = true;
		if (b->frame_complete > 0)
			c.whole_pc = b->code_begin + (uint64_t)b->frame_complete;
	}
	x86_frame__at(&c, out);
	h->stats.frames_read++;
	if (out->kind == X86_FRAME_UNKNOWN)
		h->stats.frames_unknown++;
	if (out->kind == X86_FRAME_UNKNOWN && b->kind == HOTSPOT_STUB_ROUTINES && c.n >= 3 &&
	    pc + 3 <= hi)
		enter(buf, (size_t)(pc - lo), out);
	if (u64map__count(h->frames) >= MAX_FRAMES)
		u64map__clear(h->frames);
	(void)u64map__put(h->frames, pc, pack(out, tag));
	/* a reader's work, charged to the process's user like the reads: a
	 * process posing as a JVM with code of many pcs costs its user's
	 * share of time, and never the sampling's steady cost */
	ledger__charge_cpu(h->mem.ledger, clock__mono_ns() - t0);
	return 0;
}
