/* symbolize/jitdump: perf's binary JIT symbol format, written by hand here,
 * and what a hostile or half-written file gives. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/strtab.h"
#include "symbolize/jitdump.h"
#include "symbolize/perfmap.h"

struct img {
	unsigned char b[8192];
	size_t n;
	int swap;
};

static void put(struct img *im, const void *p, size_t n)
{
	cr_assert_leq(im->n + n, sizeof(im->b));
	memcpy(im->b + im->n, p, n);
	im->n += n;
}

static void put32(struct img *im, uint32_t v)
{
	if (im->swap)
		v = __builtin_bswap32(v);
	put(im, &v, 4);
}

static void put64(struct img *im, uint64_t v)
{
	if (im->swap)
		v = __builtin_bswap64(v);
	put(im, &v, 8);
}

static void header(struct img *im)
{
	put32(im, 0x4A695444); /* "JiTD" */
	put32(im, 1);          /* version */
	put32(im, 40);         /* header size */
	put32(im, 62);         /* EM_X86_64 */
	put32(im, 0);
	put32(im, 4242);       /* pid */
	put64(im, 1);          /* timestamp */
	put64(im, 0);          /* flags */
}

static void code_load(struct img *im, uint64_t addr, uint64_t size, const char *name)
{
	uint32_t total = (uint32_t)(16 + 40 + strlen(name) + 1 + size);

	put32(im, 0);
	put32(im, total);
	put64(im, 2);
	put32(im, 4242);
	put32(im, 4243);
	put64(im, addr);
	put64(im, addr);
	put64(im, size);
	put64(im, 7);
	put(im, name, strlen(name) + 1);
	while (size--)
		put(im, "\xc3", 1); /* the code bytes */
}

static void code_move(struct img *im, uint64_t from, uint64_t to, uint64_t size)
{
	put32(im, 1);
	put32(im, 16 + 48);
	put64(im, 3);
	put32(im, 4242);
	put32(im, 4243);
	put64(im, to);
	put64(im, from);
	put64(im, to);
	put64(im, size);
	put64(im, 7);
}

static struct strtab *names;
static struct perfmap *m;

static void parse(const struct img *im, int want)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	perfmap__delete(m);
	m = NULL;
	cr_assert_eq(perfmap__new_empty(&st, &m), 0);
	cr_assert_eq(jitdump__parse(im->b, im->n, names, m), want);
}

static const char *at(uint64_t pc)
{
	uint32_t id;

	if (perfmap__lookup(m, pc, &id) != 0)
		return "(none)";
	return strtab__str(names, id);
}

static void setup(void)
{
	names = strtab__new();
	m = NULL;
}

static void teardown(void)
{
	perfmap__delete(m);
	strtab__delete(names);
}

TestSuite(jitdump, .init = setup, .fini = teardown);

Test(jitdump, loads_and_moves_in_both_byte_orders)
{
	int swap;

	for (swap = 0; swap < 2; swap++) {
		struct img im;

		memset(&im, 0, sizeof(im));
		im.swap = swap;
		header(&im);
		code_load(&im, 0x1000, 0x40, "JS:*leafWork app.js:1");
		code_load(&im, 0x2000, 0x20, "Builtin:Hot;Thing");
		code_move(&im, 0x1000, 0x5000, 0x40);
		parse(&im, 0);
		cr_assert_str_eq(at(0x1010), "JS:*leafWork app.js:1_[j]");
		cr_assert_str_eq(at(0x5010), "JS:*leafWork app.js:1_[j]", "moved code keeps its name");
		cr_assert_str_eq(at(0x2000), "Builtin:Hot:Thing_[j]", "';' cannot split a stack");
		cr_assert_str_eq(at(0x2020), "(none)");
		cr_assert_eq(perfmap__count(m), 3);
	}
}

Test(jitdump, not_a_jitdump)
{
	struct img im;

	memset(&im, 0, sizeof(im));
	parse(&im, -EINVAL); /* empty */
	put(&im, "JiTD but not quite a header of forty bytes...", 45);
	parse(&im, -EINVAL);
	memset(&im, 0, sizeof(im));
	header(&im);
	im.b[4] = 2; /* version 2 */
	parse(&im, -EINVAL);
	memset(&im, 0, sizeof(im));
	header(&im);
	im.b[8] = 200; /* header larger than the file */
	parse(&im, -EINVAL);
}

