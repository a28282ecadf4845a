/* Unit tests for unwind/stackmem: the copy first, the live stack beyond it
 * only where it continues what is held, in few large reads. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "unwind/stackmem.h"
#include "unwind/unwind.h"

#define BASE 0x7ff000000000ull
#define COPY 1024
#define LIVE (192u << 10)

static uint64_t live[LIVE / 8];    /* the thread's stack from BASE on */
static uint8_t copy[COPY];         /* the kernel's copy of its start */
static uint64_t live_len = LIVE;   /* where its memory ends */
static int live_err;               /* the source fails with this */
static uint64_t calls_at[16];
static size_t calls_len[16];
static unsigned ncalls;
static uint8_t buf[128u << 10];
static struct stackmem_far far;
static struct unwind_stack stack;

static ssize_t read_live(void *ctx, uint64_t addr, void *out, size_t len)
{
	(void)ctx;
	if (ncalls < 16) {
		calls_at[ncalls] = addr;
		calls_len[ncalls] = len;
	}
	ncalls++;
	if (live_err)
		return live_err;
	if (addr < BASE || addr - BASE >= live_len)
		return 0;
	if (len > live_len - (addr - BASE))
		len = (size_t)(live_len - (addr - BASE));
	memcpy(out, (const uint8_t *)live + (addr - BASE), len);
	return (ssize_t)len;
}

static void setup(void)
{
	size_t i;

	for (i = 0; i < LIVE / 8; i++)
		live[i] = 0x1000000 + i;
	live_len = LIVE;
	live_err = 0;
	ncalls = 0;
	memset(&far, 0, sizeof(far));
	far.read = read_live;
	far.buf = buf;
	far.cap = sizeof(buf);
	memcpy(copy, live, COPY);
	stack.base = BASE;
	stack.data = copy;
	stack.size = COPY;
	stack.far = &far;
	stackmem__reset(&stack);
}

TestSuite(stackmem, .init = setup);

static uint64_t word(uint64_t addr)
{
	uint64_t v = 0;

	cr_assert_eq(stackmem__u64(&stack, addr, &v), 0, "no word at +%#lx",
		     (unsigned long)(addr - BASE));
	return v;
}

static uint64_t expect(uint64_t addr)
{
	return 0x1000000 + (addr - BASE) / 8;
}

Test(stackmem, the_copy_needs_no_read)
{
	uint64_t v = 5;

	cr_assert_eq(word(BASE), expect(BASE));
	cr_assert_eq(word(BASE + COPY - 8), expect(BASE + COPY - 8));
	cr_assert_eq(ncalls, 0);
	cr_assert_not(stackmem__used_far(&stack));
	cr_assert_eq(stackmem__u64(&stack, BASE - 8, &v), -EFAULT, "below the sp");
	cr_assert_eq(v, 5);
	stack.far = NULL;
	cr_assert_eq(stackmem__u64(&stack, BASE + COPY, &v), -EFAULT, "no far source");
	cr_assert_eq(v, 5);
}

Test(stackmem, one_read_meets_the_copy_then_doubles)
{
	uint64_t end1 = BASE + COPY - STACKMEM_OVERLAP + STACKMEM_FIRST_READ;

	/* a word across the copy's end comes whole from the live stack */
	cr_assert_eq(word(BASE + COPY - 4), (expect(BASE + COPY - 4) >> 32) | (expect(BASE + COPY) << 32));
	cr_assert_eq(ncalls, 1);
	cr_assert_eq(calls_at[0], BASE + COPY - STACKMEM_OVERLAP);
	cr_assert_eq(calls_len[0], STACKMEM_FIRST_READ);
	cr_assert(stackmem__used_far(&stack));
	cr_assert_eq(word(end1 - 8), expect(end1 - 8));
	cr_assert_eq(ncalls, 1, "served from what the first read holds");
	/* past it: one more read, from the overlap before its end, as much again */
	cr_assert_eq(word(end1), expect(end1));
	cr_assert_eq(ncalls, 2);
	cr_assert_eq(calls_at[1], end1 - STACKMEM_OVERLAP);
	cr_assert_eq(calls_len[1], STACKMEM_FIRST_READ);
	cr_assert_eq(far.len, 2 * STACKMEM_FIRST_READ - STACKMEM_OVERLAP);
	/* far beyond: as far as needed in one read */
	cr_assert_eq(word(BASE + (100u << 10)), expect(BASE + (100u << 10)));
	cr_assert_eq(ncalls, 3);
	cr_assert_eq(far.err, 0);
	cr_assert_eq(far.reads, 3);
}

