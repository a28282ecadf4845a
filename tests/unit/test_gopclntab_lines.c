/* runtimes/gopclntab: pcs to source files and lines, and every frame of a
 * pc, the calls inlined there at their call sites: on the synthetic table
 * of each layout (gopclntab_image.h), on tables damaged where lines are
 * kept, and on a Go program built here (tests/fixtures/go/lines.go)
 * against the lines its source marks and against go tool addr2line, Go's
 * own reading of the same table. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gopclntab_image.h"
#include "runtimes/gopclntab.h"
#include "runtimes/gopclntab_elf.h"
#include "tests/unit/tmpdir.h"

static const uint32_t magics[] = { GOPCLNTAB_MAGIC_12, GOPCLNTAB_MAGIC_116, GOPCLNTAB_MAGIC_118,
				   GOPCLNTAB_MAGIC_120 };
#define NMAGICS (sizeof(magics) / sizeof(magics[0]))

static struct gopclntab *open_img(struct goimg *img)
{
	struct gopclntab *t = NULL;

	cr_assert_eq(gopclntab__open(&img->src, &t), 0);
	return t;
}

static void find(struct gopclntab *t, uint64_t pc, struct gopclntab_func *f)
{
	cr_assert_eq(gopclntab__find(t, pc, f), 0, "pc %#lx", (unsigned long)pc);
}

/* The line of pc, -1 when there is none. */
static long line_of(struct gopclntab *t, uint64_t pc, const char **file)
{
	struct gopclntab_func f;
	uint32_t line;

	find(t, pc, &f);
	if (gopclntab__line(t, &f, pc, file, &line) != 0)
		return -1;
	return line;
}

Test(gopclntab_lines, every_layout_maps_every_pc)
{
	size_t m, i, r;

	for (m = 0; m < NMAGICS; m++) {
		struct goimg img;
		struct gopclntab *t;

		goimg_build(&img, magics[m]);
		t = open_img(&img);
		for (i = 0; i < GOIMG_NFUNC; i++) {
			struct gopclntab_func f;
			uint64_t pc;

			find(t, goimg_funcs[i].start, &f);
			for (pc = f.entry; pc < f.end; pc++) {
				const char *file = NULL;
				uint32_t line = 0;

				for (r = goimg_lines[i].n - 1; pc - f.entry < goimg_lines[i].from[r]; r--)
					;
				cr_assert_eq(gopclntab__line(t, &f, pc, &file, &line), 0, "magic %x pc %#lx",
					     magics[m], (unsigned long)pc);
				cr_assert_str_eq(file, goimg_files[goimg_lines[i].file[r]], "magic %x pc %#lx",
						 magics[m], (unsigned long)pc);
				cr_assert_eq(line, (uint32_t)goimg_lines[i].line[r], "magic %x pc %#lx",
					     magics[m], (unsigned long)pc);
			}
			cr_assert_eq(gopclntab__line(t, &f, f.end, &(const char *){ NULL }, &(uint32_t){ 0 }),
				     -ENOENT, "past the function");
			cr_assert_eq(gopclntab__line(t, &f, f.entry - 1, &(const char *){ NULL },
						     &(uint32_t){ 0 }),
				     -ENOENT, "before it");
		}
		gopclntab__delete(t);
	}
}

static void assert_frame(const struct gopclntab_frame *fr, const char *name, const char *file,
			 uint32_t line)
{
	cr_assert_str_eq(fr->name, name);
	if (file)
		cr_assert_str_eq(fr->file, file, "%s", name);
	else
		cr_assert_null(fr->file, "%s", name);
	cr_assert_eq(fr->line, line, "%s", name);
}

