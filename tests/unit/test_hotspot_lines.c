/* runtimes/hotspot_lines: HotSpot's compressed ints and line number
 * tables, on tables made by hand, by HotSpot's own writing rules
 * (hotspot_linetab.h), and damaged. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/hotspot_lines.h"
#include "hotspot_linetab.h"
#include "tests/unit/rounds.h"

/* Each table is copied into a buffer of its exact length: a read past
 * it is a read past the heap block (the sanitizers' builds catch it). */
static int line_of(const uint8_t *table, size_t len, unsigned x, int bci)
{
	uint8_t *copy = malloc(len ? len : 1);
	int line = -100, err;

	cr_assert_not_null(copy);
	memcpy(copy, table, len);
	err = hotspot_lines__line(copy, len, x, bci, &line);
	free(copy);
	return err == 0 ? line : err;
}

Test(hotspot_lines, unsigned5_ints_of_both_encodings)
{
	static const uint32_t values[] = { 0, 1, 190, 191, 192, 193, 255, 256, 1000, 12287,
					   12288, 65535, 786431, 786432, 1u << 24, 0x7fffffff,
					   0xfffffffe, 0xffffffff };
	unsigned x;
	size_t i;

	for (x = 0; x <= 1; x++)
		for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
			uint8_t buf[8];
			struct hi_linetab t = { buf, 0, x, 0, 0 };
			size_t pos = 0;
			uint32_t v = 0;

			hi_lt_uint(&t, values[i]);
			cr_assert_leq(t.n, 5);
			cr_assert_eq(hotspot_lines__uint(buf, t.n, &pos, x, &v), 0, "x %u: %u", x,
				     values[i]);
			cr_assert_eq(v, values[i], "x %u: %u read as %u", x, values[i], v);
			cr_assert_eq(pos, t.n);
			/* one byte short: refused, never read beyond */
			pos = 0;
			cr_assert_eq(hotspot_lines__uint(buf, t.n - 1, &pos, x, &v), -EPROTO);
		}
	/* by hand: 200 is (200, 0) before JDK 20, 191 is (192, 1) after */
	{
		const uint8_t a[] = { 200, 0 }, b[] = { 192, 1 }, zero[] = { 0 };
		size_t pos = 0;
		uint32_t v;

		cr_assert_eq(hotspot_lines__uint(a, 2, &pos, 0, &v), 0);
		cr_assert_eq(v, 200);
		pos = 0;
		cr_assert_eq(hotspot_lines__uint(b, 2, &pos, 1, &v), 0);
		cr_assert_eq(v, 191);
		/* JDK 20's encoding has no zero byte */
		pos = 0;
		cr_assert_eq(hotspot_lines__uint(zero, 1, &pos, 1, &v), -EPROTO);
		pos = 0;
		cr_assert_eq(hotspot_lines__uint(a, 2, &pos, 1, &v), -EPROTO);
	}
	cr_assert_eq(hotspot_lines__signed(0), 0);
	cr_assert_eq(hotspot_lines__signed(1), -1);
	cr_assert_eq(hotspot_lines__signed(2), 1);
	cr_assert_eq(hotspot_lines__signed(29), -15);
	cr_assert_eq(hotspot_lines__signed(0xfffffffeu), 0x7fffffff);
	cr_assert_eq(hotspot_lines__signed(0xffffffffu), INT32_MIN);
}

/* javac's table of
 *
 *   12	for (int i = 0; i < n; i++)      bci 0..6, and the i++ at 21..26
 *   13		x = ...;                     bci 7..20
 *   14	return x;                        bci 27..28
 *
 * entries (0, 12) (7, 13) (21, 12) (27, 14): the first and third escaped
 * (a line delta of 12, a line delta of -1), a zero byte inside the first
 * before JDK 20. */
static const uint8_t loop_jdk17[] = { 0xFF, 0x00, 0x18, 0x39, 0xFF, 0x1C, 0x01, 0x32, 0x00 };
static const uint8_t loop_jdk21[] = { 0xFF, 0x01, 0x19, 0x39, 0xFF, 0x1D, 0x02, 0x32, 0x00 };
static const int loop_pairs[][2] = { { 0, 12 }, { 7, 13 }, { 21, 12 }, { 27, 14 } };

Test(hotspot_lines, a_loop_by_hand_and_as_hotspot_writes_it)
{
	static const struct { int bci, line; } want[] = {
		{ -1, 12 }, { 0, 12 }, { 4, 12 }, { 6, 12 }, { 7, 13 }, { 14, 13 }, { 20, 13 },
		{ 21, 12 }, { 24, 12 }, { 27, 14 }, { 28, 14 }, { 5000, 14 },
	};
	uint8_t made[32];
	size_t i, size;

	cr_assert_eq(hi_lt_write(made, 0, loop_pairs, 4), sizeof(loop_jdk17));
	cr_assert_eq(memcmp(made, loop_jdk17, sizeof(loop_jdk17)), 0);
	cr_assert_eq(hi_lt_write(made, 1, loop_pairs, 4), sizeof(loop_jdk21));
	cr_assert_eq(memcmp(made, loop_jdk21, sizeof(loop_jdk21)), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert_eq(line_of(loop_jdk17, sizeof(loop_jdk17), 0, want[i].bci), want[i].line,
			     "bci %d", want[i].bci);
		cr_assert_eq(line_of(loop_jdk21, sizeof(loop_jdk21), 1, want[i].bci), want[i].line,
			     "JDK 21, bci %d", want[i].bci);
	}
	cr_assert_eq(line_of(loop_jdk17, sizeof(loop_jdk17), 0, -2), -ENOENT);
	/* the zero inside the first escape is not the end */
	cr_assert_eq(hotspot_lines__size(loop_jdk17, sizeof(loop_jdk17), 0, &size), 0);
	cr_assert_eq(size, sizeof(loop_jdk17));
	/* read with the other JDK's encoding, the table is refused or reads
	 * other lines, never past its bytes */
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		(void)line_of(loop_jdk17, sizeof(loop_jdk17), 1, want[i].bci);
}

