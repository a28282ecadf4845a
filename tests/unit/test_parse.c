/* common/parse: integers in a base, with ranges. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"

Test(parse, u64_bases_and_errors)
{
	uint64_t v = 7;

	cr_assert_eq(parse__u64("123", 10, &v), 0);
	cr_assert_eq(v, 123);
	cr_assert_eq(parse__u64("0x1f", 0, &v), 0);
	cr_assert_eq(v, 0x1f);
	cr_assert_eq(parse__u64n("ffffffffffffffff", 16, 16, &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	v = 5;
	cr_assert_eq(parse__u64n("10000000000000000", 17, 16, &v), -ERANGE);
	cr_assert_eq(parse__u64("18446744073709551616", 10, &v), -ERANGE);
	cr_assert_eq(parse__u64("", 10, &v), -EINVAL);
	cr_assert_eq(parse__u64("12a", 10, &v), -EINVAL);
	cr_assert_eq(parse__u64("-1", 10, &v), -EINVAL);
	cr_assert_eq(parse__u64(" 1", 10, &v), -EINVAL);
	cr_assert_eq(v, 5, "output untouched on failure");
}

Test(parse, int_range)
{
	long v = 0;

	cr_assert_eq(parse__int("-3", -5, 5, &v), 0);
	cr_assert_eq(v, -3);
	cr_assert_eq(parse__int("6", -5, 5, &v), -ERANGE);
	cr_assert_eq(parse__int("99999999999999999999", 0, 10, &v), -ERANGE);
	cr_assert_eq(parse__int("4x", 0, 10, &v), -EINVAL);
}
