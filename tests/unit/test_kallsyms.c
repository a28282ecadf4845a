/* symbolize/kallsyms: kernel symbols from /proc/kallsyms text. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <inttypes.h>

#include "symbolize/kallsyms.h"
#include "tests/unit/symfix.h"

TestSuite(kallsyms, .init = setup, .fini = teardown);

Test(kallsyms, parses_text_symbols_and_skips_malformed_lines)
{
	struct kallsyms *k = NULL;
	uint32_t id1, id2;

	cr_assert_eq(kallsyms__load(source("kallsyms.txt"), names, &k), 0);
	cr_assert_eq(kallsyms__restricted(k), 0);
	/* _stext/_text_alias share an address; data, bad and overlong lines dropped */
	cr_assert_eq(kallsyms__count(k), 8);
	cr_assert_str_eq(klookup(k, 0xffffffff81000000ull), "_stext_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81000fffull), "_stext_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81001004ull), "do_one_initcall_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81002010ull), "local_helper_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81003008ull), "weak_func_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81007008ull), "name_with_module_end_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81009001ull), "after_long_line_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffffc0100010ull), "ext4_fill_super_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffffc0101010ull), "ext4_sync_fs_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff80000000ull), "[kernel]_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffffc0101000ull + (2u << 20)), "[kernel]_[k]");
	cr_assert_eq(kallsyms__lookup(k, 0xffffffff81001004ull, &id1), 0);
	cr_assert_eq(kallsyms__lookup(k, 0xffffffff81001004ull, &id2), 0);
	cr_assert_eq(id1, id2);
	kallsyms__delete(k);
}

Test(kallsyms, restricted_when_all_addresses_zero)
{
	struct kallsyms *k = NULL;

	cr_assert_eq(kallsyms__load(source("kallsyms_restricted.txt"), names, &k), 0);
	cr_assert_eq(kallsyms__restricted(k), 1);
	cr_assert_str_eq(klookup(k, 0xffffffff81001004ull), "[kernel]_[k]");
	cr_assert_str_eq(klookup(k, 0), "[kernel]_[k]");
	kallsyms__delete(k);
	cr_assert_eq(kallsyms__load("/nonexistent/kallsyms", names, &k), -ENOENT);
	kallsyms__delete(NULL);
}

/* A temporary kallsyms file holding text[0..len). */
static void kallsyms_tmp(char *path, const char *text, size_t len)
{
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	close(fd);
	write_file(path, text, len);
}

Test(kallsyms, skips_pfx_padding_labels)
{
	static const char text[] =
		"ffffffff81000000 T __pfx_first\n"
		"ffffffff81000010 T first\n"
		"ffffffff81000040 t __pfx_second\n"
		"ffffffff81000050 t second\n"
		/* a padding label aliasing a real symbol no longer hides it */
		"ffffffff81000080 T __pfx_third\n"
		"ffffffff81000080 t second_end\n"
		"ffffffff81000090 T third\n"
		"ffffffff810000c0 T __pfxnot_a_label\n";
	char path[] = "/tmp/smolder-kallsyms-XXXXXX";
	struct kallsyms *k = NULL;

	kallsyms_tmp(path, text, sizeof(text) - 1);
	cr_assert_eq(kallsyms__load(path, names, &k), 0);
	cr_assert_eq(kallsyms__count(k), 5);
	/* nothing before the first function's padding */
	cr_assert_str_eq(klookup(k, 0xffffffff81000005ull), "[kernel]_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81000010ull), "first_[k]");
	/* a pc in the padding is attributed to the preceding function */
	cr_assert_str_eq(klookup(k, 0xffffffff81000045ull), "first_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff8100004full), "first_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81000050ull), "second_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81000088ull), "second_end_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81000090ull), "third_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff810000c4ull), "__pfxnot_a_label_[k]");
	kallsyms__delete(k);
	unlink(path);
}