Test(gopclntab_lines, inlined_calls_at_their_call_sites)
{
	size_t m;

	for (m = 0; m < NMAGICS; m++) {
		struct goimg img;
		struct gopclntab *t;
		struct gopclntab_frame fr[4];
		struct gopclntab_func f;
		const char *names[4];
		const char *file;

		goimg_build(&img, magics[m]);
		t = open_img(&img);
		find(t, 0x10a5, &f);
		/* the body's line is the inlined call's; main.leaf is where it
		 * called it, at parentPc (+0x12), not at pc */
		cr_assert_eq(gopclntab__frames(t, &f, 0x10a5, fr, 4), 2, "magic %x", magics[m]);
		assert_frame(&fr[0], "main.inlined", "inl.go", 5);
		assert_frame(&fr[1], "main.leaf", "main.go", 31);
		cr_assert_eq(gopclntab__inlined(t, &f, 0x10a5, names, 4), 1);
		cr_assert_str_eq(names[0], fr[0].name, "the same calls as gopclntab__inlined");
		cr_assert_eq(line_of(t, 0x10a5, &file), 5, "a pc's own line is the innermost one");
		cr_assert_str_eq(file, "inl.go");
		/* f's own code */
		cr_assert_eq(gopclntab__frames(t, &f, 0x10b0, fr, 4), 1);
		assert_frame(&fr[0], "main.leaf", "main.go", 30);
		/* no room for the inlined call: f stays, at its own line */
		cr_assert_eq(gopclntab__frames(t, &f, 0x10a5, fr, 1), 1);
		assert_frame(&fr[0], "main.leaf", "main.go", 31);
		cr_assert_eq(gopclntab__frames(t, &f, 0x10a5, fr, 0), 0);
		/* a function without inlined calls, in the runtime's unit */
		find(t, 0x1075, &f);
		cr_assert_eq(gopclntab__frames(t, &f, 0x1085, fr, 4), 1);
		assert_frame(&fr[0], "runtime.systemstack", "runtime/asm_amd64.s", 510);
		gopclntab__delete(t);
	}
}

Test(gopclntab_lines, no_line_for_a_function_whose_inline_tree_cannot_be_read)
{
	struct goimg img;
	struct gopclntab *t;
	struct gopclntab_frame fr[4];
	struct gopclntab_func f;
	const char *file;

	/* 1.18+ without moduledata.gofunc: pc is in an inlined call (its
	 * PCDATA says so), whose caller's line cannot be found */
	goimg_build(&img, GOPCLNTAB_MAGIC_120);
	img.src.gofunc = 0;
	t = open_img(&img);
	find(t, 0x10a5, &f);
	cr_assert_eq(gopclntab__frames(t, &f, 0x10a5, fr, 4), 1);
	assert_frame(&fr[0], "main.leaf", NULL, 0);
	cr_assert_eq(line_of(t, 0x10a5, &file), 5, "the pc's own position stays");
	cr_assert_eq(gopclntab__frames(t, &f, 0x10b0, fr, 4), 1);
	assert_frame(&fr[0], "main.leaf", "main.go", 30);
	gopclntab__delete(t);
}

Test(gopclntab_lines, an_inline_tree_that_loops_is_bounded)
{
	size_t m;

	for (m = 0; m < NMAGICS; m++) {
		struct goimg img;
		struct gopclntab *t;
		struct gopclntab_frame fr[100];
		struct gopclntab_func f;
		size_t n, k;

		goimg_build(&img, magics[m]);
		/* parentPc 0: the call is inside itself */
		goimg_put(img.tree, magics[m] == GOPCLNTAB_MAGIC_120 ? 8 : 16, 0, 4);
		t = open_img(&img);
		find(t, 0x10a5, &f);
		n = gopclntab__frames(t, &f, 0x10a5, fr, 100);
		cr_assert_eq(n, 65, "64 inlined calls at most, then f");
		for (k = 0; k + 1 < n; k++)
			assert_frame(&fr[k], "main.inlined", "inl.go", 5);
		assert_frame(&fr[n - 1], "main.leaf", NULL, 0);
		cr_assert_eq(gopclntab__frames(t, &f, 0x10a5, fr, 3), 3);
		assert_frame(&fr[2], "main.leaf", NULL, 0);
		gopclntab__delete(t);
	}
}

/* Where f's pcfile (0) or pcln (1) table starts in img. */
static size_t pc_table(const struct goimg *img, uint32_t magic, size_t func, int which)
{
	int v118 = magic == GOPCLNTAB_MAGIC_118 || magic == GOPCLNTAB_MAGIC_120;
	uint32_t off;
	uint64_t base = 0;

	memcpy(&off, img->table + img->func_at[func] + (v118 ? 20 : 24) + 4 * which, 4);
	if (magic != GOPCLNTAB_MAGIC_12)
		memcpy(&base, img->table + (v118 ? 56 : 48), 8);
	return (size_t)base + off;
}

/* The worker's line at 0x1030 once damaged by hurt, -1 for none; its name
 * and SP delta, which need no line, still read. */
