/* export/pyroscope.c: the ingest request, label grammar, splitting, and sending over real HTTP. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "export/dump_read.h"
#include "export/pyroscope.h"
#include "export/sink.h"
#include "tests/unit/http_server.h"

/* ---- fixtures ---- */

static const struct dump_label glabels[] = {
	{ "env", "prod" },
	{ "team.name", "a,b}c=d" },
	{ "9lives", "x" },
	{ "", "dropped" },
	{ "empty", "" },
	{ "__reserved", "no" },
};

static const struct dump_label p0_labels[] = {
	{ "service_name", "my app{x}" },
	{ "exe", "/usr/bin/myapp" },
	{ "comm", "myapp" },
	{ "pid", "1234" },
};

static const struct dump_label p1_labels[] = {
	{ "service_name", "nginx" },
	{ "exe", "/usr/sbin/nginx" },
	{ "comm", "nginx" },
};

static const struct dump_stack p1_stacks[] = {
	{ "main;ngx_process_events_and_timers;epoll_wait;do_epoll_wait_[k]", 17 },
	{ "main;ngx_worker", 3 },
	{ "main;idle", 0 },
};

static void make_dump(struct dump *d, struct dump_profile *pr, size_t npr)
{
	memset(d, 0, sizeof(*d));
	d->schema = "smolder.profile/v1";
	d->window_id = "w-1";
	d->start_ns = 1763740800500000000ull;
	d->end_ns = 1763740810000000001ull;
	d->hostname = "web01";
	d->frequency_hz = 99;
	d->labels = glabels;
	d->nlabels = sizeof(glabels) / sizeof(glabels[0]);
	d->profiles = pr;
	d->nprofiles = npr;
}

/* n stacks "root;f<i>" with count i % 7 + 1 */
static struct dump_stack *many_stacks(size_t n, char ***names, uint64_t *sum)
{
	struct dump_stack *st = calloc(n, sizeof(*st));
	size_t i;

	*names = calloc(n, sizeof(char *));
	cr_assert(st && *names);
	*sum = 0;
	for (i = 0; i < n; i++) {
		(*names)[i] = malloc(32);
		snprintf((*names)[i], 32, "root;f%zu", i);
		st[i].stack = (*names)[i];
		st[i].count = i % 7 + 1;
		*sum += st[i].count;
	}
	return st;
}

static void free_stacks(struct dump_stack *st, char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(st);
}

Test(pyroscope, sanitizers)
{
	char b[64];

	pyroscope__label_name("team.name-x", b, sizeof(b));
	cr_assert_str_eq(b, "team_name_x");
	pyroscope__label_name("9lives", b, sizeof(b));
	cr_assert_str_eq(b, "_9lives");
	pyroscope__label_name("", b, sizeof(b));
	cr_assert_str_eq(b, "");
	pyroscope__label_value("a,b}c=d{e\nf", b, sizeof(b));
	cr_assert_str_eq(b, "a_b_c_d_e_f");
	pyroscope__label_value("caf\xc3\xa9 \xff", b, sizeof(b));
	cr_assert_str_eq(b, "caf\xc3\xa9 _", "valid UTF-8 and spaces kept, bad bytes replaced");
	pyroscope__label_value("ab\xc3\xa9", b, 4);
	cr_assert_str_eq(b, "ab", "a multibyte char is never cut");
	pyroscope__app_name("my app{x},y=z\t", b, sizeof(b));
	cr_assert_str_eq(b, "my_app_x__y_z_");
	/* Pyroscope's application names are [A-Za-z0-9_.-]: a systemd template
	 * unit, '@', ':', and each non-ASCII character (one '_' apiece) */
	pyroscope__app_name("worker@1.service", b, sizeof(b));
	cr_assert_str_eq(b, "worker_1.service");
	pyroscope__app_name("svc@x:y", b, sizeof(b));
	cr_assert_str_eq(b, "svc_x_y");
	pyroscope__app_name("\xc3\xbcn\xc3\xaf", b, sizeof(b));
	cr_assert_str_eq(b, "_n_");
	pyroscope__app_name("a-b_c.9\xff/", b, sizeof(b));
	cr_assert_str_eq(b, "a-b_c.9__");
	/* the server trims spaces off label values: none may reach an end */
	pyroscope__label_value(" a b ", b, sizeof(b));
	cr_assert_str_eq(b, "_a b_");
	pyroscope__label_value("\xc2\xa0x\xe3\x80\x80", b, sizeof(b));
	cr_assert_str_eq(b, "_x_");
	pyroscope__label_value(" ", b, sizeof(b));
	cr_assert_str_eq(b, "_");
}

