/* export/collapsed: "comm;root;...;leaf count" lines. */
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

#include "export/collapsed.h"
#include "tests/unit/profile_fixture.h"

static char *capture_collapsed(unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(collapsed__write(prof, f, flags), 0);
	fclose(f);
	return buf;
}

TestSuite(collapsed, .init = setup, .fini = teardown);

Test(collapsed, with_comm_merges_groups)
{
	char *text = capture_collapsed(COLLAPSED_WITH_COMM);

	cr_assert_str_eq(text,
			 "app 1\n"
			 "app;main;bar_[i] 2\n"
			 "app;main;foo_[k] 7\n"
			 "other;main 1\n"
			 "other;main;bar_[i];bar_[i] 5\n");
	free(text);
}

Test(collapsed, without_comm_skips_empty)
{
	char *text = capture_collapsed(0);

	cr_assert_str_eq(text,
			 "main 1\n"
			 "main;bar_[i] 2\n"
			 "main;bar_[i];bar_[i] 5\n"
			 "main;foo_[k] 7\n");
	free(text);
}

Test(collapsed, sanitizes_and_unknown)
{
	struct profile_key k = key("s", "/e", "we;ird\ncomm", -1);
	uint32_t st[3] = {id("x;y"), 0, 99999};
	char *text;

	profile__reset(prof);
	cr_assert_eq(profile__add(prof, &k, st, 3, 2), 0);
	text = capture_collapsed(COLLAPSED_WITH_COMM);
	cr_assert_str_eq(text, "we:ird?comm;x:y;[unknown];[unknown] 2\n");
	free(text);
}
