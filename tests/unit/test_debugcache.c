/* Unit tests: symbolize/debugcache (plain copies of compressed separate debug
 * files) through symindex, on fixture_deep split the way distributions ship
 * it: a stripped binary, and its DWARF zlib-compressed in a separate file
 * under DEBUG_ROOT/.build-id/. The symbols and inlined frames must be the
 * same with and without the cache, cold and warm, and a damaged copy must
 * be replaced, not trusted. And copies of a binary's own DWARF: the same
 * frames as the DWARF read from the binary, from a copy without its code. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cachedir.h"
#include "common/strtab.h"
#include "symbolize/debugcache.h"
#include "symbolize/symindex.h"

#ifndef SYMBOLIZE_FIXTURES_BUILDDIR
#define SYMBOLIZE_FIXTURES_BUILDDIR "tests/fixtures/symbolize"
#endif

static char work[64], debug_root[128], stripped[128], debug_file[256], cache_path[128];
static char whole[128]; /* fixture_deep with its DWARF, a private copy */
static unsigned char build_id[64];
static size_t build_id_len;

static int run(const char *cmd)
{
	int rc = system(cmd);

	return rc == 0 ? 0 : -1;
}

static size_t read_build_id(const char *path, unsigned char *out, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const void *id = NULL;
	ssize_t n = -1;
	Elf *elf;

	cr_assert_geq(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf)
		n = dwelf_elf_gnu_build_id(elf, &id);
	if (n > 0 && (size_t)n <= max)
		memcpy(out, id, (size_t)n);
	elf_end(elf);
	close(fd);
	return n > 0 && (size_t)n <= max ? (size_t)n : 0;
}

/* Splits fixture_deep into a stripped binary and a compressed debug file. */
static void setup(void)
{
	char cmd[2048], dir[200];
	const char *bin = SYMBOLIZE_FIXTURES_BUILDDIR "/fixture_deep";
	size_t i, off;

	if (run("command -v objcopy >/dev/null 2>&1 && command -v strip >/dev/null 2>&1") != 0)
		cr_skip_test("objcopy or strip not installed: cannot split a debug file");
	snprintf(work, sizeof(work), "/tmp/smolder-debugcache-XXXXXX");
	cr_assert_not_null(mkdtemp(work));
	snprintf(debug_root, sizeof(debug_root), "%s/debug", work);
	snprintf(stripped, sizeof(stripped), "%s/fixture_deep", work);
	snprintf(cache_path, sizeof(cache_path), "%s/cache", work);
	build_id_len = read_build_id(bin, build_id, sizeof(build_id));
	cr_assert_gt(build_id_len, 1, "fixture_deep has no build-id");
	off = (size_t)snprintf(dir, sizeof(dir), "%s/.build-id/%02x", debug_root, build_id[0]);
	cr_assert_lt(off, sizeof(dir));
	off = (size_t)snprintf(debug_file, sizeof(debug_file), "%s/", dir);
	for (i = 1; i < build_id_len; i++)
		off += (size_t)snprintf(debug_file + off, sizeof(debug_file) - off, "%02x", build_id[i]);
	snprintf(debug_file + off, sizeof(debug_file) - off, ".debug");
	snprintf(whole, sizeof(whole), "%s/fixture_deep.whole", work);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s' && objcopy --only-keep-debug --compress-debug-sections=zlib '%s' '%s' "
		 "&& strip --strip-debug -o '%s' '%s' && cp '%s' '%s'",
		 dir, bin, debug_file, stripped, bin, bin, whole);
	cr_assert_eq(run(cmd), 0, "%s", cmd);
	symindex__set_debug_root(debug_root);
}

static void teardown(void)
{
	char cmd[256];

	symindex__set_debug_root("/usr/lib/debug");
	if (work[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
		run(cmd);
	}
}

/* Whether this process maps a file under the cache directory whose name
 * starts with prefix ("/debug-", "/dwarf-"). */
static int maps_cache_file(const char *prefix)
{
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, cache_path) && strstr(line, prefix))
			found = 1;
	fclose(f);
	return found;
}

/* The inline indexes the symindex keeps in the cache (symbolize/
 * inlineindex.h) would answer a warm start without any DWARF: removed, so
 * that these tests see the debug copy at work. */
