/* Unit tests: sinks (request building, label grammar, splitting, answer
 * classification, redirects) and gzip, then real HTTP against a tiny server
 * thread on 127.0.0.1. */
#define _GNU_SOURCE /* accept4, pipe2, strcasestr, memrchr */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "export/dump_read.h"
#include "export/gzip.h"
#include "export/http_sink.h"
#include "export/pyroscope.h"
#include "export/sink.h"

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

/* ---- pure parts ---- */

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
	struct dump_stack st[2];
	struct dump_profile pr = { .stacks = st, .nstacks = 2 };
	char *deep = malloc(PYROSCOPE_MAX_DEPTH * 8 + 64), *buf = NULL, *line2;
	size_t cap = 0, len = 0, cut = 0, i, o = 0, frames = 1;

	cr_assert(deep != NULL);
	for (i = 0; i < PYROSCOPE_MAX_DEPTH + 5; i++)
		o += (size_t)sprintf(deep + o, "%sf%zu", i ? ";" : "", i);
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

Test(http_sink, classify)
{
	cr_assert_eq(http_sink__classify(200), SINK_DELIVERED);
	cr_assert_eq(http_sink__classify(204), SINK_DELIVERED);
	cr_assert_eq(http_sink__classify(299), SINK_DELIVERED);
	cr_assert_eq(http_sink__classify(408), SINK_RETRY);
	cr_assert_eq(http_sink__classify(429), SINK_RETRY);
	cr_assert_eq(http_sink__classify(500), SINK_RETRY);
	cr_assert_eq(http_sink__classify(503), SINK_RETRY);
	cr_assert_eq(http_sink__classify(599), SINK_RETRY);
	cr_assert_eq(http_sink__classify(0), SINK_RETRY);
	cr_assert_eq(http_sink__classify(400), SINK_REJECTED);
	cr_assert_eq(http_sink__classify(401), SINK_REJECTED);
	cr_assert_eq(http_sink__classify(404), SINK_REJECTED);
	cr_assert_eq(http_sink__classify(413), SINK_REJECTED);
	cr_assert_eq(http_sink__classify(302), SINK_REJECTED);
}

Test(http_sink, same_origin)
{
	cr_assert(http_sink__same_origin("http://a.example/x", "http://A.EXAMPLE:80/y?z"));
	cr_assert(http_sink__same_origin("https://a.example/x", "https://a.example:443"));
	cr_assert(http_sink__same_origin("http://u:p@a.example:8080/", "http://a.example:8080/v1"));
	cr_assert(http_sink__same_origin("http://[::1]:9/", "http://[::1]:9/x"));
	cr_assert_not(http_sink__same_origin("http://a.example/", "https://a.example/"));
	cr_assert_not(http_sink__same_origin("http://a.example/", "http://b.example/"));
	cr_assert_not(http_sink__same_origin("http://a.example/", "http://a.example:8080/"));
	cr_assert_not(http_sink__same_origin("http://a.example/", "http://a.example.evil/"));
	cr_assert_not(http_sink__same_origin("http://a.example/", "http://evil@b.example/"));
	cr_assert_not(http_sink__same_origin("http://a.example/", "ftp://a.example/"));
	cr_assert_not(http_sink__same_origin("http://a.example/", "/relative"));
	cr_assert_not(http_sink__same_origin("http://a.example/", "http://a.example:99999/"));
	cr_assert_not(http_sink__same_origin("http://a.example/", NULL));
}

Test(http_sink, status_msg_and_url)
{
	char msg[512], big[600];

	http_sink__status_msg(400, "bad\r\nprofile\n", 13, msg, sizeof(msg));
	cr_assert_str_eq(msg, "HTTP 400: bad  profile");
	http_sink__status_msg(503, "", 0, msg, sizeof(msg));
	cr_assert_str_eq(msg, "HTTP 503");
	memset(big, 'x', sizeof(big));
	http_sink__status_msg(400, big, sizeof(big), msg, sizeof(msg));
	cr_assert_eq(strlen(msg), strlen("HTTP 400: ") + 200, "answer excerpt capped at 200 bytes");

	cr_assert(http_sink__url_ok("http://h/"));
	cr_assert(http_sink__url_ok("HTTPS://h:1/x"));
	cr_assert_not(http_sink__url_ok("ftp://h/"));
	cr_assert_not(http_sink__url_ok("http://"));
	cr_assert_not(http_sink__url_ok("http://h/\r\nX: y"));
}

