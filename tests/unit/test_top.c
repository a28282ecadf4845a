/* export/top: the self/total table, and the diff of a profile against a base. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "export/top.h"
#include "tests/unit/profile_fixture.h"
#include "tests/unit/report_fixture.h"

static char *capture_top(size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(top__write(prof, &agent, f, n), 0);
	fclose(f);
	return buf;
}

TestSuite(top, .init = setup, .fini = teardown);

Test(top, self_and_total)
{
	char *text = capture_top(10);
	char *by_total;

	cr_assert(strstr(text, "samples: 16  profiles: 3  processes: 41"), "%s", text);
	by_total = strstr(text, "by total");
	cr_assert_not_null(by_total);
	/* bar_[i]: leaf of 2+5 samples; recursion counted once in total. */
	cr_assert(strstr(text, " 43.75%          7  43.75%          7  bar_[i]\n"), "%s", text);
	cr_assert(strstr(text, " 43.75%          7  43.75%          7  foo_[k]\n"), "%s", text);
	cr_assert(strstr(text, "  6.25%          1  93.75%         15  main\n"), "%s", text);
	/* First row of each table. */
	cr_assert(strstr(text, "function\n 43.75%          7  43.75%          7  bar_[i]\n"), "%s", text);
	cr_assert(strstr(by_total, "function\n  6.25%          1  93.75%         15  main\n"), "%s",
		  text);
	free(text);
}

/* Columns of a line: a UTF-8 code point is one. */
static size_t columns(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

Test(top, limits_rows_and_width)
{
	char longname[300];
	struct profile_key k = key("svc", "/bin/app", "app", -1);
	uint32_t st[1];
	char *text, *line, *save = NULL;
	int rows = 0;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	st[0] = id(longname);
	cr_assert_eq(profile__add(prof, &k, st, 1, 1000), 0);
	text = capture_top(1);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cr_assert_leq(columns(line), 100, "line too wide: %s", line);
		if (strstr(line, "xxx")) {
			rows++;
			cr_assert(strstr(line, "x\xe2\x80\xa6x"), "long name not cut: %s", line);
		}
	}
	/* n = 1: only the long function (hottest by self and by total). */
	cr_assert_eq(rows, 2);
	free(text);
}

/* Template code: names that share a long start and differ at the end (the
 * function's own name) are shortened in the middle, so they stay apart. */
Test(top, long_names_differing_at_the_end)
{
	static const char prefix[] = "std::vector<std::pair<std::basic_string<char>, std::map<int, "
				     "std::shared_ptr<ns::Widget<double, 3> > > > >::";
	struct profile_key k = key("svc", "/bin/app", "app", -1);
	char a[256], b[256];
	uint32_t st[1];
	char *text;

	snprintf(a, sizeof(a), "%soperator[](unsigned long)", prefix);
	snprintf(b, sizeof(b), "%spush_back(value_type const&)", prefix);
	st[0] = id(a);
	cr_assert_eq(profile__add(prof, &k, st, 1, 500), 0);
	st[0] = id(b);
	cr_assert_eq(profile__add(prof, &k, st, 1, 400), 0);
	text = capture_top(2);
	cr_assert(strstr(text, "\xe2\x80\xa6"), "not shortened: %s", text);
	cr_assert(strstr(text, "::operator[](unsigned long)\n"), "%s", text);
	cr_assert(strstr(text, "::push_back(value_type const&)\n"), "%s", text);
	cr_assert(strstr(text, "  std::vector<std::pair<"), "the start is kept: %s", text);
	free(text);
}

/* Names that differ only where the middle is cut would print the same:
 * both are printed whole, wrapped, and no two rows read alike. */