static long damaged(uint32_t magic, void (*hurt)(struct goimg *, uint32_t))
{
	struct goimg img;
	struct gopclntab *t;
	struct gopclntab_func f;
	struct gopclntab_frame fr[4];
	const char *file;
	uint8_t *copy;
	uint32_t d;
	long line;

	goimg_build(&img, magic);
	hurt(&img, magic);
	/* in a buffer of exactly its size, for ASan and valgrind */
	copy = malloc(img.size);
	cr_assert_not_null(copy);
	memcpy(copy, img.table, img.size);
	img.src.data = copy;
	t = open_img(&img);
	line = line_of(t, 0x1030, &file);
	find(t, 0x1030, &f);
	cr_assert_str_eq(gopclntab__name(t, &f), "main.worker");
	cr_assert_eq(gopclntab__spdelta(t, &f, 0x1030, &d), 0);
	cr_assert_eq(gopclntab__frames(t, &f, 0x1030, fr, 4), 1);
	cr_assert_eq(fr[0].line, line < 0 ? 0 : (uint32_t)line, "frames agree with line");
	gopclntab__delete(t);
	free(copy);
	return line;
}

static void intact(struct goimg *img, uint32_t magic)
{
	(void)img;
	(void)magic;
}

static void garbage_varint(struct goimg *img, uint32_t magic)
{
	/* six bytes with the continuation bit: no varint ends in five */
	memset(img->table + pc_table(img, magic, 1, 1), 0xff, 6);
}

static void pcln_past_the_table(struct goimg *img, uint32_t magic)
{
	int v118 = magic == GOPCLNTAB_MAGIC_118 || magic == GOPCLNTAB_MAGIC_120;

	goimg_put(img->table, img->func_at[1] + (v118 ? 24 : 28), 0x7ffffff0u, 4);
}

static void line_zero(struct goimg *img, uint32_t magic)
{
	size_t at = pc_table(img, magic, 1, 1);

	/* the first line, from -1: +1 (zig-zag 2) is line 0, which Go never
	 * writes; and the table then runs on past 0x1030 at line 0 */
	img->table[at] = 2;
	img->table[at + 1] = 0x40;
}

static void file_number_out_of_range(struct goimg *img, uint32_t magic)
{
	img->table[pc_table(img, magic, 1, 0)] = 100; /* -1 + 50 */
}

static void no_such_unit(struct goimg *img, uint32_t magic)
{
	int v118 = magic == GOPCLNTAB_MAGIC_118 || magic == GOPCLNTAB_MAGIC_120;

	/* cuOffset + the file number must not wrap into the cutab */
	if (magic != GOPCLNTAB_MAGIC_12)
		goimg_put(img->table, img->func_at[1] + (v118 ? 32 : 36), 0xffffffffu, 4);
	else
		img->table[pc_table(img, magic, 1, 0)] = 2; /* file 0: the count */
}

static void unit_without_the_file(struct goimg *img, uint32_t magic)
{
	if (magic != GOPCLNTAB_MAGIC_12)
		goimg_put(img->table, img->cutab + 4, 0xffffffffu, 4); /* main.go */
	else
		goimg_put(img->table, img->filetab + 8, 0x7ffffff0u, 4); /* main.go's name */
}

static void file_table_gone(struct goimg *img, uint32_t magic)
{
	if (magic == GOPCLNTAB_MAGIC_12) {
		/* the count: more files than bytes */
		goimg_put(img->table, img->filetab, 0x7fffffffu, 4);
	} else {
		int v118 = magic == GOPCLNTAB_MAGIC_118 || magic == GOPCLNTAB_MAGIC_120;

		goimg_put(img->table, v118 ? 48 : 40, 1u << 30, 8);
	}
}

static void file_name_without_end(struct goimg *img, uint32_t magic)
{
	/* main.go's name: the table's last byte, no NUL after it */
	img->table[img->size - 1] = 'x';
	if (magic == GOPCLNTAB_MAGIC_12)
		goimg_put(img->table, img->filetab + 8, img->size - 1, 4);
	else
		goimg_put(img->table, img->cutab + 4, img->size - 1 - img->filetab, 4);
}

