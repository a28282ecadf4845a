/* profile/event_list.c: the events of a recording as --event and the
 * daemon's events = name them. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "profile/event_list.h"

static char err[256];

Test(event_list, one_or_a_cpu_event_and_off_cpu)
{
	struct event_list l;
	char buf[64];

	cr_assert_eq(event_list__parse("cpu-clock", &l, err, sizeof(err)), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_str_eq(event_list__cpu(&l), "cpu-clock");
	cr_assert(!event_list__has(&l, "off-cpu"));
	cr_assert_eq(event_list__parse("off-cpu", &l, err, sizeof(err)), 0);
	cr_assert_null(event_list__cpu(&l), "off-cpu is no CPU event");
	/* in the order given, separators and case as a config writes them */
	cr_assert_eq(event_list__parse(" OFF-CPU,  cycles ", &l, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(l.n, 2);
	cr_assert_str_eq(l.name[0], "off-cpu");
	cr_assert_str_eq(l.name[1], "cycles");
	cr_assert_str_eq(event_list__cpu(&l), "cycles");
	event_list__format(&l, buf, sizeof(buf));
	cr_assert_str_eq(buf, "off-cpu,cycles");
	event_list__format(&l, buf, 5);
	cr_assert_str_eq(buf, "off-", "cut to the buffer");
}

Test(event_list, refusals_say_why)
{
	struct event_list l = { .n = 0 };

	cr_assert_eq(event_list__parse("cpu-clock,cycles", &l, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "cpu-clock and cycles: one CPU event at a time");
	cr_assert_eq(event_list__parse("off-cpu off-cpu", &l, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "off-cpu twice");
	cr_assert_eq(event_list__parse("cpu-clock,wall", &l, err, sizeof(err)), -EINVAL);
	cr_assert(strncmp(err, "unknown event 'wall' (", 22) == 0, "%s", err);
	cr_assert_eq(event_list__parse("", &l, err, sizeof(err)), -EINVAL);
	cr_assert(strncmp(err, "no event", 8) == 0, "%s", err);
	cr_assert_eq(event_list__parse(NULL, &l, err, sizeof(err)), -EINVAL);
	cr_assert_eq(event_list__parse("cpu-clocks", &l, err, sizeof(err)), -EINVAL, "a prefix is no name");
	cr_assert_eq(l.n, 0, "untouched on failure");
}
