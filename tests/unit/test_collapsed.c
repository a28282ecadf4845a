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

/* Grouped per thread: the thread's frame below the comm. */
Test(collapsed, thread_frame_below_the_comm)
{
	struct profile_key k = key("s", "/e", "app", -1);
	uint32_t st[2] = {id("start_thread"), id("work")};
	char *text;

	profile__reset(prof);
	k.thread = id("worker-a");
	cr_assert_eq(profile__add(prof, &k, st, 2, 2), 0);
	cr_assert_eq(profile__add(prof, &k, NULL, 0, 1), 0);
	k.thread = id("we;ird");
	cr_assert_eq(profile__add(prof, &k, st, 2, 3), 0);
	k.thread = id("");
	cr_assert_eq(profile__add(prof, &k, st, 1, 4), 0);
	text = capture_collapsed(COLLAPSED_WITH_COMM);
	cr_assert_str_eq(text,
			 "app;[thread we:ird];start_thread;work 3\n"
			 "app;[thread worker-a] 1\n"
			 "app;[thread worker-a];start_thread;work 2\n"
			 "app;[unknown thread];start_thread 4\n");
	free(text);
	text = capture_collapsed(0);
	cr_assert_str_eq(text,
			 "[thread we:ird];start_thread;work 3\n"
			 "[thread worker-a] 1\n"
			 "[thread worker-a];start_thread;work 2\n"
			 "[unknown thread];start_thread 4\n");
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

/* A user's process frame says whose it is: never root's frame. */
Test(collapsed, user_process_frames)
{
	struct profile_key k = key("s", "/e", "postgres", -1);
	uint32_t st[1] = {id("work")};
	char *text;

	profile__reset(prof);
	cr_assert_eq(profile__add(prof, &k, st, 1, 2), 0);
	k.user = id("alice");
	cr_assert_eq(profile__add(prof, &k, st, 1, 3), 0);
	k.user = id("b;b");
	cr_assert_eq(profile__add(prof, &k, st, 1, 1), 0);
	text = capture_collapsed(COLLAPSED_WITH_COMM);
	cr_assert_str_eq(text,
			 "postgres;work 2\n"
			 "postgres@alice;work 3\n"
			 "postgres@b:b;work 1\n");
	free(text);
	text = capture_collapsed(0);
	cr_assert_str_eq(text, "work 6\n");
	free(text);
}
