/* A tiny HTTP server on 127.0.0.1 in a thread, for the tests that send
 * real requests (test_http_sink, test_pyroscope): each connection gets its
 * scripted answer, and the request is kept for the test to look at.
 * Every wait below is bounded (poll timeouts, curl timeouts), so the tests
 * need no Criterion .timeout: with Criterion 2.4.1, .timeout on tests run in
 * parallel makes its runner leak 48 bytes now and then, which fails the
 * sanitizer build. Included after config.h, whose _GNU_SOURCE gives accept4,
 * pipe2 and strcasestr. Static inline: each test uses a part. */
#ifndef SMOLDER_TESTS_UNIT_HTTP_SERVER_H
#define SMOLDER_TESTS_UNIT_HTTP_SERVER_H
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

static inline void no_proxy(void)
{
	/* the tests talk to 127.0.0.1 only, whatever the environment says */
	setenv("no_proxy", "*", 1);
	setenv("NO_PROXY", "*", 1);
}

static inline int wait_fd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static inline void serve_one(struct srv *s, int fd, int i)
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

static inline void *srv_main(void *arg)
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

static inline struct srv *srv_start(int nconn, const int *status, const char *const *answer)
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

static inline void srv_run(struct srv *s)
{
	cr_assert_eq(pthread_create(&s->th, NULL, srv_main, s), 0);
}

/* Same listener (the sink's url keeps its port), new script. */
static inline void srv_rearm(struct srv *s, int nconn, const int *status)
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

static inline void srv_stop(struct srv *s)
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

static inline int has_header(const struct rec *r, const char *line)
{
	char pat[512];

	snprintf(pat, sizeof(pat), "\r\n%s\r\n", line);
	return strcasestr(r->head, pat) != NULL;
}

static inline char *url_of(const struct srv *s, const char *path)
{
	static char u[128];

	snprintf(u, sizeof(u), "http://127.0.0.1:%d%s", s->port, path);
	return u;
}

#endif
