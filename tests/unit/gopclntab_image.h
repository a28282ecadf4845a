/* Synthetic Go pc-line tables, one per layout runtimes/gopclntab.h reads
 * (src/runtime/symtab.go of Go 1.2-1.15, 1.16-1.17, 1.18-1.19, 1.20+),
 * for the unit tests and the fuzz target's seeds. The program they
 * describe (text at GOIMG_TEXT):
 *
 *   runtime.goexit        0x1000-0x1020  SP delta 0
 *   main.worker           0x1020-0x1060  0 up to +4, then 24
 *   runtime.systemstack_switch 0x1060-0x1070  0
 *   runtime.systemstack   0x1070-0x10a0  0
 *   main.leaf             0x10a0-0x10c0  8; main.inlined inlined at
 *                         [+0, +0x10), called from +0x12
 *
 * Their source positions (goimg_lines), in runtime/asm_amd64.s (the
 * runtime's), main.go and inl.go (main.inlined's body): 1.2's file numbers
 * index one table of the binary, 1.16's a compilation unit's files, the
 * runtime's unit and main's.
 *
 * The inline tree lives in a second region (at GOIMG_GOFUNC: go:func.*),
 * which 1.18+ funcdata address as offsets and older ones as pointers. */
#ifndef SMOLDER_TESTS_GOPCLNTAB_IMAGE_H
#define SMOLDER_TESTS_GOPCLNTAB_IMAGE_H
#include <stdint.h>
#include <string.h>

#include "runtimes/gopclntab.h"

#define GOIMG_TEXT 0x1000u
#define GOIMG_END 0x10c0u
#define GOIMG_GOFUNC 0x800000u
#define GOIMG_TABLE 0x900000u
#define GOIMG_NFUNC 5
#define GOIMG_MAX 4096

struct goimg {
	uint8_t table[GOIMG_MAX];
	size_t size;
	size_t func_at[GOIMG_NFUNC]; /* each _func's offset in table */
	size_t cutab, filetab;       /* in table (1.2: no cutab) */
	uint8_t tree[64];
	size_t tree_size;
	struct gopclntab_region region;
	struct gopclntab_source src;
};

static const struct {
	const char *name;
	uint32_t start, end;
	int inl; /* has the inline tree */
} goimg_funcs[GOIMG_NFUNC] = {
	{ "runtime.goexit", 0x1000, 0x1020, 0 },
	{ "main.worker", 0x1020, 0x1060, 0 },
	{ "runtime.systemstack_switch", 0x1060, 0x1070, 0 },
	{ "runtime.systemstack", 0x1070, 0x10a0, 0 },
	{ "main.leaf", 0x10a0, 0x10c0, 1 },
};

#define GOIMG_NFILES 3
static const char *const goimg_files[GOIMG_NFILES] = { "runtime/asm_amd64.s", "main.go", "inl.go" };

/* pc-value runs of each function's positions: file (its index in
 * goimg_files) and line from start + from on. */
#define GOIMG_MAX_RUNS 4
static const struct {
	uint32_t from[GOIMG_MAX_RUNS];
	int32_t file[GOIMG_MAX_RUNS], line[GOIMG_MAX_RUNS];
	size_t n;
} goimg_lines[GOIMG_NFUNC] = {
	{ { 0 }, { 0 }, { 1700 }, 1 },
	{ { 0, 4 }, { 1, 1 }, { 10, 12 }, 2 },
	{ { 0 }, { 0 }, { 480 }, 1 },
	{ { 0, 0x10 }, { 0, 0 }, { 500, 510 }, 2 },
	/* main.inlined's body, then main.leaf, its call of it at +0x12 */
	{ { 0, 0x10, 0x12, 0x14 }, { 2, 1, 1, 1 }, { 5, 30, 31, 32 }, 4 },
};

static void goimg_put(uint8_t *p, size_t at, uint64_t v, size_t n)
{
	memcpy(p + at, &v, n);
}