Test(pyroscope, exact_name_and_query)
{
	struct dump_profile pr[2] = {
		{ .labels = p0_labels, .nlabels = 4, .samples = 0 },
		{ .labels = p1_labels, .nlabels = 3, .stacks = p1_stacks, .nstacks = 3 },
	};
	struct dump d;
	char *n, *q;

	make_dump(&d, pr, 2);
	n = pyroscope__name(&d, 0);
	cr_assert_str_eq(n, "my_app_x_.cpu{env=prod,team_name=a_b_c_d,_9lives=x,hostname=web01,pid=1234}");
	free(n);
	n = pyroscope__name(&d, 1);
	cr_assert_str_eq(n, "nginx.cpu{env=prod,team_name=a_b_c_d,_9lives=x,hostname=web01}");
	free(n);
	cr_assert_null(pyroscope__name(&d, 2));

	q = pyroscope__query(&d, 1);
	cr_assert_str_eq(q, "name=nginx.cpu%7Benv%3Dprod%2Cteam_name%3Da_b_c_d%2C_9lives%3Dx%2Chostname%3Dweb01%7D"
			    "&from=1763740800&until=1763740811&sampleRate=99&spyName=smolder&format=folded");
	free(q);
}

/* Grouped per thread: the thread is a label of the series, sanitized like
 * every value; an unknown name ("") makes no label. */
Test(pyroscope, thread_label_in_the_name)
{
	static const struct dump_label t[] = {
		{ "service_name", "app" }, { "exe", "/usr/bin/app" }, { "comm", "app" },
		{ "thread", "worker,a=b}" }, { "later", "ignored" },
	};
	static const struct dump_label u[] = {
		{ "service_name", "app" }, { "exe", "/usr/bin/app" }, { "comm", "app" }, { "thread", "" },
	};
	struct dump_profile pr[2] = { { .labels = t, .nlabels = 5 }, { .labels = u, .nlabels = 4 } };
	struct dump d;
	char *n;

	make_dump(&d, pr, 2);
	d.nlabels = 1;
	n = pyroscope__name(&d, 0);
	cr_assert_str_eq(n, "app.cpu{env=prod,hostname=web01,thread=worker_a_b_}");
	free(n);
	n = pyroscope__name(&d, 1);
	cr_assert_str_eq(n, "app.cpu{env=prod,hostname=web01}");
	free(n);
}

Test(pyroscope, global_label_wins_over_hostname)
{
	static const struct dump_label g[] = { { "hostname", "alias" }, { "service_name", "evil" } };
	struct dump_profile pr = { .labels = p1_labels, .nlabels = 3 };
	struct dump d;
	char *n;

	make_dump(&d, &pr, 1);
	d.labels = g;
	d.nlabels = 2;
	n = pyroscope__name(&d, 0);
	cr_assert_str_eq(n, "nginx.cpu{hostname=alias}");
	free(n);
}

Test(pyroscope, range_rounding)
{
	uint64_t f, u;

	pyroscope__range(1500000000ull, 2000000000ull, &f, &u);
	cr_assert(f == 1 && u == 2);
	pyroscope__range(1999999999ull, 2000000001ull, &f, &u);
	cr_assert(f == 1 && u == 3);
	pyroscope__range(3000000000ull, 3000000000ull, &f, &u);
	cr_assert(f == 3 && u == 4, "until > from even for an empty window");
	pyroscope__range(0, 0, &f, &u);
	cr_assert(f == 0 && u == 1);
}

static size_t count_lines(const char *s, size_t len, uint64_t *sum)
{
	size_t i, lines = 0;
	const char *line = s;

	for (i = 0; i < len; i++) {
		if (s[i] == '\n') {
			const char *sp = memrchr(line, ' ', (size_t)(s + i - line));

			cr_assert_not_null(sp);
			*sum += strtoull(sp + 1, NULL, 10);
			lines++;
			line = s + i + 1;
		}
	}
	cr_assert_eq(line, s + len, "body ends with a newline");
	return lines;
}

