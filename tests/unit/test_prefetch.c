/* runtimes/prefetch.c: ranges read in one call serve the reads they hold
 * whole and only those; a range that could not be read whole serves
 * nothing; what is wanted is bounded. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/memsource.h"
#include "runtimes/prefetch.h"

#define BASE 0x10000ull
#define SIZE 0x2000u

static uint8_t bytes[SIZE];
static struct memimage_region region = { BASE, bytes, SIZE };
static struct memimage image = { &region, 1 };

static void fill_bytes(void)
{
	size_t i;

	for (i = 0; i < SIZE; i++)
		bytes[i] = (uint8_t)(i * 7 + 3);
}

Test(prefetch, reads_inside_a_range_are_served_from_it)
{
	struct prefetch *pf = calloc(1, sizeof(*pf));
	struct memsource m;
	uint8_t got[64];
	uint64_t w;

	fill_bytes();
	memsource__image(&m, &image);
	prefetch__clear(pf);
	cr_assert(prefetch__want(pf, BASE + 0x100, 0x40));
	cr_assert(prefetch__want(pf, BASE + 0x800, 0x10));
	cr_assert_eq(prefetch__fill(pf, &m), 0);
	/* the memory changes after the fill: a hit is the bytes of the fill */
	memset(bytes + 0x100, 0xee, 0x40);
	m.reads = 0;
	cr_assert_eq(prefetch__read(pf, &m, BASE + 0x110, got, 0x30), 0);
	cr_assert_eq(got[0], (uint8_t)(0x110 * 7 + 3));
	cr_assert_eq(prefetch__u64(pf, &m, BASE + 0x808, &w), 0);
	cr_assert_eq(w & 0xff, (uint8_t)(0x808 * 7 + 3));
	cr_assert_eq(m.reads, 0, "served from the ranges");
	cr_assert_eq(pf->hits, 2);
	/* one byte past a range's end, or straddling two: read now */
	cr_assert_eq(prefetch__read(pf, &m, BASE + 0x110, got, 0x31), 0);
	cr_assert_eq(got[0], 0xee, "read from memory as it is now");
	cr_assert_eq(prefetch__read(pf, &m, BASE + 0xfc, got, 8), 0);
	cr_assert_eq(m.reads, 2);
	cr_assert_eq(pf->misses, 2);
	/* cleared: nothing is served */
	prefetch__clear(pf);
	cr_assert_eq(prefetch__u64(pf, &m, BASE + 0x808, &w), 0);
	cr_assert_eq(m.reads, 3);
	free(pf);
}

Test(prefetch, a_range_not_read_whole_serves_nothing)
{
	struct prefetch *pf = calloc(1, sizeof(*pf));
	struct memsource m;
	uint8_t got[16];

	fill_bytes();
	memsource__image(&m, &image);
	prefetch__clear(pf);
	/* past the image's end by 8 bytes; unmapped; then a good one */
	cr_assert(prefetch__want(pf, BASE + SIZE - 8, 16));
	cr_assert(prefetch__want(pf, 0x900000, 8));
	cr_assert(prefetch__want(pf, BASE + 0x20, 8));
	cr_assert_eq(prefetch__fill(pf, &m), 0);
	m.reads = 0;
	cr_assert_eq(prefetch__read(pf, &m, BASE + SIZE - 8, got, 8), 0, "read on its own");
	cr_assert_eq(m.reads, 1);
	cr_assert_neq(prefetch__read(pf, &m, 0x900000, got, 8), 0);
	cr_assert_eq(m.reads, 2);
	cr_assert_eq(prefetch__read(pf, &m, BASE + 0x20, got, 8), 0);
	cr_assert_eq(m.reads, 2, "the good range serves");
	free(pf);
}

Test(prefetch, what_is_wanted_is_bounded)
{
	struct prefetch *pf = calloc(1, sizeof(*pf));
	size_t i;

	prefetch__clear(pf);
	cr_assert(!prefetch__want(pf, 0, 8), "no address");
	cr_assert(!prefetch__want(pf, BASE, 0), "no bytes");
	cr_assert(!prefetch__want(pf, UINT64_MAX - 4, 8), "wraps");
	cr_assert(!prefetch__want(pf, BASE, PREFETCH_BYTES + 1), "larger than the buffer");
	cr_assert(prefetch__want(pf, BASE, PREFETCH_BYTES - 8));
	cr_assert(!prefetch__want(pf, BASE, 16), "no room left");
	prefetch__clear(pf);
	for (i = 0; i < PREFETCH_RANGES; i++)
		cr_assert(prefetch__want(pf, BASE + 64 * i, 8));
	cr_assert(!prefetch__want(pf, BASE, 8), "no range left");
	free(pf);
}
