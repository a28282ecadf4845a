/* Unit tests for symbolize/kallsyms_cache.c: the kernel symbol table kept in
 * the cache directory, its key, and its defences against damaged files. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cachedir.h"
#include "common/strtab.h"
#include "symbolize/kallsyms.h"
#include "symbolize/kallsyms_cache.h"

#ifndef SYMBOLIZE_FIXTURES_SRCDIR
#define SYMBOLIZE_FIXTURES_SRCDIR "tests/fixtures/symbolize"
#endif

#define BOOT_A "0b4c2d64-8d5e-4a7e-9a6e-2f4f3c1d0e9a"
#define BOOT_B "7f1c0d2e-3b4a-4c5d-8e6f-a0b1c2d3e4f5"
#define MODULES_A                                                                                  \
	"ext4 1015808 3 - Live 0xffffffffc0a00000\n"                                                \
	"crc16 12288 1 ext4, Live 0xffffffffc0010000\n"                                              \
	"vboxdrv 634880 0 - Live 0xffffffffc0200000 (OE)\n"

static char dir[64];
static char cache_path[128], ksyms_path[128], ksyms_hi_path[128], mods_path[128], boot_path[128];
static struct cachedir *cache;
static struct kallsyms_source src;

static void write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void write_str(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

/* A kallsyms of n functions with aliases, __pfx_ labels, data symbols and
 * module symbols; with `wide`, some addresses have another upper half (the
 * table then keeps kallsyms.hi). */
static void make_kallsyms(const char *path, unsigned n, int wide)
{
	size_t cap = (size_t)n * 160 + 4096, len = 0;
	char *text = malloc(cap);
	unsigned i;

	cr_assert_not_null(text);
	for (i = 0; i < n; i++) {
		unsigned long long a = 0xffffffff81000000ull + (unsigned long long)i * 0x40;

		if (i % 7 == 0)
			len += (size_t)snprintf(text + len, cap - len, "%016llx T __pfx_fn_%u\n",
						a - 16, i);
		len += (size_t)snprintf(text + len, cap - len, "%016llx %c fn_%u\n", a,
					i % 3 ? 't' : 'T', i);
		if (i % 11 == 0)
			len += (size_t)snprintf(text + len, cap - len, "%016llx t alias_%u\n", a, i);
		if (i % 13 == 0)
			len += (size_t)snprintf(text + len, cap - len, "%016llx D data_%u\n", a + 8, i);
	}
	for (i = 0; i < n / 10; i++)
		len += (size_t)snprintf(text + len, cap - len, "%016llx t mod_fn_%u\t[ext4]\n",
					0xffffffffc0a00000ull + (unsigned long long)i * 0x80, i);
	if (wide)
		for (i = 0; i < 50; i++)
			len += (size_t)snprintf(text + len, cap - len, "%016llx t low_%u\n",
						0x00007fff00001000ull + (unsigned long long)i * 0x100, i);
	write_file(path, text, len);
	free(text);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/smolder-kcache-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cache_path, sizeof(cache_path), "%s/cache", dir);
	snprintf(ksyms_path, sizeof(ksyms_path), "%s/kallsyms", dir);
	snprintf(ksyms_hi_path, sizeof(ksyms_hi_path), "%s/kallsyms_hi", dir);
	snprintf(mods_path, sizeof(mods_path), "%s/modules", dir);
	snprintf(boot_path, sizeof(boot_path), "%s/boot_id", dir);
	make_kallsyms(ksyms_path, 3000, 0);
	make_kallsyms(ksyms_hi_path, 500, 1);
	write_str(mods_path, MODULES_A);
	write_str(boot_path, BOOT_A "\n");
	cr_assert_eq(cachedir__open(cache_path, 64ull << 20, &cache), 0);
	memset(&src, 0, sizeof(src));
	src.kallsyms = ksyms_path;
	src.modules = mods_path;
	src.boot_id = boot_path;
	src.release = "6.1.0-test";
}

