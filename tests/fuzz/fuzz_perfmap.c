/* Fuzz target: JIT perf-map loading and lookups (symbolize/perfmap.c), and
 * the names compaction through a perf map (every lookup reads the same
 * string after it). The temp file is ours, so the owner check passes with
 * geteuid(). */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "common/strtab.h"
#include "common/strtab_remap.h"
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
	/* compaction: a collect and a commit pass into a fresh table */
	{
		struct strtab *to = strtab__new();
		struct strtab_remap r;
		uint32_t before[FUZZ_MAX_PCS];
		int found[FUZZ_MAX_PCS];

		FUZZ_CHECK(to);
		for (i = 0; i < npcs; i++)
			found[i] = perfmap__lookup(m, pcs[i], &before[i]) == 0;
		FUZZ_CHECK(strtab_remap__init(&r, names, to) == 0);
		FUZZ_CHECK(perfmap__remap_names(m, &r) == 0);
		strtab_remap__commit(&r);
		FUZZ_CHECK(perfmap__remap_names(m, &r) == 0);
		FUZZ_CHECK(r.missed == 0);
		for (i = 0; i < npcs; i++) {
			uint32_t id;

			FUZZ_CHECK((perfmap__lookup(m, pcs[i], &id) == 0) == found[i]);
			if (found[i])
				FUZZ_CHECK(strcmp(strtab__str(to, id), strtab__str(names, before[i])) == 0);
		}
		strtab_remap__fini(&r);
		strtab__delete(to);
	}
	perfmap__delete(m);
	strtab__delete(names);
	return 0;
}
