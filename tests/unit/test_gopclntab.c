/* runtimes/gopclntab, gopclntab_elf, gobuildinfo, golayout: Go's pc-line
 * table in each layout (synthetic tables, tests/unit/gopclntab_image.h):
 * functions found by pc, named, their SP deltas and inlined calls (lines:
 * test_gopclntab_lines.c); damaged
 * tables never read outside their bytes; and the real Go binaries of the
 * machine (Debian's Go toolchain, stripped) read whole. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gopclntab_image.h"
#include "runtimes/gobuildinfo.h"
#include "runtimes/golayout.h"
#include "runtimes/gopclntab.h"
#include "runtimes/gopclntab_elf.h"
#include "tests/unit/rounds.h"

static const uint32_t magics[] = { GOPCLNTAB_MAGIC_12, GOPCLNTAB_MAGIC_116, GOPCLNTAB_MAGIC_118,
				   GOPCLNTAB_MAGIC_120 };

static struct gopclntab *open_img(struct goimg *img, uint32_t magic)
{
	struct gopclntab *t = NULL;

	goimg_build(img, magic);
	cr_assert_eq(gopclntab__open(&img->src, &t), 0, "magic %x", magic);
	return t;
}

static const char *name_at(struct gopclntab *t, uint64_t pc)
{
	struct gopclntab_func f;

	if (gopclntab__find(t, pc, &f) != 0)
		return NULL;
	return gopclntab__name(t, &f);
}

Test(gopclntab, every_layout_finds_and_names_functions)
{
	size_t m;

	for (m = 0; m < sizeof(magics) / sizeof(magics[0]); m++) {
		struct goimg img;
		struct gopclntab *t = open_img(&img, magics[m]);
		uint64_t lo, hi;

		cr_assert_eq(gopclntab__version(t), (enum gopclntab_version)(m + 1));
		cr_assert_eq(gopclntab__count(t), GOIMG_NFUNC);
		gopclntab__range(t, &lo, &hi);
		cr_assert_eq(lo, GOIMG_TEXT);
		cr_assert_eq(hi, GOIMG_END);
		cr_assert_str_eq(name_at(t, 0x1000), "runtime.goexit");
		cr_assert_str_eq(name_at(t, 0x101f), "runtime.goexit");
		cr_assert_str_eq(name_at(t, 0x1020), "main.worker");
		cr_assert_str_eq(name_at(t, 0x1075), "runtime.systemstack");
		cr_assert_str_eq(name_at(t, 0x10bf), "main.leaf");
		cr_assert_null(name_at(t, 0x0fff));
		cr_assert_null(name_at(t, GOIMG_END));
		gopclntab__delete(t);
	}
}

Test(gopclntab, sp_deltas_at_every_pc)
{
	size_t m;

	for (m = 0; m < sizeof(magics) / sizeof(magics[0]); m++) {
		struct goimg img;
		struct gopclntab *t = open_img(&img, magics[m]);
		struct gopclntab_func f;
		uint32_t d = 99;

		cr_assert_eq(gopclntab__find(t, 0x1020, &f), 0);
		cr_assert_eq(gopclntab__spdelta(t, &f, 0x1020, &d), 0);
		cr_assert_eq(d, 0, "in the prologue");
		cr_assert_eq(gopclntab__spdelta(t, &f, 0x1023, &d), 0);
		cr_assert_eq(d, 0);
		cr_assert_eq(gopclntab__spdelta(t, &f, 0x1024, &d), 0);
		cr_assert_eq(d, 24, "the frame set up");
		cr_assert_eq(gopclntab__spdelta(t, &f, 0x105f, &d), 0);
		cr_assert_eq(d, 24);
		cr_assert_eq(gopclntab__spdelta(t, &f, 0x1060, &d), -ENOENT, "past the function");
		cr_assert_eq(gopclntab__find(t, 0x10a4, &f), 0);
		cr_assert_eq(gopclntab__spdelta(t, &f, 0x10a4, &d), 0);
		cr_assert_eq(d, 8);
		gopclntab__delete(t);
	}
}

Test(gopclntab, inlined_calls_from_the_inline_tree)
{
	size_t m;

	for (m = 0; m < sizeof(magics) / sizeof(magics[0]); m++) {
		struct goimg img;
		struct gopclntab *t = open_img(&img, magics[m]);
		struct gopclntab_func f;
		const char *names[4];

		cr_assert_eq(gopclntab__find(t, 0x10a5, &f), 0);
		cr_assert_eq(gopclntab__inlined(t, &f, 0x10a5, names, 4), 1, "magic %x", magics[m]);
		cr_assert_str_eq(names[0], "main.inlined");
		cr_assert_eq(gopclntab__inlined(t, &f, 0x10b0, names, 4), 0, "outside the inlined call");
		/* a function without a tree */
		cr_assert_eq(gopclntab__find(t, 0x1030, &f), 0);
		cr_assert_eq(gopclntab__inlined(t, &f, 0x1030, names, 4), 0);
		gopclntab__delete(t);
	}
}