static void teardown(void)
{
	char cmd[256];

	cachedir__delete(cache);
	cache = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(kallsyms_cache, .init = setup, .fini = teardown);

/* Loads through the cache; returns from_cache, checks the status. */
static int load(struct strtab *names, struct kallsyms **k, struct kallsyms_cache_status *st)
{
	struct kallsyms_cache_status s;

	memset(&s, 0x55, sizeof(s));
	cr_assert_eq(kallsyms_cache__load(&src, cache, names, k, &s), 0);
	cr_assert(s.from_cache == 0 || s.from_cache == 1);
	if (s.from_cache)
		cr_assert_eq(s.read_err, 0);
	if (st)
		*st = s;
	return s.from_cache;
}

static int load_once(struct kallsyms_cache_status *st)
{
	struct strtab *names = strtab__new();
	struct kallsyms *k = NULL;
	int from;

	cr_assert_not_null(names);
	from = load(names, &k, st);
	kallsyms__delete(k);
	strtab__delete(names);
	return from;
}

static int cache_file_exists(void)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", cache_path, KALLSYMS_CACHE_NAME);
	return access(p, F_OK) == 0;
}

/* Every symbol start, its neighbours, and a sweep of the whole range give
 * the same name from both tables. */
static void same_lookups_step(const char *path, struct kallsyms *got, struct strtab *got_names,
			      uint64_t step)
{
	struct strtab *names = strtab__new();
	struct kallsyms *want = NULL;
	uint64_t pcs[] = { 0, 1, 0xffffffff80ffffffull, 0xffffffff81000000ull,
			   0xffffffffc0a00000ull, 0xffffffffffffffffull, 0x00007fff00001000ull,
			   0x00007fff00001050ull, 0x00007fff00004000ull };
	uint64_t pc;
	size_t i;
	int d;

	cr_assert_not_null(names);
	cr_assert_eq(kallsyms__load(path, names, &want), 0);
	cr_assert_eq(kallsyms__count(got), kallsyms__count(want));
	cr_assert_eq(kallsyms__restricted(got), kallsyms__restricted(want));
	for (pc = 0xffffffff80fff000ull; pc < 0xffffffff81040000ull; pc += step) {
		for (d = 0; d < 2; d++) {
			uint32_t a, b;

			cr_assert_eq(kallsyms__lookup(got, pc, &a), 0);
			cr_assert_eq(kallsyms__lookup(want, pc, &b), 0);
			cr_assert_str_eq(strtab__str(got_names, a), strtab__str(names, b),
					 "pc %llx", (unsigned long long)pc);
		}
	}
	for (i = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++) {
		for (d = -1; d <= 1; d++) {
			uint32_t a, b;

			cr_assert_eq(kallsyms__lookup(got, pcs[i] + (uint64_t)d, &a), 0);
			cr_assert_eq(kallsyms__lookup(want, pcs[i] + (uint64_t)d, &b), 0);
			cr_assert_str_eq(strtab__str(got_names, a), strtab__str(names, b));
		}
	}
	kallsyms__delete(want);
	strtab__delete(names);
}

static void same_lookups(const char *path, struct kallsyms *got, struct strtab *got_names)
{
	same_lookups_step(path, got, got_names, 7);
}

static void cold_then_warm(const char *path)
{
	struct kallsyms_cache_status st;
	struct strtab *names;
	struct kallsyms *k = NULL;

	src.kallsyms = path;
	cr_assert_eq(load_once(&st), 0);
	cr_assert_eq(st.read_err, -ENOENT);
	cr_assert_eq(st.write_err, 0);
	cr_assert(cache_file_exists());

	names = strtab__new();
	cr_assert_not_null(names);
	cr_assert_eq(load(names, &k, &st), 1);
	cr_assert_eq(st.write_err, 1);
	same_lookups(path, k, names);
	/* a table that has been looked up holds frame ids, not names */
	{
		struct kallsyms_arrays a;

		cr_assert_eq(kallsyms__arrays(k, &a), -EBUSY);
	}
	kallsyms__delete(k);
	strtab__delete(names);
}