Test(top, ambiguous_shortenings_print_whole)
{
	struct profile_key k = key("svc", "/bin/app", "app", -1);
	char a[200], b[200], *text, *line, *save = NULL;
	uint32_t st[1];
	size_t i;

	for (i = 0; i < sizeof(a) - 1; i++)
		a[i] = b[i] = (char)('a' + i % 26);
	a[sizeof(a) - 1] = b[sizeof(b) - 1] = '\0';
	a[100] = 'X';
	b[100] = 'Y';
	st[0] = id(a);
	cr_assert_eq(profile__add(prof, &k, st, 1, 500), 0);
	st[0] = id(b);
	cr_assert_eq(profile__add(prof, &k, st, 1, 400), 0);
	text = capture_top(2);
	cr_assert_null(strstr(text, "\xe2\x80\xa6"), "shortened although ambiguous: %s", text);
	/* each whole name is there, over continuation lines */
	cr_assert(strstr(text, "X"), "%s", text);
	cr_assert(strstr(text, "Y"), "%s", text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		cr_assert_leq(columns(line), 100, "line too wide: %s", line);
	free(text);
}

/* --- top --diff ----------------------------------------------------------- */

static char *diff_text(const char *now_file, const char *base_file, size_t n)
{
	const char *nf[] = {now_file, NULL}, *bf[] = {base_file, NULL};
	/* Separate string tables: the diff matches functions by name. */
	struct strtab *n1 = strtab__new(), *n2 = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *a, *b;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	filter_init(&f);
	a = merge(n1, &f, nf);
	b = merge(n2, &f, bf);
	cr_assert_eq(top__write_diff(dump_merge__profile(a), dump_merge__profile(b), out, n), 0);
	fclose(out);
	dump_merge__delete(a);
	dump_merge__delete(b);
	strtab__delete(n1);
	strtab__delete(n2);
	return buf;
}

/* Rows of a diff table: lines that start with a percentage. */
static size_t rows(const char *text, size_t *nonzero)
{
	const char *line = text;
	size_t n = 0;

	*nonzero = 0;
	while (line && *line) {
		char b[16], s[16], c[16];

		if (sscanf(line, "%15s %15s %15s", b, s, c) == 3 && strchr(b, '%') && b[0] != 'b') {
			n++;
			if (strcmp(c, "0.00%") != 0)
				(*nonzero)++;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return n;
}

Test(top, diff_against_itself_shows_no_change)
{
	char *t = diff_text("a.json", "a.json", 0);
	size_t nonzero, n = rows(t, &nonzero);

	cr_assert_eq(n, 5, "functions with self samples: %s", t);
	cr_assert_eq(nonzero, 0, "%s", t);
	cr_assert_not_null(strstr(t, "samples: 15  base samples: 15"), "%s", t);
	free(t);

	/* Merged a+b against a: same shares, so no change either. */
	t = diff_text("b.json", "a.json", 0);
	n = rows(t, &nonzero);
	cr_assert_eq(nonzero, 0, "%s", t);
	free(t);
}

Test(top, diff_shows_changes_sorted)
{
	char *t = diff_text("c.json", "a.json", 3);
	size_t nonzero, n = rows(t, &nonzero);
	const char *first;

	cr_assert_eq(n, 3, "%s", t);
	cr_assert_eq(nonzero, 3, "%s", t);
	/* c: parse_inline 4/5 = 80% (a: 20%), the largest change. */
	first = strstr(t, "+60.00%");
	cr_assert_not_null(first, "%s", t);
	cr_assert_not_null(strstr(first, "ngx_http_parse_inline_[i]"), "%s", t);
	cr_assert_not_null(strstr(t, "-40.00%"), "do_epoll_wait_[k] disappeared: %s", t);
	free(t);
}

/* top__write of a merge of fixtures (by thread or not), without the
 * agent's counters, as report writes a part of its windows. */
static char *merged_top(const char *const *files, int by_thread, const struct dump_merge_filter *f)
{
	struct strtab *tab = strtab__new();
	struct dump_merge *m = merge_grouped(tab, f, files, by_thread);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	cr_assert_not_null(out);
	cr_assert_eq(top__write(dump_merge__profile(m), NULL, out, 0), 0);
	fclose(out);
	dump_merge__delete(m);
	strtab__delete(tab);
	return buf;
}

/* Grouped per thread: a section per (process, thread), largest first,
 * percentages of the thread's own samples. */
Test(top, a_section_per_thread)
{
	static const char *const files[] = {"threads.json", NULL};
	struct dump_merge_filter f;
	char *t;
	const char *a, *b, *u;

	filter_init(&f);
	t = merged_top(files, 1, &f);
	a = strstr(t, "\napp / worker-a: 6 samples (60.00%)\n");
	b = strstr(t, "\napp / worker-b: 3 samples (30.00%)\n");
	u = strstr(t, "\napp / [unknown thread]: 1 sample (10.00%)\n");
	cr_assert(a && b && u && a < b && b < u, "%s", t);
	cr_assert(strstr(a, "100.00%          6 100.00%          6  spin_a\n") < b, "%s", t);
	cr_assert(strstr(b, "100.00%          3 100.00%          3  spin_b\n") < u, "%s", t);
	cr_assert_null(strstr(b, "spin_a"), "worker-a's function under worker-b: %s", t);
	free(t);

	/* not grouped per thread: one table, as before */
	t = merged_top(files, 0, &f);
	cr_assert_null(strstr(t, "worker-a"), "%s", t);
	cr_assert(strstr(t, " 90.00%          9  90.00%          9  spin_a") == NULL, "%s", t);
	cr_assert(strstr(t, " 60.00%          6  60.00%          6  spin_a\n"), "%s", t);
	free(t);
}

/* Without the agent's counters (a part of the windows' profiles) the
 * header says only what the kept stacks say. */
Test(top, header_of_what_was_kept)
{
	static const char *const files[] = {"a.json", "threads.json", "c.json", NULL};
	static const char want[] = "samples: 10  profiles: 1  functions: 7\n"
				   "cut short ([truncated]): 1 of 10 samples\n"
				   "span: 2025-11-21T16:00:30Z to 2025-11-21T16:00:40Z (10.0 s)\n\n";
	struct dump_merge_label l[1] = { { "comm", "app" } };
	struct dump_merge_filter f;
	char *t;

	filter_init(&f);
	f.labels = l;
	f.nlabels = 1;
	t = merged_top(files, 0, &f);
	cr_assert(!strncmp(t, want, strlen(want)), "%s", t);
	free(t);

	/* distinct pids, when the profiles carry them */
	l[0].name = "env", l[0].value = "staging";
	t = merged_top(files, 0, &f);
	cr_assert(!strncmp(t, "samples: 5  profiles: 2  processes: 2  functions: 6\n",
			   strlen("samples: 5  profiles: 2  processes: 2  functions: 6\n")), "%s", t);
	free(t);
}

/* Per thread, a user's process is a section of its own ("comm@USER"),
 * never part of root's process of the same name. */
Test(top, a_users_threads_are_not_roots)
{
	struct profile_key k = key("svc", "/bin/app", "app", -1);
	uint32_t fa = id("spin_root"), fb = id("spin_user");
	char *t;
	const char *r, *u;

	profile__reset(prof);
	k.thread = id("worker");
	cr_assert_eq(profile__add(prof, &k, &fa, 1, 3), 0);
	k.user = id("alice");
	cr_assert_eq(profile__add(prof, &k, &fb, 1, 1), 0);
	t = capture_top(0);
	r = strstr(t, "\napp / worker: 3 samples (75.00%)\n");
	u = strstr(t, "\napp@alice / worker: 1 sample (25.00%)\n");
	cr_assert(r && u && r < u, "%s", t);
	cr_assert_null(strstr(u, "spin_root"), "root's function under the user's: %s", t);
	free(t);
}
