/* symbolize/symindex: ELF and DWARF names of the fixtures (symbols,
 * inlined frames, stripped binaries, MiniDebugInfo, damage); and every
 * symbolizer's names across a compaction of the names table. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>

#include "common/strtab_remap.h"
#include "symbolize/symindex.h"
#include "tests/unit/symfix.h"

/* Depth-first search for an inlined instance of `callee`; its first address. */
static int find_inline(Dwarf_Die *die, const char *callee, uint64_t *addr)
{
	Dwarf_Die child;

	do {
		if (dwarf_tag(die) == DW_TAG_inlined_subroutine) {
			Dwarf_Attribute attr;
			const char *n = NULL;
			Dwarf_Addr base, start, end;

			if (dwarf_attr_integrate(die, DW_AT_name, &attr))
				n = dwarf_formstring(&attr);
			if (n && strcmp(n, callee) == 0) {
				if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
					*addr = start;
					return 1;
				}
			}
		}
		if (dwarf_child(die, &child) == 0 && find_inline(&child, callee, addr))
			return 1;
	} while (dwarf_siblingof(die, die) == 0);
	return 0;
}

static int inline_addr(const char *path, const char *callee, uint64_t *addr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf *dw;

	cr_assert(fd >= 0);
	dw = dwarf_begin(fd, DWARF_C_READ);
	cr_assert_not_null(dw, "no DWARF in %s", path);
	while (!found && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0)
			found = find_inline(&child, callee, addr);
		off = next;
	}
	dwarf_end(dw);
	close(fd);
	return found;
}

/* Frames joined root-last, as they come: "inner_[i];outer". */
static const char *joined(const uint32_t *ids, size_t n)
{
	static char buf[4096];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *s = strtab__str(names, ids[i]);

		cr_assert_not_null(s, "unknown id %u", ids[i]);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ";" : "", s);
		cr_assert(len < sizeof(buf));
	}
	return buf;
}

static const char *lookup(struct symindex *s, uint64_t vaddr, uint64_t func_start)
{
	uint32_t ids[64];
	size_t n = 0;

	cr_assert_eq(symindex__lookup(s, vaddr, func_start, ids, 64, &n), 0);
	cr_assert(n >= 1 && n <= 64);
	return joined(ids, n);
}

static struct symindex *open_bin(const char *path, const char *module)
{
	struct symindex *s = NULL;
	int err = symindex__new(path, module, names, &s);

	cr_assert_eq(err, 0, "symindex__new(%s) = %d", path, err);
	cr_assert_not_null(s);
	return s;
}

TestSuite(symindex, .init = setup, .fini = teardown);

Test(symindex, function_names_from_symtab)
{
	struct symindex *s = open_bin(built("fixture"), "fixture");
	struct symindex_stats st;
	uint64_t a, sz;

	cr_assert(elf_sym(built("fixture"), "fixture_leaf", &a, &sz));
	cr_assert_str_eq(lookup(s, a, 0), "fixture_leaf");
	cr_assert_gt(sz, 1);
	cr_assert_str_eq(lookup(s, a + sz - 1, 0), "fixture_leaf");
	cr_assert(elf_sym(built("fixture"), "main", &a, &sz));
	cr_assert_str_eq(lookup(s, a, 0), "main");
	cr_assert(elf_sym(built("fixture"), "outer", &a, &sz));
	/* the entry of outer may already be inlined code: outer is outermost */
	{
		const char *j = lookup(s, a, 0);
		size_t l = strlen(j);

		cr_assert(l >= 5 && strcmp(j + l - 5, "outer") == 0, "got %s", j);
	}
	symindex__stats(s, &st);
	cr_assert_geq(st.symbols, 3);
	cr_assert(st.has_debuginfo);
	symindex__delete(s);
}

Test(symindex, inlined_frames_innermost_first)
{
	struct symindex *s = open_bin(built("fixture"), "fixture");
	uint64_t a;

	cr_assert(inline_addr(built("fixture"), "inner", &a), "no inlined inner() in fixture");
	cr_assert_str_eq(lookup(s, a, 0), "inner_[i];outer");
	symindex__delete(s);
}

/* Inlining three levels deep (fixture_deep.cc): every level is a frame, the
 * innermost first, then the function they are inlined into; in both name
 * details. */
