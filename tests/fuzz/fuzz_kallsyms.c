/* Fuzz target: /proc/kallsyms loading and lookups (symbolize/kallsyms.c). */
#include "config.h"

#include <string.h>

#include "common/strtab.h"
#include "symbolize/kallsyms.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/lookups.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t pcs[FUZZ_MAX_PCS];
	struct strtab *names;
	struct kallsyms *k;
	size_t npcs, i, round;

	names = strtab__new();
	FUZZ_CHECK(names);
	if (kallsyms__load(fuzz_tmp_write(data, size), names, &k) != 0) {
		strtab__delete(names);
		return 0;
	}
	(void)kallsyms__restricted(k);
	(void)kallsyms__count(k);
	npcs = fuzz_line_pcs(data, size, pcs);
	/* twice: the second round is served by the pc cache */
	for (round = 0; round < 2; round++) {
		for (i = 0; i < npcs; i++) {
			uint32_t id;

			if (kallsyms__lookup(k, pcs[i], &id) == 0) {
				const char *s = strtab__str(names, id);

				FUZZ_CHECK(s != NULL);
				FUZZ_CHECK(strlen(s) == strtab__len(names, id));
			}
		}
	}
	kallsyms__delete(k);
	strtab__delete(names);
	return 0;
}