Test(gopclntab_lines, damaged_position_tables_give_no_line)
{
	size_t m;

	for (m = 0; m < NMAGICS; m++) {
		cr_assert_eq(damaged(magics[m], intact), 12, "magic %x", magics[m]);
		cr_assert_eq(damaged(magics[m], garbage_varint), -1, "magic %x", magics[m]);
		cr_assert_eq(damaged(magics[m], pcln_past_the_table), -1, "magic %x", magics[m]);
		cr_assert_eq(damaged(magics[m], line_zero), -1, "magic %x", magics[m]);
		cr_assert_eq(damaged(magics[m], file_number_out_of_range), -1, "magic %x", magics[m]);
		cr_assert_eq(damaged(magics[m], no_such_unit), -1, "magic %x", magics[m]);
		cr_assert_eq(damaged(magics[m], unit_without_the_file), -1, "magic %x", magics[m]);
		cr_assert_eq(damaged(magics[m], file_table_gone), -1, "magic %x", magics[m]);
		cr_assert_eq(damaged(magics[m], file_name_without_end), -1, "magic %x", magics[m]);
	}
}

/* --- a Go program built here --------------------------------------------- */

#define FIXTURE SRCDIR "/tests/fixtures/go/lines.go"
#define MAX_PCS 200000

/* Runs argv with stdin from in (NULL: /dev/null) and stdout and stderr to
 * out: its exit status, 127 when it could not be started. */