static void expect_deep_inlines(enum name_detail detail, const char *want)
{
	struct symindex *s = open_bin(built("fixture_deep"), "fixture_deep");
	uint64_t a, sz, pc;
	int found = 0;

	symindex__set_name_detail(s, detail);
	cr_assert(elf_sym(built("fixture_deep"), "_Z3runi", &a, &sz));
	for (pc = a; pc < a + sz && !found; pc++)
		found = strcmp(lookup(s, pc, 0), want) == 0;
	cr_assert(found, "no pc of run() symbolized as %s", want);
	symindex__delete(s);
}

Test(symindex, every_inlined_level_is_a_frame)
{
	expect_deep_inlines(NAME_DETAIL_FULL, "deep::Acc<int>::leaf(int)_[i];deep::Acc<int>::mid(int)_[i];"
					      "deep::Acc<int>::top(int)_[i];run(int)");
	expect_deep_inlines(NAME_DETAIL_SHORT, "deep::Acc::leaf_[i];deep::Acc::mid_[i];"
					       "deep::Acc::top_[i];run");
}

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0 && (ls == lx || s[ls - lx - 1] == ';');
}

/* The inlined-call trees of units are an LRU bounded in bytes: with room
 * for half of them, looking up functions of six units in turn (new pcs each
 * round, so the pc cache does not answer) evicts, stays within the budget,
 * and every answer stays right. This test binary is the input: its units
 * are the stage libraries' sources, built with -g. */
Test(symindex, inline_trees_lru_bounded)
{
	static const char *const fns[] = { "strtab__new", "u64map__new", "symindex__new",
					   "kallsyms__load", "frame_name__intern", "inlines__build" };
	enum { NF = sizeof(fns) / sizeof(fns[0]) };
	uint64_t a[NF], sz[NF], all_bytes;
	struct symindex_stats st;
	struct symindex *s;
	size_t i, round;

	for (i = 0; i < NF; i++)
		cr_assert(elf_sym("/proc/self/exe", fns[i], &a[i], &sz[i]), "no %s", fns[i]);
	s = open_bin("/proc/self/exe", "test_symbolize");
	symindex__stats(s, &st);
	if (!st.has_debuginfo) {
		symindex__delete(s);
		cr_skip_test("this test binary has no DWARF (built without -g)");
	}
	for (i = 0; i < NF; i++)
		cr_assert(ends_with(lookup(s, a[i], 0), fns[i]), "%s: %s", fns[i], lookup(s, a[i], 0));
	symindex__stats(s, &st);
	cr_assert_eq(st.inl.builds, NF, "one tree per unit: %" PRIu64, st.inl.builds);
	cr_assert_eq(st.inl.evictions, 0);
	all_bytes = st.inl.heap_bytes;
	symindex__delete(s);

	s = open_bin("/proc/self/exe", "test_symbolize");
	symindex__set_inline_budget(s, (size_t)all_bytes / 2);
	for (round = 0; round < 8; round++) {
		for (i = 0; i < NF; i++) {
			/* two new pcs of the unit in a row: the second finds its tree */
			uint64_t pc = a[i] + (round * 4) % sz[i], pc2 = a[i] + (round * 4 + 2) % sz[i];
			const char *got = lookup(s, pc, 0);

			cr_assert(ends_with(got, fns[i]), "round %zu %s+%" PRIu64 ": %s", round, fns[i],
				  pc - a[i], got);
			got = lookup(s, pc2, 0);
			cr_assert(ends_with(got, fns[i]), "round %zu %s+%" PRIu64 ": %s", round, fns[i],
				  pc2 - a[i], got);
		}
		symindex__stats(s, &st);
		cr_assert_leq(st.inl.heap_bytes, all_bytes / 2);
	}
	cr_assert_gt(st.inl.evictions, 0);
	cr_assert_gt(st.inl.builds, NF, "evicted trees are built again");
	cr_assert_gt(st.inl.hits, 0);
	cr_assert_eq(st.inl.lookups, st.lookups - st.hits, "one tree lookup per pc-cache miss");

	/* no room at all: every tree is built, used and dropped; answers stay right */
	symindex__set_inline_budget(s, 0);
	for (i = 0; i < NF; i++)
		cr_assert(ends_with(lookup(s, a[i] + 1 < a[i] + sz[i] ? a[i] + 1 : a[i], 0), fns[i]));
	symindex__delete(s);
}