static void drop_inline_indexes(void)
{
	DIR *d = opendir(cache_path);
	struct dirent *e;
	char path[512];

	cr_assert_not_null(d);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "inl-", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", cache_path, e->d_name);
		cr_assert_eq(unlink(path), 0);
	}
	closedir(d);
}

/* Every pc of the binary's text (every 3rd byte), resolved and joined into
 * one text: what the comparisons compare. *inlined counts "_[i]" frames;
 * *mapped says whether libdw read the DWARF from the cache's copy. */
static char *resolve_bin(const char *bin, struct cachedir *cache, size_t *inlined, int *mapped)
{
	struct strtab *names = strtab__new();
	struct symindex *s = NULL;
	size_t cap = 1 << 20, len = 0;
	char *out = malloc(cap);
	uint64_t pc;

	cr_assert_not_null(names);
	cr_assert_not_null(out);
	if (cache)
		drop_inline_indexes();
	cr_assert_eq(symindex__new_cached(bin, "fixture_deep", names, cache, &s), 0);
	*inlined = 0;
	for (pc = 0x1000; pc < 0x3000; pc += 3) {
		uint32_t ids[32];
		size_t n = 0, i;

		cr_assert_eq(symindex__lookup(s, pc, 0, ids, 32, &n), 0);
		for (i = 0; i < n; i++) {
			const char *name = strtab__str(names, ids[i]);
			size_t l = strlen(name);

			if (strstr(name, "_[i]"))
				(*inlined)++;
			if (len + l + 2 >= cap) {
				cap *= 2;
				out = realloc(out, cap);
				cr_assert_not_null(out);
			}
			memcpy(out + len, name, l);
			len += l;
			out[len++] = i + 1 < n ? ';' : '\n';
		}
	}
	out[len] = '\0';
	*mapped = maps_cache_file(bin == stripped ? "/debug-" : "/dwarf-");
	symindex__delete(s);
	strtab__delete(names);
	return out;
}

static char *resolve_all(struct cachedir *cache, size_t *inlined, int *mapped)
{
	return resolve_bin(stripped, cache, inlined, mapped);
}

static int copy_name(char *buf, size_t size)
{
	int fd = open(debug_file, O_RDONLY | O_CLOEXEC), rc;

	cr_assert_geq(fd, 0);
	rc = debugcache__name(fd, build_id, build_id_len, buf, size);
	close(fd);
	return rc;
}

/* Checks the copy: no compressed section, no line table, same build-id;
 * for a binary's DWARF, not its code either. */
static void check_copy(const char *path, int dwarf_only)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), saw_info = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	cr_assert_geq(fd, 0, "no copy at %s", path);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		cr_assert_not_null(gelf_getshdr(scn, &sh));
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		cr_assert_eq(sh.sh_flags & SHF_COMPRESSED, 0, "%s still compressed", name);
		cr_assert(!name || strcmp(name, ".debug_line") != 0, "the line table was copied");
		if (dwarf_only && name && strcmp(name, ".text") == 0)
			cr_assert_eq(sh.sh_type, SHT_NOBITS, "the code was copied");
		if (name && strcmp(name, ".debug_info") == 0 && sh.sh_type == SHT_PROGBITS)
			saw_info = 1;
	}
	cr_assert(saw_info, "no .debug_info in the copy");
	cr_assert(debugcache__build_id_is(fd, build_id, build_id_len));
	elf_end(elf);
	close(fd);
}

TestSuite(debugcache, .init = setup, .fini = teardown);