Test(kallsyms, stats_count_lookups_and_hits)
{
	struct kallsyms_stats st;
	struct kallsyms *k = NULL;

	cr_assert_eq(kallsyms__load(source("kallsyms.txt"), names, &k), 0);
	kallsyms__stats(k, &st);
	cr_assert_eq(st.lookups, 0);
	cr_assert_eq(st.hits, 0);
	cr_assert_eq(st.entries, 0);
	cr_assert_eq(st.evictions, 0);
	cr_assert_str_eq(klookup(k, 0xffffffff81001004ull), "do_one_initcall_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81001004ull), "do_one_initcall_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81001008ull), "do_one_initcall_[k]");
	/* misses of every symbol are cached too */
	cr_assert_str_eq(klookup(k, 0x1000), "[kernel]_[k]");
	cr_assert_str_eq(klookup(k, 0x1000), "[kernel]_[k]");
	kallsyms__stats(k, &st);
	cr_assert_eq(st.lookups, 5);
	cr_assert_eq(st.hits, 2);
	cr_assert_eq(st.entries, 3);
	cr_assert_eq(st.evictions, 0);
	kallsyms__delete(k);
}

Test(kallsyms, cache_is_bounded_and_answers_stay_right)
{
	/* more distinct pcs than the cache holds */
	const uint32_t distinct = KALLSYMS_CACHE_MAX + 4464;
	uint32_t want_ext4, want_init, id, i, round, wrong = 0;
	struct kallsyms_stats st;
	struct kallsyms *k = NULL;

	cr_assert_eq(kallsyms__load(source("kallsyms.txt"), names, &k), 0);
	cr_assert_eq(strtab__intern_cstr(names, "ext4_sync_fs_[k]", &want_ext4), 0);
	cr_assert_eq(strtab__intern_cstr(names, "do_one_initcall_[k]", &want_init), 0);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < distinct; i++) {
			/* within 1 MiB of ext4_sync_fs, and a few hot pcs */
			cr_assert_eq(kallsyms__lookup(k, 0xffffffffc0101000ull + i, &id), 0);
			wrong += id != want_ext4;
			cr_assert_eq(kallsyms__lookup(k, 0xffffffff81001000ull + (i & 0xff), &id), 0);
			wrong += id != want_init;
		}
	}
	cr_assert_eq(wrong, 0);
	kallsyms__stats(k, &st);
	cr_assert_eq(st.lookups, 4ull * distinct);
	cr_assert_gt(st.evictions, 0);
	cr_assert_leq(st.entries, KALLSYMS_CACHE_MAX);
	cr_assert_gt(st.hits, 0);
	/* every miss adds one pc, which is either still cached or was evicted */
	cr_assert_eq(st.entries + st.evictions, st.lookups - st.hits);
	kallsyms__delete(k);
}

static void kallsyms_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n > *cap) {
		*cap = (*len + n) * 2;
		*buf = realloc(*buf, *cap);
		cr_assert_not_null(*buf);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
}

/* Several read buffers' worth of lines of every length, so lines straddle
 * buffer boundaries at many offsets; overlong lines (one longer than any read
 * buffer) in between; CRLF endings; no newline at the end. */