Test(gopclntab, funcflag_from_118_on)
{
	size_t m;

	for (m = 0; m < sizeof(magics) / sizeof(magics[0]); m++) {
		struct goimg img;
		struct gopclntab *t;
		struct gopclntab_func f;

		goimg_build(&img, magics[m]);
		/* main.worker flagged SPWRITE where its version keeps the flag */
		img.table[img.func_at[1] + (magics[m] == GOPCLNTAB_MAGIC_120 ? 41 : 37)] = GOPCLNTAB_FLAG_SPWRITE;
		cr_assert_eq(gopclntab__open(&img.src, &t), 0);
		cr_assert_eq(gopclntab__find(t, 0x1030, &f), 0);
		cr_assert_eq(gopclntab__flags(t, &f),
			     magics[m] == GOPCLNTAB_MAGIC_118 || magics[m] == GOPCLNTAB_MAGIC_120 ? GOPCLNTAB_FLAG_SPWRITE : 0,
			     "magic %x", magics[m]);
		cr_assert_eq(gopclntab__find(t, 0x1000, &f), 0);
		cr_assert_eq(gopclntab__flags(t, &f), 0);
		gopclntab__delete(t);
	}
}

Test(gopclntab, no_inlined_calls_without_what_locates_the_tree)
{
	struct goimg img;
	struct gopclntab *t;
	struct gopclntab_func f;
	const char *names[4];

	/* 1.18+: no moduledata.gofunc */
	goimg_build(&img, GOPCLNTAB_MAGIC_120);
	img.src.gofunc = 0;
	cr_assert_eq(gopclntab__open(&img.src, &t), 0);
	cr_assert_eq(gopclntab__find(t, 0x10a5, &f), 0);
	cr_assert_eq(gopclntab__inlined(t, &f, 0x10a5, names, 4), 0);
	gopclntab__delete(t);
	/* a 0xfffffffb table not known to be 1.13+ */
	goimg_build(&img, GOPCLNTAB_MAGIC_12);
	img.src.inline_12 = 0;
	cr_assert_eq(gopclntab__open(&img.src, &t), 0);
	cr_assert_eq(gopclntab__find(t, 0x10a5, &f), 0);
	cr_assert_eq(gopclntab__inlined(t, &f, 0x10a5, names, 4), 0);
	cr_assert_str_eq(gopclntab__name(t, &f), "main.leaf");
	gopclntab__delete(t);
}

