/* Fuzz target: corrupt ELF files as another user's binary could be
 * (symbolize/symindex.c, unwind/cfi.c): symindex__new on the input as a file and
 * a few lookups, then elf_begin + cfi__new and rule lookups, at addresses
 * taken from the file's executable sections and its entry point. */
#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "common/strtab.h"
#include "symbolize/symindex.h"
#include "tests/fuzz/fuzz.h"
#include "unwind/cfi.h"

#define MAX_ADDRS 40

/* LeakSanitizer's interface, weak so that the replay links without it. */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

/* dwarf_getscopes leaks its scope array when it fails on corrupt DWARF
 * (elfutils bug, found by this target). symindex stops using the DWARF of
 * such a binary after the first failure, so the daemon leaks at most once
 * per binary; that bounded leak is not reported here. Only lookups are
 * exempt: symindex__new/__delete and the cfi stay leak-checked. */
static void lookups_begin(void)
{
	if (__lsan_disable)
		__lsan_disable();
}

static void lookups_end(void)
{
	if (__lsan_enable)
		__lsan_enable();
}

/* Addresses worth looking up: entry, and start/middle/end of the first
 * executable sections (symbols and FDEs live there). */
static size_t pick_addrs(Elf *e, uint64_t *a)
{
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t n = 0, nscn = 0;

	a[n++] = 0;
	a[n++] = UINT64_MAX;
	if (!e || !gelf_getehdr(e, &eh))
		return n;
	a[n++] = eh.e_entry;
	a[n++] = eh.e_entry + 1;
	while ((scn = elf_nextscn(e, scn)) && nscn++ < 64 && n + 4 <= MAX_ADDRS) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		a[n++] = sh.sh_addr;
		a[n++] = sh.sh_addr + sh.sh_size / 2;
		a[n++] = sh.sh_addr + sh.sh_size / 3 + 1;
		a[n++] = sh.sh_addr + sh.sh_size - 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t addrs[MAX_ADDRS];
	struct strtab *names;
	struct symindex *sb = NULL;
	struct cfi *cfi = NULL;
	const char *path;
	size_t naddrs, i;
	Elf *e;
	int fd;

	elf_version(EV_CURRENT);
	path = fuzz_tmp_write(data, size);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	naddrs = pick_addrs(e, addrs);
	if (e && cfi__new(e, &cfi) == 0) {
		for (i = 0; i < naddrs; i++) {
			const struct cfi_row *row;
			uint64_t start;

			if (cfi__lookup(cfi, addrs[i], &row) == 0) {
				FUZZ_CHECK(row->start <= addrs[i] && addrs[i] < row->end);
				if (row->cfa_kind == CFI_CFA_EXPR)
					FUZZ_CHECK(cfi__ops(cfi, row->cfa_value) != NULL ||
						   row->cfa_nops == 0);
			}
			(void)cfi__func_start(cfi, addrs[i], &start);
		}
		cfi__delete(cfi);
	}
	if (e)
		elf_end(e);
	close(fd);

	names = strtab__new();
	FUZZ_CHECK(names);
	if (symindex__new(path, "fuzz", names, &sb) == 0) {
		struct symindex_stats st;

		lookups_begin();
		for (i = 0; i < naddrs; i++) {
			uint32_t ids[8];
			size_t n = 0, j;

			if (symindex__lookup(sb, addrs[i], addrs[i] & ~(uint64_t)0xf, ids,
					   (i & 1) ? 8 : 1, &n) == 0) {
				FUZZ_CHECK(n >= 1 && n <= ((i & 1) ? 8u : 1u));
				for (j = 0; j < n; j++)
					FUZZ_CHECK(strtab__str(names, ids[j]) != NULL);
			}
		}
		lookups_end();
		symindex__stats(sb, &st);
		symindex__delete(sb);
	}
	strtab__delete(names);
	return 0;
}