Test(kallsyms_cache, cold_load_writes_warm_load_reads_same_lookups)
{
	struct stat sb;
	char p[256];

	cold_then_warm(ksyms_path);
	snprintf(p, sizeof(p), "%s/%s", cache_path, KALLSYMS_CACHE_NAME);
	cr_assert_eq(stat(p, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600);
}

Test(kallsyms_cache, upper_halves_survive_the_round_trip)
{
	cold_then_warm(ksyms_hi_path);
}

Test(kallsyms_cache, committed_fixture_round_trip)
{
	cold_then_warm(SYMBOLIZE_FIXTURES_SRCDIR "/kallsyms.txt");
}

Test(kallsyms_cache, no_cache_is_a_plain_load)
{
	struct kallsyms_cache_status st;
	struct strtab *names = strtab__new();
	struct kallsyms *k = NULL;

	cr_assert_eq(kallsyms_cache__load(&src, NULL, names, &k, &st), 0);
	cr_assert_eq(st.from_cache, 0);
	cr_assert_eq(st.write_err, 1);
	same_lookups(ksyms_path, k, names);
	kallsyms__delete(k);
	cr_assert_eq(kallsyms_cache__load(&src, NULL, names, &k, NULL), 0);
	kallsyms__delete(k);
	src.kallsyms = "/nonexistent/kallsyms";
	k = NULL;
	cr_assert_eq(kallsyms_cache__load(&src, cache, names, &k, &st), -ENOENT);
	cr_assert_null(k);
	strtab__delete(names);
}

Test(kallsyms_cache, volatile_module_columns_do_not_invalidate)
{
	struct kallsyms_cache_status st;

	cr_assert_eq(load_once(NULL), 0);
	write_str(mods_path, "ext4 1015808 7 - Live 0xffffffffc0a00000\n"
			     "crc16 12288 2 ext4,jbd2, Live 0xffffffffc0010000\n"
			     "vboxdrv 634880 4 vboxnetflt,vboxnetadp, Live 0xffffffffc0200000 (OE)\n");
	cr_assert_eq(load_once(&st), 1);
}

static void invalidated_by(void (*change)(void))
{
	struct kallsyms_cache_status st;

	cr_assert_eq(load_once(NULL), 0);
	cr_assert_eq(load_once(NULL), 1);
	change();
	cr_assert_eq(load_once(&st), 0);
	cr_assert_eq(st.read_err, -ESTALE);
	cr_assert_eq(st.write_err, 0);
	/* rewritten for the new key */
	cr_assert_eq(load_once(&st), 1);
}

static void module_loaded(void)
{
	write_str(mods_path, "xfs 2000000 0 - Live 0xffffffffc0b00000\n" MODULES_A);
}

static void module_moved(void)
{
	write_str(mods_path, "ext4 1015808 3 - Live 0xffffffffc0c00000\n"
			     "crc16 12288 1 ext4, Live 0xffffffffc0010000\n"
			     "vboxdrv 634880 0 - Live 0xffffffffc0200000 (OE)\n");
}

static void module_state(void)
{
	write_str(mods_path, "ext4 1015808 3 - Live 0xffffffffc0a00000\n"
			     "crc16 12288 1 ext4, Live 0xffffffffc0010000\n"
			     "vboxdrv 634880 0 - Loading 0xffffffffc0200000 (OE)\n");
}

static void modules_gone(void)
{
	cr_assert_eq(unlink(mods_path), 0);
}

static void rebooted(void)
{
	write_str(boot_path, BOOT_B "\n");
}

static void new_release(void)
{
	src.release = "6.1.0-test2";
}

static void kaslr_moved(void)
{
	char text[] = "ffffffff82000000 T _stext\nffffffff82001000 t other\n";

	write_str(ksyms_path, text);
}

Test(kallsyms_cache, loaded_module_invalidates) { invalidated_by(module_loaded); }
Test(kallsyms_cache, moved_module_invalidates) { invalidated_by(module_moved); }
Test(kallsyms_cache, module_state_invalidates) { invalidated_by(module_state); }
Test(kallsyms_cache, no_modules_file_invalidates) { invalidated_by(modules_gone); }
Test(kallsyms_cache, boot_id_invalidates) { invalidated_by(rebooted); }
Test(kallsyms_cache, release_invalidates) { invalidated_by(new_release); }
Test(kallsyms_cache, first_text_address_invalidates) { invalidated_by(kaslr_moved); }

Test(kallsyms_cache, bad_boot_id_means_no_cache)
{
	struct kallsyms_cache_status st;

	write_str(boot_path, "not a boot id\n");
	cr_assert_eq(load_once(&st), 0);
	cr_assert_eq(st.read_err, -EINVAL);
	cr_assert_eq(st.write_err, 1);
	cr_assert(!cache_file_exists());
	src.boot_id = "/nonexistent/boot_id";
	cr_assert_eq(load_once(&st), 0);
	cr_assert_eq(st.read_err, -ENOENT);
	cr_assert(!cache_file_exists());
}

Test(kallsyms_cache, restricted_table_is_never_written)
{
	struct kallsyms_cache_status st;
	struct strtab *names = strtab__new();
	struct kallsyms *k = NULL;

	src.kallsyms = SYMBOLIZE_FIXTURES_SRCDIR "/kallsyms_restricted.txt";
	cr_assert_eq(load(names, &k, &st), 0);
	cr_assert_eq(st.read_err, -EPERM);
	cr_assert_eq(st.write_err, 1);
	cr_assert(kallsyms__restricted(k));
	cr_assert(!cache_file_exists());
	kallsyms__delete(k);
	strtab__delete(names);
}

Test(kallsyms_cache, restricted_reader_is_not_served_a_cache)
{
	struct kallsyms_cache_status st;
	struct strtab *names = strtab__new();
	struct kallsyms *k = NULL;
	uint32_t id;

	/* written by a process that saw the addresses ... */
	cr_assert_eq(load_once(NULL), 0);
	cr_assert(cache_file_exists());
	/* ... then kptr_restrict hides them (same boot, same modules) */
	src.kallsyms = SYMBOLIZE_FIXTURES_SRCDIR "/kallsyms_restricted.txt";
	cr_assert_eq(load(names, &k, &st), 0);
	cr_assert_eq(st.read_err, -EPERM);
	cr_assert(kallsyms__restricted(k));
	cr_assert_eq(kallsyms__lookup(k, 0xffffffff81000040ull, &id), 0);
	cr_assert_str_eq(strtab__str(names, id), "[kernel]_[k]");
	kallsyms__delete(k);
	strtab__delete(names);
}

static size_t read_cache(unsigned char **buf)
{
	char p[256];
	struct stat sb;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", cache_path, KALLSYMS_CACHE_NAME);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	cr_assert_eq(fstat(fd, &sb), 0);
	*buf = malloc((size_t)sb.st_size);
	cr_assert_not_null(*buf);
	cr_assert_eq(read(fd, *buf, (size_t)sb.st_size), sb.st_size);
	close(fd);
	return (size_t)sb.st_size;
}

static void put_cache(const unsigned char *buf, size_t len)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", cache_path, KALLSYMS_CACHE_NAME);
	write_file(p, (const char *)buf, len);
	cr_assert_eq(chmod(p, 0600), 0);
}