static int run(const char *const argv[], const char *in, const char *out)
{
	pid_t pid = fork();
	int status;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int i = open(in ? in : "/dev/null", O_RDONLY | O_CLOEXEC);
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (i < 0 || o < 0 || dup2(i, 0) < 0 || dup2(o, 1) < 0 || dup2(o, 2) < 0)
			_exit(126);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The line of lines.go that says "LINE:what". */
static uint32_t marked(const char *what)
{
	FILE *fp = fopen(FIXTURE, "r");
	char buf[256], tag[64];
	uint32_t n = 0, found = 0;

	cr_assert_not_null(fp, "%s", FIXTURE);
	snprintf(tag, sizeof(tag), "// LINE:%s\n", what);
	while (fgets(buf, sizeof(buf), fp)) {
		size_t len = strlen(buf), tl = strlen(tag);

		n++;
		if (len >= tl && strcmp(buf + len - tl, tag) == 0)
			found = n;
	}
	fclose(fp);
	cr_assert_neq(found, 0, "no LINE:%s in %s", what, FIXTURE);
	return found;
}

struct gobin {
	char dir[64], path[128];
	int fd;
	Elf *elf;
	struct gopclntab *t;
};

/* A test's builds, removed after it, failed or not (its .fini). */
static struct gobin bins[2];
static size_t nbins;

static void remove_builds(void)
{
	while (nbins > 0) {
		struct gobin *b = &bins[--nbins];

		gopclntab__delete(b->t);
		if (b->elf)
			elf_end(b->elf);
		if (b->fd >= 0)
			close(b->fd);
		tmpdir_remove(b->dir);
	}
}

/* What a command said, for a failure's message. */
static const char *said(const char *path, char *buf, size_t size)
{
	FILE *fp = fopen(path, "r");
	size_t n = fp ? fread(buf, 1, size - 1, fp) : 0;

	if (fp)
		fclose(fp);
	buf[n] = '\0';
	return buf;
}

/* lines.go built (ldflags: "" or Go's stripping), its table open; skips
 * the test where there is no Go. */
static struct gobin *build(const char *name, const char *ldflags)
{
	struct gobin *b = &bins[nbins];
	char dir[sizeof(b->dir)], log[160], cache[96], out[1024];
	const char *argv[] = { "go", "build", "-ldflags", ldflags, "-o", b->path, FIXTURE, NULL };
	const char *version[] = { "go", "version", NULL };

	/* before anything to remove: a skipped test's .fini does not run */
	if (run(version, NULL, "/dev/null") != 0)
		cr_skip_test("no go to build with (Debian: golang-go)");
	cr_assert_lt(nbins, sizeof(bins) / sizeof(bins[0]));
	memset(b, 0, sizeof(*b));
	b->fd = -1;
	tmpdir_make(dir, sizeof(dir), "golines");
	memcpy(b->dir, dir, sizeof(dir));
	nbins++;
	snprintf(b->path, sizeof(b->path), "%s/%s", dir, name);
	snprintf(log, sizeof(log), "%s/go.log", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	/* one file, no module, this toolchain, the build's own defaults */
	setenv("GOCACHE", cache, 1);
	setenv("GO111MODULE", "off", 1);
	setenv("GOTOOLCHAIN", "local", 1);
	setenv("GOFLAGS", "", 1);
	setenv("CGO_ENABLED", "0", 1);
	cr_assert_eq(run(argv, NULL, log), 0, "go build failed: %s", said(log, out, sizeof(out)));
	b->fd = open(b->path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(b->fd, 0);
	elf_version(EV_CURRENT);
	b->elf = elf_begin(b->fd, ELF_C_READ_MMAP, NULL);
	cr_assert_not_null(b->elf);
	cr_assert_eq(gopclntab_elf__open(b->elf, &b->t, NULL), 0);
	return b;
}

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), e = strlen(end);

	return n >= e && strcmp(s + n - e, end) == 0;
}

static void func_named(struct gopclntab *t, const char *name, struct gopclntab_func *f)
{
	size_t i;

	for (i = 0; i < gopclntab__count(t); i++) {
		const char *s;

		if (gopclntab__func(t, i, f) == 0 && (s = gopclntab__name(t, f)) && strcmp(s, name) == 0)
			return;
	}
	cr_assert_fail("no %s in the table", name);
}

Test(gopclntab_lines, a_go_program_at_its_marked_lines, .fini = remove_builds, .timeout = 300)
{
	uint32_t loop = marked("loop"), square = marked("square"), twice = marked("twice");
	uint32_t call = marked("call");
	struct gopclntab_func f;
	struct gobin *b, *s;
	unsigned at_loop = 0, depth[4] = { 0 };
	uint64_t pc;

	b = build("lines", "");
	func_named(b->t, "main.hot", &f);
	for (pc = f.entry; pc < f.end; pc++) {
		const char *file;
		uint32_t line;

		if (gopclntab__line(b->t, &f, pc, &file, &line) != 0)
			continue;
		cr_assert(ends_with(file, "/lines.go"), "%s", file);
		at_loop += line == loop;
	}
	cr_assert_gt(at_loop, 0, "no pc of main.hot at its loop's line %u", loop);
	/* main.outer inlines twice, which inlines square */
	func_named(b->t, "main.outer", &f);
	for (pc = f.entry; pc < f.end; pc++) {
		struct gopclntab_frame fr[8];
		size_t n = gopclntab__frames(b->t, &f, pc, fr, 8);
		const char *file;
		uint32_t line;

		cr_assert(n >= 1 && n <= 3, "pc %#lx: %zu frames", (unsigned long)pc, n);
		cr_assert_str_eq(fr[n - 1].name, "main.outer");
		if (gopclntab__line(b->t, &f, pc, &file, &line) == 0) {
			cr_assert_str_eq(fr[0].file, file, "the innermost frame is at pc's own line");
			cr_assert_eq(fr[0].line, line);
		} else {
			cr_assert_eq(n, 1);
			cr_assert_null(fr[0].file);
			continue;
		}
		depth[n]++;
		if (n == 3) {
			cr_assert_str_eq(fr[0].name, "main.square");
			cr_assert_eq(fr[0].line, square);
			cr_assert_str_eq(fr[1].name, "main.twice");
			cr_assert_eq(fr[1].line, twice, "pc %#lx: twice's call of square", (unsigned long)pc);
			cr_assert_eq(fr[2].line, call, "pc %#lx: outer's call of twice", (unsigned long)pc);
		} else if (n == 2) {
			cr_assert_str_eq(fr[0].name, "main.twice");
			cr_assert_eq(fr[0].line, twice);
			cr_assert_eq(fr[1].line, call, "pc %#lx: outer's call of twice", (unsigned long)pc);
		} else {
			cr_assert(fr[0].line != square && fr[0].line != twice, "pc %#lx at line %u", (unsigned long)pc,
				  fr[0].line);
		}
		cr_assert(ends_with(fr[n - 1].file, "/lines.go"), "%s", fr[n - 1].file);
	}
	cr_assert_gt(depth[3], 0, "square inlined into twice into outer");
	cr_assert_gt(depth[1], 0);
	/* stripped (no symbols, no DWARF): the same frames, from the table */
	s = build("lines_s", "-s -w");
	{
		struct gopclntab_func g;

		func_named(s->t, "main.outer", &g);
		cr_assert_eq(g.end - g.entry, f.end - f.entry);
		for (pc = 0; pc < f.end - f.entry; pc++) {
			struct gopclntab_frame x[8], y[8];
			size_t n = gopclntab__frames(b->t, &f, f.entry + pc, x, 8), k;

			cr_assert_eq(gopclntab__frames(s->t, &g, g.entry + pc, y, 8), n);
			for (k = 0; k < n; k++) {
				cr_assert_str_eq(x[k].name, y[k].name);
				cr_assert_eq(x[k].line, y[k].line);
			}
		}
	}
}

/* What go tool addr2line answers for a pc: file and line, line -1 for
 * none; false at the end of its answers. */
static bool addr2line_next(FILE *fp, char *file, size_t size, long *line)
{
	char fn[4096], pos[4096];
	char *colon;

	if (!fgets(fn, sizeof(fn), fp) || !fgets(pos, sizeof(pos), fp))
		return false;
	pos[strcspn(pos, "\n")] = '\0';
	colon = strrchr(pos, ':');
	cr_assert_not_null(colon, "addr2line said %s", pos);
	*colon = '\0';
	*line = strtol(colon + 1, NULL, 10);
	snprintf(file, size, "%s", pos);
	if (*line <= 0 || strcmp(pos, "?") == 0)
		*line = -1;
	return true;
}

Test(gopclntab_lines, every_line_as_go_tool_addr2line_reads_it, .fini = remove_builds,
     .timeout = 300)
{
	struct gobin *b = build("lines", "");
	char in[160], out[160], msg[1024];
	const char *argv[] = { "go", "tool", "addr2line", b->path, NULL };
	uint64_t lo, hi, pc, *pcs;
	long *lines;
	const char **files;
	size_t n = 0, i, step, same = 0, known = 0;
	FILE *fp;

	pcs = calloc(MAX_PCS, sizeof(*pcs));
	lines = calloc(MAX_PCS, sizeof(*lines));
	files = calloc(MAX_PCS, sizeof(*files));
	cr_assert(pcs && lines && files);
	/* every pc of main's functions, and pcs spread over all the code */
	gopclntab__range(b->t, &lo, &hi);
	step = (size_t)((hi - lo) / (MAX_PCS / 2)) + 1;
	for (pc = lo; pc < hi && n < MAX_PCS; pc++) {
		struct gopclntab_func f;
		const char *name;
		uint32_t line;

		if (gopclntab__find(b->t, pc, &f) != 0 || !(name = gopclntab__name(b->t, &f)))
			continue;
		if ((pc - lo) % step != 0 && strncmp(name, "main.", 5) != 0)
			continue;
		pcs[n] = pc;
		lines[n] = gopclntab__line(b->t, &f, pc, &files[n], &line) == 0 ? (long)line : -1;
		n++;
	}
	snprintf(in, sizeof(in), "%s/pcs", b->dir);
	snprintf(out, sizeof(out), "%s/addr2line", b->dir);
	fp = fopen(in, "w");
	cr_assert_not_null(fp);
	for (i = 0; i < n; i++)
		fprintf(fp, "%#lx\n", (unsigned long)pcs[i]);
	cr_assert_eq(fclose(fp), 0);
	cr_assert_eq(run(argv, in, out), 0, "go tool addr2line failed: %s", said(out, msg, sizeof(msg)));
	fp = fopen(out, "r");
	cr_assert_not_null(fp);
	for (i = 0; i < n; i++) {
		char file[4096];
		long line;

		cr_assert(addr2line_next(fp, file, sizeof(file), &line), "addr2line answered %zu of %zu", i, n);
		if (line < 0) {
			cr_assert_eq(lines[i], -1, "pc %#lx: ours %s:%ld, Go's none", (unsigned long)pcs[i],
				     files[i], lines[i]);
		} else {
			cr_assert_eq(lines[i], line, "pc %#lx: ours %ld, Go's %s:%ld", (unsigned long)pcs[i],
				     lines[i], file, line);
			cr_assert_str_eq(files[i], file, "pc %#lx", (unsigned long)pcs[i]);
			known++;
		}
		same++;
	}
	fclose(fp);
	cr_log_info("%zu pcs as go tool addr2line reads them, %zu with a line", same, known);
	cr_assert_gt(known, 10000, "too few pcs compared");
	free(pcs);
	free(lines);
	free(files);
}
