/* collector/cpus.c: sysfs CPU lists. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "collector/cpus.h"

Test(cpus, parse_list)
{
	int cpus[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
	size_t n = 99;
	static const char *const bad[] = { "",    "\n",   "a",   "1,,2", "0-",  "-1",   "3-1",
					   "5,3", "1,1",  "0,",  " 0",   "0x1", "0-99999999",
					   "1 2" };
	size_t i;

	cr_assert_eq(cpus__parse_list("0-3,5\n", 6, cpus, 8, &n), 0);
	cr_assert_eq(n, 5);
	cr_assert_eq(cpus[3], 3);
	cr_assert_eq(cpus[4], 5);
	cr_assert_eq(cpus__parse_list("7", 1, cpus, 8, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(cpus[0], 7);
	cr_assert_eq(cpus__parse_list("0-8", 3, cpus, 8, &n), -E2BIG);
	cr_assert_eq(cpus__parse_list("0-1048575", 9, NULL, 8, &n), -E2BIG);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 99;
		cpus[0] = -1;
		cr_assert_eq(cpus__parse_list(bad[i], strlen(bad[i]), cpus, 8, &n), -EINVAL,
			     "accepted \"%s\"", bad[i]);
		cr_assert_eq(n, 99);
		cr_assert_eq(cpus[0], -1);
	}
}
