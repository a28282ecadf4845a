/* Unit tests for symbolize/inlineindex.c and inlineindex_file.c: a binary's
 * inline index answers as the per-unit trees do, is saved to the cache
 * directory and answers from there with no DWARF at all, and a damaged,
 * truncated or foreign cache file is never believed. The input is this
 * test program, built with -g from many units. */
#include "config.h"

#include <criterion/criterion.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cachedir.h"
#include "symbolize/inlineindex.h"
#include "symbolize/inlineindex_file.h"
#include "symbolize/inlines.h"
#include "tests/unit/dwflmod.h"
#include "tests/unit/tmpdir.h"

#define MAXF 32
#define MAXPC 4096

static char dir[64];
static struct cachedir *cache;
static Dwfl *dwfl;
static Dwfl_Module *mod;
static uint64_t pcs[MAXPC];
static char *want[MAXPC];
static size_t npcs;
static const unsigned char key[] = "test-binary-identity";

static void frames_text(const struct inline_frame *f, size_t n, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s%s", i ? ";" : "", f[i].name,
					f[i].subprogram ? "" : "_[i]");
}

/* Two pcs of every function of every unit, and the frames the unit's own
 * tree gives at each: the reference the index must match. */
static void collect_reference(void)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL && npcs + 2 <= MAXPC) {
		struct inlines *t;
		Dwarf_Die fn;

		cr_assert_eq(inlines__build(cu, (int64_t)bias, &t), 0);
		if (dwarf_child(cu, &fn) == 0) {
			do {
				Dwarf_Addr lo, hi;
				int k;

				if (dwarf_tag(&fn) != DW_TAG_subprogram || dwarf_lowpc(&fn, &lo) != 0 ||
				    dwarf_highpc(&fn, &hi) != 0 || hi <= lo)
					continue;
				for (k = 0; k < 2 && npcs < MAXPC; k++) {
					struct inline_frame f[MAXF];
					char buf[4096];
					uint64_t pc = lo + bias + (k ? (hi - lo) / 2 : 0);
					size_t n = inlines__at(t, pc, f, MAXF);

					frames_text(f, n, buf, sizeof(buf));
					pcs[npcs] = pc;
					want[npcs] = strdup(buf);
					npcs++;
				}
			} while (dwarf_siblingof(&fn, &fn) == 0 && npcs + 2 <= MAXPC);
		}
		free(t);
	}
	cr_assert_gt(npcs, 100, "this test binary has no DWARF (built without -g)?");
}

static void setup(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	cr_assert_gt(n, 0);
	exe[n] = '\0';
	tmpdir_make(dir, sizeof(dir), "inlineindex");
	cr_assert_eq(cachedir__open(dir, 64ull << 20, &cache), 0);
	dwfl = dwflmod_open(exe, &mod);
	collect_reference();
}

static void teardown(void)
{
	size_t i;

	for (i = 0; i < npcs; i++)
		free(want[i]);
	npcs = 0;
	dwfl_end(dwfl);
	cachedir__delete(cache);
	tmpdir_remove(dir);
}

TestSuite(inlineindex, .init = setup, .fini = teardown);

static struct inlineindex *open_index(Dwfl_Module *m, struct cachedir *c, const unsigned char *k,
				      size_t klen)
{
	struct inlineindex_source src = { m, 0, m != NULL };
	struct inlineindex *x = NULL;

	cr_assert_eq(inlineindex__open(&src, c, k, klen, NULL, 0, &x), 0);
	return x;
}

/* Every reference pc answers as its unit's tree does. */
static void check_all(struct inlineindex *x)
{
	size_t i, n;

	for (i = 0; i < npcs; i++) {
		struct inline_frame f[MAXF];
		char buf[4096];

		n = inlineindex__at(x, pcs[i], f, MAXF);
		frames_text(f, n, buf, sizeof(buf));
		cr_assert_str_eq(buf, want[i], "pc 0x%" PRIx64, pcs[i]);
	}
}

static void cache_file(char *path, size_t size)
{
	char name[64];

	inlfile__name(key, sizeof(key), name, sizeof(name));
	snprintf(path, size, "%s/%s", dir, name);
}

