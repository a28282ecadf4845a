/* CRuby's line tables, read. */
#include "config.h"

#include <string.h>

#include "runtimes/ruby_lines.h"

/* iseq.c: IMMEDIATE_TABLE_SIZE ranks kept 7 bits each, nine to a word;
 * then blocks of 512 positions: {unsigned rank; uint64_t
 * small_block_ranks (9 bits per 64 positions); uint64_t bits[8]}. */
#define IMMEDIATE 54u
#define IMM_WORDS (IMMEDIATE / 9u)
#define BLOCK_BYTES 80u
#define BLOCK_RANK 0u
#define BLOCK_SMALL 8u
#define BLOCK_BITS 16u

static uint32_t u32_at(const uint8_t *b, size_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static uint64_t u64_at(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

long ruby_lines__by_position(const uint8_t *entries, uint32_t n, uint32_t entry_size, uint32_t pos_off,
			     uint32_t pos)
{
	uint32_t lo = 0, hi = n;

	if (!n || entry_size < pos_off + 4)
		return -1;
	/* the first entry covers what comes before it */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (u32_at(entries, (size_t)mid * entry_size + pos_off) <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

long ruby_lines__in_positions(const uint8_t *positions, uint32_t n, uint32_t pos)
{
	return ruby_lines__by_position(positions, n, 4, 0, pos);
}

size_t ruby_lines__succinct_bytes(uint32_t iseq_size)
{
	if (iseq_size < IMMEDIATE)
		return (size_t)((iseq_size + 8) / 9) * 8;
	return IMM_WORDS * 8 + (size_t)((iseq_size - IMMEDIATE + 511) / 512) * BLOCK_BYTES;
}

static unsigned popcount64(uint64_t v)
{
	unsigned n = 0;

	while (v) {
		v &= v - 1;
		n++;
	}
	return n;
}

long ruby_lines__succinct(const uint8_t *table, size_t len, uint32_t pos)
{
	long rank;

	if (pos < IMMEDIATE) {
		size_t word = pos / 9;

		if ((word + 1) * 8 > len)
			return -1;
		rank = (long)((u64_at(table, word * 8) >> ((pos % 9) * 7)) & 0x7f);
	} else {
		uint32_t x = pos - IMMEDIATE, bit = x % 512, small = bit / 64;
		size_t block = IMM_WORDS * 8 + (size_t)(x / 512) * BLOCK_BYTES;
		uint64_t ranks, bits;
		unsigned below;

		if (block + BLOCK_BYTES > len)
			return -1;
		ranks = u64_at(table, block + BLOCK_SMALL);
		below = small ? (unsigned)((ranks >> ((small - 1) * 9)) & 0x1ff) : 0;
		bits = u64_at(table, block + BLOCK_BITS + small * 8);
		rank = (long)u32_at(table, block + BLOCK_RANK) + below + popcount64(bits << (63 - bit % 64));
	}
	return rank > 0 ? rank - 1 : -1;
}
