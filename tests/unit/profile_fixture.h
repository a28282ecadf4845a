/* The profile the encoder tests share (test_json_dump, test_collapsed,
 * test_top): groups and stacks with known names, labels, and agent figures
 * beside it. Static inline: each test uses a part. */
#ifndef SMOLDER_TESTS_UNIT_PROFILE_FIXTURE_H
#define SMOLDER_TESTS_UNIT_PROFILE_FIXTURE_H
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "profile/agent_stats.h"
#include "profile/profile.h"

static struct strtab *names;
static struct agent_stats agent; /* beside prof, as the sampler keeps it */
static struct profile *prof;
static const char *label_names[] = {"env", "dc"};
static const char *label_values[] = {"prod", "eu-1"};

static inline uint32_t id(const char *s)
{
	uint32_t i;

	cr_assert_eq(strtab__intern_cstr(names, s, &i), 0);
	return i;
}

static inline struct profile_key key(const char *svc, const char *exe, const char *comm, int32_t pid)
{
	struct profile_key k;

	memset(&k, 0, sizeof(k));
	k.service_name = id(svc);
	k.exe = id(exe);
	k.comm = id(comm);
	k.pid = pid;
	return k;
}

/*
 * g1 svc  /bin/app  app   : main;foo_[k] x3, main;bar_[i] x2, (empty) x1
 * g2 svc  /bin/app2 app   : main;foo_[k] x4
 * g3 svc2 /bin/other other pid 42: main;bar_[i];bar_[i] x5, main x1
 * 16 aggregated samples; 2 dropped by profile__drop; 18 decoded.
 */
static inline void setup(void)
{
	struct profile_meta *m;
	struct agent_stats *s = &agent;
	struct profile_key k1, k2, k3;
	uint32_t mainf, foo, bar;

	names = strtab__new();
	cr_assert_not_null(names);
	prof = profile__new(names);
	cr_assert_not_null(prof);
	mainf = id("main");
	foo = id("foo_[k]");
	bar = id("bar_[i]");
	k1 = key("svc", "/bin/app", "app", -1);
	k2 = key("svc", "/bin/app2", "app", -1);
	k3 = key("svc2", "/bin/other", "other", 42);
	{
		uint32_t mf[] = {mainf, foo}, mb[] = {mainf, bar}, mbb[] = {mainf, bar, bar};

		cr_assert_eq(profile__add(prof, &k1, mf, 2, 3), 0);
		cr_assert_eq(profile__add(prof, &k1, mb, 2, 2), 0);
		cr_assert_eq(profile__add(prof, &k1, NULL, 0, 1), 0);
		cr_assert_eq(profile__add(prof, &k2, mf, 2, 4), 0);
		cr_assert_eq(profile__add(prof, &k3, mbb, 3, 5), 0);
		cr_assert_eq(profile__add(prof, &k3, mf, 1, 1), 0);
	}
	profile__drop(prof, 2); /* e.g. idle-task samples */

	m = profile__meta(prof);
	m->start_ns = 1763740800000000000ull;
	m->end_ns = 1763740810000000000ull;
	m->hostname = "web01";
	m->kernel = "3.10.0-1160.el7.x86_64";
	m->arch = "x86_64";
	m->event_name = "cpu-clock";
	m->frequency_hz = 99;
	m->nlabels = 2;
	m->label_names = label_names;
	m->label_values = label_values;
	memset(s, 0, sizeof(*s));
	s->lost = 3;
	s->throttled = 1;
	s->kernel_only = 1;
	s->idle = 2;
	s->corrupt = 1;
	s->unwind_complete = 14;
	s->unwind_truncated = 1;
	s->unwind_no_cfi = 1;
	s->processes = 41;
	s->binaries = 7;
	s->agent_cpu_ns = 31000000;
	s->agent_rss_bytes = 9000000;
	cr_assert_not_null(agent_stats__runtime(s, "hotspot"));
	cr_assert_not_null(agent_stats__runtime(s, "cpython"));
	agent_stats__runtime(s, "cpython")->readers = 1;
	agent_stats__runtime(s, "cpython")->reads = 120;
	agent_stats__runtime(s, "cpython")->stacks = 9;
	agent_stats__runtime(s, "cpython")->lag_max_ns = 700000;
}

static inline void teardown(void)
{
	profile__delete(prof);
	strtab__delete(names);
}

#endif
