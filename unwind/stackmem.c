/* A sampled stack's memory: the kernel's copy, then the live stack beyond it. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "unwind/stackmem.h"
#include "unwind/unwind.h"

void stackmem__reset(const struct unwind_stack *stack)
{
	struct stackmem_far *f = stack ? stack->far : NULL;

	if (!f)
		return;
	f->at = 0;
	f->len = 0;
	f->ended = false;
	f->used = false;
	f->err = 0;
	f->reads = 0;
	f->bytes = 0;
	f->seam_moved = false;
	f->walk_proved = false;
	f->walk_cut = false;
}

/* Reads the next part of the live stack, up to want_end if the buffer
 * allows: from STACKMEM_OVERLAP bytes before the end of what is held,
 * which must read back as held. 0 when [.., want_end) is held now;
 * -EFAULT when it cannot be (f->err says why when nothing more will be). */
static int fetch(const struct unwind_stack *s, struct stackmem_far *f, uint64_t want_end)
{
	uint8_t tail[STACKMEM_OVERLAP];
	const uint8_t *held;
	size_t k, off, want;
	uint64_t from;
	ssize_t got;

	if (f->ended)
		return -EFAULT;
	if (f->len == 0) {
		/* meet the copy at its end */
		k = s->size < STACKMEM_OVERLAP ? s->size : STACKMEM_OVERLAP;
		if (!s->data || k < 8 || s->base > UINT64_MAX - s->size) {
			f->err = -EFAULT;
			return -EFAULT;
		}
		from = s->base + s->size - k;
		held = s->data + s->size - k;
		off = 0;
		want = STACKMEM_FIRST_READ;
	} else {
		/* meet the previous read at its end; what is held there is
		 * read over, so it is kept aside to compare and to put back */
		k = f->len < STACKMEM_OVERLAP ? f->len : STACKMEM_OVERLAP;
		off = f->len - k;
		from = f->at + off;
		memcpy(tail, f->buf + off, k);
		held = tail;
		want = f->len;
	}
	if (want_end <= from || f->cap <= off)
		return -EFAULT;
	if (want < want_end - from)
		want = (size_t)(want_end - from);
	if (want > f->cap - off)
		want = f->cap - off;
	/* deeper than one stack may read: not an error of the source */
	if (want < want_end - from)
		return -EFAULT;
	got = f->read(f->ctx, from, f->buf + off, want);
	f->reads++;
	if (got < 0) {
		f->err = (int)got;
		goto out_restore;
	}
	if ((size_t)got > want)
		got = (ssize_t)want;
	f->bytes += (size_t)got;
	if ((size_t)got < k) {
		f->err = -EFAULT;
		goto out_restore;
	}
	if (memcmp(f->buf + off, held, k) != 0) {
		if (!f->prove_later) {
			f->err = -ESTALE;
			goto out_restore;
		}
		f->seam_moved = true;
	}
	if (f->len == 0)
		f->at = from;
	f->len = off + (size_t)got;
	if ((size_t)got < want)
		f->ended = true;
	return want_end <= f->at + f->len ? 0 : -EFAULT;

out_restore:
	if (f->len)
		memcpy(f->buf + off, tail, k);
	return -EFAULT;
}

static int far_read(const struct unwind_stack *s, struct stackmem_far *f, uint64_t addr, void *out,
		    size_t len)
{
	uint64_t end = addr + len;

	if (!f->read || !f->buf || end < addr)
		return -EFAULT;
	if (f->len == 0 || end > f->at + f->len) {
		if (f->err || fetch(s, f, end) != 0)
			return -EFAULT;
	}
	if (addr < f->at)
		return -EFAULT;
	memcpy(out, f->buf + (addr - f->at), len);
	f->used = true;
	return 0;
}

int stackmem__read(const struct unwind_stack *stack, uint64_t addr, void *out, size_t len)
{
	uint64_t off;

	if (!stack || len == 0 || addr < stack->base)
		return -EFAULT;
	off = addr - stack->base;
	if (stack->data && stack->size >= len && off <= stack->size - len) {
		memcpy(out, stack->data + off, len);
		return 0;
	}
	return stack->far ? far_read(stack, stack->far, addr, out, len) : -EFAULT;
}

int stackmem__u64(const struct unwind_stack *stack, uint64_t addr, uint64_t *out)
{
	return stackmem__read(stack, addr, out, sizeof(*out));
}

bool stackmem__used_far(const struct unwind_stack *stack)
{
	return stack && stack->far && stack->far->used;
}

/* How far ahead of where it is expected a frame is looked for in the
 * walk: a frame the copy proves may sit a little further on (the walk and
 * the unwinder do not always see the same frames of stubs). */
#define WALK_LOOKAHEAD 3
/* How many frames in a row, up to the last one kept, the unwind and the
 * walk must share before the walk is followed past it (or all of them, in
 * a shorter stack: a Go function that switched to the system stack to
 * call the vDSO). */
#define WALK_JOIN_RUN 3

size_t stackmem__prove(const struct unwind_stack *stack, const struct unwind_frame *frames, size_t n,
		       const uint64_t *walk, size_t walk_nr, bool walk_whole, size_t *walk_next)
{
	struct stackmem_far *f = stack ? stack->far : NULL;
	uint64_t copy_end = stack ? stack->base + stack->size : 0;
	size_t i, j = 0, t, kept = n, run = 0;
	bool credible = false, far_used = f && f->used, proved_beyond = false;

	for (i = 0; i < n; i++) {
		/* frame i's return address was read at its caller-side sp
		 * (the CFA of frame i - 1) less a word */
		bool beyond = far_used && i > 0 && frames[i].sp >= copy_end + 8;

		if (!beyond) {
			/* the walk misses a leaf's caller when the leaf saved
			 * no frame pointer: such a frame is passed over */
			for (t = j; t < walk_nr && t <= j + WALK_LOOKAHEAD && walk[t] != frames[i].pc; t++)
				;
			credible = t < walk_nr && walk[t] == frames[i].pc;
			run = credible && t == j ? run + 1 : credible;
			if (credible)
				j = t + 1;
			continue;
		}
		if (credible && j < walk_nr) {
			if (walk[j] == frames[i].pc) {
				j++;
				run++;
				f->walk_proved = proved_beyond = true;
				continue;
			}
		} else if (credible && walk_whole && proved_beyond) {
			/* past the walk's last frame, which the walk proved
			 * here: its callers, which cannot have changed while
			 * it lived (glibc's clone3 keeps no frame pointer) */
			break;
		} else if (!f->seam_moved) {
			/* no walk to judge by: the seams stand */
			credible = false;
			break;
		} else if (!credible) {
			/* no return address in the copy told where the walk
			 * stood (a leaf that saved no frame pointer hides its
			 * caller, the copy's deepest frame, from the walk):
			 * the first frame beyond that the walk holds aligns
			 * them, and every next one must follow in order */
			for (t = j; t < walk_nr && t <= j + WALK_LOOKAHEAD && walk[t] != frames[i].pc; t++)
				;
			if (t < walk_nr && walk[t] == frames[i].pc) {
				credible = true;
				j = t + 1;
				run = 1;
				f->walk_proved = proved_beyond = true;
				continue;
			}
		}
		f->walk_cut = true;
		kept = i;
		break;
	}
	/* the walk goes on where the unwind stopped only after agreeing
	 * with it frame for frame for a while: through code that keeps no
	 * frame pointer it may pass over callers */
	*walk_next = credible && (run >= WALK_JOIN_RUN || run == kept) ? j : walk_nr;
	return kept;
}
