/* export/http_sink.c: answers classified, origins compared, JSON requests over real HTTP. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "export/gzip.h"
#include "export/http_sink.h"
#include "export/sink.h"
#include "tests/unit/http_server.h"

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

Test(http_sink, json_headers_body_and_statuses)
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
Test(http_sink, retry_after_of_the_final_answer)
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

Test(http_sink, basic_auth_and_no_bearer)
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

Test(http_sink, redirects)
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

Test(http_sink, connection_refused_is_quick_retry)
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

Test(http_sink, silent_server_times_out)
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

Test(http_sink, should_abort_interrupts)
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