/* The damaged file is rejected (-EBADMSG), the table parsed as usual, and
 * the file replaced by a good one. */
static void rejected_and_replaced(const unsigned char *img, size_t len)
{
	struct kallsyms_cache_status st;
	struct strtab *names = strtab__new();
	struct kallsyms *k = NULL;

	put_cache(img, len);
	cr_assert_eq(load(names, &k, &st), 0);
	cr_assert_eq(st.read_err, -EBADMSG, "len %zu: read_err %d", len, st.read_err);
	cr_assert_eq(st.write_err, 0);
	same_lookups_step(ksyms_path, k, names, 0x1003);
	kallsyms__delete(k);
	strtab__delete(names);
	cr_assert_eq(load_once(&st), 1);
}

Test(kallsyms_cache, truncated_file_is_rejected_and_replaced)
{
	size_t cuts[] = { 0, 1, 8, 100, 191, 192, 193, 1000, 0 };
	unsigned char *img;
	size_t len, i;

	cr_assert_eq(load_once(NULL), 0);
	len = read_cache(&img);
	cuts[sizeof(cuts) / sizeof(cuts[0]) - 1] = len - 1;
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		rejected_and_replaced(img, cuts[i]);
	free(img);
}

Test(kallsyms_cache, flipped_bits_are_rejected_and_replaced)
{
	unsigned char *img, *copy;
	size_t len, i;
	unsigned seed = 12345;

	cr_assert_eq(load_once(NULL), 0);
	len = read_cache(&img);
	copy = malloc(len);
	cr_assert_not_null(copy);
	/* the header's first 64 bytes (structure and key numbers: the header
	 * hash fails before the key is compared), then spread over the
	 * payload, and the very last byte */
	for (i = 0; i < 200; i++) {
		size_t at;

		if (i < 64) {
			at = i;
		} else if (i < 199) {
			seed = seed * 1103515245u + 12345u;
			at = 192 + (seed >> 4) % (len - 192);
		} else {
			at = len - 1;
		}
		memcpy(copy, img, len);
		copy[at] ^= (unsigned char)(1u << (i % 8));
		rejected_and_replaced(copy, len);
	}
	/* a power cut after rename: zeros */
	memset(copy, 0, len);
	rejected_and_replaced(copy, len);
	/* an appended byte */
	{
		unsigned char *longer = malloc(len + 1);

		cr_assert_not_null(longer);
		memcpy(longer, img, len);
		longer[len] = 0;
		rejected_and_replaced(longer, len + 1);
		free(longer);
	}
	free(copy);
	free(img);
}