Test(stackmem, deeper_than_the_buffer_is_out_of_reach)
{
	uint64_t v = 5;

	cr_assert_eq(stackmem__u64(&stack, BASE + COPY + sizeof(buf), &v), -EFAULT);
	cr_assert_eq(v, 5);
	cr_assert_eq(ncalls, 0, "nothing read for what cannot be held");
	cr_assert_eq(far.err, 0);
	/* and the stack within reach still reads */
	cr_assert_eq(word(BASE + COPY), expect(BASE + COPY));
}

Test(stackmem, where_the_stack_ends)
{
	uint64_t v = 5;

	live_len = COPY + 4096;
	cr_assert_eq(word(BASE + COPY + 4096 - 8), expect(BASE + COPY + 4096 - 8));
	cr_assert(far.ended);
	cr_assert_eq(stackmem__u64(&stack, BASE + COPY + 4096, &v), -EFAULT);
	cr_assert_eq(ncalls, 1, "nothing beyond the end is read again");
	cr_assert_eq(far.err, 0);
}

Test(stackmem, a_live_stack_that_moved_on_is_not_read)
{
	uint64_t v = 5;

	/* the thread returned past the copy's end and called again */
	live[COPY / 8 - 3] ^= 1;
	cr_assert_eq(stackmem__u64(&stack, BASE + COPY, &v), -EFAULT);
	cr_assert_eq(far.err, -ESTALE);
	cr_assert_not(stackmem__used_far(&stack));
	cr_assert_eq(stackmem__u64(&stack, BASE + COPY + 64, &v), -EFAULT);
	cr_assert_eq(ncalls, 1, "one refusal ends the reads");
	cr_assert_eq(v, 5);
	/* a new unwind tries again */
	live[COPY / 8 - 3] ^= 1;
	stackmem__reset(&stack);
	cr_assert_eq(word(BASE + COPY), expect(BASE + COPY));
}

Test(stackmem, a_second_read_must_continue_the_first)
{
	uint64_t end1 = BASE + COPY - STACKMEM_OVERLAP + STACKMEM_FIRST_READ, v = 5;

	cr_assert_eq(word(BASE + COPY), expect(BASE + COPY));
	/* between the reads the stack changed where they meet */
	live[(end1 - BASE) / 8 - 2] = 42;
	cr_assert_eq(stackmem__u64(&stack, end1, &v), -EFAULT);
	cr_assert_eq(far.err, -ESTALE);
	/* what the first read held, proven then, is kept as it was */
	cr_assert_eq(word(end1 - 16), expect(end1 - 16));
}

Test(stackmem, a_failing_source_ends_the_reads)
{
	uint64_t v = 5;

	live_err = -ESRCH;
	cr_assert_eq(stackmem__u64(&stack, BASE + COPY, &v), -EFAULT);
	cr_assert_eq(far.err, -ESRCH);
	cr_assert_eq(stackmem__u64(&stack, BASE + COPY + 8, &v), -EFAULT);
	cr_assert_eq(ncalls, 1);
	live_err = 0;
	live_len = COPY - 16; /* a read shorter than its overlap */
	stackmem__reset(&stack);
	cr_assert_eq(stackmem__u64(&stack, BASE + COPY, &v), -EFAULT);
	cr_assert_eq(far.err, -EFAULT);
}

Test(stackmem, a_copy_too_short_to_compare)
{
	uint64_t v = 5;

	stack.size = 4;
	cr_assert_eq(stackmem__u64(&stack, BASE + 8, &v), -EFAULT);
	cr_assert_eq(ncalls, 0);
	cr_assert_eq(far.err, -EFAULT);
}

