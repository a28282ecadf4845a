/* HotSpot's writers of compressed line number tables, for tests: the
 * UNSIGNED5 ints of CompressedWriteStream (x: the excluded byte values,
 * 0 before JDK 20, 1 since) and CompressedLineNumberWriteStream's pairs,
 * as HotSpot writes them, to check the reader against tables it did not
 * make itself. */
#ifndef SMOLDER_TESTS_HOTSPOT_LINETAB_H
#define SMOLDER_TESTS_HOTSPOT_LINETAB_H
#include <stddef.h>
#include <stdint.h>

struct hi_linetab {
	uint8_t *out;
	size_t n;
	unsigned x;
	int bci, line;
};

static inline void hi_lt_uint(struct hi_linetab *t, uint32_t v)
{
	const uint32_t l = 192 - t->x;
	int i;

	for (i = 0;; i++) {
		if (v < l || i == 4) {
			t->out[t->n++] = (uint8_t)(t->x + v);
			return;
		}
		v -= l;
		t->out[t->n++] = (uint8_t)(t->x + l + (v & 63));
		v >>= 6;
	}
}

static inline void hi_lt_signed(struct hi_linetab *t, int32_t v)
{
	hi_lt_uint(t, ((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
}

/* One (bci, line) entry, as CompressedLineNumberWriteStream::write_pair. */
static inline void hi_lt_pair(struct hi_linetab *t, int bci, int line)
{
	int db = bci - t->bci, dl = line - t->line;

	t->bci = bci;
	t->line = line;
	if (db == 0 && dl == 0)
		return;
	if (db >= 0 && db < 0x20 && dl >= 0 && dl < 0x08 && ((db << 3) | dl) != 0xFF) {
		t->out[t->n++] = (uint8_t)((db << 3) | dl);
		return;
	}
	t->out[t->n++] = 0xFF;
	hi_lt_signed(t, db);
	hi_lt_signed(t, dl);
}

/* Writes n (bci, line) pairs and the end into out; returns its length. */
static inline size_t hi_lt_write(uint8_t *out, unsigned x, const int (*pairs)[2], size_t n)
{
	struct hi_linetab t = { out, 0, x, 0, 0 };
	size_t i;

	for (i = 0; i < n; i++)
		hi_lt_pair(&t, pairs[i][0], pairs[i][1]);
	t.out[t.n++] = 0;
	return t.n;
}

#endif
