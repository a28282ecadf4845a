/* HotSpot's compressed ints and line number tables, decoded from bytes
 * read out of a JVM. */
#include "config.h"

#include <errno.h>

#include "runtimes/hotspot_lines.h"

/* A class file's bytecode indexes and lines are u2. */
#define MAX_CLASSFILE_U2 65535

int hotspot_lines__uint(const uint8_t *buf, size_t len, size_t *pos, unsigned x, uint32_t *out)
{
	const unsigned lg_h = 6, l = 256 - 64 - x;
	uint32_t sum;
	unsigned shift = lg_h, i;

	if (*pos >= len || buf[*pos] < x)
		return -EPROTO;
	sum = buf[*pos] - x;
	if (sum < l) {
		*pos += 1;
		*out = sum;
		return 0;
	}
	/* HotSpot sums in 32 bits and stops at the fifth byte whatever it
	 * is: the same wrap-around here */
	for (i = 1; i < 5; i++, shift += lg_h) {
		uint32_t b;

		if (*pos + i >= len || buf[*pos + i] < x)
			return -EPROTO;
		b = buf[*pos + i] - x;
		sum += b << shift;
		if (b < l || i == 4) {
			*pos += i + 1;
			*out = sum;
			return 0;
		}
	}
	return -EPROTO;
}

int32_t hotspot_lines__signed(uint32_t v)
{
	return (int32_t)((v >> 1) ^ (0u - (v & 1)));
}

/* Walks the table from its start: to the entry of bci (>= 0) or, for
 * bci < 0, to its end. *best_line is the line of bci (its entry's, or
 * the closest below it), -1 when none; *end the bytes walked. */
static int walk(const uint8_t *table, size_t len, unsigned x, int bci, int *best_line, size_t *end)
{
	/* sums kept wide: a hostile table cannot overflow them before it is
	 * refused, one entry at most being added at a time */
	int64_t cur_bci = 0, cur_line = 0, best_bci = 0;
	size_t pos = 0;

	*best_line = -1;
	/* each entry takes at least one byte: at most len of them */
	for (;;) {
		uint8_t b;

		if (pos >= len)
			return -EPROTO; /* no end within what was read */
		b = table[pos++];
		if (b == 0)
			break;
		if (b == 0xFF) {
			uint32_t db, dl;

			if (hotspot_lines__uint(table, len, &pos, x, &db) ||
			    hotspot_lines__uint(table, len, &pos, x, &dl))
				return -EPROTO;
			cur_bci += hotspot_lines__signed(db);
			cur_line += hotspot_lines__signed(dl);
		} else {
			cur_bci += b >> 3;
			cur_line += b & 7;
		}
		if (cur_bci < 0 || cur_bci > MAX_CLASSFILE_U2 || cur_line < 0 ||
		    cur_line > MAX_CLASSFILE_U2)
			return -EPROTO;
		if (cur_bci == bci) {
			/* HotSpot returns at the first exact entry */
			*best_line = (int)cur_line;
			break;
		}
		if (cur_bci < bci && cur_bci >= best_bci) {
			best_bci = cur_bci;
			*best_line = (int)cur_line;
		}
	}
	*end = pos;
	return 0;
}

int hotspot_lines__line(const uint8_t *table, size_t len, unsigned x, int bci, int *line)
{
	size_t end;
	int err;

	if (bci == -1)
		bci = 0;
	if (bci < 0 || !table)
		return -ENOENT;
	err = walk(table, len, x, bci, line, &end);
	if (err)
		return err;
	return *line < 0 ? -ENOENT : 0;
}

int hotspot_lines__size(const uint8_t *table, size_t len, unsigned x, size_t *size)
{
	int line;

	if (!table)
		return -EPROTO;
	return walk(table, len, x, -1, &line, size);
}