static size_t prove(const struct unwind_frame *f, size_t n, const uint64_t *walk, size_t nr)
{
	size_t next;

	return stackmem__prove(&stack, f, n, walk, nr, false, &next);
}

/* A seam that moved, with the caller's witness of the sample (its
 * frame-pointer walk) at hand: the bytes are served, and stackmem__prove
 * keeps the frames read beyond the copy only as far as the walk saw their
 * return addresses, in its order. */
Test(stackmem, a_moved_seam_is_served_for_the_walk_to_prove)
{
	struct unwind_frame f[6];
	/* the walk misses frame 1 (a leaf that saved no frame pointer) */
	const uint64_t walk[] = { 0x100, 0x300, 0x400, 0x500 };
	size_t i;

	far.prove_later = true;
	live[COPY / 8 - 1] ^= 1; /* a callee wrote into its caller's frame */
	cr_assert_eq(word(BASE + COPY + 64), expect(BASE + COPY + 64), "served although moved");
	cr_assert_eq(far.err, 0);
	cr_assert(far.seam_moved);

	memset(f, 0, sizeof(f));
	for (i = 0; i < 6; i++)
		f[i].pc = 0x100 * (i + 1);
	f[1].sp = BASE + 256;
	f[2].sp = BASE + 512;
	f[3].sp = BASE + COPY; /* its return address, the copy's last word */
	f[4].sp = BASE + COPY + 8; /* beyond */
	f[5].sp = BASE + COPY + 256;
	cr_assert_eq(prove(f, 6, walk, 4), 5,
		     "frame 4 is the walk's next (0x500); frame 5 is past the walk, the seam moved");
	cr_assert(far.walk_proved);
	cr_assert(far.walk_cut);

	/* a walk that reached the thread's root: frame 5 is the caller of
	 * frame 4, which the walk proved there (its own code keeps no frame
	 * pointer, as glibc's clone3) */
	{
		size_t next;

		far.walk_proved = far.walk_cut = false;
		cr_assert_eq(stackmem__prove(&stack, f, 6, walk, 4, true, &next), 6);
		cr_assert(far.walk_proved);
		cr_assert_not(far.walk_cut);
		cr_assert_eq(stackmem__prove(&stack, f, 6, walk, 3, true, &next), 4,
			     "frame 4 unproven: the walk's end proves no caller");
	}
	far.walk_proved = far.walk_cut = false;
	f[4].pc = 0x999; /* read from a stack that moved on */
	far.walk_proved = far.walk_cut = false;
	cr_assert_eq(prove(f, 6, walk, 4), 4, "cut at the frame the walk did not see");
	cr_assert_not(far.walk_proved);
	cr_assert_eq(prove(f, 6, NULL, 0), 4, "no walk: a moved seam proves nothing");
}

/* A leaf that saved no frame pointer hides its caller from the walk: when
 * that caller is the copy's deepest frame, no return address of the copy
 * says where the walk stands, and the first frame beyond that the walk
 * holds aligns them (HotSpot's C2 threads: a frame wider than the copy
 * under a leaf of PhaseIdealLoop's). Each next frame must follow in order. */
Test(stackmem, a_walk_that_missed_the_copys_frames_is_aligned_beyond)
{
	struct unwind_frame f[6];
	/* 0x200, the copy's deepest frame, is not in the walk */
	const uint64_t walk[] = { 0x100, 0x300, 0x400, 0x500 };
	size_t i, next;

	far.prove_later = true;
	live[COPY / 8 - 1] ^= 1;
	cr_assert_eq(word(BASE + COPY + 64), expect(BASE + COPY + 64));
	cr_assert(far.seam_moved);
	memset(f, 0, sizeof(f));
	for (i = 0; i < 6; i++)
		f[i].pc = 0x100 * (i + 1);
	f[1].sp = BASE + COPY;      /* the copy's deepest */
	f[2].sp = BASE + COPY + 8;  /* beyond: 0x300, walk[1] */
	f[3].sp = BASE + COPY + 64;
	f[4].sp = BASE + COPY + 128;
	f[5].sp = BASE + COPY + 192; /* past the walk's end */
	cr_assert_eq(stackmem__prove(&stack, f, 6, walk, 4, false, &next), 5);
	cr_assert(far.walk_proved);
	cr_assert_eq(stackmem__prove(&stack, f, 6, walk, 4, true, &next), 6, "whole: 0x600 is 0x500's caller");
	f[3].pc = 0x401; /* after the alignment, out of order */
	cr_assert_eq(stackmem__prove(&stack, f, 6, walk, 4, true, &next), 3);
	f[3].pc = 0x400;
	f[2].pc = 0x999; /* nothing beyond is in the walk: nothing aligns */
	f[3].pc = 0x998;
	cr_assert_eq(stackmem__prove(&stack, f, 6, walk, 4, true, &next), 2);
}