Test(debugcache, same_frames_cold_warm_and_after_damage)
{
	struct cachedir *cache = NULL;
	size_t in_plain, in_cold, in_warm, in_fixed;
	char name[CACHEDIR_NAME_MAX + 1], path[512];
	char *plain, *cold, *warm, *fixed;
	struct stat st, st2;
	int mapped;

	cr_assert_eq(cachedir__open(cache_path, 1 << 30, &cache), 0);
	plain = resolve_all(NULL, &in_plain, &mapped);
	cr_assert_not(mapped);
	cr_assert_gt(in_plain, 0, "the split debug file gave no inlined frames");
	cr_assert_eq(copy_name(name, sizeof(name)), 0);
	snprintf(path, sizeof(path), "%s/%s", cache_path, name);
	cr_assert_neq(stat(path, &st), 0, "a copy exists before the first use");

	cold = resolve_all(cache, &in_cold, &mapped);
	cr_assert(mapped, "the DWARF was not read from the copy");
	cr_assert_str_eq(cold, plain, "a cold cache changed the frames");
	cr_assert_eq(stat(path, &st), 0, "no copy was written");
	check_copy(path, 0);

	warm = resolve_all(cache, &in_warm, &mapped);
	cr_assert(mapped, "the DWARF was not read from the copy");
	cr_assert_str_eq(warm, plain, "the copy gives other frames");
	cr_assert_eq(in_warm, in_plain);

	/* a torn copy (power cut): replaced, and the frames are still right */
	cr_assert_eq(truncate(path, 100), 0);
	fixed = resolve_all(cache, &in_fixed, &mapped);
	cr_assert_str_eq(fixed, plain, "a torn copy was trusted");
	cr_assert_eq(stat(path, &st2), 0);
	cr_assert_eq(st2.st_size, st.st_size, "the torn copy was not rewritten");
	free(plain);
	free(cold);
	free(warm);
	free(fixed);
	cachedir__delete(cache);
}

Test(debugcache, plain_debug_file_is_not_copied)
{
	struct cachedir *cache = NULL;
	char cmd[1024];
	int fd;

	/* the same debug file stored uncompressed: nothing to gain */
	snprintf(cmd, sizeof(cmd), "objcopy --decompress-debug-sections '%s'", debug_file);
	cr_assert_eq(run(cmd), 0);
	cr_assert_eq(cachedir__open(cache_path, 1 << 30, &cache), 0);
	fd = open(debug_file, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(debugcache__open(cache, fd, build_id, build_id_len), -ENOENT);
	close(fd);
	cachedir__delete(cache);
}

Test(debugcache, wrong_build_id_is_refused)
{
	struct cachedir *cache = NULL;
	unsigned char other[64];
	int fd;

	memcpy(other, build_id, build_id_len);
	other[0] ^= 0xff;
	fd = open(debug_file, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert(debugcache__build_id_is(fd, build_id, build_id_len));
	cr_assert_not(debugcache__build_id_is(fd, other, build_id_len));
	cr_assert_eq(cachedir__open(cache_path, 1 << 30, &cache), 0);
	/* not the file asked for: no copy made under the other id */
	cr_assert_eq(debugcache__open(cache, fd, other, build_id_len), -EINVAL);
	close(fd);
	cachedir__delete(cache);
}

/* The cache's one copy of a binary's own DWARF (name "dwarf-..."). */
static void check_dwarf_copy(void)
{
	DIR *d = opendir(cache_path);
	struct dirent *e;
	char path[512];
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "dwarf-", 6) == 0 && ++n == 1)
			snprintf(path, sizeof(path), "%s/%s", cache_path, e->d_name);
	closedir(d);
	cr_assert_eq(n, 1, "%d copies of the binary's DWARF", n);
	check_copy(path, 1);
}

/* A binary with its DWARF: read into memory without a cache, from a copy
 * of just its DWARF in the cache (mapped: our file, not the user's) with
 * one; the same frames either way, cold and warm. */
Test(debugcache, binary_dwarf_from_a_copy)
{
	struct cachedir *cache = NULL;
	size_t in_plain, in_cold, in_warm;
	char *plain, *cold, *warm;
	int mapped;

	cr_assert_eq(cachedir__open(cache_path, 1 << 30, &cache), 0);
	plain = resolve_bin(whole, NULL, &in_plain, &mapped);
	cr_assert_not(mapped);
	cr_assert_gt(in_plain, 0, "the binary's DWARF gave no inlined frames");
	cold = resolve_bin(whole, cache, &in_cold, &mapped);
	cr_assert(mapped, "the DWARF was not read from the cache's copy");
	cr_assert_str_eq(cold, plain, "the copy gives other frames");
	check_dwarf_copy();
	warm = resolve_bin(whole, cache, &in_warm, &mapped);
	cr_assert(mapped, "the DWARF was not read from the cache's copy");
	cr_assert_str_eq(warm, plain, "the copy gives other frames, warm");
	check_dwarf_copy();
	free(plain);
	free(cold);
	free(warm);
	cachedir__delete(cache);
}
