/* collector/usernames: a uid's name from the passwd file, else its number. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/usernames.h"
#include "tests/unit/tmpdir.h"

static char dir[64];
static char path[128];

static void setup(void)
{
	tmpdir_make(dir, sizeof(dir), "usernames");
	snprintf(path, sizeof(path), "%s/passwd", dir);
}

static void teardown(void)
{
	tmpdir_remove(dir);
}

TestSuite(usernames, .init = setup, .fini = teardown);

static void write_passwd(const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	cr_assert_eq(fputs(text, f) >= 0, 1);
	cr_assert_eq(fclose(f), 0);
}

static const char *name_of(struct usernames *u, uid_t uid, uint64_t now)
{
	static char buf[USERNAMES_NAME_MAX + 1];

	cr_assert_gt(usernames__name(u, uid, now, buf, sizeof(buf)), 0);
	return buf;
}

Test(usernames, names_and_numbers)
{
	struct usernames *u;
	char longline[2048];

	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	write_passwd("root:x:0:0:root:/root:/bin/bash\n"
		     "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n"
		     "alias:x:1000:1000::/:/bin/sh\n"
		     "bad name:x:1001:1001::/:/bin/sh\n"
		     "-dash:x:1002:1002::/:/bin/sh\n"
		     "waytoolongforanyloginnameatallreally:x:1003:1:::\n"
		     "host$:x:1004:1::/:/bin/false\n"
		     "nouid:x::1::/:\n");
	u = usernames__new(path);
	cr_assert_not_null(u);
	cr_assert_str_eq(name_of(u, 1000, 1), "alice", "the first line of a uid wins");
	cr_assert_str_eq(name_of(u, 1001, 1), "1001", "a name that is no plain login name: the number");
	cr_assert_str_eq(name_of(u, 1002, 1), "1002");
	cr_assert_str_eq(name_of(u, 1003, 1), "1003");
	cr_assert_str_eq(name_of(u, 1004, 1), "host$");
	cr_assert_str_eq(name_of(u, 4242, 1), "4242");
	cr_assert_str_eq(name_of(u, 0, 1), "root");
	usernames__delete(u);

	/* lines longer than any account are skipped whole */
	{
		FILE *f = fopen(path, "w");

		cr_assert_not_null(f);
		fprintf(f, "%s:x:1005:1::/:\nbob:x:1005:1::/:/bin/sh\n", longline);
		fclose(f);
	}
	u = usernames__new(path);
	cr_assert_str_eq(name_of(u, 1005, 1), "bob");
	usernames__delete(u);
}

/* A uid the file did not name is looked for again once the file changed,
 * at most every USERNAMES_RECHECK_NS; a missing file names nobody. */
Test(usernames, a_user_added_later)
{
	struct usernames *u;
	uint64_t t = 1000;
	char small[4];

	write_passwd("root:x:0:0:root:/root:/bin/bash\n");
	u = usernames__new(path);
	cr_assert_str_eq(name_of(u, 1000, t), "1000");
	/* the file changes (its size does) */
	write_passwd("root:x:0:0:root:/root:/bin/bash\ncarol:x:1000:1000::/home/carol:/bin/sh\n");
	cr_assert_str_eq(name_of(u, 1000, t + 1), "1000", "not looked at again so soon");
	cr_assert_str_eq(name_of(u, 1000, t + USERNAMES_RECHECK_NS), "carol");
	/* a buffer too small still ends in NUL */
	cr_assert_eq(usernames__name(u, 1000, t + USERNAMES_RECHECK_NS, small, sizeof(small)), 3);
	cr_assert_str_eq(small, "car");
	usernames__delete(u);

	u = usernames__new("/nonexistent/passwd");
	cr_assert_str_eq(name_of(u, 7, 1), "7");
	usernames__delete(u);
}