Test(inlineindex, saved_then_answers_without_dwarf)
{
	struct inlineindex_stats st;
	struct inlineindex *x = open_index(mod, cache, key, sizeof(key));
	char path[256];
	struct stat sb;

	check_all(x);
	inlineindex__stats(x, &st);
	cr_assert_gt(st.builds, 1);
	cr_assert_eq(st.loads, 0);
	inlineindex__delete(x); /* saves */
	cache_file(path, sizeof(path));
	cr_assert_eq(stat(path, &sb), 0, "no cache file %s", path);

	/* no Dwfl_Module: everything comes from the file */
	x = open_index(NULL, cache, key, sizeof(key));
	check_all(x);
	inlineindex__stats(x, &st);
	cr_assert_eq(st.builds, 0);
	cr_assert_gt(st.loads, 1);
	cr_assert_eq(st.rejected, 0);
	cr_assert_eq(st.lookups, npcs);
	cr_assert_eq(st.hits, npcs);
	cr_assert_eq(st.file_bytes, (uint64_t)sb.st_size);
	inlineindex__delete(x);
}

/* Flips one byte at off of the cache file. */
static void flip(const char *path, uint64_t off)
{
	int fd = open(path, O_RDWR);
	unsigned char c;

	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, &c, 1, (off_t)off), 1);
	c ^= 0x5a;
	cr_assert_eq(pwrite(fd, &c, 1, (off_t)off), 1);
	close(fd);
}

static void save_all(void)
{
	struct inlineindex *x = open_index(mod, cache, key, sizeof(key));

	check_all(x);
	inlineindex__delete(x);
}

Test(inlineindex, damaged_tree_is_built_again)
{
	struct inlineindex_stats st;
	struct inlineindex *x;
	struct inlfile f;
	char path[256], name[64];
	size_t i;

	save_all();
	inlfile__name(key, sizeof(key), name, sizeof(name));
	cr_assert_eq(inlfile__load(cache, name, key, sizeof(key), &f), 0);
	for (i = 0; i < f.nunits && !f.units[i].len; i++)
		;
	cr_assert_lt(i, f.nunits);
	cache_file(path, sizeof(path));
	flip(path, f.units[i].off + f.units[i].len / 2);
	inlfile__unload(&f);

	x = open_index(mod, cache, key, sizeof(key));
	check_all(x);
	inlineindex__stats(x, &st);
	cr_assert_eq(st.rejected, 1, "the damaged tree is found");
	cr_assert_eq(st.builds, 1, "and only it is built again");
	inlineindex__delete(x);
}

Test(inlineindex, damaged_tables_or_truncated_files_are_ignored)
{
	struct inlineindex_stats st;
	struct inlineindex *x;
	char path[256];
	struct stat sb;

	save_all();
	cache_file(path, sizeof(path));
	/* a table byte */
	flip(path, 80);
	x = open_index(mod, cache, key, sizeof(key));
	check_all(x);
	inlineindex__stats(x, &st);
	cr_assert_eq(st.rejected, 1);
	cr_assert_eq(st.loads, 0);
	cr_assert_gt(st.builds, 1);
	inlineindex__delete(x); /* writes a good file again */

	/* truncated */
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(truncate(path, sb.st_size - 8), 0);
	x = open_index(mod, cache, key, sizeof(key));
	check_all(x);
	inlineindex__stats(x, &st);
	cr_assert_eq(st.rejected, 1);
	cr_assert_eq(st.loads, 0);
	inlineindex__delete(x);
}

Test(inlineindex, foreign_key_under_our_name_is_rejected)
{
	struct inlineindex_source src = { NULL, 0, 0 };
	struct inlineindex *x = NULL;
	char path[256], name2[64], path2[256];
	static const unsigned char key2[] = "test-binary-identitx";

	save_all();
	cache_file(path, sizeof(path));
	inlfile__name(key2, sizeof(key2), name2, sizeof(name2));
	snprintf(path2, sizeof(path2), "%s/%s", dir, name2);
	cr_assert_eq(rename(path, path2), 0);
	/* the file now sits under key2's name but holds key's identity: with no
	 * DWARF to fall back on, the index has nothing (and says so) */
	cr_assert_eq(inlineindex__open(&src, cache, key2, sizeof(key2), NULL, 0, &x), -ENOENT);
}

