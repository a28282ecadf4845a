/* collector/procmaps.c: /proc/PID/maps lines parsed, and files of them read. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "collector/procmaps.h"

static int parse(const char *line, struct procmaps_entry *e)
{
	return procmaps__parse_line(line, strlen(line), e);
}

Test(procmaps, file_mapping)
{
	struct procmaps_entry e;

	cr_assert_eq(parse("7f0e1c000000-7f0e1c022000 r-xp 00002000 fd:01 1234567    "
			   "/usr/lib/x86_64-linux-gnu/libc.so.6\n", &e), 0);
	cr_assert_eq(e.start, 0x7f0e1c000000ull);
	cr_assert_eq(e.end, 0x7f0e1c022000ull);
	cr_assert_eq(e.pgoff, 0x2000);
	cr_assert_eq(e.maj, 0xfd);
	cr_assert_eq(e.min, 1);
	cr_assert_eq(e.ino, 1234567);
	cr_assert(e.readable && e.executable && !e.writable);
	cr_assert_eq(e.path_len, strlen("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	cr_assert_eq(memcmp(e.path, "/usr/lib/x86_64-linux-gnu/libc.so.6", e.path_len), 0);
	cr_assert_not(e.deleted);
}

Test(procmaps, anonymous_pseudo_deleted_and_spaces)
{
	struct procmaps_entry e;

	cr_assert_eq(parse("7ffd1000-7ffd3000 rw-p 00000000 00:00 0 ", &e), 0);
	cr_assert_eq(e.path_len, 0);
	cr_assert_eq(parse("7ffd1000-7ffd3000 r-xp 00000000 00:00 0                  [vdso]", &e), 0);
	cr_assert_eq(e.path_len, 6);
	cr_assert_eq(parse("400000-401000 r-xp 00000000 08:02 99 /tmp/my prog (deleted)", &e), 0);
	cr_assert(e.deleted);
	cr_assert_eq(e.path_len, strlen("/tmp/my prog"));
}

Test(procmaps, malformed_lines_rejected)
{
	static const char *bad[] = {
		"",
		"garbage",
		"1000-0fff r-xp 00000000 08:02 1 /x",          /* end before start */
		"1000-2000 r-x 00000000 08:02 1 /x",            /* short perms */
		"1000-2000 r-xp 0000000g 08:02 1 /x",           /* bad offset */
		"1000-2000 r-xp 00000000 0802 1 /x",            /* no colon */
		"1000-2000 r-xp 00000000 08:02 x /x",           /* bad inode */
		"10000000000000000-10000000000000001 r-xp 0 0:0 0", /* overflow */
		"1000-2000",
	};
	struct procmaps_entry e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(parse(bad[i], &e), -EINVAL, "line %zu accepted: '%s'", i, bad[i]);
}

static int count_cb(void *ctx, const struct procmaps_entry *e)
{
	(void)e;
	(*(int *)ctx)++;
	return 0;
}

Test(procmaps, reading_skips_bad_and_overlong_lines)
{
	char path[] = "/tmp/smolder-maps-XXXXXX";
	int fd = mkstemp(path), n = 0;
	size_t bad = 0, i;
	FILE *f;

	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "1000-2000 r-xp 00000000 08:02 1 /bin/a\n");
	fprintf(f, "not a maps line\n");
	for (i = 0; i < PROCMAPS_LINE_MAX * 2; i++)
		fputc('x', f);
	fputc('\n', f);
	fprintf(f, "3000-4000 r-xp 00000000 08:02 2 /bin/b\n");
	fclose(f);
	fd = open(path, O_RDONLY);
	cr_assert_eq(procmaps__read_fd(fd, count_cb, &n, &bad), 0);
	unlink(path);
	cr_assert_eq(n, 2);
	cr_assert_eq(bad, 2);
}

Test(procmaps, own_process)
{
	int n = 0;

	cr_assert_eq(procmaps__read(getpid(), count_cb, &n, NULL), 0);
	cr_assert_gt(n, 3);
	cr_assert_eq(procmaps__read(0x3ffffff0, count_cb, &n, NULL), -ENOENT);
}