Test(pyroscope, body_and_split_at_16000)
{
	struct dump_profile pr = { 0 };
	struct dump_profile small = { .labels = p1_labels, .nlabels = 3, .stacks = p1_stacks, .nstacks = 3 };
	char **names, *buf = NULL;
	size_t cap = 0, len = 0, c, cut = 0;
	uint64_t sum = 0, got = 0;
	const size_t expect[3] = { 16000, 16000, 8000 };

	pr.stacks = many_stacks(40000, &names, &sum);
	pr.nstacks = 40000;
	pr.samples = sum;
	cr_assert_eq(pyroscope__nchunks(&pr), 3);
	for (c = 0; c < 3; c++) {
		cr_assert_eq(pyroscope__body(&pr, c, &buf, &cap, &len, &cut), 0);
		cr_assert_eq(count_lines(buf, len, &got), expect[c], "chunk %zu", c);
	}
	cr_assert_eq(got, sum, "counts of all chunks sum to the profile's");
	cr_assert_eq(pyroscope__body(&pr, 3, &buf, &cap, &len, &cut), -EINVAL);
	cr_assert_eq(pyroscope__body(&pr, 1, &buf, &cap, &len, &cut), 0);
	cr_assert(!strncmp(buf, "root;f16000 ", 12), "chunk 1 starts at stack 16000");

	pr.nstacks = 16000;
	cr_assert_eq(pyroscope__nchunks(&pr), 1);
	pr.nstacks = 16001;
	cr_assert_eq(pyroscope__nchunks(&pr), 2);
	pr.nstacks = 0;
	cr_assert_eq(pyroscope__nchunks(&pr), 0);

	cr_assert_eq(pyroscope__body(&small, 0, &buf, &cap, &len, &cut), 0);
	cr_assert_eq(len, strlen(buf));
	cr_assert_str_eq(buf, "main;ngx_process_events_and_timers;epoll_wait;do_epoll_wait_[k] 17\n"
			      "main;ngx_worker 3\n", "zero counts left out");
	cr_assert_eq(cut, 0);
	free(buf);
	free_stacks((struct dump_stack *)pr.stacks, names, 40000);
}

/* A stack deeper than the server keeps goes as its leafmost frames under a
 * marked root, counted; the server would have cut it without a trace. */
Test(pyroscope, deep_stacks_cut_at_the_root_visibly)
{
	const size_t deep_size = PYROSCOPE_MAX_DEPTH * 8 + 64;
	struct dump_stack st[2];
	struct dump_profile pr = { .stacks = st, .nstacks = 2 };
	char *deep = malloc(deep_size), *buf = NULL, *line2;
	size_t cap = 0, len = 0, cut = 0, i, o = 0, frames = 1;

	cr_assert(deep != NULL);
	for (i = 0; i < PYROSCOPE_MAX_DEPTH + 5; i++)
		o += (size_t)snprintf(deep + o, deep_size - o, "%sf%zu", i ? ";" : "", i);
	st[0] = (struct dump_stack){ .stack = deep, .count = 7 };
	st[1] = (struct dump_stack){ .stack = "main;leaf", .count = 2 };
	cr_assert_eq(pyroscope__body(&pr, 0, &buf, &cap, &len, &cut), 0);
	cr_assert_eq(cut, 1);
	cr_assert(!strncmp(buf, PYROSCOPE_CUT_ROOT ";f6;", strlen(PYROSCOPE_CUT_ROOT ";f6;")), "%.80s", buf);
	line2 = strchr(buf, '\n');
	cr_assert(line2 != NULL);
	for (i = 0; buf + i < line2; i++)
		frames += buf[i] == ';';
	cr_assert_eq(frames, PYROSCOPE_MAX_DEPTH);
	cr_assert(!strncmp(line2 - 10, ";f1004 7", 8) || strstr(buf, ";f1004 7\n"), "%s", line2 - 20);
	cr_assert_str_eq(line2 + 1, "main;leaf 2\n");
	free(buf);
	free(deep);
}

