/* Fuzz target: JIT perf-map loading and lookups (symbolize/perfmap.c). The
 * temp file is ours, so the owner check passes with geteuid(). */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "common/strtab.h"
#include "symbolize/perfmap.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/lookups.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t pcs[FUZZ_MAX_PCS];
	struct strtab *names;
	struct perfmap *m;
	size_t npcs, i;

	names = strtab__new();
	FUZZ_CHECK(names);
	if (perfmap__load(fuzz_tmp_write(data, size), geteuid(), names, &m) != 0) {
		strtab__delete(names);
		return 0;
	}
	(void)perfmap__count(m);
	npcs = fuzz_line_pcs(data, size, pcs);
	for (i = 0; i < npcs; i++) {
		uint32_t id;

		if (perfmap__lookup(m, pcs[i], &id) == 0) {
			const char *s = strtab__str(names, id);

			FUZZ_CHECK(s != NULL);
			FUZZ_CHECK(strlen(s) == strtab__len(names, id));
		}
	}
	perfmap__delete(m);
	strtab__delete(names);
	return 0;
}
