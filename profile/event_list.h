/* The events one recording samples, as `--event` and the daemon's
 * `events =` name them: one CPU event (cpu-clock or cycles), off-cpu, or a
 * CPU event and off-cpu together ("cpu-clock,off-cpu"), each a window and
 * a dump document of its own. Names are the canonical static strings. */
#ifndef SMOLDER_PROFILE_EVENT_LIST_H
#define SMOLDER_PROFILE_EVENT_LIST_H
#include <stdbool.h>
#include <stddef.h>

#define EVENT_LIST_MAX 2
/* What --event and events = accept, for messages. */
#define EVENT_LIST_NAMES "cpu-clock, cycles, off-cpu, or a CPU event and off-cpu: cpu-clock,off-cpu"

struct event_list {
	const char *name[EVENT_LIST_MAX]; /* in the order given */
	size_t n;
};

/* Parses a comma- (or space-) separated list. Returns 0, or -EINVAL with
 * err naming the problem ("unknown event 'foo'", "cpu-clock and cycles:
 * one CPU event at a time", "off-cpu twice", "no event"). */
int event_list__parse(const char *spec, struct event_list *out, char *err, size_t errlen);
/* The CPU event (cpu-clock or cycles), NULL when there is none. */
const char *event_list__cpu(const struct event_list *l);
bool event_list__has(const struct event_list *l, const char *name);
/* "cpu-clock,off-cpu" */
void event_list__format(const struct event_list *l, char *buf, size_t len);

#endif