/* Entries need not be sorted (javac writes a loop's condition after its
 * body; other compilers move code): the line is the exact entry's, else
 * the one with the highest bci below. Lines up to 65535 take escapes of
 * several bytes. */
Test(hotspot_lines, unsorted_entries_and_long_deltas)
{
	static const int pairs[][2] = { { 10, 20 }, { 2, 30 }, { 6, 40 }, { 40, 65535 },
					{ 3000, 1 }, { 65534, 40000 } };
	uint8_t t[64];
	unsigned x;

	for (x = 0; x <= 1; x++) {
		size_t n = hi_lt_write(t, x, pairs, sizeof(pairs) / sizeof(pairs[0])), size;

		cr_assert_eq(line_of(t, n, x, 10), 20);
		cr_assert_eq(line_of(t, n, x, 8), 40, "6 is the closest below 8");
		cr_assert_eq(line_of(t, n, x, 5), 30);
		cr_assert_eq(line_of(t, n, x, 1), -ENOENT, "nothing at or below 1");
		cr_assert_eq(line_of(t, n, x, 0), -ENOENT);
		cr_assert_eq(line_of(t, n, x, 41), 65535);
		cr_assert_eq(line_of(t, n, x, 3001), 1);
		cr_assert_eq(line_of(t, n, x, 65534), 40000);
		cr_assert_eq(hotspot_lines__size(t, n, x, &size), 0);
		cr_assert_eq(size, n);
	}
}

Test(hotspot_lines, damaged_tables_are_refused)
{
	/* no end within the bytes given */
	static const uint8_t unended[] = { 0x39, 0x39, 0x39 };
	/* an escape cut in its second int */
	static const uint8_t cut[] = { 0xFF, 0x02, 0xC5 };
	/* a bci below 0 (a delta of -1 first) */
	static const uint8_t negative[] = { 0xFF, 0x01, 0x02, 0x00 };
	/* a line past 65535: 0x7fffffff as a delta */
	static const uint8_t huge[] = { 0xFF, 0x00, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0x00 };
	/* the exact entry comes before the damage: HotSpot stops there too */
	static const uint8_t late[] = { 0x0A, 0x39, 0xFF, 0xFF };
	size_t size;

	cr_assert_eq(line_of(unended, sizeof(unended), 0, 100), -EPROTO);
	cr_assert_eq(hotspot_lines__size(unended, sizeof(unended), 0, &size), -EPROTO);
	cr_assert_eq(line_of(cut, sizeof(cut), 0, 5), -EPROTO);
	cr_assert_eq(line_of(negative, sizeof(negative), 0, 5), -EPROTO);
	cr_assert_eq(line_of(huge, sizeof(huge), 0, 5), -EPROTO);
	cr_assert_eq(line_of(late, sizeof(late), 0, 1), 2);
	cr_assert_eq(line_of(late, sizeof(late), 0, 2), -EPROTO);
	cr_assert_eq(hotspot_lines__line(NULL, 0, 0, 2, &(int){ 0 }), -ENOENT);
	cr_assert_eq(line_of(unended, 0, 0, 2), -EPROTO);
	cr_assert_eq(hotspot_lines__size(unended, 0, 0, &size), -EPROTO);
}

/* Random bytes: every answer in bounds, each call done within its
 * table's length (each entry takes a byte at least), never a crash. */
Test(hotspot_lines, random_bytes_never_crash_or_loop)
{
	unsigned seed = 4321;
	int iter, answered = 0;

	for (iter = 0; iter < test_rounds(100000); iter++) {
		size_t len = (size_t)(rand_r(&seed) % 48), i, size;
		uint8_t *t = malloc(len ? len : 1);
		int bci = (int)(rand_r(&seed) % 300) - 1, line = -100, err;
		unsigned x = (unsigned)(rand_r(&seed) & 1);

		cr_assert_not_null(t);
		for (i = 0; i < len; i++) /* escapes and ends often */
			t[i] = (uint8_t)(rand_r(&seed) % 4 == 0 ? 0xFF : rand_r(&seed) % 8 == 0 ? 0 : rand_r(&seed));
		err = hotspot_lines__line(t, len, x, bci, &line);
		cr_assert(err == 0 || err == -ENOENT || err == -EPROTO, "%d", err);
		if (err == 0) {
			answered++;
			cr_assert(line >= 0 && line <= 65535, "%d", line);
		}
		err = hotspot_lines__size(t, len, x, &size);
		cr_assert(err == 0 || err == -EPROTO);
		if (err == 0)
			cr_assert(size >= 1 && size <= len);
		free(t);
	}
	cr_assert_gt(answered, 0);
}
