/* Durations, sizes, times and booleans: one grammar for every input. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/calendar.h"
#include "common/clock.h"
#include "common/parse.h"
#include "common/units.h"

#define NS_PER_W (7 * NS_PER_D)

struct unit {
	const char *suffix;
	uint64_t mult;
};

/* Longest suffix first where one is a prefix of another ("ms" before "m"). */
static const struct unit duration_units[] = {
	{ "ms", NS_PER_MS }, { "s", NS_PER_S }, { "m", NS_PER_MIN },
	{ "h", NS_PER_H }, { "d", NS_PER_D }, { "w", NS_PER_W },
};

static const struct unit size_units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", UINT64_C(1) << 10 }, { "kib", UINT64_C(1) << 10 }, { "kb", UINT64_C(1000) },
	{ "m", UINT64_C(1) << 20 }, { "mib", UINT64_C(1) << 20 }, { "mb", UINT64_C(1000000) },
	{ "g", UINT64_C(1) << 30 }, { "gib", UINT64_C(1) << 30 }, { "gb", UINT64_C(1000000000) },
	{ "t", UINT64_C(1) << 40 }, { "tib", UINT64_C(1) << 40 }, { "tb", UINT64_C(1000000000000) },
};

#define NUNITS(a) (sizeof(a) / sizeof((a)[0]))

static size_t count_digits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

static int mul_add(uint64_t v, uint64_t mult, uint64_t *total)
{
	if (mult && v > UINT64_MAX / mult)
		return -ERANGE;
	if (v * mult > UINT64_MAX - *total)
		return -ERANGE;
	*total += v * mult;
	return 0;
}

/* The terms of a duration. bare_ok: a lone number (seconds) is accepted. */
static int parse_terms(const char *s, int bare_ok, uint64_t *ns)
{
	uint64_t total = 0;
	int terms = 0;

	if (!s || !*s)
		return -EINVAL;
	while (*s) {
		size_t n = count_digits(s), i;
		uint64_t v;
		int rc;

		if (n == 0)
			return -EINVAL;
		rc = parse__u64n(s, n, 10, &v);
		if (rc < 0)
			return rc;
		s += n;
		if (!*s && terms == 0 && bare_ok) {
			if (mul_add(v, NS_PER_S, &total) < 0)
				return -ERANGE;
			break;
		}
		for (i = 0; i < NUNITS(duration_units); i++) {
			size_t l = strlen(duration_units[i].suffix);

			if (strncmp(s, duration_units[i].suffix, l) == 0 &&
			    !(s[l] >= 'a' && s[l] <= 'z') && !(s[l] >= 'A' && s[l] <= 'Z'))
				break;
		}
		if (i == NUNITS(duration_units))
			return -EINVAL;
		if (mul_add(v, duration_units[i].mult, &total) < 0)
			return -ERANGE;
		s += strlen(duration_units[i].suffix);
		terms++;
	}
	*ns = total;
	return 0;
}

int units__parse_duration(const char *s, uint64_t *ns)
{
	return parse_terms(s, 1, ns);
}

int units__parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v, total = 0;
	size_t n, i;
	int rc;

	if (!s)
		return -EINVAL;
	n = count_digits(s);
	if (n == 0)
		return -EINVAL;
	rc = parse__u64n(s, n, 10, &v);
	if (rc < 0)
		return rc;
	for (i = 0; i < NUNITS(size_units); i++) {
		if (strcasecmp(s + n, size_units[i].suffix) != 0)
			continue;
		if (mul_add(v, size_units[i].mult, &total) < 0)
			return -ERANGE;
		*bytes = total;
		return 0;
	}
	return -EINVAL;
}

int units__parse_bool(const char *s, int *v)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < NUNITS(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*v = 1;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*v = 0;
			return 0;
		}
	}
	return -EINVAL;
}

void units__format_duration(uint64_t ns, char *buf, size_t size)
{
	static const struct unit shown[] = {
		{ "w", NS_PER_W }, { "d", NS_PER_D }, { "h", NS_PER_H }, { "m", NS_PER_MIN },
		{ "s", NS_PER_S }, { "ms", NS_PER_MS },
	};
	size_t i;

	if (ns == 0) {
		snprintf(buf, size, "0");
		return;
	}
	for (i = 0; i < NUNITS(shown); i++)
		if (ns % shown[i].mult == 0) {
			snprintf(buf, size, "%" PRIu64 "%s", ns / shown[i].mult, shown[i].suffix);
			return;
		}
	snprintf(buf, size, "%" PRIu64 "ns", ns);
}

