/* runtimes/replay.c: a sample's reads made again in one call at the next
 * sample serve what they hold, read then (never older bytes); what they
 * do not hold is read from the process and kept for the next; a read
 * refused halfway keeps the plan of the whole one; a range that no
 * longer reads serves nothing and is dropped; reads outside a sample
 * pass through; the slack a range is read with never leaves its pages. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/memsource.h"
#include "tests/unit/vectored_image.h"
#include "runtimes/replay.h"

#define BASE 0x10000ull
#define PAGES 4u
#define SIZE (PAGES * 4096u)

static uint8_t bytes[SIZE];
static struct memimage_region regions[2];
static struct memimage image = { regions, 1 };

struct fixture {
	struct replay_fill fill;
	struct replay r;
	struct memsource src; /* what the reader reads through */
};

static struct fixture *setup(void)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct memsource inner;
	size_t i;

	for (i = 0; i < SIZE; i++)
		bytes[i] = (uint8_t)(i * 7 + 3);
	regions[0].addr = BASE;
	regions[0].bytes = bytes;
	regions[0].len = SIZE;
	image.n = 1;
	memsource__image(&inner, &image);
	inner.readv = vectored_image_readv;
	replay__init(&fx->r, &inner, &fx->fill);
	replay__source(&fx->r, &fx->src);
	return fx;
}

static uint64_t word(uint32_t off)
{
	uint64_t v;

	memcpy(&v, bytes + off, 8);
	return v;
}

/* One sample's read as a pointer-following reader makes it: three
 * dependent reads. Returns the calls it made. */
static uint64_t sample(struct fixture *fx, const uint32_t *offs, size_t n)
{
	uint64_t before = replay__calls(&fx->r), v;
	size_t i;

	replay__begin(&fx->r);
	for (i = 0; i < n; i++) {
		cr_assert_eq(memsource__u64(&fx->src, BASE + offs[i], &v), 0);
		cr_assert_eq(v, word(offs[i]), "bytes of now at 0x%x", offs[i]);
	}
	replay__end(&fx->r);
	return replay__calls(&fx->r) - before;
}

static const uint32_t chain[] = { 0x010, 0x1200, 0x2f08, 0x3800 };

Test(replay, a_sample_read_before_is_read_in_one_call_with_its_bytes_of_now)
{
	struct fixture *fx = setup();

	cr_assert_eq(sample(fx, chain, 4), 4, "the first sample reads as it asks");
	cr_assert_eq(sample(fx, chain, 4), 1);
	/* the program writes between samples: the read is of now */
	memset(bytes + 0x1200, 0x5a, 8);
	memset(bytes + 0x3800, 0xa5, 8);
	cr_assert_eq(sample(fx, chain, 4), 1);
	free(fx);
}

Test(replay, what_the_plan_does_not_hold_is_read_and_kept_for_the_next)
{
	static const uint32_t more[] = { 0x010, 0x1200, 0x2f08, 0x3800, 0x0c00 };
	struct fixture *fx = setup();

	(void)sample(fx, chain, 4);
	cr_assert_eq(sample(fx, more, 5), 2, "the plan's call and the new span's");
	cr_assert_eq(sample(fx, more, 5), 1);
	free(fx);
}

/* A read refused after its first steps asks for less than the next
 * whole one will: the plan keeps what it did not ask for. */
Test(replay, a_read_refused_halfway_keeps_the_whole_plan)
{
	struct fixture *fx = setup();

	(void)sample(fx, chain, 4);
	cr_assert_eq(sample(fx, chain, 1), 1);
	cr_assert_eq(sample(fx, chain, 4), 1);
	free(fx);
}

/* The object a range read moved away and its page went (an image of
 * less memory): the fill reads what it can, serves nothing it could not
 * read, and the next plan is without it. */
Test(replay, a_range_that_no_longer_reads_serves_nothing_and_is_dropped)
{
	static const uint32_t low[] = { 0x010, 0x1200 };
	struct fixture *fx = setup();
	uint64_t v;

	(void)sample(fx, chain, 4);
	regions[0].len = 0x2000; /* 0x2f08 and 0x3800 unmapped */
	replay__begin(&fx->r);
	cr_assert_eq(memsource__u64(&fx->src, BASE + 0x010, &v), 0);
	cr_assert_eq(v, word(0x010));
	cr_assert_neq(memsource__u64(&fx->src, BASE + 0x3800, &v), 0, "served from a failed range");
	replay__end(&fx->r);
	cr_assert_eq(sample(fx, low, 2), 1);
	cr_assert_eq(sample(fx, low, 2), 1);
	for (size_t i = 0; i < fx->r.nplan; i++)
		cr_assert(BASE + 0x3800 < fx->r.plan_addr[i] ||
				  BASE + 0x3800 >= fx->r.plan_addr[i] + fx->r.plan_len[i],
			  "a range that failed is read again (a call more, in a process)");
	free(fx);
}

Test(replay, reads_outside_a_sample_pass_through_unrecorded)
{
	struct fixture *fx = setup();
	uint64_t v, before;

	(void)sample(fx, chain, 4);
	before = replay__calls(&fx->r);
	cr_assert_eq(memsource__u64(&fx->src, BASE + 0x010, &v), 0);
	cr_assert_eq(memsource__u64(&fx->src, BASE + 0x0c00, &v), 0);
	cr_assert_eq(replay__calls(&fx->r) - before, 2, "served outside a sample");
	cr_assert_eq(sample(fx, chain, 4), 1, "a read outside a sample changed the plan");
	free(fx);
}

/* A span at a page's end, the next page unmapped: its slack stops at
 * the page, so the fill still reads. Vectored reads are served span by
 * span, and a whole sample of them is one call. */
Test(replay, slack_never_leaves_the_spans_pages)
{
	struct fixture *fx = setup();
	uint64_t addrs[2] = { BASE + 0x0ff8, BASE + 0x0100 };
	size_t lens[2] = { 8, 16 };
	uint8_t a[8], b[16];
	void *bufs[2] = { a, b };
	bool ok[2];
	int round;

	regions[0].len = 0x1000;
	for (round = 0; round < 3; round++) {
		uint64_t before = replay__calls(&fx->r);

		replay__begin(&fx->r);
		cr_assert_eq(memsource__readv(&fx->src, addrs, lens, bufs, ok, 2), 2);
		cr_assert(ok[0] && ok[1]);
		cr_assert_eq(memcmp(a, bytes + 0x0ff8, 8), 0);
		cr_assert_eq(memcmp(b, bytes + 0x0100, 16), 0);
		replay__end(&fx->r);
		cr_assert_eq(replay__calls(&fx->r) - before, 1, "round %d", round);
	}
	free(fx);
}