Test(sink, new_rejects_bad_options)
{
	struct sink_opts o = { .kind = SINK_JSON, .url = "file:///etc/passwd", .tls_verify = 1 };
	struct sink *s = NULL;

	cr_assert_eq(sink__new(&o, &s), -EINVAL);
	o.url = "http://127.0.0.1/";
	o.bearer_token = "tok\r\nX-Evil: 1";
	cr_assert_eq(sink__new(&o, &s), -EINVAL, "header injection through the token");
	o.bearer_token = NULL;
	o.kind = (enum sink_kind)7;
	cr_assert_eq(sink__new(&o, &s), -EINVAL);
	o.kind = SINK_PYROSCOPE;
	o.tenant_id = "t\n1";
	cr_assert_eq(sink__new(&o, &s), -EINVAL);
	o.tenant_id = "t1";
	cr_assert_eq(sink__new(&o, &s), 0);
	sink__delete(s);
	sink__delete(NULL);
}

/* ---- gzip ---- */

Test(gzip, round_trip)
{
	size_t n = 1 << 20, i, zl, ol;
	unsigned char *in = malloc(n);
	void *z = NULL, *o = NULL;
	uint32_t x = 12345;

	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		in[i] = (unsigned char)((x >> 16) % 16 + 'a'); /* compressible, not trivial */
	}
	cr_assert_eq(gzip__compress(in, n, &z, &zl), 0);
	cr_assert(gzip__is_gzip(z, zl));
	cr_assert_lt(zl, n);
	cr_assert_eq(gzip__decompress(z, zl, n, &o, &ol), 0);
	cr_assert_eq(ol, n);
	cr_assert_eq(memcmp(in, o, n), 0);
	cr_assert_eq(((char *)o)[ol], '\0', "NUL-terminated");
	free(o);
	o = NULL;
	cr_assert_eq(gzip__decompress(z, zl, n - 1, &o, &ol), -EFBIG, "one byte over the limit");
	cr_assert_null(o, "output untouched on failure");
	free(z);

	cr_assert_eq(gzip__compress("", 0, &z, &zl), 0);
	cr_assert_eq(gzip__decompress(z, zl, 10, &o, &ol), 0);
	cr_assert_eq(ol, 0);
	free(o);
	free(z);
	free(in);
}

Test(gzip, bomb_truncated_garbage)
{
	size_t n = 32u << 20, zl, ol, cl;
	char *zeros = calloc(1, n);
	void *z = NULL, *o = NULL, *cat;

	cr_assert_eq(gzip__compress(zeros, n, &z, &zl), 0);
	cr_assert_lt(zl, 64u << 10, "32 MiB of zeros compress to a bomb");
	cr_assert_eq(gzip__decompress(z, zl, 1u << 20, &o, &ol), -EFBIG);
	cr_assert_eq(gzip__decompress(z, zl - 1, 64u << 20, &o, &ol), -EINVAL, "truncated trailer");
	cr_assert_eq(gzip__decompress(z, zl / 2, 64u << 20, &o, &ol), -EINVAL, "truncated data");
	cr_assert_eq(gzip__decompress(z, 5, 64u << 20, &o, &ol), -EINVAL, "truncated header");
	cr_assert_eq(gzip__decompress("{\"a\":1}", 7, 100, &o, &ol), -EINVAL, "not gzip");
	cr_assert_eq(gzip__decompress("\x1f\x8b\x08\x00garbagegarbage", 18, 100, &o, &ol), -EINVAL);
	cr_assert_null(o);
	free(z);

	/* concatenated members are valid gzip; trailing garbage is not */
	cr_assert_eq(gzip__compress("hello ", 6, &z, &zl), 0);
	cl = 2 * zl + 3;
	cat = malloc(cl);
	memcpy(cat, z, zl);
	memcpy((char *)cat + zl, z, zl);
	memcpy((char *)cat + 2 * zl, "xyz", 3);
	cr_assert_eq(gzip__decompress(cat, 2 * zl, 100, &o, &ol), 0);
	cr_assert_eq(ol, 12);
	cr_assert_eq(memcmp(o, "hello hello ", 12), 0);
	free(o);
	o = NULL;
	cr_assert_eq(gzip__decompress(cat, cl, 100, &o, &ol), -EINVAL);
	free(cat);
	free(z);
	free(zeros);
}