Test(pyroscope, too_old_detection)
{
	uint64_t now = 1763740800000000000ull, hour = 3600000000000ull;

	cr_assert(pyroscope__answer_too_old("profile is too old", now, now));
	cr_assert(pyroscope__answer_too_old("sample Is Older Than 1h", now, now));
	cr_assert(pyroscope__answer_too_old("profile with labels '{}' is outside of ingestion window", now - 2 * hour, now));
	cr_assert_not(pyroscope__answer_too_old("profile with labels '{}' is outside of ingestion window", now + hour, now));
	cr_assert_not(pyroscope__answer_too_old("invalid label name", now - 2 * hour, now));
}

/* ---- Pyroscope sink over real HTTP ---- */

static struct sink *pyro_sink(const struct srv *srv)
{
	struct sink_opts o = { .kind = SINK_PYROSCOPE, .url = url_of(srv, "/"), .tenant_id = "team-a",
			       .tls_verify = 1, .timeout_ms = 5000 };
	struct sink *s = NULL;

	cr_assert_eq(sink__new(&o, &s), 0);
	return s;
}

Test(pyroscope, pyroscope_request_shape)
{
	struct dump_profile pr = { .labels = p1_labels, .nlabels = 3, .stacks = p1_stacks, .nstacks = 3, .samples = 20 };
	struct srv *srv = srv_start(1, NULL, NULL);
	struct sink *s = pyro_sink(srv);
	struct dump d;
	char msg[512], *q, expect[1024];

	make_dump(&d, &pr, 1);
	srv_run(srv);
	cr_assert_eq(sink__send(s, &d, NULL, 0, msg, sizeof(msg)), SINK_DELIVERED, "%s", msg);
	q = pyroscope__query(&d, 0);
	snprintf(expect, sizeof(expect), "POST /ingest?%s HTTP/1.1\r\n", q);
	free(q);
	cr_assert(!strncmp(srv->rec[0].head, expect, strlen(expect)), "%s", srv->rec[0].head);
	cr_assert(strstr(expect, "from=1763740800&until=1763740811&sampleRate=99&spyName=smolder&format=folded"));
	cr_assert_null(strcasestr(srv->rec[0].head, "Content-Encoding"));
	cr_assert(has_header(&srv->rec[0], "Content-Type: binary/octet-stream"));
	cr_assert(has_header(&srv->rec[0], "X-Scope-OrgID: team-a"));
	srv->rec[0].body[srv->rec[0].blen] = '\0';
	cr_assert_str_eq(srv->rec[0].body, "main;ngx_process_events_and_timers;epoll_wait;do_epoll_wait_[k] 17\n"
					   "main;ngx_worker 3\n");
	sink__delete(s);
	srv_stop(srv);
}

Test(pyroscope, pyroscope_resends_only_failed_chunks)
{
	static const int st1[] = { 200, 200, 503 };
	static const int st2[] = { 200 };
	char **names;
	uint64_t sum;
	struct dump_profile pr[2] = {
		{ .labels = p0_labels, .nlabels = 4 },
		{ .labels = p1_labels, .nlabels = 3, .stacks = p1_stacks, .nstacks = 3, .samples = 20 },
	};
	struct srv *srv = srv_start(3, st1, NULL);
	struct sink *s = pyro_sink(srv);
	struct dump d;
	char msg[512];

	pr[0].stacks = many_stacks(20000, &names, &sum);
	pr[0].nstacks = 20000;
	pr[0].samples = sum;
	make_dump(&d, pr, 2);
	srv_run(srv);
	cr_assert_eq(sink__send(s, &d, NULL, 0, msg, sizeof(msg)), SINK_RETRY);
	cr_assert_eq(srv->nrec, 3);
	cr_assert(strstr(msg, "profile 2 (nginx)") && strstr(msg, "HTTP 503"), "%s", msg);
	cr_assert(strstr(srv->rec[0].head, "name=my_app_x_.cpu"));
	cr_assert(strstr(srv->rec[1].head, "name=my_app_x_.cpu"));
	cr_assert(strstr(srv->rec[2].head, "name=nginx.cpu"));

	/* the same dump again: only the failed request goes out */
	srv_rearm(srv, 1, st2);
	cr_assert_eq(sink__send(s, &d, NULL, 0, msg, sizeof(msg)), SINK_DELIVERED, "%s", msg);
	cr_assert_eq(srv->nrec, 1);
	cr_assert(strstr(srv->rec[0].head, "name=nginx.cpu"));
	cr_assert_str_eq(msg, "delivered: 1 request to Pyroscope");

	/* another dump: everything goes out */
	d.window_id = "w-2";
	srv_rearm(srv, 3, NULL);
	cr_assert_eq(sink__send(s, &d, NULL, 0, msg, sizeof(msg)), SINK_DELIVERED, "%s", msg);
	cr_assert_eq(srv->nrec, 3);
	cr_assert_str_eq(msg, "delivered: 3 requests to Pyroscope");
	srv_stop(srv);

	sink__delete(s);
	free_stacks((struct dump_stack *)pr[0].stacks, names, 20000);
}

