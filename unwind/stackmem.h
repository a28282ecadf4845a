/* A sampled stack's memory, as the unwinder reads it: the copy the kernel
 * made at the sample, then, when the caller offers one, the thread's live
 * stack beyond it, read from the process afterwards (struct stackmem_far).
 *
 * The live stack is read late and may have moved on since the sample, so
 * bytes beyond the copy are taken only where they continue it: every read
 * of the live stack starts STACKMEM_OVERLAP bytes before the end of what
 * is held already (the copy's end, or the previous read's) and must find
 * there exactly the bytes held. Where it does not, or the read fails,
 * nothing beyond is served for the rest of the unwind and the unwinder
 * ends the stack as truncated.
 *
 * A seam proves less than it seems. Where the thread returned past it and
 * called again less deeply, the seam reads back as held while the frames
 * beyond it hold new calls; and code that writes into its callers' frames
 * (Go's callees spill their arguments there) changes a seam under frames
 * that are still the sample's. Where the caller holds a witness of the
 * sample, the kernel's frame-pointer walk taken with it, it asks for the
 * bytes past a moved seam too (prove_later), and stackmem__prove then
 * keeps a frame read beyond the copy only if the walk saw its return
 * address, in order, wherever the caller trusts the walk. Reads are few and large: the first takes
 * STACKMEM_FIRST_READ bytes, each next one doubles what is held, up to the
 * caller's buffer (the bound of one stack).
 *
 * Nothing here knows processes: the source is the caller's callback. Not
 * thread-safe: the state of one unwind lives in the struct stackmem_far. */
#ifndef SMOLDER_UNWIND_STACKMEM_H
#define SMOLDER_UNWIND_STACKMEM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct unwind_stack;

/* Bytes of what is held that a read of the live stack reads again and
 * compares: a few frames' worth of return addresses and saved registers. */
#define STACKMEM_OVERLAP 512
/* The first read beyond the copy, its overlap included. */
#define STACKMEM_FIRST_READ (32u << 10)

struct stackmem_far {
	/* Reads up to len bytes of the live stack at addr into buf. Returns
	 * how many it read from addr on (fewer than len where the stack's
	 * memory ends), or a negative errno. */
	ssize_t (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
	uint8_t *buf; /* the caller's, cap bytes: the most one stack reads */
	size_t cap;
	/* one unwind's state, cleared by stackmem__reset */
	uint64_t at;   /* buf holds [at, at + len) of the live stack */
	size_t len;
	bool ended;    /* a read came short: the stack's memory ends there */
	bool used;     /* the unwinder was served bytes beyond the copy */
	int err;       /* why nothing more is read: 0 (nothing stopped it);
	                  -ESTALE the live stack no longer holds what was held
	                  where they meet; -EFAULT the copy is too short to
	                  compare with, or a read came back shorter than its
	                  overlap; else the source's own error */
	unsigned reads; /* calls of read */
	size_t bytes;   /* bytes they returned */
	/* the caller's choice, kept across resets: serve what lies beyond a
	 * seam that moved, for stackmem__prove to judge frame by frame */
	bool prove_later;
	/* one unwind's: a seam did not read back as held, its bytes served
	 * (prove_later); what stackmem__prove found of the frames beyond */
	bool seam_moved;
	bool walk_proved; /* frames beyond the copy, each seen by the walk */
	bool walk_cut;    /* cut at one the walk did not see */
};

/* Forgets what the far source of stack held: a new unwind starts. */
void stackmem__reset(const struct unwind_stack *stack);

/* Reads len bytes at addr: from the copy, else from the far source
 * (reading more of the live stack when needed). Returns 0, or -EFAULT
 * when they are in neither (outside the copy without a far source, below
 * the stack pointer, past the far buffer or the stack's end, or after the
 * far source failed). out is untouched on failure. */
int stackmem__read(const struct unwind_stack *stack, uint64_t addr, void *out, size_t len);
int stackmem__u64(const struct unwind_stack *stack, uint64_t addr, uint64_t *out);

/* Whether the unwind since the last reset was served bytes from beyond
 * the copy. */
bool stackmem__used_far(const struct unwind_stack *stack);

struct unwind_frame;
/* Of frames [0, n), unwound from stack, how many the sample proves. walk
 * holds the return addresses of the sample's frame-pointer walk,
 * innermost first (walk[0] the sampled ip); it is credible when it holds
 * the pc of the deepest frame the copy gave, matched in order along the
 * copy's frames (it may miss a leaf that saved no frame pointer). Frames
 * whose return address was read beyond the copy are kept while each is
 * the walk's next return address; where no return address of the copy
 * was in the walk (a leaf that saved no frame pointer hides its caller
 * from it), past a seam that moved, the first frame beyond that the walk
 * holds says where the walk stands. Past the walk's end they are the last
 * one's callers, kept, when the walk reached the thread's root
 * (walk_whole: the walk saw every frame that keeps a frame pointer, and a
 * frame's callers cannot change while it lives); past a walk the kernel
 * cut at perf_event_max_stack, or with no credible walk (code without
 * frame pointers), they stand on the seams alone: kept where every seam
 * read back as held, cut where one moved. *walk_next is where in walk the
 * callers of the last frame kept go on, when the walk saw it and the
 * frames just before it in a row (walk_nr when it did not): a stack cut
 * there can be continued from the walk. */
size_t stackmem__prove(const struct unwind_stack *stack, const struct unwind_frame *frames, size_t n,
		       const uint64_t *walk, size_t walk_nr, bool walk_whole, size_t *walk_next);

#endif