Test(gopclntab, what_is_no_table_is_refused)
{
	struct goimg img;
	struct gopclntab *t = NULL;

	goimg_build(&img, 0xfffffff5u);
	cr_assert_eq(gopclntab__open(&img.src, &t), -EINVAL, "an unknown magic");
	goimg_build(&img, GOPCLNTAB_MAGIC_120);
	img.table[7] = 4;
	cr_assert_eq(gopclntab__open(&img.src, &t), -EINVAL, "4-byte pointers");
	goimg_build(&img, GOPCLNTAB_MAGIC_120);
	img.src.size = 40;
	cr_assert_eq(gopclntab__open(&img.src, &t), -EINVAL, "a cut header");
	goimg_build(&img, GOPCLNTAB_MAGIC_118);
	goimg_put(img.table, 64, 1u << 30, 8);
	cr_assert_eq(gopclntab__open(&img.src, &t), -EINVAL, "pclnOffset out of the table");
	goimg_build(&img, GOPCLNTAB_MAGIC_116);
	goimg_put(img.table, 8, 1u << 28, 8);
	cr_assert_eq(gopclntab__open(&img.src, &t), -EINVAL, "more functions than bytes");
	cr_assert_null(t);
}

/* Every function, pc and query of a table, for the damage tests. */
static unsigned walk(struct gopclntab *t)
{
	unsigned seen = 0;
	size_t i;
	uint64_t pc;

	for (i = 0; i < gopclntab__count(t) + 1; i++) {
		struct gopclntab_func f;
		const char *names[8];
		const char *name;
		uint32_t d;
		int32_t v;

		if (gopclntab__func(t, i, &f) != 0)
			continue;
		name = gopclntab__name(t, &f);
		if (name)
			seen += (unsigned)strlen(name) > 0;
		for (pc = f.entry; pc < f.end && pc - f.entry < 0x100; pc++) {
			struct gopclntab_frame fr[8];
			const char *file;
			uint32_t line;

			(void)gopclntab__spdelta(t, &f, pc, &d);
			(void)gopclntab__pcdata(t, &f, 2, pc, &v);
			seen += (unsigned)gopclntab__inlined(t, &f, pc, names, 8);
			if (gopclntab__line(t, &f, pc, &file, &line) == 0)
				seen += (unsigned)strlen(file) > 0 && line > 0;
			seen += (unsigned)gopclntab__frames(t, &f, pc, fr, 8);
		}
	}
	for (pc = GOIMG_TEXT - 8; pc < GOIMG_END + 8; pc += 3) {
		struct gopclntab_func f;

		seen += gopclntab__find(t, pc, &f) == 0;
	}
	return seen;
}

Test(gopclntab, damaged_tables_stay_within_their_bytes)
{
	size_t m;
	unsigned seed = 29;

	for (m = 0; m < sizeof(magics) / sizeof(magics[0]); m++) {
		int round;

		for (round = 0; round < test_rounds(3000); round++) {
			struct goimg img;
			struct gopclntab *t;
			int k, flips = 1 + round % 8;
			uint8_t *copy;

			goimg_build(&img, magics[m]);
			for (k = 0; k < flips; k++) {
				seed = seed * 1103515245u + 12345u;
				/* past the magic: a table that is no table is refused */
				img.table[8 + (seed >> 8) % (img.size - 8)] = (uint8_t)(seed >> 20);
			}
			if (round % 5 == 0)
				img.tree[(seed >> 4) % img.tree_size] ^= (uint8_t)(seed >> 12);
			/* exactly its bytes, so that a read past them is caught
			 * (ASan, valgrind) */
			copy = malloc(img.size);
			cr_assert_not_null(copy);
			memcpy(copy, img.table, img.size);
			img.src.data = copy;
			if (gopclntab__open(&img.src, &t) == 0) {
				(void)walk(t);
				gopclntab__delete(t);
			}
			free(copy);
		}
	}
}

Test(gopclntab, cut_tables_stay_within_their_bytes)
{
	size_t m, cut;

	for (m = 0; m < sizeof(magics) / sizeof(magics[0]); m++) {
		struct goimg img;

		goimg_build(&img, magics[m]);
		for (cut = 0; cut < img.size; cut++) {
			uint8_t *copy = malloc(cut ? cut : 1);
			struct gopclntab *t;

			memcpy(copy, img.table, cut);
			img.src.data = copy;
			img.src.size = cut;
			if (gopclntab__open(&img.src, &t) == 0) {
				(void)walk(t);
				gopclntab__delete(t);
			}
			free(copy);
		}
	}
}

