/* runtimes/v8_positions: V8's source position tables decoded from
 * hand-made tables, encoded as V8's SourcePositionTableBuilder does, and
 * damaged ones: cut, overlong, overflowing, and random bytes. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/v8_positions.h"
#include "tests/unit/rounds.h"

/* One zigzag base-128 integer, as V8's EncodeInt writes it. */
static size_t vlq(uint8_t *p, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 0;

	do {
		p[n] = (uint8_t)(u & 0x7f);
		u >>= 7;
		if (u)
			p[n] |= 0x80;
		n++;
	} while (u);
	return n;
}

/* A table of entries (code offset, raw position, statement) as V8's
 * builder encodes them: deltas from (-1, 0), an expression's code delta
 * negated minus one. */
struct entry {
	int64_t code_offset, position;
	int statement;
};

static size_t encode(uint8_t *tab, const struct entry *e, size_t n)
{
	int64_t code = -1, pos = 0;
	size_t len = 0, i;

	for (i = 0; i < n; i++) {
		int64_t d = e[i].code_offset - code;

		len += vlq(tab + len, e[i].statement ? d : -d - 1);
		len += vlq(tab + len, e[i].position - pos);
		code = e[i].code_offset;
		pos = e[i].position;
	}
	return len;
}

/* A SourcePosition: script offset off, in inlining id (-1: none). */
static int64_t source_position(int64_t off, int64_t inlining)
{
	return (off + 1) << 1 | (inlining + 1) << 31;
}

Test(v8_positions, entries_decode_as_encoded)
{
	uint8_t tab[64];
	size_t n = 0, pos = 0;
	int64_t off = -1, p = 0;

	n += vlq(tab + n, 1);            /* pc 0, a statement */
	n += vlq(tab + n, 20);
	n += vlq(tab + n, -(16 + 1));    /* pc 16, not a statement */
	n += vlq(tab + n, (int64_t)(1ull << 31) - 10);
	cr_assert_eq(v8_positions__next(tab, n, &pos, &off, &p), 0);
	cr_assert_eq(off, 0);
	cr_assert_eq(p, 20);
	cr_assert_eq(v8_positions__next(tab, n, &pos, &off, &p), 0);
	cr_assert_eq(off, 16);
	cr_assert_eq(p, (int64_t)(1ull << 31) + 10);
	cr_assert_eq(v8_positions__next(tab, n, &pos, &off, &p), -ENODATA);
	pos = 0;
	cr_assert_eq(v8_positions__next(tab, 1, &pos, &off, &p), -EPROTO, "cut in an entry");
}

Test(v8_positions, the_position_in_force_at_an_offset)
{
	/* bytecode: the entry's stack check at -1, then statements and
	 * expressions, positions going back and forth as V8's do */
	const struct entry e[] = {
		{ -1, source_position(30, -1), 1 }, { 0, source_position(35, -1), 1 },
		{ 4, source_position(41, -1), 0 },  { 9, source_position(33, -1), 1 },
		{ 200, source_position(1000, -1), 1 }, { 70000, source_position(5, -1), 0 },
	};
	uint8_t tab[128];
	size_t len = encode(tab, e, sizeof(e) / sizeof(e[0]));
	int64_t p;

	cr_assert_eq(v8_positions__at(tab, len, -2, &p), -ENOENT, "before the first entry");
	cr_assert_eq(v8_positions__at(tab, len, -1, &p), 0);
	cr_assert_eq(v8_positions__script_offset(p), 30);
	cr_assert_eq(v8_positions__at(tab, len, 0, &p), 0);
	cr_assert_eq(v8_positions__script_offset(p), 35);
	cr_assert_eq(v8_positions__at(tab, len, 3, &p), 0, "between entries: the earlier one's");
	cr_assert_eq(v8_positions__script_offset(p), 35);
	cr_assert_eq(v8_positions__at(tab, len, 4, &p), 0);
	cr_assert_eq(v8_positions__script_offset(p), 41, "an expression counts as well");
	cr_assert_eq(v8_positions__at(tab, len, 150, &p), 0);
	cr_assert_eq(v8_positions__script_offset(p), 33, "positions may go back");
	cr_assert_eq(v8_positions__at(tab, len, 69999, &p), 0);
	cr_assert_eq(v8_positions__script_offset(p), 1000, "multi-byte deltas");
	cr_assert_eq(v8_positions__at(tab, len, 1 << 30, &p), 0, "past the last entry: the last one's");
	cr_assert_eq(v8_positions__script_offset(p), 5);
	cr_assert_eq(v8_positions__inlining(p), 0);
	cr_assert_eq(v8_positions__at(tab, 0, 0, &p), -ENOENT, "an empty table places nothing");
}

