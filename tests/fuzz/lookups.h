/* Lookup addresses for symbol-table fuzz targets: the hex number at the start
 * of the first lines of the input (where the parsers found a symbol), and
 * its neighbours, so lookups hit loaded entries and their edges. */
#ifndef SMOLDER_TESTS_FUZZ_LOOKUPS_H
#define SMOLDER_TESTS_FUZZ_LOOKUPS_H
#include <stdint.h>
#include <string.h>

#define FUZZ_MAX_PCS 96

static inline size_t fuzz_line_pcs(const uint8_t *data, size_t size, uint64_t *pcs)
{
	size_t n = 0, i = 0;

	pcs[n++] = 0;
	pcs[n++] = UINT64_MAX;
	while (i < size && n + 3 <= FUZZ_MAX_PCS) {
		uint64_t v = 0;
		size_t digits = 0;

		if (i + 1 < size && data[i] == '0' && (data[i + 1] == 'x' || data[i + 1] == 'X'))
			i += 2;
		for (; i < size && digits < 16; i++, digits++) {
			uint8_t c = data[i];
			unsigned d;

			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (c >= 'a' && c <= 'f')
				d = c - 'a' + 10;
			else if (c >= 'A' && c <= 'F')
				d = c - 'A' + 10;
			else
				break;
			v = (v << 4) | d;
		}
		if (digits) {
			pcs[n++] = v;
			pcs[n++] = v + 1;
			pcs[n++] = v - 1;
		}
		while (i < size && data[i] != '\n')
			i++;
		i++;
	}
	return n;
}
#endif
