/* CPython's line tables: which source line an instruction belongs to.
 * Three formats, as CPython's Objects/lnotab_notes.txt (2.7-3.10) and
 * Objects/locations.md (3.11+) describe them; the bytes are the target's
 * and hostile, so every read is bounded by the table's length. */
#include "config.h"

#include "runtimes/cpython_lines.h"

int cpython_lines__lnotab(const uint8_t *t, size_t n, int first, uint32_t offset, bool signed_deltas)
{
	uint32_t addr = 0;
	int line = first;
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		addr += t[i];
		if (addr > offset)
			break;
		line += signed_deltas ? (int)(int8_t)t[i + 1] : (int)t[i + 1];
	}
	return line;
}

int cpython_lines__linetable310(const uint8_t *t, size_t n, int first, uint32_t offset)
{
	uint32_t addr = 0;
	int line = first;
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		int8_t ld = (int8_t)t[i + 1];
		uint32_t end = addr + t[i];
		int cur = -1;

		if (ld != -128) {
			line += ld;
			cur = line;
		}
		if (offset >= addr && offset < end)
			return cur;
		addr = end;
	}
	return -1;
}

/* 6-bit chunks, the 0x40 bit saying another follows. */
static bool varint(const uint8_t *t, size_t n, size_t *pos, uint32_t *out)
{
	uint32_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (*pos >= n || shift > 30)
			return false;
		b = t[(*pos)++];
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	*out = v;
	return true;
}

static bool svarint(const uint8_t *t, size_t n, size_t *pos, int *out)
{
	uint32_t v;

	if (!varint(t, n, pos, &v))
		return false;
	*out = (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
	return true;
}

int cpython_lines__locations(const uint8_t *t, size_t n, int first, uint32_t unit)
{
	uint32_t addr = 0, skip;
	int line = first;
	size_t pos = 0;

	while (pos < n) {
		uint8_t b = t[pos++];
		unsigned code = (b >> 3) & 15, len = (b & 7) + 1u;
		int ld = 0, cur;

		if (!(b & 0x80))
			return -1; /* not the start of an entry: damaged */
		switch (code) {
		case 15: /* no location */
			break;
		case 14: /* long form: line delta, end line, column, end column */
			if (!svarint(t, n, &pos, &ld) || !varint(t, n, &pos, &skip) ||
			    !varint(t, n, &pos, &skip) || !varint(t, n, &pos, &skip))
				return -1;
			break;
		case 13: /* no column */
			if (!svarint(t, n, &pos, &ld))
				return -1;
			break;
		case 10:
		case 11:
		case 12: /* one line form: the delta in the code, two column bytes */
			ld = (int)code - 10;
			pos += 2;
			break;
		default: /* short form: same line, one column byte */
			pos += 1;
			break;
		}
		cur = -1;
		if (code != 15) {
			line += ld;
			cur = line;
		}
		if (unit >= addr && unit < addr + len)
			return cur;
		addr += len;
	}
	return -1;
}