/* A file still being written ends in half a record: what is whole counts. */
Test(jitdump, cut_and_hostile_records)
{
	struct img im;
	size_t whole;

	memset(&im, 0, sizeof(im));
	header(&im);
	code_load(&im, 0x1000, 0x10, "first");
	whole = im.n;
	code_load(&im, 0x3000, 0x10, "second");
	im.n = whole + 30; /* cut inside the second */
	parse(&im, 0);
	cr_assert_str_eq(at(0x1008), "first_[j]");
	cr_assert_str_eq(at(0x3008), "(none)");

	/* a name without its NUL, a zero size, a wrapping range, a size field
	 * past the end: each skipped or ending the file, never read past it */
	memset(&im, 0, sizeof(im));
	header(&im);
	put32(&im, 0);
	put32(&im, 16 + 40 + 3);
	put64(&im, 0);
	put32(&im, 1); put32(&im, 1); put64(&im, 0x100); put64(&im, 0x100); put64(&im, 8); put64(&im, 0);
	put(&im, "abc", 3); /* no NUL */
	code_load(&im, 0x2000, 0, "empty");
	code_load(&im, UINT64_MAX - 4, 0x10, "wraps");
	code_load(&im, 0x4000, 0x10, "fine");
	put32(&im, 0);
	put32(&im, 0x7fffffff); /* a record claiming 2 GB */
	put64(&im, 0);
	parse(&im, 0);
	cr_assert_str_eq(at(0x104), "(none)");
	cr_assert_str_eq(at(0x4004), "fine_[j]");
	cr_assert_eq(perfmap__count(m), 1);
}

Test(jitdump, dump_paths)
{
	static const char *const yes[] = { "/tmp/jit-123.dump", "jit-1.dump", "/a/b/jit-4242.dump" };
	static const char *const no[] = { "/tmp/jit-.dump", "/tmp/jit-12x.dump", "/tmp/jit-12.dmp",
					  "/tmp/xjit-12.dump", "/tmp/jit-12.dump/x", "" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		cr_assert(jitdump__is_dump_path(yes[i], strlen(yes[i])), "%s", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_assert_not(jitdump__is_dump_path(no[i], strlen(no[i])), "%s", no[i]);
}

/* The file on disk: refreshed only when it changed. */
Test(jitdump, refresh_follows_the_file)
{
	char path[] = "/tmp/smolder-jitdump-XXXXXX";
	struct perfmap *map = NULL;
	struct img im;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	memset(&im, 0, sizeof(im));
	header(&im);
	code_load(&im, 0x1000, 0x10, "one");
	cr_assert_eq(write(fd, im.b, im.n), (ssize_t)im.n);
	cr_assert_eq(jitdump__refresh(path, getuid(), names, &map), 1);
	cr_assert_eq(jitdump__refresh(path, getuid(), names, &map), 0, "unchanged: not read again");
	code_load(&im, 0x2000, 0x10, "two");
	cr_assert_eq(pwrite(fd, im.b, im.n, 0), (ssize_t)im.n);
	cr_assert_eq(jitdump__refresh(path, getuid(), names, &map), 1);
	cr_assert_eq(perfmap__count(map), 2);
	if (getuid() != 0) /* root's own files pass the owner rule */
		cr_assert_eq(jitdump__refresh(path, getuid() + 1, names, &map), -EPERM,
			     "someone else's file");
	close(fd);
	unlink(path);
	perfmap__delete(map);
}

/* What a jitdump's names take is counted as they are interned: a dump of
 * long names is charged for them, not for an average name. */
Test(jitdump, names_are_counted_by_their_bytes)
{
	static struct img im;
	char name[1100];
	uint64_t before, first;
	int i;

	memset(&im, 0, sizeof(im));
	header(&im);
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (i = 0; i < 6; i++) {
		name[0] = (char)('a' + i);
		code_load(&im, 0x1000 + 0x100 * (uint64_t)i, 1, name);
	}
	parse(&im, 0);
	first = perfmap__bytes(m);
	cr_assert_geq(first, 6 * 1100, "%llu bytes", (unsigned long long)first);
	/* the same names again are in the table already: nothing new */
	before = strtab__bytes(names);
	parse(&im, 0);
	cr_assert_eq(strtab__bytes(names), before);
	cr_assert_leq(perfmap__bytes(m) + 6 * 1100, first);
}