Test(inlineindex, heap_bound_saves_or_evicts)
{
	struct inlineindex_stats st;
	struct inlineindex *x = open_index(mod, NULL, key, sizeof(key));
	size_t all, bound;
	uint64_t builds;

	check_all(x);
	inlineindex__stats(x, &st);
	all = st.heap_bytes;
	inlineindex__delete(x);
	bound = all / 3;

	x = open_index(mod, cache, key, sizeof(key));
	inlineindex__set_budget(x, bound);
	check_all(x);
	inlineindex__stats(x, &st);
	builds = st.builds;
	check_all(x);
	inlineindex__stats(x, &st);
	cr_assert_leq(st.heap_bytes, bound);
	cr_assert_gt(st.saves, 0, "past the bound, trees go to the file");
	cr_assert_eq(st.evictions, 0);
	cr_assert_eq(st.builds, builds, "saved trees are not built again");
	inlineindex__delete(x);

	/* no cache directory: the least recently used trees are dropped */
	x = open_index(mod, NULL, key, sizeof(key));
	inlineindex__set_budget(x, bound);
	check_all(x);
	check_all(x);
	inlineindex__stats(x, &st);
	cr_assert_leq(st.heap_bytes, bound);
	cr_assert_gt(st.evictions, 0);
	cr_assert_eq(st.saves, 0);
	inlineindex__delete(x);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random bytes of a tree changed: the check refuses it, or lookups in it
 * stay inside it and end (ASan and valgrind runs see any stray read). */
Test(inlineindex, mutated_trees_are_refused_or_harmless)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t trees = 0, refused = 0, accepted = 0;

	while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL && trees < 8) {
		struct inlines *t;
		size_t len, round, i;
		unsigned char *copy;

		cr_assert_eq(inlines__build(cu, (int64_t)bias, &t), 0);
		len = inlines__bytes(t);
		cr_assert(inlines__check(t, len), "a fresh tree passes its check");
		copy = aligned_alloc(8, (len + 7) & ~(size_t)7);
		cr_assert_not_null(copy);
		for (round = 0; round < 300; round++) {
			memcpy(copy, t, len);
			for (i = 0; i < 1 + rnd(&seed) % 4; i++)
				copy[rnd(&seed) % len] ^= (unsigned char)(1u << (rnd(&seed) % 8));
			if (!inlines__check(copy, len)) {
				refused++;
				continue;
			}
			accepted++;
			for (i = 0; i < 64; i++) {
				struct inline_frame f[MAXF];
				size_t n = inlines__at((struct inlines *)copy, pcs[rnd(&seed) % npcs], f,
						       MAXF), k;

				for (k = 0; k < n; k++)
					cr_assert_lt(strlen(f[k].name), len);
			}
		}
		cr_assert_not(inlines__check(copy, len - 8), "a short tree is refused");
		free(copy);
		free(t);
		trees++;
	}
	cr_assert_gt(refused, 0);
	cr_assert_gt(accepted, 0, "some mutations (in names, addresses) leave a valid tree");
}

/* Random bytes of the whole file changed: loading refuses it, or every
 * tree is checked before use; nothing crashes and answers have the
 * reference's shape. */