Test(gobuildinfo, versions_as_go_writes_them)
{
	struct goversion v;

	cr_assert_eq(gobuildinfo__parse("go1.19.8", 8, &v), 0);
	cr_assert_eq(goversion__num(&v), 119);
	cr_assert_eq(gobuildinfo__parse("go1.25-20250209-RC00 cl/7", 25, &v), 0);
	cr_assert_eq(goversion__num(&v), 125);
	cr_assert_eq(gobuildinfo__parse("devel go1.22-abc", 16, &v), 0);
	cr_assert_eq(goversion__num(&v), 122);
	cr_assert_eq(gobuildinfo__parse("go1.9", 5, &v), 0);
	cr_assert_eq(goversion__num(&v), 109);
	cr_assert_eq(gobuildinfo__parse("gogo", 4, &v), -EINVAL);
	cr_assert_eq(gobuildinfo__parse("go1.", 4, &v), -EINVAL);
}

Test(golayout, offsets_by_version)
{
	struct goversion v = { 1, 16 };
	struct golayout l;

	cr_assert_eq(golayout__for(&v, &l), -ENOTSUP, "g is in TLS before 1.17");
	v.minor = 19;
	cr_assert_eq(golayout__for(&v, &l), 0);
	cr_assert_eq(l.g_m, 48);
	cr_assert_eq(l.g_sched, 56);
	cr_assert_eq(l.gobuf_bp, 48);
	cr_assert_eq(l.m_curg, 192);
	v.minor = 26;
	cr_assert_eq(golayout__for(&v, &l), 0);
	cr_assert_eq(l.gobuf_bp, 40, "1.26 dropped gobuf.ret");
	cr_assert_eq(l.m_curg, 184);
	v.major = 2;
	cr_assert_eq(golayout__for(&v, &l), -ENOTSUP);
}

/* A Go binary of the machine, read whole: every function named, its
 * main and runtime roots where they belong. */
static void read_binary(const char *path, unsigned min_version)
{
	struct gopclntab_elf_info info;
	struct gopclntab *t;
	size_t i, named = 0, n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int goexit = 0;
	Elf *elf;

	if (fd < 0) {
		cr_log_warn("%s not installed: not read", path);
		return;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(gopclntab_elf__open(elf, &t, &info), 0, "%s", path);
	cr_assert_geq(goversion__num(&info.version), min_version);
	if (gopclntab__version(t) >= GOPCLNTAB_118)
		cr_assert_neq(info.gofunc, 0, "moduledata found in %s", path);
	n = gopclntab__count(t);
	cr_assert_gt(n, 1000);
	for (i = 0; i < n; i++) {
		struct gopclntab_func f;
		const char *name;

		if (gopclntab__func(t, i, &f) != 0 || !(name = gopclntab__name(t, &f)))
			continue;
		named++;
		goexit |= strcmp(name, "runtime.goexit") == 0;
	}
	cr_assert_eq(named, n, "%s: %zu of %zu named", path, named, n);
	cr_assert(goexit);
	gopclntab__delete(t);
	elf_end(elf);
	close(fd);
}

Test(gopclntab_elf, debians_stripped_go_toolchain)
{
	read_binary("/usr/lib/go-1.19/pkg/tool/linux_amd64/compile", 119);
	/* Go 1.23-1.25 builds some tools on the machine ship with, stripped */
	read_binary("/usr/bin/kubectl", 123);
	read_binary("/usr/bin/gcloud-crc32c", 124);
}

Test(gopclntab_elf, no_table_in_a_c_binary)
{
	int fd = open("/bin/sh", O_RDONLY | O_CLOEXEC);
	struct gopclntab *t;
	Elf *elf;

	cr_assert_geq(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cr_assert_eq(gopclntab_elf__open(elf, &t, NULL), -ENOENT);
	elf_end(elf);
	close(fd);
}
