/* The system unit of a process, from its cgroup path. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "collector/service_unit.h"

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && memcmp(s + len - n, suffix, n) == 0;
}

/* The service of one cgroup path [s, end): the first component that is no
 * slice, when it is a ".service" and the first slice is not the users'
 * one. */
static int from_path(const char *s, const char *end, const char **name, size_t *len)
{
	int first = 1;

	if (s >= end || *s != '/')
		return -ENOENT;
	while (s < end) {
		const char *c, *ce;

		while (s < end && *s == '/')
			s++;
		c = s;
		ce = memchr(c, '/', (size_t)(end - c));
		if (!ce)
			ce = end;
		s = ce;
		if (c == ce)
			break;
		if (first && (size_t)(ce - c) == 10 && memcmp(c, "user.slice", 10) == 0)
			return -ENOENT;
		if (ends_with(c, (size_t)(ce - c), ".slice")) {
			first = 0;
			continue;
		}
		if (!ends_with(c, (size_t)(ce - c), ".service"))
			return -ENOENT;
		*name = c;
		*len = (size_t)(ce - c) - 8;
		return 0;
	}
	return -ENOENT;
}

/* Whether a line's hierarchy is one systemd manages: "0:" with no
 * controllers, or v1's "name=systemd". *path gets where its path starts. */
static int systemd_line(const char *s, const char *eol, const char **path)
{
	const char *c1 = memchr(s, ':', (size_t)(eol - s)), *c2;

	if (!c1 || !(c2 = memchr(c1 + 1, ':', (size_t)(eol - c1 - 1))))
		return 0;
	*path = c2 + 1;
	if (c1 - s == 1 && s[0] == '0' && c2 == c1 + 1)
		return 1;
	return c2 - c1 - 1 == 12 && memcmp(c1 + 1, "name=systemd", 12) == 0;
}

int service_unit__parse(const char *text, size_t len, const char **name, size_t *len_out)
{
	const char *s = text, *end = text + len;

	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		const char *path;

		/* the kernel ends every line: one without an end was cut short */
		if (!eol)
			break;
		if (systemd_line(s, eol, &path) && from_path(path, eol, name, len_out) == 0)
			return 0;
		s = eol + 1;
	}
	return -ENOENT;
}