Test(inlineindex, mutated_files_never_crash)
{
	char path[256];
	unsigned char *orig;
	struct stat sb;
	uint64_t seed = 0x1234567ull;
	size_t round, i, loaded = 0;
	int fd;

	save_all();
	cache_file(path, sizeof(path));
	cr_assert_eq(stat(path, &sb), 0);
	orig = malloc((size_t)sb.st_size);
	fd = open(path, O_RDONLY);
	cr_assert_eq(read(fd, orig, (size_t)sb.st_size), sb.st_size);
	close(fd);
	for (round = 0; round < 60; round++) {
		unsigned char *m = malloc((size_t)sb.st_size);
		struct inlineindex_source src = { NULL, 0, 0 };
		struct inlineindex *x = NULL;

		memcpy(m, orig, (size_t)sb.st_size);
		/* the header and tables are small: aim there half the time */
		for (i = 0; i < 1 + rnd(&seed) % 3; i++) {
			size_t at = round % 2 ? rnd(&seed) % 4096 % (size_t)sb.st_size
					      : rnd(&seed) % (size_t)sb.st_size;

			m[at] ^= (unsigned char)(1u << (rnd(&seed) % 8));
		}
		fd = open(path, O_WRONLY | O_TRUNC);
		cr_assert_eq(write(fd, m, (size_t)sb.st_size), sb.st_size);
		close(fd);
		if (inlineindex__open(&src, cache, key, sizeof(key), NULL, 0, &x) == 0) {
			loaded++;
			for (i = 0; i < npcs; i++) {
				struct inline_frame f[MAXF];

				(void)inlineindex__at(x, pcs[i], f, MAXF);
			}
			inlineindex__delete(x);
		}
		free(m);
	}
	cr_assert_gt(loaded, 0);
	free(orig);
}

/* The identity a cache file is kept under: a user's file with a root
 * binary's build-id (both are just bytes in the ELF) is another identity,
 * so no user can plant names for another user's binaries. */
Test(inlineindex, key_includes_owner_size_mtime_and_build_id)
{
	static const unsigned char id[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	unsigned char a[INLINEINDEX_KEY_MAX], b[INLINEINDEX_KEY_MAX];
	struct stat st = { 0 }, other;
	size_t la, lb;

	st.st_uid = 0;
	st.st_size = 1000;
	st.st_mtim.tv_sec = 1700000000;
	la = inlineindex__key(&st, id, sizeof(id), "/usr/bin/x", a);
	cr_assert_gt(la, sizeof(id));
	other = st;
	other.st_uid = 1000;
	lb = inlineindex__key(&other, id, sizeof(id), "/usr/bin/x", b);
	cr_assert(la != lb || memcmp(a, b, la) != 0, "owner");
	other = st;
	other.st_mtim.tv_nsec = 1;
	lb = inlineindex__key(&other, id, sizeof(id), "/usr/bin/x", b);
	cr_assert(la != lb || memcmp(a, b, la) != 0, "mtime");
	lb = inlineindex__key(&st, id, sizeof(id) - 1, "/usr/bin/x", b);
	cr_assert(la != lb || memcmp(a, b, la) != 0, "build-id");
	/* with a build-id the path does not matter (the same file seen in
	 * another mount namespace); without one it does */
	lb = inlineindex__key(&st, id, sizeof(id), "/other/x", b);
	cr_assert(la == lb && memcmp(a, b, la) == 0);
	la = inlineindex__key(&st, NULL, 0, "/usr/bin/x", a);
	lb = inlineindex__key(&st, NULL, 0, "/other/x", b);
	cr_assert(la != lb || memcmp(a, b, la) != 0, "path without build-id");
}

/* A long-lived binary's trees reach the file by themselves (the daemon may
 * never exit cleanly): not before they are age_ns old, then at once. */
Test(inlineindex, maintain_saves_once_trees_are_old_enough)
{
	struct inlineindex_stats st;
	struct inlineindex *x = open_index(mod, cache, key, sizeof(key));
	const uint64_t hour = 3600ull * 1000000000ull;
	char path[256];
	struct stat sb;
	struct timespec ts;
	uint64_t now;

	check_all(x);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	cache_file(path, sizeof(path));
	inlineindex__maintain(x, now, hour);
	cr_assert_neq(stat(path, &sb), 0, "saved before its time");
	inlineindex__maintain(x, now + 2 * hour, hour);
	cr_assert_eq(stat(path, &sb), 0, "not saved once old enough");
	inlineindex__stats(x, &st);
	cr_assert_eq(st.saves, 1);
	cr_assert_eq(st.heap_bytes, 0, "saved trees are used from the file");
	check_all(x);
	inlineindex__stats(x, &st);
	cr_assert_eq(st.saves, 1, "nothing new to save");
	inlineindex__delete(x);
}
