/* Fuzz target: jitdump parsing (symbolize/jitdump.c) and lookups of every
 * code range it named: the names read back whole, no read past the input. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "common/strtab.h"
#include "symbolize/jitdump.h"
#include "symbolize/perfmap.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strtab *names = strtab__new();
	struct perfmap *m = NULL;
	struct stat st;
	size_t off;

	FUZZ_CHECK(names);
	memset(&st, 0, sizeof(st));
	FUZZ_CHECK(perfmap__new_empty(&st, &m) == 0);
	if (jitdump__parse(data, size, names, m) == 0) {
		/* every 8-byte word of the input as a pc: hits some ranges */
		for (off = 0; off + 8 <= size; off += 8) {
			uint64_t pc;
			uint32_t id;

			memcpy(&pc, data + off, sizeof(pc));
			if (perfmap__lookup(m, pc, &id) == 0) {
				const char *s = strtab__str(names, id);

				FUZZ_CHECK(s != NULL);
				FUZZ_CHECK(strlen(s) == strtab__len(names, id));
			}
		}
	}
	perfmap__delete(m);
	strtab__delete(names);
	return 0;
}
