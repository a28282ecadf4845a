/* V8's source position tables, decoded. */
#include "config.h"

#include <errno.h>

#include "runtimes/v8_positions.h"

/* A SourcePosition has 47 bits; running sums stay within 48. */
#define POSITION_MAX (INT64_C(1) << 48)

int v8_positions__vlq(const uint8_t *tab, size_t len, size_t *pos, unsigned max_shift, uint64_t *v)
{
	uint64_t u = 0;
	unsigned shift = 0;

	/* base-128 groups, low first; the high bit says more follow */
	for (;;) {
		uint8_t b;

		if (*pos >= len || shift > max_shift)
			return -EPROTO;
		b = tab[(*pos)++];
		u |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	*v = u;
	return 0;
}

int v8_positions__next(const uint8_t *tab, size_t len, size_t *pos, int64_t *code_offset,
		       int64_t *position)
{
	int64_t v[2];
	int k;

	if (*pos >= len)
		return -ENODATA;
	for (k = 0; k < 2; k++) {
		uint64_t u;

		if (v8_positions__vlq(tab, len, pos, 63, &u) != 0)
			return -EPROTO;
		/* zigzag: the low bit is the sign */
		v[k] = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	}
	/* a negative code delta d is an expression's position at -(d + 1);
	 * sums that leave V8's ranges (a 32-bit code offset, a 47-bit
	 * position) are damage, and keep the sums from overflowing */
	v[0] = v[0] >= 0 ? v[0] : -(v[0] + 1);
	if (v[0] > INT32_MAX || *code_offset + v[0] > INT32_MAX || v[1] > POSITION_MAX ||
	    v[1] < -POSITION_MAX || *position + v[1] > POSITION_MAX || *position + v[1] < -POSITION_MAX)
		return -EPROTO;
	*code_offset += v[0];
	*position += v[1];
	return 0;
}

int v8_positions__at(const uint8_t *tab, size_t len, int64_t offset, int64_t *position)
{
	int64_t code_offset = -1, p = 0, at = 0;
	size_t pos = 0;
	int found = 0, err;

	/* each entry is two bytes at least: the walk ends */
	while ((err = v8_positions__next(tab, len, &pos, &code_offset, &p)) == 0) {
		if (code_offset > offset)
			break;
		at = p;
		found = 1;
	}
	if (err == -EPROTO)
		return err;
	if (!found)
		return -ENOENT;
	*position = at;
	return 0;
}

int64_t v8_positions__script_offset(int64_t position)
{
	uint64_t u = (uint64_t)position;

	if (position < 0 || (u & 1))
		return -1;
	return (int64_t)((u >> 1) & 0x3fffffff) - 1;
}

unsigned v8_positions__inlining(int64_t position)
{
	return (unsigned)(((uint64_t)position >> 31) & 0xffff);
}