Test(kallsyms_cache, file_not_private_is_not_read_and_replaced)
{
	struct kallsyms_cache_status st;
	char p[256];

	cr_assert_eq(load_once(NULL), 0);
	snprintf(p, sizeof(p), "%s/%s", cache_path, KALLSYMS_CACHE_NAME);
	cr_assert_eq(chmod(p, 0644), 0);
	cr_assert_eq(load_once(&st), 0);
	cr_assert_eq(st.read_err, -EPERM);
	cr_assert_eq(st.write_err, 0);
	cr_assert_eq(load_once(&st), 1);
}

Test(kallsyms_cache, read_without_key_and_with_another_key)
{
	struct kallsyms_cache_key key;
	struct strtab *names = strtab__new();
	struct kallsyms *k = NULL;
	char p[256];
	int fd;

	cr_assert_eq(load_once(NULL), 0);
	snprintf(p, sizeof(p), "%s/%s", cache_path, KALLSYMS_CACHE_NAME);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	cr_assert_eq(kallsyms_cache__read(fd, NULL, names, &k), 0);
	same_lookups(ksyms_path, k, names);
	kallsyms__delete(k);
	k = NULL;
	cr_assert_eq(kallsyms_cache__key(&src, &key), 0);
	cr_assert_eq(kallsyms_cache__read(fd, &key, names, &k), 0);
	kallsyms__delete(k);
	k = NULL;
	key.modules_hash ^= 1;
	cr_assert_eq(kallsyms_cache__read(fd, &key, names, &k), -ESTALE);
	cr_assert_null(k);
	close(fd);
	strtab__delete(names);
}

