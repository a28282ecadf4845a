/* export/dump_merge.c: dumps merged into one profile, the time, label and pid
 * filters, grouping per thread, and what the header of the result may say. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common/strtab.h"
#include "export/dump_merge.h"
#include "profile/profile.h"
#include "tests/unit/report_fixture.h"

struct find {
	const struct strtab *names;
	const char *stack;
	uint64_t count;
};

static int find_stack(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct find *f = ctx;
	char buf[1024] = "";
	size_t i, len = 0;

	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ";" : "",
					strtab__str(f->names, frames[i]));
	if (strcmp(buf, f->stack) == 0)
		f->count += count;
	return 0;
}

/* Sum of count of stack (collapsed string) over the groups of p. */
static uint64_t stack_count(const struct profile *p, const char *stack)
{
	struct find f = { profile__names(p), stack, 0 };
	size_t g;

	for (g = 0; g < profile__ngroups(p); g++)
		profile__foreach_stack(p, g, find_stack, &f);
	return f.count;
}

static const char *key_str(const struct profile *p, uint32_t id)
{
	return id ? strtab__str(profile__names(p), id) : "";
}

Test(dump_merge, two_dumps_double_the_counts)
{
	static const char *const one[] = {"a.json", NULL}, *const two[] = {"a.json", "b.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m1, *m2;
	const struct profile *p1, *p2;
	const struct dump_merge_info *in;
	struct profile_group g;
	size_t i;
	int seen_nginx = 0, seen_redis = 0;

	filter_init(&f);
	m1 = merge(names, &f, one);
	m2 = merge(names, &f, two);
	p1 = dump_merge__profile(m1);
	p2 = dump_merge__profile(m2);
	cr_assert_eq(profile__total(p1), 15);
	cr_assert_eq(profile__total(p2), 30);
	/* the windows' dropped samples (2 each) come along: all their profiles were kept */
	cr_assert_eq(profile__samples(p2), 34);
	cr_assert_eq(profile__dropped(p2), 4);
	cr_assert_eq(stack_count(p1, "main;ngx_process_events_and_timers;epoll_wait;do_epoll_wait_[k]"), 6);
	cr_assert_eq(stack_count(p2, "main;ngx_process_events_and_timers;epoll_wait;do_epoll_wait_[k]"), 12);
	cr_assert_eq(stack_count(p2, "main;compute;hot_[i];hotter_[i]"), 4);
	cr_assert_eq(stack_count(p2, ""), 2);
	cr_assert_eq(profile__nstacks(p2), profile__nstacks(p1), "same stacks, merged");
	cr_assert_eq(profile__ngroups(p2), 2);
	for (i = 0; i < profile__ngroups(p2); i++) {
		profile__group(p2, i, &g);
		cr_assert_eq(g.key.pid, -1);
		if (!strcmp(key_str(p2, g.key.service_name), "nginx")) {
			seen_nginx = 1;
			cr_assert_str_eq(key_str(p2, g.key.exe), "/usr/sbin/nginx");
			cr_assert_str_eq(key_str(p2, g.key.comm), "nginx");
			cr_assert_eq(g.samples, 22);
		} else {
			seen_redis = 1;
			cr_assert_str_eq(key_str(p2, g.key.service_name), "redis");
			cr_assert_str_eq(key_str(p2, g.key.exe), "/usr/bin/redis-server");
			cr_assert_str_eq(key_str(p2, g.key.comm), "redis-server");
			cr_assert_eq(g.samples, 8);
		}
	}
	cr_assert(seen_nginx && seen_redis);
	in = dump_merge__info(m2);
	cr_assert_eq(in->dumps, 2);
	cr_assert_eq(in->dumps_used, 2);
	cr_assert_eq(in->samples, 30);
	cr_assert_eq(in->start_ns, T0 * S);
	cr_assert_eq(in->end_ns, (T0 + 20) * S);
	cr_assert_str_eq(in->hosts, "web01");
	cr_assert_eq(in->min_hz, 99);
	cr_assert_eq(in->cpu_ns, 30ull * 10101010);
	/* Meta of the merged window: common global labels kept. */
	{
		const struct profile_meta *meta = profile__meta_const(p2);

		cr_assert_eq(meta->nlabels, 2);
		cr_assert_str_eq(meta->label_names[0], "env");
		cr_assert_str_eq(meta->label_values[0], "prod");
		cr_assert_eq(meta->frequency_hz, 99);
		cr_assert_null(meta->window_id);
	}
	dump_merge__delete(m1);
	dump_merge__delete(m2);
	strtab__delete(names);
}

Test(dump_merge, hosts_labels_and_frequencies_of_different_dumps)
{
	static const char *const files[] = {"a.json", "c.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	const struct profile_meta *meta;
	const struct dump_merge_info *in;
	struct profile_group g;
	size_t i, pids = 0;

	filter_init(&f);
	m = merge(names, &f, files);
	meta = profile__meta_const(dump_merge__profile(m));
	in = dump_merge__info(m);
	cr_assert_str_eq(meta->hostname, "web01, web02");
	cr_assert_eq(in->nhosts, 2);
	cr_assert_eq(meta->nlabels, 0, "env differs, dc is missing in c.json");
	cr_assert_eq(in->min_hz, 49);
	cr_assert_eq(in->max_hz, 99);
	/* Each dump's samples count with its own period. */
	cr_assert_eq(in->cpu_ns, 15ull * 10101010 + 5ull * 20408163);
	for (i = 0; i < profile__ngroups(dump_merge__profile(m)); i++) {
		profile__group(dump_merge__profile(m), i, &g);
		pids += g.key.pid == 100 || g.key.pid == 101;
	}
	cr_assert_eq(pids, 2, "per-pid groups keep their pid");
	cr_assert_eq(profile__ngroups(dump_merge__profile(m)), 4);
	dump_merge__delete(m);
	strtab__delete(names);
}

static uint64_t merged_with(const struct dump_merge_filter *f, size_t *in_range)
{
	static const char *const files[] = {"a.json", "b.json", "c.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge *m = merge(names, f, files);
	uint64_t total = profile__total(dump_merge__profile(m));

	cr_assert_eq(total, dump_merge__info(m)->samples);
	if (in_range)
		*in_range = dump_merge__info(m)->dumps_in_range;
	dump_merge__delete(m);
	strtab__delete(names);
	return total;
}

Test(dump_merge, time_range_by_overlap)
{
	struct dump_merge_filter f;
	size_t n;

	/* Windows: a [T0, T0+10), b [T0+10, T0+20), c [T0+20, T0+30). */
	filter_init(&f);
	cr_assert_eq(merged_with(&f, &n), 35);
	cr_assert_eq(n, 3);

	f.from_ns = (T0 + 10) * S; /* a ends exactly there: no overlap */
	cr_assert_eq(merged_with(&f, &n), 20);
	cr_assert_eq(n, 2);

	f.from_ns = 0;
	f.until_ns = (T0 + 10) * S; /* b starts exactly there: excluded */
	cr_assert_eq(merged_with(&f, &n), 15);
	cr_assert_eq(n, 1);

	f.from_ns = (T0 + 5) * S;
	f.until_ns = (T0 + 15) * S;
	cr_assert_eq(merged_with(&f, &n), 30);
	cr_assert_eq(n, 2);

	f.from_ns = (T0 + 9) * S + 999999999;
	f.until_ns = (T0 + 10) * S;
	cr_assert_eq(merged_with(&f, &n), 15, "one ns of overlap is enough");

	f.from_ns = (T0 + 30) * S;
	f.until_ns = UINT64_MAX;
	cr_assert_eq(merged_with(&f, &n), 0);
	cr_assert_eq(n, 0);
}

Test(dump_merge, label_and_pid_filters)
{
	struct dump_merge_label l[3];
	struct dump_merge_filter f;

	filter_init(&f);
	f.labels = l;

	l[0].name = "env", l[0].value = "prod"; /* a global label */
	f.nlabels = 1;
	cr_assert_eq(merged_with(&f, NULL), 30);

	l[0].name = "service_name", l[0].value = "redis"; /* a profile label */
	cr_assert_eq(merged_with(&f, NULL), 8);

	l[0].name = "env", l[0].value = "prod";
	l[1].name = "env", l[1].value = "staging"; /* same name: either value */
	f.nlabels = 2;
	cr_assert_eq(merged_with(&f, NULL), 35);

	l[1].name = "service_name", l[1].value = "nginx"; /* different names: both */
	cr_assert_eq(merged_with(&f, NULL), 22);

	l[0].name = "env", l[0].value = "staging";
	l[1].name = "service_name", l[1].value = "redis";
	cr_assert_eq(merged_with(&f, NULL), 0);

	l[0].name = "dc", l[0].value = "eu1"; /* c.json has no dc: never matches */
	f.nlabels = 1;
	cr_assert_eq(merged_with(&f, NULL), 30);

	f.nlabels = 0;
	f.pid = 100;
	cr_assert_eq(merged_with(&f, NULL), 4);
	f.pid = 4242;
	cr_assert_eq(merged_with(&f, NULL), 0);

	l[0].name = "pid", l[0].value = "101";
	f.nlabels = 1;
	f.pid = -1;
	cr_assert_eq(merged_with(&f, NULL), 1);
}

Test(dump_merge, unknown_label_is_named)
{
	static const char *const files[] = {"a.json", "b.json", NULL};
	static const char *const with_c[] = {"a.json", "c.json", NULL};
	struct dump_merge_label l[2] = { { "env", "prod" }, { "region", "x" } };
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	const char *unknown = NULL;

	filter_init(&f);
	f.labels = l;
	f.nlabels = 2;
	m = merge(names, &f, files);
	cr_assert_eq(dump_merge__check_labels(m, &unknown), -ENOENT);
	cr_assert_str_eq(unknown, "region");
	dump_merge__delete(m);

	/* Known names pass, whether from profiles or global labels; "pid"
	 * only exists where a dump groups per pid. */
	l[1].name = "comm";
	m = merge(names, &f, files);
	cr_assert_eq(dump_merge__check_labels(m, &unknown), 0);
	dump_merge__delete(m);

	l[1].name = "pid";
	m = merge(names, &f, files);
	cr_assert_eq(dump_merge__check_labels(m, &unknown), -ENOENT);
	cr_assert_str_eq(unknown, "pid");
	dump_merge__delete(m);
	m = merge(names, &f, with_c);
	cr_assert_eq(dump_merge__check_labels(m, &unknown), 0);
	dump_merge__delete(m);
	strtab__delete(names);
}

/* Thread labels: merged away by default (a view per process), one group
 * per thread name on request; "" (a name not known) is a thread too. */
Test(dump_merge, threads_merged_or_kept)
{
	static const char *const files[] = {"threads.json", "a.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	const struct profile *p;
	struct profile_group g;
	size_t i, seen = 0;

	filter_init(&f);
	m = merge(names, &f, files);
	p = dump_merge__profile(m);
	cr_assert_eq(profile__ngroups(p), 3, "app, nginx, redis");
	for (i = 0; i < profile__ngroups(p); i++) {
		profile__group(p, i, &g);
		cr_assert_eq(g.key.thread, 0);
		if (!strcmp(key_str(p, g.key.comm), "app"))
			cr_assert_eq(g.samples, 10);
	}
	cr_assert_eq(dump_merge__info(m)->profiles_threaded, 3);
	dump_merge__delete(m);

	m = merge_grouped(names, &f, files, 1);
	p = dump_merge__profile(m);
	cr_assert_eq(profile__ngroups(p), 5);
	for (i = 0; i < profile__ngroups(p); i++) {
		profile__group(p, i, &g);
		if (strcmp(key_str(p, g.key.comm), "app") != 0) {
			cr_assert_eq(g.key.thread, 0, "a profile without the label has none");
			continue;
		}
		cr_assert_neq(g.key.thread, 0);
		seen++;
		if (!strcmp(key_str(p, g.key.thread), "worker-a"))
			cr_assert_eq(g.samples, 6);
		else if (!strcmp(key_str(p, g.key.thread), "worker-b"))
			cr_assert_eq(g.samples, 3);
		else
			cr_assert_str_eq(key_str(p, g.key.thread), "");
	}
	cr_assert_eq(seen, 3);
	cr_assert_eq(dump_merge__info(m)->profiles_threaded, 3);
	cr_assert_eq(dump_merge__info(m)->profiles_used, 5);
	dump_merge__delete(m);
	strtab__delete(names);
}

/* A label filter that keeps part of a window's profiles: the merged
 * profile has only their samples, and the info says the windows' counters
 * describe more than that. */
Test(dump_merge, part_of_windows_kept)
{
	static const char *const files[] = {"a.json", "threads.json", NULL};
	struct dump_merge_label l[1] = { { "thread", "worker-a" } };
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	const struct dump_merge_info *in;

	filter_init(&f);
	m = merge(names, &f, files);
	cr_assert_eq(dump_merge__info(m)->profiles_left_out, 0);
	dump_merge__delete(m);

	f.labels = l;
	f.nlabels = 1;
	m = merge(names, &f, files);
	in = dump_merge__info(m);
	cr_assert_eq(profile__total(dump_merge__profile(m)), 6);
	cr_assert_eq(in->samples, 6);
	cr_assert_eq(in->dumps_used, 1);
	cr_assert_eq(in->profiles_left_out, 2, "worker-b and the unknown thread");
	cr_assert_eq(profile__dropped(dump_merge__profile(m)), 0,
		     "the window's dropped samples are not the kept profile's");
	cr_assert_eq(in->start_ns, (T0 + 30) * S);
	dump_merge__delete(m);
	strtab__delete(names);
}

static void rates_of(const char *const *files, char *buf, size_t size)
{
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;

	filter_init(&f);
	m = merge(names, &f, files);
	dump_merge__describe_rates(dump_merge__info(m), buf, size);
	dump_merge__delete(m);
	strtab__delete(names);
}

/* The rates the windows ran at, never their average. */
Test(dump_merge, rates_said_per_window)
{
	static const char *const one[] = {"a.json", "b.json", NULL};
	static const char *const three[] = {"a.json", "threads.json", "c.json", "b.json", NULL};
	static const char *const two[] = {"c.json", "a.json", NULL};
	struct dump_merge_info in;
	char buf[128];
	uint32_t hz;

	rates_of(one, buf, sizeof(buf));
	cr_assert_str_eq(buf, "99 Hz");
	rates_of(three, buf, sizeof(buf));
	cr_assert_str_eq(buf, "windows at 99, 49 and 25 Hz");
	rates_of(two, buf, sizeof(buf));
	cr_assert_str_eq(buf, "windows at 99 and 49 Hz");

	/* Past DUMP_MERGE_RATES distinct rates: the range, whatever the order
	 * they came in. */
	{
		static const uint32_t order[] = {60, 130, 20, 90, 50, 110, 30, 70, 120, 40, 100, 80};
		struct strtab *names = strtab__new();
		struct dump_merge_filter f;
		struct dump_merge *m;
		static const char key[] = "\"frequency_hz\":99";
		char text[4096], edited[4200], *at;
		FILE *fp = fopen(FIX "a.json", "r");
		size_t len, i;

		cr_assert_not_null(fp);
		len = fread(text, 1, sizeof(text) - 1, fp);
		fclose(fp);
		text[len] = '\0';
		at = strstr(text, key);
		cr_assert_not_null(at);
		filter_init(&f);
		m = dump_merge__new(names, &f);
		for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
			struct dump *d = NULL;
			char err[256];
			int n = snprintf(edited, sizeof(edited), "%.*s\"frequency_hz\":%u%s", (int)(at - text),
					 text, order[i], at + strlen(key));

			cr_assert_eq(dump__parse(edited, (size_t)n, &d, err, sizeof(err)), 0, "%s", err);
			cr_assert_eq(dump_merge__add(m, d), 0);
			dump__delete(d);
		}
		dump_merge__describe_rates(dump_merge__info(m), buf, sizeof(buf));
		cr_assert_str_eq(buf, "windows at 20 to 130 Hz");
		dump_merge__delete(m);
		strtab__delete(names);
	}
	memset(&in, 0, sizeof(in));
	dump_merge__describe_rates(&in, buf, sizeof(buf));
	cr_assert_str_eq(buf, "", "no dump gave a rate");
	in.nrates = DUMP_MERGE_RATES;
	in.more_rates = 1;
	for (hz = 0; hz < DUMP_MERGE_RATES; hz++)
		in.rates[hz] = 99 - hz * 10;
	dump_merge__describe_rates(&in, buf, sizeof(buf));
	cr_assert_str_eq(buf, "windows at 29 to 99 Hz");
}

/* Profiles of a user's processes stay apart from root's with the same
 * names (and from another user's); --label user=NAME keeps one user's. */
Test(dump_merge, users_kept_apart)
{
	static const char *const files[] = {"users.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	const struct profile *p;
	struct profile_group g;
	size_t i;
	int root = 0, alice = 0, postgres = 0;

	filter_init(&f);
	m = merge(names, &f, files);
	p = dump_merge__profile(m);
	cr_assert_eq(profile__ngroups(p), 3);
	for (i = 0; i < profile__ngroups(p); i++) {
		profile__group(p, i, &g);
		if (!g.key.user) {
			root++;
			cr_assert_eq(g.samples, 7);
		} else if (!strcmp(key_str(p, g.key.user), "alice")) {
			alice++;
			cr_assert_eq(g.samples, 4);
			cr_assert_str_eq(key_str(p, g.key.service_name), "postgres@alice");
		} else {
			postgres++;
			cr_assert_str_eq(key_str(p, g.key.user), "postgres");
			cr_assert_eq(g.samples, 2);
		}
	}
	cr_assert(root == 1 && alice == 1 && postgres == 1);
	dump_merge__delete(m);
	strtab__delete(names);
}

/* --event wall: a CPU sample stands for its period (1e9 / frequency_hz
 * ns of CPU time), a wait for its own nanoseconds; both events of one
 * file (a document each) add up into one time. Events that are not time
 * (cycles) are left out and counted. */
Test(dump_merge, wall_adds_cpu_time_and_waits)
{
	struct strtab *tab = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	struct dump *d = load("both.json"), *doc;
	const struct profile *p;
	const struct profile_meta *meta;
	size_t docs = 0;

	filter_init(&f);
	f.event = DUMP_MERGE_WALL;
	m = dump_merge__new(tab, &f);
	cr_assert_not_null(m);
	for (doc = d; doc; doc = doc->next, docs++)
		cr_assert_eq(dump_merge__add(m, doc), 0);
	cr_assert_eq(docs, 2, "both.json holds a document per event");
	dump__delete(d);
	p = dump_merge__profile(m);
	meta = profile__meta_const(p);
	cr_assert_str_eq(meta->event_name, "wall");
	cr_assert_str_eq(meta->event_unit, "nanoseconds");
	/* 17 samples at 100 Hz and 2 s of waits on the same stack */
	cr_assert_eq(stack_count(p, "main;ngx_process_events_and_timers;epoll_wait;do_epoll_wait_[k]"),
		     17 * 10000000ull + 2000000000ull);
	cr_assert_eq(stack_count(p, "main;ngx_worker_process_cycle;nanosleep"), 500000000ull);
	cr_assert_eq(stack_count(p, "main;ngx_worker_process_cycle"), 5 * 10000000ull);
	dump_merge__delete(m);

	/* without wall the units do not add up; one event by name does */
	filter_init(&f);
	m = dump_merge__new(tab, &f);
	d = load("both.json");
	cr_assert_eq(dump_merge__add(m, d), 0);
	cr_assert_eq(dump_merge__add(m, d->next), -EDOM);
	dump_merge__delete(m);
	f.event = "off-cpu";
	m = dump_merge__new(tab, &f);
	cr_assert_eq(dump_merge__add(m, d), 0);
	cr_assert_eq(dump_merge__add(m, d->next), 0);
	cr_assert_eq(dump_merge__info(m)->dumps_other_event, 1);
	cr_assert_eq(dump_merge__info(m)->samples, 2500000000ull);
	dump_merge__delete(m);
	dump__delete(d);
	strtab__delete(tab);
}