/* A seam that reads back as held proves little: the thread may have
 * returned past the frames beyond it and called again less deeply. A
 * credible walk (it holds the copy's deepest frame) judges those frames;
 * past its end, or where it is not credible (code without frame
 * pointers), the seam stands. */
Test(stackmem, a_credible_walk_judges_frames_beyond_a_seam_that_held)
{
	struct unwind_frame f[5];
	const uint64_t walk[] = { 0x100, 0x200, 0x300, 0x400 };
	const uint64_t junk[] = { 0x100, 0x777, 0x888 };
	size_t i;

	far.prove_later = true;
	cr_assert_eq(word(BASE + COPY + 64), expect(BASE + COPY + 64));
	cr_assert_not(far.seam_moved);
	memset(f, 0, sizeof(f));
	for (i = 0; i < 5; i++)
		f[i].pc = 0x100 * (i + 1);
	f[1].sp = BASE + 256;
	f[2].sp = BASE + COPY;     /* the copy's deepest */
	f[3].sp = BASE + COPY + 8; /* beyond: 0x400, the walk's next */
	f[4].sp = BASE + COPY + 64; /* beyond, past the walk's end */
	cr_assert_eq(prove(f, 5, walk, 4), 5, "proven, then the seam stands");
	f[3].pc = 0x401;
	cr_assert_eq(prove(f, 5, walk, 4), 3, "a frame the walk did not see");
	{
		size_t next = 0;

		cr_assert_eq(stackmem__prove(&stack, f, 5, walk, 4, false, &next), 3);
		cr_assert_eq(next, 3, "the callers of the last frame kept go on at walk[3]");
		cr_assert_eq(stackmem__prove(&stack, f, 5, junk, 3, false, &next), 5, "a walk without the copy's frames");
		cr_assert_eq(next, 3, "and nothing to go on from");
	}
}

/* Without the witness, nothing changes: a moved seam serves nothing and
 * every frame the copy gave is kept. */
Test(stackmem, without_a_walk_a_moved_seam_serves_nothing)
{
	struct unwind_frame f[2];
	uint64_t v;

	live[COPY / 8 - 1] ^= 1;
	cr_assert_neq(stackmem__u64(&stack, BASE + COPY + 64, &v), 0);
	cr_assert_eq(far.err, -ESTALE);
	memset(f, 0, sizeof(f));
	f[1].sp = BASE + COPY + 8;
	cr_assert_eq(prove(f, 2, NULL, 0), 2);
}

/* A short stack the walk agrees with in full goes on from the walk: a Go
 * function that switched to the system stack to call the vDSO gives two
 * frames (the vDSO's, its own) whose callers the copy does not hold. */
Test(stackmem, a_short_stack_the_walk_agrees_with_goes_on_from_it)
{
	struct unwind_frame f[2];
	const uint64_t walk[] = { 0x100, 0x200, 0x300, 0x400 };
	size_t next = 0;

	memset(f, 0, sizeof(f));
	f[0].pc = 0x100;
	f[1].pc = 0x200;
	f[1].sp = BASE + 64;
	cr_assert_eq(stackmem__prove(&stack, f, 2, walk, 4, false, &next), 2);
	cr_assert_eq(next, 2, "its callers are walk[2..]");
	f[1].pc = 0x201;
	cr_assert_eq(stackmem__prove(&stack, f, 2, walk, 4, false, &next), 2);
	cr_assert_eq(next, 4, "a walk that does not hold the caller: nothing to go on from");
}
