/* Unit tests for symbolize/inlines.c: the flattened inlined-call tree of a
 * unit must give, at every pc, the frames that libdw's dwarf_getscopes
 * gives (the slow reference it replaces), on binaries with deep inlining. */
#include "config.h"

#include <criterion/criterion.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/inlines.h"
#include "tests/unit/dwflmod.h"

#ifndef SYMBOLIZE_FIXTURES_BUILDDIR
#define SYMBOLIZE_FIXTURES_BUILDDIR "tests/fixtures/symbolize"
#endif

#define MAXF 64

static const char *raw_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	return name;
}

/* The reference, independent of the tree's pruning and ordering: every DIE
 * of the unit is visited, and the subprograms and inlined subroutines that
 * contain pc (libdw's dwarf_haspc) are collected outermost first. (libdw's
 * dwarf_getscopes, which symindex used before, is no reference: past the
 * first inlined subroutine it continues with the scopes of its abstract
 * origin, so deeper inlining levels and the enclosing function are lost.) */
static void collect(Dwarf_Die *parent, uint64_t pc, const char **chain, int *sub, unsigned *calls, size_t *n,
		    int depth)
{
	Dwarf_Die child;

	if (depth > 200 || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) &&
		    dwarf_haspc(&child, pc) > 0 && *n < MAXF) {
			Dwarf_Attribute attr;
			Dwarf_Word line = 0;

			chain[*n] = raw_name(&child);
			sub[*n] = tag == DW_TAG_subprogram;
			if (dwarf_attr(&child, DW_AT_call_line, &attr))
				(void)dwarf_formudata(&attr, &line);
			calls[*n] = (unsigned)line;
			(*n)++;
		}
		if (tag == DW_TAG_imported_unit) {
			Dwarf_Attribute attr;
			Dwarf_Die unit;

			if (dwarf_attr(&child, DW_AT_import, &attr) && dwarf_formref_die(&attr, &unit))
				collect(&unit, pc, chain, sub, calls, n, depth + 1);
		}
		collect(&child, pc, chain, sub, calls, n, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The frames at pc, innermost first; call_lines (may be NULL) gets each
 * one's DW_AT_call_line (0: none). */
static size_t reference_calls(Dwarf_Die *cu, uint64_t pc, const char **out, unsigned *call_lines)
{
	const char *chain[MAXF];
	int sub[MAXF];
	unsigned calls[MAXF];
	size_t n = 0, k = 0, i, last;

	collect(cu, pc, chain, sub, calls, &n, 0);
	if (!n)
		return 0;
	/* innermost first, down to the innermost subprogram (or the root) */
	for (last = n - 1; last > 0 && !sub[last]; last--)
		;
	for (i = n; i-- > last + 1;) {
		if (call_lines)
			call_lines[k] = calls[i];
		out[k++] = chain[i];
	}
	if (call_lines)
		call_lines[k] = 0;
	out[k++] = chain[last];
	return k;
}

static size_t reference(Dwarf_Die *cu, uint64_t pc, const char **out)
{
	return reference_calls(cu, pc, out, NULL);
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Every step-th pc of every function of every unit of path: the tree and
 * the reference agree. Returns the number of pcs compared; *inlined counts
 * those with at least one inlined frame. */
static size_t compare_file(const char *path, uint64_t step, size_t *inlined)
{
	Dwfl_Module *mod;
	Dwfl *dwfl = dwflmod_open(path, &mod);
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t compared = 0;

	*inlined = 0;
	while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
		struct inlines *t;
		Dwarf_Die fn;

		cr_assert_eq(inlines__build(cu, 0, &t), 0);
		if (dwarf_child(cu, &fn) != 0) {
			free(t);
			continue;
		}
		do {
			Dwarf_Addr lo, hi, base;
			ptrdiff_t off = 0;

			if (dwarf_tag(&fn) != DW_TAG_subprogram)
				continue;
			while ((off = dwarf_ranges(&fn, off, &base, &lo, &hi)) > 0) {
				uint64_t pc;

				for (pc = lo; pc < hi; pc += step) {
					const char *want[MAXF];
					struct inline_frame got[MAXF];
					size_t nw = reference(cu, pc, want), ng, i;

					ng = inlines__at(t, pc, got, MAXF);
					cr_assert_eq(ng, nw, "%s pc 0x%" PRIx64 ": %zu frames, want %zu",
						     path, pc, ng, nw);
					for (i = 0; i < ng; i++) {
						cr_assert(same(got[i].name, want[i]),
							  "%s pc 0x%" PRIx64 " frame %zu: %s, want %s", path, pc,
							  i, got[i].name ? got[i].name : "(null)",
							  want[i] ? want[i] : "(null)");
						cr_assert_eq(got[i].subprogram, i + 1 == ng);
					}
					*inlined += ng > 1;
					compared++;
				}
			}
		} while (dwarf_siblingof(&fn, &fn) == 0);
		free(t);
	}
	dwfl_end(dwfl);
	return compared;
}

Test(inlines, same_frames_as_reference_c)
{
	size_t inl, n = compare_file(SYMBOLIZE_FIXTURES_BUILDDIR "/fixture", 1, &inl);

	cr_assert_gt(n, 100);
	cr_assert_gt(inl, 0, "the fixture has an always-inline function");
}

Test(inlines, same_frames_as_reference_deep_cxx)
{
	size_t inl, n = compare_file(SYMBOLIZE_FIXTURES_BUILDDIR "/fixture_deep", 1, &inl);

	cr_assert_gt(n, 50);
	cr_assert_gt(inl, 10);
}

/* A big real unit set: this test binary's own libdw is not built with
 * debug info, but the C library's detached debug file (libc6-dbg) is, when
 * installed; and the test binary itself is (-g). */
Test(inlines, same_frames_as_reference_self)
{
	size_t inl, n = compare_file("/proc/self/exe", 7, &inl);

	cr_assert_gt(n, 1000);
}

Test(inlines, frames_capped_keep_function)
{
	Dwfl_Module *mod;
	Dwfl *dwfl = dwflmod_open(SYMBOLIZE_FIXTURES_BUILDDIR "/fixture_deep", &mod);
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	int found = 0;

	while (!found && (cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
		struct inlines *t;
		Dwarf_Die fn;

		cr_assert_eq(inlines__build(cu, 0, &t), 0);
		cr_assert_gt(inlines__bytes(t), 0);
		if (dwarf_child(cu, &fn) == 0) {
			do {
				Dwarf_Addr lo, hi, base, pc;
				ptrdiff_t off = 0;

				if (dwarf_tag(&fn) != DW_TAG_subprogram)
					continue;
				while (!found && (off = dwarf_ranges(&fn, off, &base, &lo, &hi)) > 0) {
					for (pc = lo; pc < hi && !found; pc++) {
						struct inline_frame all[MAXF], one[1], two[2];
						size_t n = inlines__at(t, pc, all, MAXF);

						if (n < 3)
							continue;
						found = 1;
						/* max 1: only the function */
						cr_assert_eq(inlines__at(t, pc, one, 1), 1);
						cr_assert(one[0].subprogram);
						cr_assert(same(one[0].name, all[n - 1].name));
						/* max 2: the outermost inlined frame and the function */
						cr_assert_eq(inlines__at(t, pc, two, 2), 2);
						cr_assert(same(two[0].name, all[n - 2].name));
						cr_assert(same(two[1].name, all[n - 1].name));
						cr_assert_eq(inlines__at(t, pc, two, 0), 0);
					}
				}
			} while (!found && dwarf_siblingof(&fn, &fn) == 0);
		}
		free(t);
	}
	dwfl_end(dwfl);
	cr_assert(found, "no pc with two inlined frames in fixture_deep");
}

/* The C library's detached debug file (libc6-dbg): thousands of units
 * written by another compiler configuration, DWARF 5 with rnglists. */
Test(inlines, same_frames_as_reference_libc)
{
	static const char *const libs[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6",
					    "/lib64/libc.so.6", "/usr/lib64/libc.so.6" };
	size_t i, inl = 0, n = 0;

	for (i = 0; i < sizeof(libs) / sizeof(libs[0]) && !n; i++)
		if (access(libs[i], R_OK) == 0)
			n = compare_file(libs[i], 41, &inl);
	if (!n)
		cr_skip_test("no C library with local debug info (install libc6-dbg)");
	cr_assert_gt(inl, 0);
}

/* With lines asked, an inlined frame keeps its call site: the line (and
 * the file) DWARF gives its inlined call at; without, none. */
static size_t check_call_sites(int lines)
{
	Dwfl_Module *mod;
	Dwfl *dwfl = dwflmod_open(SYMBOLIZE_FIXTURES_BUILDDIR "/fixture_deep", &mod);
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t checked = 0;

	inlines__set_lines(lines);
	while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
		struct inlines *t;
		Dwarf_Die fn;

		cr_assert_eq(inlines__build(cu, 0, &t), 0);
		cr_assert(inlines__check(t, inlines__bytes(t)));
		if (dwarf_child(cu, &fn) == 0) {
			do {
				Dwarf_Addr lo, hi, base, pc;
				ptrdiff_t off = 0;

				if (dwarf_tag(&fn) != DW_TAG_subprogram)
					continue;
				while ((off = dwarf_ranges(&fn, off, &base, &lo, &hi)) > 0) {
					for (pc = lo; pc < hi; pc++) {
						const char *want[MAXF];
						unsigned calls[MAXF];
						struct inline_frame got[MAXF];
						size_t ng = inlines__at(t, pc, got, MAXF), i;

						cr_assert_eq(reference_calls(cu, pc, want, calls), ng);
						for (i = 0; i + 1 < ng; i++, checked++) {
							cr_assert_eq(got[i].call_line, lines ? calls[i] : 0,
								     "pc 0x%" PRIx64 " frame %zu: call line %u, want %u",
								     pc, i, got[i].call_line, calls[i]);
							cr_assert(lines ? got[i].call_file != NULL : !got[i].call_file);
						}
						if (ng)
							cr_assert_null(got[ng - 1].call_file, "the function has no call site");
					}
				}
			} while (dwarf_siblingof(&fn, &fn) == 0);
		}
		free(t);
	}
	dwfl_end(dwfl);
	inlines__set_lines(0);
	return checked;
}

Test(inlines, inlined_frames_keep_their_call_sites_with_lines)
{
	cr_assert_gt(check_call_sites(1), 0, "no inlined frame in fixture_deep");
	cr_assert_gt(check_call_sites(0), 0);
}