/* ---- a tiny HTTP server on 127.0.0.1 ----
 * Every wait below is bounded (poll timeouts, curl timeouts), so the tests
 * need no Criterion .timeout: with Criterion 2.4.1, .timeout on tests run in
 * parallel makes its runner leak 48 bytes now and then, which fails the
 * sanitizer build. */

#define SRV_MAX 8

struct rec {
	char head[16384];  /* request line and headers */
	char *body;
	size_t blen;
};

struct srv {
	int lfd, port;
	int stop[2];
	pthread_t th;
	int nconn;                 /* connections to serve */
	int hang;                  /* read the request, never answer */
	int status[SRV_MAX];
	const char *answer[SRV_MAX];
	const char *extra[SRV_MAX]; /* extra answer header lines, "\r\n"-terminated */
	struct rec rec[SRV_MAX];
	int nrec;
};

static void no_proxy(void)
{
	/* the tests talk to 127.0.0.1 only, whatever the environment says */
	setenv("no_proxy", "*", 1);
	setenv("NO_PROXY", "*", 1);
}

static int wait_fd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static void serve_one(struct srv *s, int fd, int i)
{
	struct rec *r = &s->rec[i];
	size_t hl = 0, need = 0, cap;
	char *end = NULL, *cl, out[1024];
	ssize_t n;
	int loops = 0;

	/* headers: bounded buffer, bounded waits */
	while (!end && hl < sizeof(r->head) - 1 && loops++ < 1000) {
		if (!wait_fd(fd, 5000))
			return;
		n = read(fd, r->head + hl, sizeof(r->head) - 1 - hl);
		if (n <= 0)
			return;
		hl += (size_t)n;
		r->head[hl] = '\0';
		end = strstr(r->head, "\r\n\r\n");
	}
	if (!end)
		return;
	cl = strcasestr(r->head, "\r\nContent-Length:");
	if (cl)
		need = strtoul(cl + 17, NULL, 10);
	cr_assert_lt(need, 64u << 20);
	cap = need + 1;
	r->body = malloc(cap);
	r->blen = hl - (size_t)(end + 4 - r->head);
	memcpy(r->body, end + 4, r->blen);
	end[2] = '\0'; /* head keeps its last "\r\n" */
	while (r->blen < need && loops++ < 100000) {
		if (!wait_fd(fd, 5000))
			break;
		n = read(fd, r->body + r->blen, need - r->blen);
		if (n <= 0)
			break;
		r->blen += (size_t)n;
	}
	__atomic_store_n(&s->nrec, i + 1, __ATOMIC_SEQ_CST);
	if (s->hang) {
		wait_fd(s->stop[0], 8000);
		return;
	}
	n = snprintf(out, sizeof(out), "HTTP/1.1 %d Canned\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n%s",
		     s->status[i], strlen(s->answer[i] ? s->answer[i] : ""), s->extra[i] ? s->extra[i] : "",
		     s->answer[i] ? s->answer[i] : "");
	if (write(fd, out, (size_t)n) != n)
		return;
}

static void *srv_main(void *arg)
{
	struct srv *s = arg;
	int i, fd;

	for (i = 0; i < s->nconn && i < SRV_MAX; i++) {
		if (!wait_fd(s->lfd, 5000))
			break;
		fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			break;
		serve_one(s, fd, i);
		close(fd);
	}
	return NULL;
}

