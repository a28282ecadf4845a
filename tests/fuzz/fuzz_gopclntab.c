/* Fuzz target: Go's pc-line table parser (runtimes/gopclntab.c) on hostile
 * tables, which come from other users' binaries. The input: byte 0's bit 0
 * says a 0xfffffffb table is Go 1.13+'s (inline trees read), bit 1 gives a
 * moduledata.gofunc; bytes 1-2 the length of the inline-tree region that
 * follows (at the gofunc address, and at the address 1.2-1.17 funcdata
 * pointers take); the rest is the table, copied to a buffer of exactly its
 * size. Every function is found, named and asked for its SP delta, pcdata,
 * inlined calls, line and frames at each of its first pcs. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "runtimes/gopclntab.h"
#include "tests/fuzz/fuzz.h"

#define TREE_VADDR 0x800000u
#define PCS_PER_FUNC 64
#define MAX_FUNCS 512

/* what names and files point to is read through, for ASan to see */
static volatile size_t sink;

static void read_frames(const struct gopclntab_frame *fr, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		sink += (fr[k].name ? strlen(fr[k].name) : 0) + (fr[k].file ? strlen(fr[k].file) : 0) +
			fr[k].line;
}

static void walk(const struct gopclntab *t)
{
	size_t i, n = gopclntab__count(t);
	uint64_t lo, hi, pc;

	if (n > MAX_FUNCS)
		n = MAX_FUNCS;
	for (i = 0; i <= n; i++) {
		struct gopclntab_func f;
		const char *names[8];
		uint32_t d;
		int32_t v;

		if (gopclntab__func(t, i, &f) != 0)
			continue;
		(void)gopclntab__name(t, &f);
		for (pc = f.entry; pc < f.end && pc - f.entry < PCS_PER_FUNC; pc++) {
			struct gopclntab_frame fr[8];
			const char *file;
			uint32_t line;

			(void)gopclntab__spdelta(t, &f, pc, &d);
			(void)gopclntab__pcdata(t, &f, 2, pc, &v);
			(void)gopclntab__inlined(t, &f, pc, names, 8);
			if (gopclntab__line(t, &f, pc, &file, &line) == 0)
				sink += strlen(file) + line;
			read_frames(fr, gopclntab__frames(t, &f, pc, fr, 1 + pc % 8));
		}
	}
	gopclntab__range(t, &lo, &hi);
	for (pc = lo; pc < hi && pc - lo < 4096; pc += 7) {
		struct gopclntab_func f;

		(void)gopclntab__find(t, pc, &f);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gopclntab_source src;
	struct gopclntab_region region;
	struct gopclntab *t;
	size_t tree_len;
	uint8_t *table, *tree;

	if (size < 3)
		return 0;
	tree_len = (size_t)data[1] | (size_t)data[2] << 8;
	if (tree_len > size - 3)
		tree_len = size - 3;
	tree = malloc(tree_len ? tree_len : 1);
	table = malloc(size - 3 - tree_len ? size - 3 - tree_len : 1);
	if (!tree || !table)
		goto out;
	memcpy(tree, data + 3, tree_len);
	memcpy(table, data + 3 + tree_len, size - 3 - tree_len);
	memset(&src, 0, sizeof(src));
	src.data = table;
	src.size = size - 3 - tree_len;
	src.text = 0x1000;
	src.gofunc = data[0] & 2 ? TREE_VADDR : 0;
	src.inline_12 = data[0] & 1;
	region.vaddr = TREE_VADDR;
	region.data = tree;
	region.size = tree_len;
	src.regions = &region;
	src.nregions = 1;
	if (gopclntab__open(&src, &t) == 0) {
		walk(t);
		gopclntab__delete(t);
	}
out:
	free(tree);
	free(table);
	return 0;
}