/* kallsyms__from_arrays: what a parse never makes is refused. */
static int adopt(uint32_t *syms, size_t n, uint32_t *hi, const char *blob, size_t blob_len)
{
	struct kallsyms_arrays a;
	struct strtab *names = strtab__new();
	struct kallsyms *k = NULL;
	int err;

	memset(&a, 0, sizeof(a));
	a.n = n;
	a.syms = malloc(n * KALLSYMS_SYM_SIZE + 1);
	a.hi = hi ? malloc(n * sizeof(*hi)) : NULL;
	a.blob = malloc(blob_len + 1);
	a.base = 0xffffffffu;
	a.blob_len = blob_len;
	memcpy(a.syms, syms, n * KALLSYMS_SYM_SIZE);
	if (hi)
		memcpy(a.hi, hi, n * sizeof(*hi));
	memcpy(a.blob, blob, blob_len);
	err = kallsyms__from_arrays(names, &a, &k);
	if (err) {
		cr_assert_null(k);
		free(a.syms);
		free(a.hi);
		free(a.blob);
	} else {
		uint32_t id;

		cr_assert_eq(kallsyms__lookup(k, 0xffffffff81000001ull, &id), 0);
		cr_assert_str_eq(strtab__str(names, id), "a_[k]");
		kallsyms__delete(k);
	}
	strtab__delete(names);
	return err;
}

Test(kallsyms_cache, from_arrays_refuses_what_a_parse_never_makes)
{
	static const char blob[] = "a\0bb\0ccc"; /* 9 bytes with the last NUL */
	uint32_t good[] = { 0x81000000, 0, 0x81001000, 2, 0x81002000, 5 };
	uint32_t t[6], hi[3] = { 0xffffffff, 0xffffffff, 0xffffffff };

	cr_assert_eq(adopt(good, 3, NULL, blob, sizeof(blob)), 0);
	cr_assert_eq(adopt(good, 3, hi, blob, sizeof(blob)), 0);
	/* unsorted, duplicate address */
	memcpy(t, good, sizeof(t));
	t[2] = 0x80000000;
	cr_assert_eq(adopt(t, 3, NULL, blob, sizeof(blob)), -EBADMSG);
	t[2] = 0x81000000;
	cr_assert_eq(adopt(t, 3, NULL, blob, sizeof(blob)), -EBADMSG);
	/* unsorted through the upper halves */
	hi[2] = 0x7fffffff;
	cr_assert_eq(adopt(good, 3, hi, blob, sizeof(blob)), -EBADMSG);
	/* name outside the blob, at its final NUL, the interned tag, mid-string */
	memcpy(t, good, sizeof(t));
	t[5] = 9;
	cr_assert_eq(adopt(t, 3, NULL, blob, sizeof(blob)), -EBADMSG);
	t[5] = 8;
	cr_assert_eq(adopt(t, 3, NULL, blob, sizeof(blob)), -EBADMSG);
	t[5] = 0x80000005u;
	cr_assert_eq(adopt(t, 3, NULL, blob, sizeof(blob)), -EBADMSG);
	t[5] = 6;
	cr_assert_eq(adopt(t, 3, NULL, blob, sizeof(blob)), -EBADMSG);
	/* empty name, blob not NUL-terminated, empty table */
	t[5] = 1;
	cr_assert_eq(adopt(t, 3, NULL, blob, sizeof(blob)), -EBADMSG);
	cr_assert_eq(adopt(good, 3, NULL, blob, sizeof(blob) - 1), -EBADMSG);
	cr_assert_eq(adopt(good, 0, NULL, blob, sizeof(blob)), -EBADMSG);
}

Test(kallsyms_cache, first_text_reads_only_to_the_first_function)
{
	char text[] = "0000000000000000 A fixed_percpu_data\n"
		      "0000000000001000 A cpu_debug_store\n"
		      "ffffffff81000000 T __pfx_startup_64\n"
		      "ffffffff81000010 T startup_64\n";
	uint64_t a = 1;

	write_str(ksyms_path, text);
	cr_assert_eq(kallsyms__first_text(ksyms_path, &a), 0);
	cr_assert_eq(a, 0xffffffff81000010ull);
	write_str(ksyms_path, "0000000000000000 A x\n0000000000000000 D y\n");
	a = 1;
	cr_assert_eq(kallsyms__first_text(ksyms_path, &a), -ENODATA);
	cr_assert_eq(a, 1);
	cr_assert_eq(kallsyms__first_text("/nonexistent", &a), -ENOENT);
}
