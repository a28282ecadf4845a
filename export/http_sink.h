/* An HTTP POST client for the sinks (libcurl easy handle, kept alive between
 * sends), and the JSON sink built on it (doc/format.md). Pure helpers (status
 * classification, origin comparison, answer excerpts) are exposed for tests. */
#ifndef SMOLDER_EXPORT_HTTP_SINK_H
#define SMOLDER_EXPORT_HTTP_SINK_H
#include <stddef.h>
#include <stdint.h>

#include "export/sink.h"

struct http_sink;

/* One request. headers: NULL-terminated "Name: value" lines added to those
 * every request gets (User-Agent, Authorization when configured, and an empty
 * "Expect:" so that curl does not wait for 100-continue). The body is
 * borrowed for the duration of the call. */
struct http_req {
	const char *url;
	const char *const *headers;
	const void *body;
	size_t len;
};

/* Copies what it needs from o (url, credentials, TLS, timeouts, abort hook;
 * o->kind and o->tenant_id are ignored here). Returns 0, -EINVAL (url not
 * http:// or https://, a credential with a control character that would
 * split a header, basic_user without basic_password or the reverse), or
 * -ENOMEM. Does no I/O and does not need libcurl: that is loaded by the
 * first http_sink__post() (export/curl_loader.h). */
int http_sink__new(const struct sink_opts *o, struct http_sink **out);
/* Wipes the credentials it holds. Accepts NULL. */
void http_sink__delete(struct http_sink *h);

/* POSTs r. Follows at most 3 redirects, and only to the origin (scheme,
 * host, port) of r->url. Returns the classification of the final answer; the
 * final HTTP status (0 when none) goes to *status when status != NULL. msg
 * gets a one-line summary ("HTTP 400: <answer excerpt>", "connect: ...",
 * "redirect to another host refused: LOCATION"), never a secret. The kept
 * part of the answer (at most max_answer bytes) is then readable with
 * http_sink__answer() until the next call. The first call of a sink gets
 * libcurl from curl_loader__get() (loading it and running curl_global_init()
 * once per process); when that fails: SINK_RETRY, with the loader's message
 * ("libcurl.so.4 not found: install libcurl ...") in msg, and the next call
 * tries again. Not thread-safe: one thread at a time per http_sink. */
enum sink_result http_sink__post(struct http_sink *h, const struct http_req *r, long *status,
				 char *msg, size_t msglen);
/* The kept bytes of the last answer, NUL-terminated; *len (when non-NULL)
 * gets their count. Never NULL. */
const char *http_sink__answer(const struct http_sink *h, size_t *len);

/* The final answer's Retry-After of the last post, in seconds (see
 * export/retry_after.h; clamped); 0 when it had none or none was valid. */
uint64_t http_sink__retry_after_s(const struct http_sink *h);

/* The JSON sink: POSTs the gzip JSON dump to the configured url with
 * Content-Type: application/json and Content-Encoding: gzip. */
enum sink_result http_sink__send_json(struct http_sink *h, const void *body_gz, size_t body_len,
				      char *msg, size_t msglen);

/* 2xx DELIVERED; 408, 429, 5xx and anything outside 200..499 RETRY; other
 * 3xx/4xx REJECTED (redirects are handled before this is asked). */
enum sink_result http_sink__classify(long status);

/* 1 when both absolute URLs have the same scheme, host (case-insensitive)
 * and port (defaults 80/443 filled in), else 0; malformed URLs are never the
 * same origin. Userinfo is ignored. */
int http_sink__same_origin(const char *url_a, const char *url_b);

/* Writes "HTTP <status>" followed, when len > 0, by ": " and the first 200
 * bytes of answer with control characters replaced by spaces. */
void http_sink__status_msg(long status, const char *answer, size_t len, char *msg, size_t msglen);

/* 1 when url starts with http:// or https:// (any case) followed by a host. */
int http_sink__url_ok(const char *url);

#endif
