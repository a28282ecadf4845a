/* Strict number parsing (no atoi/strtol surprises on hostile input). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "common/parse.h"

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

int parse__u64n(const char *s, size_t len, int base, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!s || len == 0 || (base != 10 && base != 16))
		return -EINVAL;
	for (i = 0; i < len; i++) {
		int d = digit_value(s[i]);

		if (d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -ERANGE;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

int parse__u64(const char *s, int base, uint64_t *out)
{
	if (!s)
		return -EINVAL;
	if (base == 0) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			return parse__u64n(s + 2, strlen(s + 2), 16, out);
		base = 10;
	}
	return parse__u64n(s, strlen(s), base, out);
}

int parse__int(const char *s, long min, long max, long *out)
{
	uint64_t v;
	int neg = 0, rc;

	if (!s)
		return -EINVAL;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	rc = parse__u64n(s, strlen(s), 10, &v);
	if (rc < 0)
		return rc;
	if (v > (uint64_t)LONG_MAX)
		return -ERANGE;
	{
		long x = neg ? -(long)v : (long)v;

		if (x < min || x > max)
			return -ERANGE;
		*out = x;
	}
	return 0;
}