static struct srv *srv_start(int nconn, const int *status, const char *const *answer)
{
	struct srv *s = calloc(1, sizeof(*s));
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int i;

	no_proxy();
	cr_assert_not_null(s);
	s->nconn = nconn;
	for (i = 0; i < nconn && i < SRV_MAX; i++) {
		s->status[i] = status ? status[i] : 200;
		s->answer[i] = answer ? answer[i] : NULL;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(s->lfd, 0);
	cr_assert_eq(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(s->lfd, 8), 0);
	cr_assert_eq(getsockname(s->lfd, (struct sockaddr *)&a, &al), 0);
	s->port = ntohs(a.sin_port);
	cr_assert_eq(pipe2(s->stop, O_CLOEXEC), 0);
	return s;
}

static void srv_run(struct srv *s)
{
	cr_assert_eq(pthread_create(&s->th, NULL, srv_main, s), 0);
}

/* Same listener (the sink's url keeps its port), new script. */
static void srv_rearm(struct srv *s, int nconn, const int *status)
{
	int i;

	pthread_join(s->th, NULL);
	for (i = 0; i < SRV_MAX; i++) {
		free(s->rec[i].body);
		memset(&s->rec[i], 0, sizeof(s->rec[i]));
		s->status[i] = i < nconn && status ? status[i] : 200;
		s->answer[i] = NULL;
	}
	s->nrec = 0;
	s->nconn = nconn;
	srv_run(s);
}

static void srv_stop(struct srv *s)
{
	int i;

	if (write(s->stop[1], "x", 1) != 1)
		cr_assert_fail("stop pipe");
	pthread_join(s->th, NULL);
	close(s->lfd);
	close(s->stop[0]);
	close(s->stop[1]);
	for (i = 0; i < SRV_MAX; i++)
		free(s->rec[i].body);
	free(s);
}

static int has_header(const struct rec *r, const char *line)
{
	char pat[512];

	snprintf(pat, sizeof(pat), "\r\n%s\r\n", line);
	return strcasestr(r->head, pat) != NULL;
}

static char *url_of(const struct srv *s, const char *path)
{
	static char u[128];

	snprintf(u, sizeof(u), "http://127.0.0.1:%d%s", s->port, path);
	return u;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct sink *json_sink(const char *url, long timeout_ms)
{
	struct sink_opts o = {
		.kind = SINK_JSON, .url = url, .bearer_token = "s3cret-token", .tls_verify = 1,
		.connect_timeout_ms = 2000, .timeout_ms = timeout_ms, .max_answer = 4096,
	};
	struct sink *s = NULL;

	cr_assert_eq(sink__new(&o, &s), 0);
	return s;
}

/* ---- JSON sink over real HTTP ---- */

Test(http, json_headers_body_and_statuses)
{
	static const int st[] = { 204, 500, 400 };
	static const char *const ans[] = { NULL, "overloaded", "bad profile: \x01schema\n" };
	const char *json = "{\"schema\":\"smolder.profile/v1\"}";
	struct srv *srv = srv_start(3, st, ans);
	struct sink *s;
	void *gz;
	size_t gzl;
	char msg[512];

	cr_assert_eq(gzip__compress(json, strlen(json), &gz, &gzl), 0);
	s = json_sink(url_of(srv, "/v1/profiles"), 5000);
	srv_run(srv);

	cr_assert_eq(sink__send(s, NULL, gz, gzl, msg, sizeof(msg)), SINK_DELIVERED, "%s", msg);
	cr_assert_str_eq(msg, "HTTP 204");
	cr_assert(!strncmp(srv->rec[0].head, "POST /v1/profiles HTTP/1.1\r\n", 28), "%s", srv->rec[0].head);
	cr_assert(has_header(&srv->rec[0], "Content-Type: application/json"));
	cr_assert(has_header(&srv->rec[0], "Content-Encoding: gzip"));
	cr_assert(has_header(&srv->rec[0], "User-Agent: smolder/" SMOLDER_VERSION), "%s", srv->rec[0].head);
	cr_assert(has_header(&srv->rec[0], "Authorization: Bearer s3cret-token"));
	cr_assert_null(strcasestr(srv->rec[0].head, "\r\nExpect:"));
	cr_assert_eq(srv->rec[0].blen, gzl);
	cr_assert_eq(memcmp(srv->rec[0].body, gz, gzl), 0, "body sent as is");

	cr_assert_eq(sink__send(s, NULL, gz, gzl, msg, sizeof(msg)), SINK_RETRY);
	cr_assert_str_eq(msg, "HTTP 500: overloaded");
	cr_assert_eq(sink__send(s, NULL, gz, gzl, msg, sizeof(msg)), SINK_REJECTED);
	cr_assert_str_eq(msg, "HTTP 400: bad profile:  schema");
	cr_assert_null(strstr(msg, "s3cret"));

	sink__delete(s);
	srv_stop(srv);
	free(gz);
}

/* The final answer's Retry-After reaches the uploader; a redirect hop's
 * does not, nor does one from an earlier answer. */
Test(http, retry_after_of_the_final_answer)
{
	static const int st[] = { 429, 503, 307, 500, 200 };
	struct srv *srv = srv_start(5, st, NULL);
	struct sink *s;
	char msg[256], loc[128];

	snprintf(loc, sizeof(loc), "Location: http://127.0.0.1:%d/moved\r\nRetry-After: 99\r\n",
		 srv->port);
	srv->extra[0] = "Retry-After: 7\r\n";
	srv->extra[1] = "retry-after:  Sun, 06 Nov 1994 08:49:37 GMT \r\n"; /* in the past */
	srv->extra[2] = loc;
	srv->extra[4] = "Retry-After: 30\r\n";
	s = json_sink(url_of(srv, "/"), 5000);
	srv_run(srv);
	cr_assert_eq(sink__send(s, NULL, "a", 1, msg, sizeof(msg)), SINK_RETRY, "%s", msg);
	cr_assert_eq(sink__retry_after_s(s), 7);
	cr_assert_eq(sink__send(s, NULL, "a", 1, msg, sizeof(msg)), SINK_RETRY, "%s", msg);
	cr_assert_eq(sink__retry_after_s(s), 0);
	/* 307 with Retry-After, then 500 without */
	cr_assert_eq(sink__send(s, NULL, "a", 1, msg, sizeof(msg)), SINK_RETRY, "%s", msg);
	cr_assert_eq(sink__retry_after_s(s), 0);
	cr_assert_eq(sink__send(s, NULL, "a", 1, msg, sizeof(msg)), SINK_DELIVERED, "%s", msg);
	sink__delete(s);
	srv_stop(srv);
}

Test(http, basic_auth_and_no_bearer)
{
	struct srv *srv = srv_start(1, NULL, NULL);
	struct sink_opts o = { .kind = SINK_JSON, .url = url_of(srv, "/"), .basic_user = "user",
			       .basic_password = "pw", .tls_verify = 1 };
	struct sink *s = NULL;
	char msg[256];

	cr_assert_eq(sink__new(&o, &s), 0);
	srv_run(srv);
	cr_assert_eq(sink__send(s, NULL, "x", 1, msg, sizeof(msg)), SINK_DELIVERED, "%s", msg);
	cr_assert(has_header(&srv->rec[0], "Authorization: Basic dXNlcjpwdw=="), "%s", srv->rec[0].head);
	sink__delete(s);
	srv_stop(srv);
}

Test(http, redirects)
{
	static const int st[] = { 307, 201, 302 };
	struct srv *srv = srv_start(3, st, NULL);
	struct sink *s;
	char msg[512], loc[128];

	snprintf(loc, sizeof(loc), "Location: http://127.0.0.1:%d/moved\r\n", srv->port);
	srv->extra[0] = loc;
	srv->extra[2] = "Location: http://collector.invalid/steal\r\n";
	s = json_sink(url_of(srv, "/orig"), 5000);
	srv_run(srv);
	cr_assert_eq(sink__send(s, NULL, "abc", 3, msg, sizeof(msg)), SINK_DELIVERED, "%s", msg);
	cr_assert_eq(srv->nrec, 2);
	cr_assert(!strncmp(srv->rec[1].head, "POST /moved ", 12), "%s", srv->rec[1].head);
	cr_assert_eq(srv->rec[1].blen, 3, "the body follows the redirect");
	cr_assert(has_header(&srv->rec[1], "Authorization: Bearer s3cret-token"));

	cr_assert_eq(sink__send(s, NULL, "abc", 3, msg, sizeof(msg)), SINK_REJECTED);
	cr_assert_str_eq(msg, "redirect to another host refused: http://collector.invalid/steal");
	sink__delete(s);
	srv_stop(srv);
}

Test(http, connection_refused_is_quick_retry)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char url[64], msg[256];
	struct sink *s;
	double t0;

	no_proxy();
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	close(fd); /* bound, never listened: nobody there */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", ntohs(a.sin_port));
	s = json_sink(url, 5000);
	t0 = now_s();
	cr_assert_eq(sink__send(s, NULL, "x", 1, msg, sizeof(msg)), SINK_RETRY);
	cr_assert_lt(now_s() - t0, 1.5);
	cr_assert(!strncmp(msg, "connect: ", 9), "%s", msg);
	sink__delete(s);
}

Test(http, silent_server_times_out)
{
	struct srv *srv = srv_start(1, NULL, NULL);
	struct sink *s;
	char msg[256];
	double t0, dt;

	srv->hang = 1;
	s = json_sink(url_of(srv, "/"), 500);
	srv_run(srv);
	t0 = now_s();
	cr_assert_eq(sink__send(s, NULL, "x", 1, msg, sizeof(msg)), SINK_RETRY);
	dt = now_s() - t0;
	cr_assert(dt >= 0.4 && dt < 2.0, "took %.2f s", dt);
	cr_assert(!strncmp(msg, "timeout: ", 9), "%s", msg);
	sink__delete(s);
	srv_stop(srv);
}

struct abort_ctx {
	struct srv *srv;
	int calls;
};

/* Says stop once the server holds the request: the transfer is then hanging. */
static int abort_once_sent(void *ctx)
{
	struct abort_ctx *a = ctx;

	a->calls++;
	return !a->srv || __atomic_load_n(&a->srv->nrec, __ATOMIC_SEQ_CST) > 0;
}

Test(http, should_abort_interrupts)
{
	struct srv *srv = srv_start(1, NULL, NULL);
	struct abort_ctx a = { .srv = srv };
	struct sink_opts o = { .kind = SINK_JSON, .url = url_of(srv, "/"), .tls_verify = 1,
			       .timeout_ms = 20000, .should_abort = abort_once_sent,
			       .abort_ctx = &a };
	struct sink *s = NULL;
	char msg[256];
	double t0;

	srv->hang = 1;
	cr_assert_eq(sink__new(&o, &s), 0);
	srv_run(srv);
	t0 = now_s();
	cr_assert_eq(sink__send(s, NULL, "x", 1, msg, sizeof(msg)), SINK_RETRY);
	cr_assert_lt(now_s() - t0, 3.0);
	cr_assert_str_eq(msg, "aborted: the daemon is stopping");
	cr_assert_eq(srv->nrec, 1, "aborted while waiting for the answer");
	cr_assert_gt(a.calls, 1, "asked during the transfer, not only before");
	sink__delete(s);
	srv_stop(srv);

	/* a stopping daemon does not start a request at all */
	a.srv = NULL;
	a.calls = 0;
	cr_assert_eq(sink__new(&o, &s), 0);
	cr_assert_eq(sink__send(s, NULL, "x", 1, msg, sizeof(msg)), SINK_RETRY);
	cr_assert_eq(a.calls, 1);
	sink__delete(s);
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

Test(http, pyroscope_request_shape)
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

Test(http, pyroscope_resends_only_failed_chunks)
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

Test(http, pyroscope_too_old_hint)
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
