/* Retry-After values: delta-seconds or an HTTP-date, parsed without locale
 * or libc time parsing (strptime follows LC_TIME, the daemon must not). */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "common/calendar.h"
#include "export/retry_after.h"

struct cursor {
	const char *p, *end;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Reads between min and max digits into *v. */
static int digits(struct cursor *c, int min, int max, int64_t *v)
{
	int n = 0;

	*v = 0;
	while (c->p < c->end && is_digit(*c->p) && n < max) {
		*v = *v * 10 + (*c->p - '0');
		c->p++;
		n++;
	}
	return n >= min && !(c->p < c->end && is_digit(*c->p)) ? 0 : -EINVAL;
}

static int expect(struct cursor *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return -EINVAL;
	c->p++;
	return 0;
}

static void skip_spaces(struct cursor *c)
{
	while (c->p < c->end && *c->p == ' ')
		c->p++;
}

/* A day or month name: letters only; returns how many. */
static size_t word(struct cursor *c)
{
	const char *b = c->p;

	while (c->p < c->end && is_alpha(*c->p))
		c->p++;
	return (size_t)(c->p - b);
}

static int month(struct cursor *c, int *m)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	const char *b = c->p;
	int i;

	if (word(c) != 3)
		return -EINVAL;
	for (i = 0; i < 12; i++)
		if (!strncasecmp(b, names + 3 * i, 3)) {
			*m = i + 1;
			return 0;
		}
	return -EINVAL;
}

static int clock_time(struct cursor *c, int64_t *secs)
{
	int64_t h, mi, s;

	if (digits(c, 2, 2, &h) || expect(c, ':') || digits(c, 2, 2, &mi) || expect(c, ':') ||
	    digits(c, 2, 2, &s))
		return -EINVAL;
	if (h > 23 || mi > 59 || s > 60) /* 60: a leap second */
		return -EINVAL;
	*secs = h * 3600 + mi * 60 + s;
	return 0;
}

/* IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850
 * "Sunday, 06-Nov-94 08:49:37 GMT" and asctime "Sun Nov  6 08:49:37 1994".
 * The weekday is not checked against the date: it is redundant, and a
 * server that gets it wrong still means the date. */
static int http_date(struct cursor *c, int64_t *epoch_s)
{
	int64_t day, year, tod;
	int m;

	if (word(c) < 3)
		return -EINVAL;
	if (c->p < c->end && *c->p == ',') {
		char sep;

		c->p++;
		skip_spaces(c);
		if (digits(c, 2, 2, &day) || c->p >= c->end)
			return -EINVAL;
		sep = *c->p++;
		if ((sep != ' ' && sep != '-') || month(c, &m) || expect(c, sep))
			return -EINVAL;
		if (sep == ' ' ? digits(c, 4, 4, &year) : digits(c, 2, 2, &year))
			return -EINVAL;
		/* RFC 850's two-digit year: the RFC says to read one that looks
		 * more than 50 years ahead as the past century. */
		if (sep == '-')
			year += year < 70 ? 2000 : 1900;
		if (expect(c, ' ') || clock_time(c, &tod) || expect(c, ' ') ||
		    c->end - c->p < 3 || strncmp(c->p, "GMT", 3))
			return -EINVAL;
		c->p += 3;
	} else {
		skip_spaces(c);
		if (month(c, &m))
			return -EINVAL;
		skip_spaces(c);
		if (digits(c, 1, 2, &day) || expect(c, ' ') || clock_time(c, &tod) ||
		    expect(c, ' ') || digits(c, 4, 4, &year))
			return -EINVAL;
	}
	if (!calendar__valid_date(year, m, (int)day))
		return -EINVAL;
	*epoch_s = calendar__days_from_civil(year, m, (int)day) * 86400 + tod;
	return 0;
}

int retry_after__parse(const char *value, size_t len, int64_t now_s, uint64_t *out_s)
{
	struct cursor c = { value, value + len };
	int64_t when, v;
	uint64_t secs = 0;

	if (!value || !out_s)
		return -EINVAL;
	while (c.p < c.end && is_space(*c.p))
		c.p++;
	while (c.end > c.p && is_space(c.end[-1]))
		c.end--;
	if (c.p == c.end)
		return -EINVAL;
	if (is_digit(*c.p)) {
		while (c.p < c.end && is_digit(*c.p)) {
			if (secs < RETRY_AFTER_MAX_S)
				secs = secs * 10 + (uint64_t)(*c.p - '0');
			c.p++;
		}
		if (c.p != c.end)
			return -EINVAL;
	} else {
		if (http_date(&c, &when) || c.p != c.end)
			return -EINVAL;
		v = when - now_s;
		secs = v > 0 ? (uint64_t)v : 0;
	}
	*out_s = secs < RETRY_AFTER_MAX_S ? secs : RETRY_AFTER_MAX_S;
	return 0;
}
