/* Retry-After values: delta-seconds and the three HTTP-date forms. */
#include <errno.h>
#include <string.h>

#include <criterion/criterion.h>

#include "export/retry_after.h"

/* 1994-11-06 08:49:37 UTC, RFC 9110's example date */
#define EXAMPLE 784111777LL

static int parse(const char *v, int64_t now, uint64_t *out)
{
	return retry_after__parse(v, strlen(v), now, out);
}

Test(retry_after, delta_seconds)
{
	uint64_t s = 99;

	cr_assert_eq(parse("120", 0, &s), 0);
	cr_assert_eq(s, 120);
	cr_assert_eq(parse("  0\r\n", 0, &s), 0);
	cr_assert_eq(s, 0);
	cr_assert_eq(parse("99999999999999999999999999", 0, &s), 0);
	cr_assert_eq(s, RETRY_AFTER_MAX_S);
}

Test(retry_after, three_date_forms_mean_the_same)
{
	static const char *const forms[] = {
		"Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT",
		"Sun Nov  6 08:49:37 1994",
	};
	uint64_t s;
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		s = 7;
		cr_assert_eq(parse(forms[i], EXAMPLE - 90, &s), 0, "%s", forms[i]);
		cr_assert_eq(s, 90, "%s: %llu", forms[i], (unsigned long long)s);
	}
}

Test(retry_after, dates_across_leap_days_and_centuries)
{
	uint64_t s;

	/* 2000-02-29 00:00:00 UTC = 951782400; 2100 is not a leap year */
	cr_assert_eq(parse("Tue, 29 Feb 2000 00:00:00 GMT", 951782400 - 5, &s), 0);
	cr_assert_eq(s, 5);
	cr_assert_eq(parse("Mon, 29 Feb 2100 00:00:00 GMT", 0, &s), -EINVAL);
	/* 2038-01-19 03:14:08 UTC = 2^31: past 32-bit time_t */
	cr_assert_eq(parse("Tue, 19 Jan 2038 03:14:08 GMT", 2147483648LL - 1, &s), 0);
	cr_assert_eq(s, 1);
	/* RFC 850 two-digit years: 69 is 2069, 70 is 1970 */
	cr_assert_eq(parse("Thursday, 01-Jan-70 00:00:10 GMT", 0, &s), 0);
	cr_assert_eq(s, 10);
}

Test(retry_after, past_date_is_now)
{
	uint64_t s = 7;

	cr_assert_eq(parse("Sun, 06 Nov 1994 08:49:37 GMT", EXAMPLE + 1000, &s), 0);
	cr_assert_eq(s, 0);
}

Test(retry_after, garbage_is_refused_and_leaves_output)
{
	static const char *const bad[] = {
		"", "   ", "-5", "1.5", "12abc", "soon",
		"Sun, 06 Nov 1994 08:49:37",        /* no GMT */
		"Sun, 06 Nov 1994 08:49:37 UTC",
		"Sun, 6 Nov 1994 08:49:37 GMT",     /* fixdate day is two digits */
		"Sun, 06 Foo 1994 08:49:37 GMT",
		"Sun, 31 Nov 1994 08:49:37 GMT",
		"Sun, 06 Nov 1994 24:00:00 GMT",
		"Sun, 06 Nov 1994 08:49:37 GMT x",
		"Sun Nov  6 08:49:37 94",
		"Sunday, 06-Nov-1994 08:49:37 GMT",
	};
	uint64_t s = 42;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(parse(bad[i], 0, &s), -EINVAL, "accepted \"%s\"", bad[i]);
		cr_assert_eq(s, 42);
	}
	/* not NUL-terminated: the length is the end */
	cr_assert_eq(retry_after__parse("12345", 2, 0, &s), 0);
	cr_assert_eq(s, 12);
}