Test(kallsyms, splits_lines_across_read_buffers)
{
	const unsigned nlines = 3000;
	char path[] = "/tmp/smolder-kallsyms-XXXXXX";
	size_t len = 0, cap = 0;
	char *text = NULL, line[80000], want[600];
	struct kallsyms *k = NULL;
	unsigned i, wrong = 0;
	int n;

	/* the longest line kept (510 bytes), past the end of the others */
	n = snprintf(line, sizeof(line), "%016" PRIx64 " T ", (uint64_t)0xffffffff90000000ull);
	memset(line + n, 'k', 510 - (size_t)n);
	line[510] = '\n';
	kallsyms_append(&text, &len, &cap, line, 511);
	for (i = 0; i < nlines; i++) {
		/* lines of ~20 to ~505 bytes, varying by 37 from one to the next */
		n = snprintf(line, sizeof(line), "%016" PRIx64 " %c n%u_%0*u%s",
			     (uint64_t)(0xffffffff81000000ull + i * 0x100ull), "tTwW"[i & 3], i,
			     (int)((i * 37u) % 480u), 0u, i % 5 == 0 ? "\r\n" : i + 1 < nlines ? "\n" : "");
		kallsyms_append(&text, &len, &cap, line, (size_t)n);
		if (i % 97 == 0 && i + 1 < nlines) {
			/* dropped whole: these would otherwise be the nearest symbol */
			size_t over = i == 970 ? 70000 : 511 + i % 300, hdr;

			hdr = (size_t)snprintf(line, sizeof(line), "%016" PRIx64 " T ",
					       (uint64_t)(0xffffffff81000000ull + i * 0x100ull + 0x80));
			memset(line + hdr, 'o', over - hdr);
			line[over] = '\n';
			kallsyms_append(&text, &len, &cap, line, over + 1);
		}
	}
	cr_assert_gt(len, 4 * 65536);
	kallsyms_tmp(path, text, len);
	cr_assert_eq(kallsyms__load(path, names, &k), 0);
	cr_assert_eq(kallsyms__count(k), nlines + 1);
	for (i = 0; i < nlines; i++) {
		uint32_t id;

		snprintf(want, sizeof(want), "n%u_%0*u_[k]", i, (int)((i * 37u) % 480u), 0u);
		cr_assert_eq(kallsyms__lookup(k, 0xffffffff81000000ull + i * 0x100ull + 0xff, &id), 0);
		wrong += strcmp(strtab__str(names, id), want) != 0;
	}
	cr_assert_eq(wrong, 0);
	memset(want, 'k', 510 - 19);
	memcpy(want + 510 - 19, "_[k]", 5);
	cr_assert_str_eq(klookup(k, 0xffffffff90000001ull), want);
	kallsyms__delete(k);
	unlink(path);
	free(text);
}

Test(kallsyms, drops_overlong_lines)
{
	static const char head[] =
		"ffffffff81000000 T before\n"
		/* NUL ends the name; the rest of the line is ignored */
		"ffffffff81001000 T nul\0junk\n"
		"ffffffff81002000 T ";
	char path[] = "/tmp/smolder-kallsyms-XXXXXX";
	size_t over = 100000, hlen = sizeof(head) - 1;
	struct kallsyms *k = NULL;
	char *text = malloc(hlen + over + 4096);
	size_t len;

	cr_assert_not_null(text);
	/* 511 bytes without the newline: one too many */
	memcpy(text, head, hlen);
	memset(text + hlen, 'x', 511 - 19);
	len = hlen + 511 - 19;
	len += (size_t)sprintf(text + len, "\nffffffff81003000 T after\n");
	/* an unterminated last line longer than any read buffer */
	len += (size_t)sprintf(text + len, "ffffffff81004000 T ");
	memset(text + len, 'y', over);
	len += over;
	kallsyms_tmp(path, text, len);
	cr_assert_eq(kallsyms__load(path, names, &k), 0);
	cr_assert_eq(kallsyms__count(k), 3);
	cr_assert_str_eq(klookup(k, 0xffffffff81001001ull), "nul_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81002001ull), "nul_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81003001ull), "after_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81004001ull), "after_[k]");
	kallsyms__delete(k);
	unlink(path);
	free(text);
}

/* Addresses whose upper halves differ take the wide path of the table. */
Test(kallsyms, mixed_upper_address_halves)
{
	static const char text[] =
		"ffffffff81000000 T high\n"
		"0000000100000008 T low_upper_one\n"
		"00000000fffffff0 t below_4g\n"
		"ffffffff81000000 t high_alias\n"
		"ffff800000001000 W arm_like\n";
	char path[] = "/tmp/smolder-kallsyms-XXXXXX";
	struct kallsyms *k = NULL;

	kallsyms_tmp(path, text, sizeof(text) - 1);
	cr_assert_eq(kallsyms__load(path, names, &k), 0);
	cr_assert_eq(kallsyms__count(k), 4);
	cr_assert_str_eq(klookup(k, 0xfffffff8ull), "below_4g_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffffull), "below_4g_[k]");
	/* the nearest start below is in the other upper half */
	cr_assert_str_eq(klookup(k, 0x100000000ull), "below_4g_[k]");
	cr_assert_str_eq(klookup(k, 0x100000008ull), "low_upper_one_[k]");
	cr_assert_str_eq(klookup(k, 0xffff800000001234ull), "arm_like_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff81000010ull), "high_[k]");
	cr_assert_str_eq(klookup(k, 0xffffffff80000000ull), "[kernel]_[k]");
	kallsyms__delete(k);
	unlink(path);
}
