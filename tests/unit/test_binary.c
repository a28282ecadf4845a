/* collector/binary.c: a binary whose file its owner truncates while the
 * registry holds it (the agent reads users' files, never maps them: a
 * mapping of a truncated file faults with SIGBUS). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "collector/binary.h"
#include "common/cachedir.h"
#include "symbolize/symindex.h"
#include "tests/unit/symfix.h"
#include "tests/unit/tmpdir.h"
#include "unwind/cfi.h"

static char dir[256], copy[512];

/* A private copy of the fixture, as a user's own library would be. */
static void copy_fixture(void)
{
	char buf[65536];
	int in = open(built("fixture"), O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	cr_assert(in >= 0, "%s: %s", built("fixture"), strerror(errno));
	tmpdir_make(dir, sizeof(dir), "binary");
	snprintf(copy, sizeof(copy), "%s/fixture", dir);
	out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	cr_assert(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	cr_assert_eq(n, 0);
	close(in);
	close(out);
}

static void init(void)
{
	setup();
	copy_fixture();
}

static void fini(void)
{
	tmpdir_remove(dir);
	teardown();
}

TestSuite(binary, .init = init, .fini = fini);

/* The name of pc (an ELF address of the fixture), with func_start as the
 * unwinder would give it. */
static const char *name_of(struct binary *b, uint64_t pc, uint64_t func_start)
{
	struct symindex *s = binary__symindex(b);
	uint32_t ids[8];
	size_t n = 0;

	cr_assert_not_null(s, "a binary always has a symbol index, if only for [module]");
	cr_assert_eq(symindex__lookup(s, pc, func_start, ids, 8, &n), 0);
	cr_assert_geq(n, 1);
	return strtab__str(names, ids[n - 1]); /* the function, outermost */
}

static struct binary *open_copy(struct binaries *bs)
{
	struct binary *b = NULL;

	cr_assert_eq(binaries__get(bs, 0, copy, 0, 0, 0, 0, &b), 0);
	cr_assert_not_null(b);
	cr_assert(binary__is_elf(b));
	return b;
}

/* Truncated after the registry opened it but before its CFI or symbols
 * were read: no fault, no CFI, and its pcs are named after the module. */
Test(binary, truncated_before_anything_is_read)
{
	struct binaries *bs = binaries__new(names);
	uint64_t leaf, size;
	struct binary *b;
	const char *got;

	cr_assert(elf_sym(copy, "fixture_leaf", &leaf, &size));
	b = open_copy(bs);
	cr_assert_eq(truncate(copy, 0), 0);
	cr_assert_null(binary__cfi(b), "CFI read from an empty file");
	got = name_of(b, leaf, leaf);
	cr_assert(strcmp(got, "[fixture]") == 0 || strncmp(got, "fixture+0x", 10) == 0, "got %s", got);
	got = name_of(b, leaf + 1, 0);
	cr_assert(strcmp(got, "[fixture]") == 0 || strncmp(got, "fixture+0x", 10) == 0, "got %s", got);
	binaries__put(bs, b, 1);
	binaries__delete(bs);
}

/* Truncated after the first lookups: pcs looked up for the first time
 * afterwards are answered from what was read (CFI rows, function names,
 * the DWARF: read into memory without a cache, from the cache's copy of it
 * with one), never by touching the file again. */
static void truncate_between_lookups(struct cachedir *cache)
{
	struct binaries *bs = binaries__new(names);
	uint64_t outer, leaf, mainf, size;
	const struct cfi_row *row;
	struct binary *b;
	struct cfi *c;

	cr_assert(elf_sym(copy, "outer", &outer, &size));
	cr_assert(elf_sym(copy, "fixture_leaf", &leaf, &size));
	cr_assert(elf_sym(copy, "main", &mainf, &size));
	binaries__set_cache(bs, cache);
	b = open_copy(bs);
	c = binary__cfi(b);
	cr_assert_not_null(c);
	cr_assert_eq(cfi__lookup(c, outer, &row), 0);
	cr_assert_str_eq(name_of(b, outer + 1, 0), "outer");
	cr_assert_eq(truncate(copy, 0), 0);
	cr_assert_eq(cfi__lookup(c, leaf, &row), 0);
	cr_assert_eq(cfi__lookup(c, mainf + 1, &row), 0);
	cr_assert_str_eq(name_of(b, leaf, 0), "fixture_leaf");
	cr_assert_str_eq(name_of(b, mainf + 1, 0), "main");
	binaries__put(bs, b, 1);
	binaries__delete(bs);
}

Test(binary, truncated_between_lookups)
{
	truncate_between_lookups(NULL);
}

Test(binary, truncated_between_lookups_with_a_cache)
{
	struct cachedir *cache = NULL;
	char path[600];

	snprintf(path, sizeof(path), "%s/cache", dir);
	cr_assert_eq(cachedir__open(path, 1 << 30, &cache), 0);
	truncate_between_lookups(cache);
	cachedir__delete(cache);
}

/* Cut in the middle (the section headers and symbol tables at its end
 * gone, the code still there), as a user shortening their own library
 * while it runs would: the same. */
Test(binary, truncated_to_its_code)
{
	struct binaries *bs = binaries__new(names);
	uint64_t leaf, size;
	struct binary *b;
	struct stat st;
	const char *got;

	cr_assert(elf_sym(copy, "fixture_leaf", &leaf, &size));
	cr_assert_eq(stat(copy, &st), 0);
	b = open_copy(bs);
	cr_assert_eq(truncate(copy, st.st_size / 2), 0);
	(void)binary__cfi(b);
	got = name_of(b, leaf, leaf);
	cr_assert(strcmp(got, "fixture_leaf") == 0 || strcmp(got, "[fixture]") == 0 ||
		  strncmp(got, "fixture+0x", 10) == 0, "got %s", got);
	binaries__put(bs, b, 1);
	binaries__delete(bs);
}