Test(symindex, outermost_frames_kept_when_max_is_small)
{
	struct symindex *s = open_bin(built("fixture"), "fixture");
	uint32_t id;
	size_t n = 0;
	uint64_t a;

	cr_assert(inline_addr(built("fixture"), "inner", &a));
	cr_assert_eq(symindex__lookup(s, a, 0, &id, 1, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(strtab__str(names, id), "outer");
	cr_assert_eq(symindex__lookup(s, a, 0, &id, 0, &n), -EINVAL);
	symindex__delete(s);
}

Test(symindex, cxx_names_demangled)
{
	struct symindex *s = open_bin(built("fixture_cxx"), "fixture_cxx");
	uint64_t a, sz;

	cr_assert(elf_sym(built("fixture_cxx"), "_ZN2ns3FooIiE3barEv", &a, &sz));
	/* the default detail is short */
	cr_assert_str_eq(lookup(s, a, 0), "ns::Foo::bar");
	symindex__delete(s);
	s = open_bin(built("fixture_cxx"), "fixture_cxx");
	symindex__set_name_detail(s, NAME_DETAIL_FULL);
	cr_assert_str_eq(lookup(s, a, 0), "ns::Foo<int>::bar()");
	cr_assert_str_eq(lookup(s, a + 1, 0), "ns::Foo<int>::bar()");
	symindex__delete(s);
}

Test(symindex, stripped_functions_named_by_start)
{
	struct symindex *s = open_bin(built("fixture.stripped"), "fixture");
	struct symindex_stats st;
	char want[64];
	uint64_t a, sz;

	cr_assert(elf_sym(built("fixture"), "fixture_leaf", &a, &sz));
	snprintf(want, sizeof(want), "fixture+0x%" PRIx64, a);
	cr_assert_str_eq(lookup(s, a + 1, a), want);
	cr_assert_str_eq(lookup(s, a + 1, 0), "[fixture]");
	cr_assert_str_eq(lookup(s, a + 1, a), want); /* cached pc, start still honoured */
	symindex__stats(s, &st);
	cr_assert_eq(st.has_debuginfo, 0);
	cr_assert_eq(st.hits, 2);
	symindex__delete(s);
}

/* MiniDebugInfo (.gnu_debugdata, RHEL/Fedora): a stripped binary still names
 * its local functions, which neither .dynsym nor the stripped file has. */
Test(symindex, minidebuginfo_names_local_functions)
{
	struct symindex *s;
	struct stat st;
	char want[64];
	uint64_t a, sz;

	if (stat(built("fixture.minidebug"), &st) != 0)
		cr_skip_test("%s not built (needs nm, objcopy and xz)", built("fixture.minidebug"));
	cr_assert(elf_sym(built("fixture"), "fixture_local", &a, &sz));
	cr_assert_gt(sz, 1);
	/* the plain stripped copy does not know it: the name below comes from
	 * .gnu_debugdata alone */
	s = open_bin(built("fixture.stripped"), "fixture");
	snprintf(want, sizeof(want), "fixture+0x%" PRIx64, a);
	cr_assert_str_eq(lookup(s, a + 1, a), want);
	symindex__delete(s);

	s = open_bin(built("fixture.minidebug"), "fixture");
	cr_assert_str_eq(lookup(s, a, 0), "fixture_local");
	cr_assert_str_eq(lookup(s, a + sz - 1, a), "fixture_local");
	cr_assert(elf_sym(built("fixture"), "fixture_leaf", &a, &sz));
	cr_assert_str_eq(lookup(s, a + 1, 0), "fixture_leaf");
	symindex__delete(s);
}

Test(symindex, cache_returns_identical_ids)
{
	struct symindex *s = open_bin(built("fixture"), "fixture");
	struct symindex_stats st;
	uint32_t a1[8], a2[8];
	size_t n1, n2, i;
	uint64_t a, sz, pc;

	cr_assert(inline_addr(built("fixture"), "inner", &a));
	cr_assert_eq(symindex__lookup(s, a, 0, a1, 8, &n1), 0);
	cr_assert_eq(symindex__lookup(s, a, 0, a2, 8, &n2), 0);
	cr_assert_eq(n1, 2);
	cr_assert_eq(n2, n1);
	cr_assert_eq(memcmp(a1, a2, n1 * sizeof(*a1)), 0);
	symindex__stats(s, &st);
	cr_assert_eq(st.lookups, 2);
	cr_assert_eq(st.hits, 1);
	cr_assert_eq(st.entries, 1);

	/* overflow the bounded cache: it is dropped and refilled, answers stay right */
	cr_assert(elf_sym(built("fixture"), "main", &a, &sz));
	for (i = 0; i < 70000; i++) {
		pc = 0x40000000u + i; /* outside the binary: "[fixture]" */
		cr_assert_eq(symindex__lookup(s, pc, 0, a2, 8, &n2), 0);
	}
	cr_assert_str_eq(joined(a2, n2), "[fixture]");
	cr_assert_str_eq(lookup(s, a, 0), "main");
	symindex__stats(s, &st);
	cr_assert_gt(st.evictions, 0);
	cr_assert_leq(st.entries, 65536);
	symindex__delete(s);
}

Test(symindex, non_elf_file_still_usable)
{
	char path[] = "/tmp/smolder-symindex-XXXXXX";
	int fd = mkstemp(path);
	struct symindex *s;

	cr_assert(fd >= 0);
	close(fd);
	write_file(path, "#!/bin/sh\necho not an ELF file\n", 31);
	s = open_bin(path, "junk");
	cr_assert_str_eq(lookup(s, 0x1234, 0), "[junk]");
	cr_assert_str_eq(lookup(s, 0x1234, 0x1200), "junk+0x1200");
	symindex__delete(s);
	/* a FIFO at the path (binary replaced since it was mapped): no blocking */
	unlink(path);
	cr_assert_eq(mkfifo(path, 0600), 0);
	s = open_bin(path, "fifo");
	cr_assert_str_eq(lookup(s, 0x1234, 0), "[fifo]");
	symindex__delete(s);
	unlink(path);
}

Test(symindex, missing_file_fails)
{
	struct symindex *s = NULL;

	cr_assert_eq(symindex__new("/nonexistent/smolder/x", "x", names, &s), -ENOENT);
	cr_assert_null(s);
}

/* Truncated and bit-flipped copies of a real binary must neither crash nor
 * fail: every lookup still yields at least one frame. */
Test(symindex, corrupt_elf_never_crashes)
{
	static const size_t cuts[] = {4, 16, 63, 64, 65, 200, 1000, 4096, 8192};
	char path[] = "/tmp/smolder-symindex-XXXXXX";
	unsigned char *img;
	struct stat st;
	uint64_t a, sz;
	size_t i, k;
	unsigned seed = 12345;
	int fd;

	cr_assert(elf_sym(built("fixture"), "fixture_leaf", &a, &sz));
	fd = open(built("fixture"), O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0 && fstat(fd, &st) == 0);
	img = malloc((size_t)st.st_size);
	cr_assert_not_null(img);
	cr_assert_eq(read(fd, img, (size_t)st.st_size), st.st_size);
	close(fd);
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]) + 40; i++) {
		unsigned char *copy = malloc((size_t)st.st_size);
		size_t len = (size_t)st.st_size;
		struct symindex *s;

		memcpy(copy, img, len);
		if (i < sizeof(cuts) / sizeof(cuts[0])) {
			len = cuts[i] < len ? cuts[i] : len;
		} else {
			/* flip bytes in the headers and throughout the file */
			for (k = 0; k < 16; k++) {
				seed = seed * 1103515245u + 12345u;
				copy[(k < 8 ? (seed >> 8) % 64 : (seed >> 4) % len)] ^= (unsigned char)(seed >> 16 | 1);
			}
		}
		write_file(path, copy, len);
		s = open_bin(path, "fixture");
		(void)lookup(s, a, a);
		(void)lookup(s, a + 3, 0);
		(void)lookup(s, 0, 0);
		(void)lookup(s, UINT64_MAX, 0);
		symindex__delete(s);
		free(copy);
	}
	free(img);
	unlink(path);
}

