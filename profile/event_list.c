/* Parsing the events of a recording (profile/event_list.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "profile/event_list.h"

static const char *const known[] = { "cpu-clock", "cycles", "off-cpu" };

static bool is_cpu_event(const char *name)
{
	return strcmp(name, "off-cpu") != 0;
}

/* Spelled in any case, as the config's other names. */
static const char *canonical(const char *word, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strlen(known[i]) == len && strncasecmp(known[i], word, len) == 0)
			return known[i];
	return NULL;
}

int event_list__parse(const char *spec, struct event_list *out, char *err, size_t errlen)
{
	struct event_list l = { .n = 0 };
	const char *p = spec ? spec : "";

	for (;;) {
		const char *name;
		size_t len, i;

		p += strspn(p, ", \t");
		if (!*p)
			break;
		len = strcspn(p, ", \t");
		name = canonical(p, len);
		if (!name) {
			snprintf(err, errlen, "unknown event '%.*s' (%s)", (int)(len > 64 ? 64 : len), p,
				 EVENT_LIST_NAMES);
			return -EINVAL;
		}
		for (i = 0; i < l.n; i++) {
			if (l.name[i] == name) {
				snprintf(err, errlen, "%s twice", name);
				return -EINVAL;
			}
			if (is_cpu_event(l.name[i]) && is_cpu_event(name)) {
				snprintf(err, errlen, "%s and %s: one CPU event at a time", l.name[i], name);
				return -EINVAL;
			}
		}
		/* two distinct names of which at most one is a CPU event: the
		 * list never outgrows EVENT_LIST_MAX */
		l.name[l.n++] = name;
		p += len;
	}
	if (l.n == 0) {
		snprintf(err, errlen, "no event (%s)", EVENT_LIST_NAMES);
		return -EINVAL;
	}
	*out = l;
	return 0;
}

const char *event_list__cpu(const struct event_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (is_cpu_event(l->name[i]))
			return l->name[i];
	return NULL;
}

bool event_list__has(const struct event_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->name[i], name) == 0)
			return true;
	return false;
}

void event_list__format(const struct event_list *l, char *buf, size_t len)
{
	size_t i, off = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < l->n && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s", i ? "," : "", l->name[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}