Test(v8_positions, source_positions_say_offset_and_inlining)
{
	cr_assert_eq(v8_positions__script_offset(source_position(0, -1)), 0);
	cr_assert_eq(v8_positions__script_offset(source_position(123456, 7)), 123456);
	cr_assert_eq(v8_positions__inlining(source_position(123456, 7)), 8);
	cr_assert_eq(v8_positions__inlining(source_position(9, -1)), 0);
	cr_assert_eq(v8_positions__script_offset(0), -1, "kNoSourcePosition");
	cr_assert_eq(v8_positions__script_offset(source_position(40, -1) | 1), -1, "external: wasm's");
	cr_assert_eq(v8_positions__script_offset(-4), -1);
}

Test(v8_positions, damaged_tables_are_refused)
{
	const struct entry e[] = { { 0, source_position(10, -1), 1 }, { 8, source_position(20, -1), 1 } };
	uint8_t tab[64], bad[64];
	size_t len = encode(tab, e, 2), n, pos;
	int64_t off, p;

	/* cut anywhere inside the second entry: the first was fine, but a
	 * table cut short is no table to trust */
	for (n = 3; n < len; n++)
		cr_assert_eq(v8_positions__at(tab, n, 100, &p), -EPROTO, "cut at %zu of %zu", n, len);
	cr_assert_eq(v8_positions__at(tab, len, 4, &p), 0, "an offset before the damage is found");
	/* an integer of more groups than 64 bits hold */
	memset(bad, 0xff, 20);
	bad[20] = 0;
	pos = 0;
	off = -1;
	p = 0;
	cr_assert_eq(v8_positions__next(bad, 21, &pos, &off, &p), -EPROTO);
	cr_assert_eq(off, -1, "nothing summed from a damaged entry");
	/* a code offset past V8's 32-bit range */
	n = vlq(bad, (int64_t)1 << 40);
	n += vlq(bad + n, 2);
	pos = 0;
	cr_assert_eq(v8_positions__next(bad, n, &pos, &off, &p), -EPROTO);
	/* positions summing past a SourcePosition's 47 bits, without overflow */
	n = 0;
	for (pos = 0; pos < 4; pos++) {
		n += vlq(bad + n, 1);
		n += vlq(bad + n, (int64_t)1 << 47);
	}
	cr_assert_eq(v8_positions__at(bad, n, 100, &p), -EPROTO);
}

/* Random bytes as a table: the decoder returns, and a walk takes at most
 * one step per two bytes. */
Test(v8_positions, random_tables_never_crash)
{
	uint8_t tab[256];
	unsigned seed = 7, round;

	for (round = 0; round < (unsigned)test_rounds(20000); round++) {
		size_t len = (size_t)rand_r(&seed) % sizeof(tab), i, pos = 0, steps = 0;
		int64_t off = -1, p = 0, q;
		int err;

		for (i = 0; i < len; i++)
			tab[i] = (uint8_t)rand_r(&seed);
		while ((err = v8_positions__next(tab, len, &pos, &off, &p)) == 0) {
			steps++;
			cr_assert_leq(pos, len);
			cr_assert(off >= -1 && off <= INT32_MAX);
		}
		cr_assert(err == -ENODATA || err == -EPROTO);
		cr_assert_leq(steps, len / 2);
		err = v8_positions__at(tab, len, (int64_t)(rand_r(&seed) % 1000) - 1, &q);
		cr_assert(err == 0 || err == -ENOENT || err == -EPROTO);
	}
}