static size_t goimg_varint(uint8_t *p, size_t at, uint32_t v)
{
	while (v >= 0x80) {
		p[at++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[at++] = (uint8_t)v;
	return at;
}

/* A pc-value table: (value, bytes) runs, starting from -1. */
static size_t goimg_pcvalue(uint8_t *p, size_t at, const int32_t *vals, const uint32_t *lens,
			    size_t n)
{
	int32_t prev = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		int32_t d = vals[i] - prev;

		at = goimg_varint(p, at, ((uint32_t)d << 1) ^ (uint32_t)(d >> 31));
		at = goimg_varint(p, at, lens[i]);
		prev = vals[i];
	}
	p[at++] = 0;
	return at;
}

/* Builds the table of magic into img. */
static void goimg_build(struct goimg *img, uint32_t magic)
{
	uint8_t *p = img->table;
	int v118 = magic == GOPCLNTAB_MAGIC_118 || magic == GOPCLNTAB_MAGIC_120;
	int v116 = magic == GOPCLNTAB_MAGIC_116;
	int v120 = magic == GOPCLNTAB_MAGIC_120;
	size_t names, pctab, pcln, ftab, at, i, cutab = 0, filetab;
	size_t name_off[GOIMG_NFUNC], pcsp_off[GOIMG_NFUNC], inl_off = 0, func_off[GOIMG_NFUNC];
	size_t pcfile_off[GOIMG_NFUNC], pcln_off[GOIMG_NFUNC];
	size_t esz = v120 ? 16 : 20, inl_name = 0;

	memset(img, 0, sizeof(*img));
	goimg_put(p, 0, magic, 4);
	p[6] = 1; /* quantum */
	p[7] = 8; /* pointer size */
	goimg_put(p, 8, GOIMG_NFUNC, 8);
	/* names and pc-value tables first, at fixed places after the header */
	names = 0x80;
	at = names;
	for (i = 0; i < GOIMG_NFUNC; i++) {
		name_off[i] = at - (magic == GOPCLNTAB_MAGIC_12 ? 0 : names);
		memcpy(p + at, goimg_funcs[i].name, strlen(goimg_funcs[i].name) + 1);
		at += strlen(goimg_funcs[i].name) + 1;
	}
	inl_name = at - (magic == GOPCLNTAB_MAGIC_12 ? 0 : names);
	memcpy(p + at, "main.inlined", 13);
	at += 13;
	/* the file table: 1.2's count and offsets from the table's start
	 * (file numbers from 1); 1.16's cutab, the runtime's unit [asm],
	 * main's [main.go, inl.go], then the names */
	at = (at + 3) & ~(size_t)3;
	if (magic == GOPCLNTAB_MAGIC_12) {
		filetab = at;
		goimg_put(p, at, GOIMG_NFILES + 1, 4);
		at += 4 * (GOIMG_NFILES + 1);
		for (i = 0; i < GOIMG_NFILES; i++) {
			goimg_put(p, filetab + 4 * (i + 1), at, 4);
			memcpy(p + at, goimg_files[i], strlen(goimg_files[i]) + 1);
			at += strlen(goimg_files[i]) + 1;
		}
	} else {
		cutab = at;
		filetab = at + 4 * GOIMG_NFILES;
		at = filetab;
		for (i = 0; i < GOIMG_NFILES; i++) {
			goimg_put(p, cutab + 4 * i, at - filetab, 4);
			memcpy(p + at, goimg_files[i], strlen(goimg_files[i]) + 1);
			at += strlen(goimg_files[i]) + 1;
		}
	}
	pctab = (at + 7) & ~(size_t)7;
	at = pctab + 1; /* offset 0 means "no table" */
	for (i = 0; i < GOIMG_NFUNC; i++) {
		uint32_t len = goimg_funcs[i].end - goimg_funcs[i].start;

		pcsp_off[i] = at - (magic == GOPCLNTAB_MAGIC_12 ? 0 : pctab);
		if (i == 1) {
			int32_t vals[2] = { 0, 24 };
			uint32_t lens[2] = { 4, len - 4 };

			at = goimg_pcvalue(p, at, vals, lens, 2);
		} else {
			int32_t val = i == 4 ? 8 : 0;

			at = goimg_pcvalue(p, at, &val, &len, 1);
		}
	}
	{
		/* main.leaf's PCDATA_InlTreeIndex: 0 on [0, 0x10), -1 after */
		int32_t vals[2] = { 0, -1 };
		uint32_t lens[2] = { 0x10, 0x10 };

		inl_off = at - (magic == GOPCLNTAB_MAGIC_12 ? 0 : pctab);
		at = goimg_pcvalue(p, at, vals, lens, 2);
	}
	for (i = 0; i < GOIMG_NFUNC; i++) {
		int32_t fnos[GOIMG_MAX_RUNS];
		uint32_t lens[GOIMG_MAX_RUNS], flens[GOIMG_MAX_RUNS];
		size_t r, nf = 0, n = goimg_lines[i].n;

		for (r = 0; r < n; r++) {
			int32_t file = goimg_lines[i].file[r];
			/* 1.16: inl.go is the second of main's unit */
			int32_t fno = magic == GOPCLNTAB_MAGIC_12 ? file + 1 : file == 2 ? 1 : 0;

			lens[r] = (r + 1 < n ? goimg_lines[i].from[r + 1] :
					       goimg_funcs[i].end - goimg_funcs[i].start) -
				  goimg_lines[i].from[r];
			/* a run goes on while the value does: a delta of 0
			 * would end the table */
			if (nf > 0 && fnos[nf - 1] == fno) {
				flens[nf - 1] += lens[r];
			} else {
				fnos[nf] = fno;
				flens[nf++] = lens[r];
			}
		}
		pcfile_off[i] = at - (magic == GOPCLNTAB_MAGIC_12 ? 0 : pctab);
		at = goimg_pcvalue(p, at, fnos, flens, nf);
		pcln_off[i] = at - (magic == GOPCLNTAB_MAGIC_12 ? 0 : pctab);
		at = goimg_pcvalue(p, at, goimg_lines[i].line, lens, n);
	}
	pcln = (at + 7) & ~(size_t)7;
	if (magic == GOPCLNTAB_MAGIC_12) {
		ftab = 16;
		pcln = 0;
	} else {
		ftab = pcln;
	}
	/* header offsets */
	if (v116) {
		goimg_put(p, 16, GOIMG_NFILES, 8);
		goimg_put(p, 24, names, 8);
		goimg_put(p, 32, cutab, 8);
		goimg_put(p, 40, filetab, 8);
		goimg_put(p, 48, pctab, 8);
		goimg_put(p, 56, pcln, 8);
	} else if (v118) {
		goimg_put(p, 16, GOIMG_NFILES, 8);
		goimg_put(p, 24, GOIMG_TEXT, 8);
		goimg_put(p, 32, names, 8);
		goimg_put(p, 40, cutab, 8);
		goimg_put(p, 48, filetab, 8);
		goimg_put(p, 56, pctab, 8);
		goimg_put(p, 64, pcln, 8);
	}
	/* the functab, then the _funcs */
	at = (magic == GOPCLNTAB_MAGIC_12 ? (size_t)((at + 7) & ~(size_t)7) : ftab) +
	     (GOIMG_NFUNC + 1) * (v118 ? 8 : 16) + 8;
	for (i = 0; i < GOIMG_NFUNC; i++) {
		size_t f = (at + 7) & ~(size_t)7, base = magic == GOPCLNTAB_MAGIC_12 ? 0 : pcln;
		size_t pcdata_at = v120 || v116 ? 44 : 40, nfd_at = v120 || v116 ? 43 : 39;
		size_t npcdata = goimg_funcs[i].inl ? 3 : 0, fd;

		func_off[i] = f - base;
		img->func_at[i] = f;
		if (v118) {
			goimg_put(p, f, goimg_funcs[i].start - GOIMG_TEXT, 4);
			goimg_put(p, f + 4, name_off[i], 4);
			goimg_put(p, f + 16, pcsp_off[i], 4);
			goimg_put(p, f + 20, pcfile_off[i], 4);
			goimg_put(p, f + 24, pcln_off[i], 4);
			goimg_put(p, f + 28, npcdata, 4);
			goimg_put(p, f + 32, i == 1 || i == 4, 4); /* cuOffset */
		} else {
			goimg_put(p, f, goimg_funcs[i].start, 8);
			goimg_put(p, f + 8, name_off[i], 4);
			goimg_put(p, f + 20, pcsp_off[i], 4);
			goimg_put(p, f + 24, pcfile_off[i], 4);
			goimg_put(p, f + 28, pcln_off[i], 4);
			goimg_put(p, f + 32, npcdata, 4);
			if (v116)
				goimg_put(p, f + 36, i == 1 || i == 4, 4);
		}
		at = f + pcdata_at;
		if (goimg_funcs[i].inl) {
			p[f + nfd_at] = 4; /* funcdata 0..3: the tree is the 4th */
			goimg_put(p, at + 8, inl_off, 4); /* pcdata[2] */
			at += 12;
			if (v118) {
				for (fd = 0; fd < 3; fd++)
					goimg_put(p, at + 4 * fd, 0xffffffffu, 4);
				goimg_put(p, at + 12, 0, 4); /* the tree at gofunc + 0 */
				at += 16;
			} else {
				if ((GOIMG_TABLE + at) & 4)
					at += 4;
				goimg_put(p, at + 24, GOIMG_GOFUNC, 8);
				at += 32;
			}
		}
	}
	for (i = 0; i <= GOIMG_NFUNC; i++) {
		size_t e = ftab + i * (v118 ? 8 : 16);
		uint32_t entry = i < GOIMG_NFUNC ? goimg_funcs[i].start : GOIMG_END;
		size_t fo = i < GOIMG_NFUNC ? func_off[i] : 0;

		if (v118) {
			goimg_put(p, e, entry - GOIMG_TEXT, 4);
			goimg_put(p, e + 4, fo, 4);
		} else {
			goimg_put(p, e, entry, 8);
			goimg_put(p, e + 8, fo, 8);
		}
	}
	/* 1.2: the file table's offset follows the functab's end */
	if (magic == GOPCLNTAB_MAGIC_12)
		goimg_put(p, ftab + GOIMG_NFUNC * 16 + 8, filetab, 4);
	img->size = at;
	img->cutab = cutab;
	img->filetab = filetab;
	/* the inline tree: one call, main.inlined, from +0x12 */
	if (v120) {
		goimg_put(img->tree, 4, inl_name, 4);
		goimg_put(img->tree, 8, 0x12, 4);
	} else {
		goimg_put(img->tree, 0, (uint16_t)0xffff, 2); /* parent -1 */
		goimg_put(img->tree, 12, inl_name, 4);
		goimg_put(img->tree, 16, 0x12, 4);
	}
	img->tree_size = esz;
	img->region.vaddr = GOIMG_GOFUNC;
	img->region.data = img->tree;
	img->region.size = img->tree_size;
	memset(&img->src, 0, sizeof(img->src));
	img->src.data = img->table;
	img->src.size = img->size;
	img->src.text = GOIMG_TEXT;
	img->src.gofunc = GOIMG_GOFUNC;
	img->src.regions = &img->region;
	img->src.nregions = 1;
	img->src.inline_12 = 1;
}

#endif
