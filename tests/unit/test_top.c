/* export/top: the self/total table. */
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
		cr_assert_leq(strlen(line), 100, "line too wide: %s", line);
		if (strstr(line, "xxx")) {
			rows++;
			cr_assert(strstr(line, "x..."), "long name not cut: %s", line);
		}
	}
	/* n = 1: only the long function (hottest by self and by total). */
	cr_assert_eq(rows, 2);
	free(text);
}