TestSuite(names_remap, .init = setup, .fini = teardown);

static char *dup_str(const char *s)
{
	char *d = strdup(s);

	cr_assert_not_null(d);
	return d;
}

Test(names_remap, symbolizers_answer_the_same_after_a_compaction)
{
	struct symindex *s = open_bin(built("fixture"), "fixture");
	struct symindex *st_bin = open_bin(built("fixture.stripped"), "fixture");
	struct kallsyms *k = NULL;
	struct perfmap *m = NULL;
	struct strtab *to;
	struct strtab_remap r;
	struct symindex_stats before, after;
	char want_stripped[64], mpath[] = "/tmp/smolder-perfmap-XXXXXX";
	char *w_leaf, *w_inl, *w_main, *w_unknown, *w_k1, *w_k2, *w_j;
	uint64_t leaf, inl, mn, sz;
	size_t old_count;
	int fd, i;

	cr_assert(elf_sym(built("fixture"), "fixture_leaf", &leaf, &sz));
	cr_assert(elf_sym(built("fixture"), "main", &mn, &sz));
	cr_assert(inline_addr(built("fixture"), "inner", &inl));
	w_leaf = dup_str(lookup(s, leaf, 0));
	w_inl = dup_str(lookup(s, inl, 0));
	w_main = dup_str(lookup(s, mn, 0));
	w_unknown = dup_str(lookup(st_bin, leaf + 1, 0));
	snprintf(want_stripped, sizeof(want_stripped), "fixture+0x%" PRIx64, leaf);
	cr_assert_str_eq(lookup(st_bin, leaf + 1, leaf), want_stripped);
	cr_assert_str_eq(w_inl, "inner_[i];outer");

	cr_assert_eq(kallsyms__load(source("kallsyms.txt"), names, &k), 0);
	w_k1 = dup_str(klookup(k, 0xffffffff81001004ull));
	w_k2 = dup_str(klookup(k, 0xffffffff80000000ull)); /* "[kernel]_[k]" */

	fd = mkstemp(mpath);
	cr_assert(fd >= 0);
	close(fd);
	perfmap_write(mpath, "7f0000001000 100 LazyCompile:*hot file.js:1\n");
	cr_assert_eq(perfmap__load(mpath, getuid(), names, &m), 0);
	w_j = dup_str(mlookup(m, 0x7f0000001010ull));

	/* strings nothing holds any more */
	for (i = 0; i < 3000; i++) {
		char buf[48];
		uint32_t id;

		snprintf(buf, sizeof(buf), "gone_function_number_%d", i);
		cr_assert_eq(strtab__intern_cstr(names, buf, &id), 0);
	}
	old_count = strtab__count(names);

	to = strtab__new();
	cr_assert_not_null(to);
	cr_assert_eq(strtab_remap__init(&r, names, to), 0);
	cr_assert_eq(symindex__remap_names(s, &r), 0);
	cr_assert_eq(symindex__remap_names(st_bin, &r), 0);
	cr_assert_eq(kallsyms__remap_names(k, &r), 0);
	cr_assert_eq(perfmap__remap_names(m, &r), 0);
	/* the collect pass changed nothing */
	cr_assert_str_eq(lookup(s, leaf, 0), w_leaf);
	symindex__stats(s, &before);
	strtab_remap__commit(&r);
	cr_assert_eq(symindex__remap_names(s, &r), 0);
	cr_assert_eq(symindex__remap_names(st_bin, &r), 0);
	cr_assert_eq(kallsyms__remap_names(k, &r), 0);
	cr_assert_eq(perfmap__remap_names(m, &r), 0);
	cr_assert_eq(r.missed, 0);
	strtab_remap__fini(&r);
	strtab__delete(names);
	names = to; /* what lookup()/klookup()/mlookup() read from now on */

	cr_assert_lt(strtab__count(names) + 3000, old_count + 1, "the garbage was dropped");
	cr_assert_str_eq(lookup(s, leaf, 0), w_leaf);
	cr_assert_str_eq(lookup(s, inl, 0), w_inl);
	cr_assert_str_eq(lookup(s, mn, 0), w_main);
	cr_assert_str_eq(lookup(st_bin, leaf + 1, leaf), want_stripped);
	cr_assert_str_eq(lookup(st_bin, leaf + 1, 0), w_unknown);
	symindex__stats(s, &after);
	cr_assert_eq(after.hits - before.hits, 3, "cached pcs stay cached");
	cr_assert_str_eq(klookup(k, 0xffffffff81001004ull), w_k1);
	cr_assert_str_eq(klookup(k, 0xffffffff80000000ull), w_k2);
	/* a kernel symbol first looked up after the compaction */
	cr_assert_str_eq(klookup(k, 0xffffffffc0100010ull), "ext4_fill_super_[k]");
	cr_assert_str_eq(mlookup(m, 0x7f0000001010ull), w_j);
	/* and a new binary's names go to the new table */
	{
		struct symindex *s2 = open_bin(built("fixture"), "fixture");

		cr_assert_str_eq(lookup(s2, leaf, 0), w_leaf);
		symindex__delete(s2);
	}

	free(w_leaf);
	free(w_inl);
	free(w_main);
	free(w_unknown);
	free(w_k1);
	free(w_k2);
	free(w_j);
	perfmap__delete(m);
	unlink(mpath);
	kallsyms__delete(k);
	symindex__delete(st_bin);
	symindex__delete(s);
}