Test(pyroscope, pyroscope_too_old_hint)
{
	static const int st[] = { 400 };
	static const char *const ans[] = { "profile with labels '{}' is outside of ingestion window (profile timestamp: x)" };
	struct dump_profile pr = { .labels = p1_labels, .nlabels = 3, .stacks = p1_stacks, .nstacks = 3, .samples = 20 };
	struct srv *srv = srv_start(1, st, ans);
	struct sink *s = pyro_sink(srv);
	struct dump d;
	char msg[200];

	make_dump(&d, &pr, 1); /* November 2025: long past */
	srv_run(srv);
	cr_assert_eq(sink__send(s, &d, NULL, 0, msg, sizeof(msg)), SINK_REJECTED);
	cr_assert(strstr(msg, "HTTP 400: profile with labels"), "%s", msg);
	cr_assert_eq(strlen(msg), sizeof(msg) - 1, "answer cut to fit the hint");
	cr_assert(strstr(msg, "(Pyroscope rejects profiles older than its -validation.reject-older-than, "
			      "default 1h; raise it to upload old dumps)"), "%s", msg);
	sink__delete(s);
	srv_stop(srv);
}

/* A user's process is a series of its own: its user is a label of the
 * series, which the operator's labels cannot replace. */
Test(pyroscope, user_label_in_the_name)
{
	static const struct dump_label g[] = { { "user", "ops" }, { "env", "prod" } };
	static const struct dump_label t[] = {
		{ "service_name", "postgresql@alice" }, { "exe", "/usr/bin/postgres" }, { "comm", "postgres" },
		{ "user", "alice" },
	};
	static const struct dump_label u[] = {
		{ "service_name", "postgresql" }, { "exe", "/usr/bin/postgres" }, { "comm", "postgres" },
	};
	struct dump_profile pr[2] = { { .labels = t, .nlabels = 4 }, { .labels = u, .nlabels = 3 } };
	struct dump d;
	char *n;

	make_dump(&d, pr, 2);
	d.nlabels = 1;
	n = pyroscope__name(&d, 0);
	cr_assert_str_eq(n, "postgresql_alice.cpu{user=alice,env=prod,hostname=web01}");
	free(n);
	n = pyroscope__name(&d, 1);
	cr_assert_str_eq(n, "postgresql.cpu{env=prod,hostname=web01}");
	free(n);
	d.labels = g;
	d.nlabels = 2;
	n = pyroscope__name(&d, 0);
	cr_assert_str_eq(n, "postgresql_alice.cpu{user=alice,env=prod,hostname=web01}");
	free(n);
}

/* Each event under the profile type Pyroscope files it by: CPU samples as
 * .cpu (process_cpu), off-CPU time as .block_duration (nanoseconds
 * waited, unscaled), never a type its ingest refuses. */
Test(pyroscope, type_by_event)
{
	cr_assert_str_eq(pyroscope__type_suffix("cpu-clock"), ".cpu");
	cr_assert_str_eq(pyroscope__type_suffix("cycles"), ".cpu");
	cr_assert_str_eq(pyroscope__type_suffix("off-cpu"), ".block_duration");
	cr_assert_str_eq(pyroscope__type_suffix(NULL), ".cpu");
}