void units__format_elapsed(uint64_t ns, char *buf, size_t size)
{
	static const struct {
		const char *suffix;
		double per;
	} shown[] = { { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 } };
	size_t i;

	for (i = 0; i < NUNITS(shown); i++) {
		double v = (double)ns / shown[i].per;

		if (v < 1)
			continue;
		/* 999.5 rounds to "1000": the unit above says it better */
		if (i > 0 && v >= 999.5) {
			snprintf(buf, size, "%.2f%s", v / 1000, shown[i - 1].suffix);
			return;
		}
		snprintf(buf, size, v >= 999.5 ? "%.0f%s" : v >= 99.95 ? "%.0f%s" : v >= 9.995 ? "%.1f%s" : "%.2f%s",
			 v, shown[i].suffix);
		return;
	}
	snprintf(buf, size, "%" PRIu64 "ns", ns);
}

/* --- times ---------------------------------------------------------------- */

/* Reads exactly n digits. */
static int digits(const char **s, int n, long *out)
{
	long v = 0;
	int i;

	for (i = 0; i < n; i++) {
		if ((*s)[i] < '0' || (*s)[i] > '9')
			return -EINVAL;
		v = v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	*out = v;
	return 0;
}

static int expect(const char **s, const char *chars)
{
	if (!**s || !strchr(chars, **s))
		return -EINVAL;
	(*s)++;
	return 0;
}

/* Fractional seconds after the '.': up to nanoseconds, further digits ignored. */
static int fraction(const char **s, uint64_t *frac)
{
	uint64_t scale = NS_PER_S;
	int nd = 0;

	for (; **s >= '0' && **s <= '9'; (*s)++, nd++) {
		if (nd < 9) {
			scale /= 10;
			*frac += (uint64_t)(**s - '0') * scale;
		}
	}
	return nd ? 0 : -EINVAL;
}

static int utc_offset(const char **s, int64_t *off)
{
	long oh, om;
	int neg;

	if (**s == 'Z' || **s == 'z') {
		(*s)++;
		return 0;
	}
	if (**s != '+' && **s != '-')
		return -EINVAL; /* RFC 3339 requires the offset */
	neg = **s == '-';
	(*s)++;
	if (digits(s, 2, &oh) || expect(s, ":") || digits(s, 2, &om) || oh > 23 || om > 59)
		return -EINVAL;
	*off = (oh * 3600 + om * 60) * (neg ? -1 : 1);
	return 0;
}

static int parse_rfc3339(const char *s, uint64_t *out)
{
	long Y, M, D, h, mi, sec;
	uint64_t frac = 0;
	int64_t secs, off = 0;

	if (digits(&s, 4, &Y) || expect(&s, "-") || digits(&s, 2, &M) || expect(&s, "-") ||
	    digits(&s, 2, &D) || expect(&s, "Tt ") || digits(&s, 2, &h) || expect(&s, ":") ||
	    digits(&s, 2, &mi) || expect(&s, ":") || digits(&s, 2, &sec))
		return -EINVAL;
	if (M > 12 || D > 31 || !calendar__valid_date(Y, (int)M, (int)D) || h > 23 || mi > 59 ||
	    sec > 60)
		return -EINVAL;
	if (*s == '.') {
		s++;
		if (fraction(&s, &frac) < 0)
			return -EINVAL;
	}
	if (utc_offset(&s, &off) < 0 || *s)
		return -EINVAL;
	/* A leap second (":60") is the next second, as timegm would have it. */
	secs = calendar__days_from_civil(Y, (int)M, (int)D) * 86400 + h * 3600 + mi * 60 + sec - off;
	if (secs < 0)
		return -ERANGE;
	if ((uint64_t)secs > (UINT64_MAX - frac) / NS_PER_S)
		return -ERANGE;
	*out = (uint64_t)secs * NS_PER_S + frac;
	return 0;
}

int units__parse_time(const char *s, uint64_t now_ns, uint64_t *ns)
{
	uint64_t back;
	int rc;

	if (!s || !*s)
		return -EINVAL;
	if (strcmp(s, "now") == 0) {
		*ns = now_ns;
		return 0;
	}
	if (s[0] != '-')
		return parse_rfc3339(s, ns);
	/* "-1" is refused: a bare number would read as seconds, which an
	 * operator going back in time almost never means */
	rc = parse_terms(s + 1, 0, &back);
	if (rc < 0)
		return rc;
	if (back > now_ns)
		return -ERANGE;
	*ns = now_ns - back;
	return 0;
}

void units__format_time(uint64_t ns, char *buf, size_t size)
{
	time_t t = (time_t)(ns / NS_PER_S);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "@%llu", (unsigned long long)(ns / NS_PER_S));
}
