/* Shared by the unit tests of symbolize/ (test_symindex, test_kallsyms,
 * test_perfmap) and of the binaries registry (test_binary): the names table
 * each test starts with, the fixture paths, a fixture's symbols, and lookups
 * that return names. Static inline: each test uses a part. */
#ifndef SMOLDER_TESTS_UNIT_SYMFIX_H
#define SMOLDER_TESTS_UNIT_SYMFIX_H
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/strtab.h"
#include "symbolize/kallsyms.h"
#include "symbolize/perfmap.h"

#ifndef SYMBOLIZE_FIXTURES_SRCDIR
#define SYMBOLIZE_FIXTURES_SRCDIR "tests/fixtures/symbolize"
#endif
#ifndef SYMBOLIZE_FIXTURES_BUILDDIR
#define SYMBOLIZE_FIXTURES_BUILDDIR "tests/fixtures/symbolize"
#endif

static struct strtab *names;

static inline void setup(void)
{
	names = strtab__new();
	cr_assert_not_null(names);
}

static inline void teardown(void)
{
	strtab__delete(names);
	names = NULL;
}

/* A fixture built by make (ELF files with known names). */
static inline const char *built(const char *file)
{
	static char buf[4][1024];
	static int k;
	char *b = buf[k++ & 3];

	snprintf(b, sizeof(buf[0]), "%s/%s", SYMBOLIZE_FIXTURES_BUILDDIR, file);
	return b;
}

/* A fixture of the source tree (text). */
static inline const char *source(const char *file)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s/%s", SYMBOLIZE_FIXTURES_SRCDIR, file);
	return buf;
}

static inline void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* Replaces path atomically, as JITs do. */
static inline void perfmap_write(const char *path, const char *text)
{
	char tmp[128];

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	write_file(tmp, text, strlen(text));
	cr_assert_eq(rename(tmp, path), 0);
}

/* nm: a symbol's value and size read straight from .symtab with libelf. */
static inline int elf_sym(const char *path, const char *want, uint64_t *addr, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;

	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB || !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			n = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (n && strcmp(n, want) == 0 && sym.st_value) {
				*addr = sym.st_value;
				*size = sym.st_size;
				found = 1;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static inline const char *klookup(struct kallsyms *k, uint64_t pc)
{
	uint32_t id = 0;

	cr_assert_eq(kallsyms__lookup(k, pc, &id), 0);
	return strtab__str(names, id);
}

/* The name of pc in m, NULL when m does not cover it. */
static inline const char *mlookup(struct perfmap *m, uint64_t pc)
{
	uint32_t id = 0;

	if (perfmap__lookup(m, pc, &id) != 0)
		return NULL;
	return strtab__str(names, id);
}

#endif
