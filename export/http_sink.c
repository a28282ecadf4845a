/* HTTP POST over a reused libcurl easy handle, and the JSON sink on top of it. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "common/clock.h"
#include "common/redact.h"
#include "export/curl_loader.h"
#include "export/http_sink.h"
#include "export/retry_after.h"

#ifndef SMOLDER_VERSION
#define SMOLDER_VERSION "unknown"
#endif

#define MAX_REDIRECTS 3
#define ANSWER_EXCERPT 200
#define DEFAULT_CONNECT_TIMEOUT_MS 5000L
#define DEFAULT_TIMEOUT_MS 30000L
#define DEFAULT_MAX_ANSWER 4096u

struct http_sink {
	const struct curl_api *api; /* set with curl, at the first post */
	CURL *curl;
	char *url;
	char *auth_header;        /* "Authorization: Bearer ..." or NULL; secret */
	char *basic_user, *basic_password; /* secret */
	char *tls_ca_file;
	int tls_verify;
	long connect_timeout_ms, timeout_ms;
	int (*should_abort)(void *ctx);
	void *abort_ctx;
	char *answer;             /* max_answer + 1 bytes */
	size_t answer_len, max_answer;
	uint64_t retry_after_s;   /* the final answer's Retry-After, 0 when none */
	char errbuf[CURL_ERROR_SIZE];
};

static char *dup_or_null(const char *s, int *err)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*err = -ENOMEM;
	return d;
}

/* Secrets go into header lines: a CR or LF would let them add headers. */
static int has_ctl(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static void wipe_free(char *s)
{
	volatile char *p = s;

	if (!s)
		return;
	while (*p)
		*p++ = 0;
	free(s);
}

int http_sink__url_ok(const char *url)
{
	size_t n;

	if (!url)
		return 0;
	if (!strncasecmp(url, "http://", 7))
		n = 7;
	else if (!strncasecmp(url, "https://", 8))
		n = 8;
	else
		return 0;
	return url[n] != '\0' && url[n] != '/' && !has_ctl(url);
}

void http_sink__delete(struct http_sink *h)
{
	if (!h)
		return;
	if (h->curl)
		h->api->easy_cleanup(h->curl);
	free(h->url);
	wipe_free(h->auth_header);
	wipe_free(h->basic_user);
	wipe_free(h->basic_password);
	free(h->tls_ca_file);
	free(h->answer);
	free(h);
}

int http_sink__new(const struct sink_opts *o, struct http_sink **out)
{
	struct http_sink *h;
	int err = 0;
	size_t n;

	if (!o || !out || !http_sink__url_ok(o->url))
		return -EINVAL;
	if (has_ctl(o->bearer_token) || has_ctl(o->basic_user) || has_ctl(o->basic_password))
		return -EINVAL;
	if ((o->basic_user == NULL) != (o->basic_password == NULL))
		return -EINVAL;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->url = dup_or_null(o->url, &err);
	h->basic_user = dup_or_null(o->basic_user, &err);
	h->basic_password = dup_or_null(o->basic_password, &err);
	h->tls_ca_file = dup_or_null(o->tls_ca_file, &err);
	if (err)
		goto out_delete;
	if (o->bearer_token) {
		n = strlen(o->bearer_token) + sizeof("Authorization: Bearer ");
		h->auth_header = malloc(n);
		if (!h->auth_header) {
			err = -ENOMEM;
			goto out_delete;
		}
		snprintf(h->auth_header, n, "Authorization: Bearer %s", o->bearer_token);
	}
	h->tls_verify = o->tls_verify;
	h->connect_timeout_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms
							  : DEFAULT_CONNECT_TIMEOUT_MS;
	h->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : DEFAULT_TIMEOUT_MS;
	h->max_answer = o->max_answer > 0 ? o->max_answer : DEFAULT_MAX_ANSWER;
	if (h->max_answer > (64u << 20))
		h->max_answer = 64u << 20;
	h->should_abort = o->should_abort;
	h->abort_ctx = o->abort_ctx;
	h->answer = malloc(h->max_answer + 1);
	if (!h->answer) {
		err = -ENOMEM;
		goto out_delete;
	}
	h->answer[0] = '\0';
	*out = h;
	return 0;

out_delete:
	http_sink__delete(h);
	return err;
}

/* Keeps the first max_answer bytes and swallows the rest, so that a huge
 * answer neither grows memory nor fails the transfer. */
static size_t write_cb(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct http_sink *h = userdata;
	size_t n, room;

	if (size != 0 && nmemb > SIZE_MAX / size)
		return 0;
	n = size * nmemb;
	room = h->max_answer - h->answer_len;
	if (room > n)
		room = n;
	memcpy(h->answer + h->answer_len, ptr, room);
	h->answer_len += room;
	h->answer[h->answer_len] = '\0';
	return n;
}

/* Sees each header line of each answer. A status line starts a new answer
 * (an interim 1xx or a redirect hop), so only the final answer's
 * Retry-After is kept. */
static size_t header_cb(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	static const char field[] = "retry-after:";
	struct http_sink *h = userdata;
	uint64_t secs;
	size_t n;

	if (size != 0 && nmemb > SIZE_MAX / size)
		return 0;
	n = size * nmemb;
	if (n >= 5 && !strncmp(ptr, "HTTP/", 5))
		h->retry_after_s = 0;
	else if (n > sizeof(field) - 1 && !strncasecmp(ptr, field, sizeof(field) - 1) &&
		 !retry_after__parse(ptr + sizeof(field) - 1, n - (sizeof(field) - 1),
					       (int64_t)(clock__real_ns() / 1000000000u), &secs))
		h->retry_after_s = secs;
	return n;
}

#if LIBCURL_VERSION_NUM >= 0x072000
static int progress_cb(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
#else
/* curl 7.29 (RHEL 7) has only the double-based progress callback. */
static int progress_cb(void *clientp, double dltotal, double dlnow, double ultotal, double ulnow)
#endif
{
	struct http_sink *h = clientp;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return h->should_abort(h->abort_ctx) ? 1 : 0;
}

static void sanitize_into(char *dst, size_t dstlen, const char *src, size_t len)
{
	size_t i;

	if (!dstlen)
		return;
	if (len > dstlen - 1)
		len = dstlen - 1;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
	}
	dst[len] = '\0';
}

void http_sink__status_msg(long status, const char *answer, size_t len, char *msg, size_t msglen)
{
	char excerpt[ANSWER_EXCERPT + 1];
	size_t b, e;

	if (!msg || !msglen)
		return;
	/* Trim surrounding whitespace: servers end answers with newlines. */
	b = 0;
	e = answer ? len : 0;
	while (b < e && isspace((unsigned char)answer[b]))
		b++;
	while (e > b && isspace((unsigned char)answer[e - 1]))
		e--;
	if (e == b) {
		snprintf(msg, msglen, "HTTP %ld", status);
		return;
	}
	sanitize_into(excerpt, sizeof(excerpt), answer + b, e - b);
	snprintf(msg, msglen, "HTTP %ld: %s", status, excerpt);
}

enum sink_result http_sink__classify(long status)
{
	if (status >= 200 && status < 300)
		return SINK_DELIVERED;
	if (status == 408 || status == 429)
		return SINK_RETRY;
	if (status >= 300 && status < 500)
		return SINK_REJECTED;
	/* 5xx, and anything a sane server never sends: a later try may fare better. */
	return SINK_RETRY;
}

/* Splits an absolute http(s) URL into scheme, host and port. */
static int parse_origin(const char *url, int *https, const char **host, size_t *hostlen,
			unsigned long *port)
{
	const char *a, *end, *at, *p, *colon = NULL;
	unsigned long v = 0;

	if (!url)
		return -EINVAL;
	if (!strncasecmp(url, "http://", 7)) {
		*https = 0;
		a = url + 7;
	} else if (!strncasecmp(url, "https://", 8)) {
		*https = 1;
		a = url + 8;
	} else {
		return -EINVAL;
	}
	end = a + strcspn(a, "/?#");
	/* userinfo ends at the last '@' of the authority */
	for (at = NULL, p = a; p < end; p++)
		if (*p == '@')
			at = p;
	if (at)
		a = at + 1;
	if (a < end && *a == '[') {
		p = memchr(a, ']', (size_t)(end - a));
		if (!p)
			return -EINVAL;
		*host = a;
		*hostlen = (size_t)(p - a + 1);
		if (p + 1 < end) {
			if (p[1] != ':')
				return -EINVAL;
			colon = p + 1;
		}
	} else {
		for (p = a; p < end; p++)
			if (*p == ':') {
				if (colon)
					return -EINVAL;
				colon = p;
			}
		*host = a;
		*hostlen = (size_t)((colon ? colon : end) - a);
	}
	if (*hostlen == 0)
		return -EINVAL;
	if (colon && colon + 1 < end) {
		for (p = colon + 1; p < end; p++) {
			if (*p < '0' || *p > '9')
				return -EINVAL;
			v = v * 10 + (unsigned long)(*p - '0');
			if (v > 65535)
				return -EINVAL;
		}
		if (v == 0)
			return -EINVAL;
	} else {
		v = *https ? 443 : 80;
	}
	*port = v;
	return 0;
}

int http_sink__same_origin(const char *url_a, const char *url_b)
{
	const char *ha, *hb;
	size_t la, lb;
	unsigned long pa, pb;
	int sa, sb;

	if (parse_origin(url_a, &sa, &ha, &la, &pa) || parse_origin(url_b, &sb, &hb, &lb, &pb))
		return 0;
	return sa == sb && pa == pb && la == lb && !strncasecmp(ha, hb, la);
}

static const char *curl_phase(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return "resolve";
	case CURLE_COULDNT_CONNECT:
		return "connect";
	case CURLE_OPERATION_TIMEDOUT:
		return "timeout";
	case CURLE_ABORTED_BY_CALLBACK:
		return "aborted";
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
#if LIBCURL_VERSION_NUM < 0x073e00 /* an alias of PEER_FAILED_VERIFICATION since 7.62 */
	case CURLE_SSL_CACERT:
#endif
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_USE_SSL_FAILED:
		return "tls";
	case CURLE_SEND_ERROR:
		return "send";
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
		return "receive";
	default:
		return "curl";
	}
}

static void curl_msg(struct http_sink *h, CURLcode rc, char *msg, size_t msglen)
{
	char text[CURL_ERROR_SIZE + 1];
	const char *src = h->errbuf[0] ? h->errbuf : h->api->easy_strerror(rc);

	if (!msg || !msglen)
		return;
	if (rc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(msg, msglen, "aborted: the daemon is stopping");
		return;
	}
	sanitize_into(text, sizeof(text), src, strnlen(src, CURL_ERROR_SIZE));
	snprintf(msg, msglen, "%s: %s", curl_phase(rc), text);
}

/* curl_easy_setopt/getinfo are variadic and reached through the loaded
 * pointers, where curl's compile-time checks (typecheck-gcc.h) no longer see
 * the calls. These take their place: C checks the value's type against the
 * parameter, and the option's type class, which curl encodes in its number
 * (CURLOPTTYPE_*, CURLINFO_*), is checked against it here, so that a long
 * can never be read as a pointer or the reverse. */
static CURLcode set_long(struct http_sink *h, CURLoption opt, long v)
{
	if (opt >= CURLOPTTYPE_OBJECTPOINT)
		return CURLE_BAD_FUNCTION_ARGUMENT;
	return h->api->easy_setopt(h->curl, opt, v);
}

/* strings, lists and data pointers (CURLOPTTYPE_OBJECTPOINT and its aliases) */
static CURLcode set_ptr(struct http_sink *h, CURLoption opt, const void *v)
{
	if (opt < CURLOPTTYPE_OBJECTPOINT || opt >= CURLOPTTYPE_FUNCTIONPOINT)
		return CURLE_BAD_FUNCTION_ARGUMENT;
	return h->api->easy_setopt(h->curl, opt, v);
}

static CURLcode set_off(struct http_sink *h, CURLoption opt, curl_off_t v)
{
	if (opt < CURLOPTTYPE_OFF_T || opt >= CURLOPTTYPE_OFF_T + 10000)
		return CURLE_BAD_FUNCTION_ARGUMENT;
	return h->api->easy_setopt(h->curl, opt, v);
}

static CURLcode get_long(struct http_sink *h, CURLINFO info, long *v)
{
	if ((info & CURLINFO_TYPEMASK) != CURLINFO_LONG)
		return CURLE_BAD_FUNCTION_ARGUMENT;
	return h->api->easy_getinfo(h->curl, info, v);
}

static CURLcode get_str(struct http_sink *h, CURLINFO info, char **v)
{
	if ((info & CURLINFO_TYPEMASK) != CURLINFO_STRING)
		return CURLE_BAD_FUNCTION_ARGUMENT;
	return h->api->easy_getinfo(h->curl, info, v);
}

/* Options that do not change between requests; set again on every request
 * because they are cheap and a reset handle must not lose them. */
static int setup_handle(struct http_sink *h)
{
	/* typed variables: the compiler checks the callbacks' signatures */
	curl_write_callback on_write = write_cb, on_header = header_cb;
#if LIBCURL_VERSION_NUM >= 0x072000
	curl_xferinfo_callback on_progress = progress_cb;
#else
	curl_progress_callback on_progress = progress_cb;
#endif
	CURLcode rc = CURLE_OK;

#define SET(fn, opt, val) \
	do { \
		if (rc == CURLE_OK) \
			rc = fn(h, opt, val); \
	} while (0)
	SET(set_long, CURLOPT_NOSIGNAL, 1L);
	SET(set_long, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	SET(set_ptr, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	SET(set_long, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	SET(set_ptr, CURLOPT_USERAGENT, "smolder/" SMOLDER_VERSION);
	SET(set_long, CURLOPT_CONNECTTIMEOUT_MS, h->connect_timeout_ms);
	SET(set_long, CURLOPT_TIMEOUT_MS, h->timeout_ms);
	SET(set_long, CURLOPT_SSL_VERIFYPEER, h->tls_verify ? 1L : 0L);
	SET(set_long, CURLOPT_SSL_VERIFYHOST, h->tls_verify ? 2L : 0L);
	if (h->tls_ca_file)
		SET(set_ptr, CURLOPT_CAINFO, h->tls_ca_file);
	if (h->basic_user) {
		SET(set_long, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		SET(set_ptr, CURLOPT_USERNAME, h->basic_user);
		SET(set_ptr, CURLOPT_PASSWORD, h->basic_password);
	}
	/* callbacks are the only function pointers set: curl reads them back
	 * with their own types, which on_write/on_progress have */
	if (rc == CURLE_OK)
		rc = h->api->easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_write);
	SET(set_ptr, CURLOPT_WRITEDATA, h);
	if (rc == CURLE_OK)
		rc = h->api->easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, on_header);
	SET(set_ptr, CURLOPT_HEADERDATA, h);
	SET(set_ptr, CURLOPT_ERRORBUFFER, h->errbuf);
	if (h->should_abort) {
		SET(set_long, CURLOPT_NOPROGRESS, 0L);
#if LIBCURL_VERSION_NUM >= 0x072000
		if (rc == CURLE_OK)
			rc = h->api->easy_setopt(h->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
		SET(set_ptr, CURLOPT_XFERINFODATA, h);
#else
		if (rc == CURLE_OK)
			rc = h->api->easy_setopt(h->curl, CURLOPT_PROGRESSFUNCTION, on_progress);
		SET(set_ptr, CURLOPT_PROGRESSDATA, h);
#endif
	}
	SET(set_long, CURLOPT_POST, 1L);
#undef SET
	return rc == CURLE_OK ? 0 : -EINVAL;
}

static struct curl_slist *build_headers(const struct http_sink *h, const char *const *extra)
{
	struct curl_slist *list = NULL, *n;
	size_t i;

#define ADD(line) \
	do { \
		n = h->api->slist_append(list, line); \
		if (!n) \
			goto out_free; \
		list = n; \
	} while (0)
	/* Without this, curl 7.29 waits up to 1 s for "100 Continue" on
	 * bodies over 1 KiB, which many servers never send. */
	ADD("Expect:");
	if (h->auth_header)
		ADD(h->auth_header);
	for (i = 0; extra && extra[i] && i < 64; i++)
		ADD(extra[i]);
#undef ADD
	return list;

out_free:
	h->api->slist_free_all(list);
	return NULL;
}

/* One request to url; returns the curl code and the status. */
static CURLcode perform(struct http_sink *h, const char *url, struct curl_slist *headers,
			const struct http_req *r, long *status)
{
	CURLcode rc;

	*status = 0;
	h->answer_len = 0;
	h->answer[0] = '\0';
	h->errbuf[0] = '\0';
	h->retry_after_s = 0;
	rc = set_ptr(h, CURLOPT_URL, url);
	if (rc == CURLE_OK)
		rc = set_ptr(h, CURLOPT_HTTPHEADER, headers);
	if (rc == CURLE_OK)
		rc = set_off(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len);
	if (rc == CURLE_OK)
		rc = set_ptr(h, CURLOPT_POSTFIELDS, r->len ? r->body : "");
	if (rc != CURLE_OK)
		return rc;
	rc = h->api->easy_perform(h->curl);
	if (rc == CURLE_OK)
		rc = get_long(h, CURLINFO_RESPONSE_CODE, status);
	return rc;
}

enum sink_result http_sink__post(struct http_sink *h, const struct http_req *r, long *status,
				 char *msg, size_t msglen)
{
	struct curl_slist *headers = NULL;
	enum sink_result res = SINK_RETRY;
	char *cur = NULL, *loc_copy;
	char *loc = NULL;
	char locbuf[256];
	long st = 0;
	CURLcode rc;
	int hop;

	if (msg && msglen)
		msg[0] = '\0';
	if (status)
		*status = 0;
	h->answer_len = 0;
	h->answer[0] = '\0';
	h->retry_after_s = 0;
	if (!r || !r->url || (r->len && !r->body) || r->len > (size_t)INT64_MAX) {
		if (msg)
			snprintf(msg, msglen, "internal: bad request");
		return SINK_REJECTED;
	}
	/* A stopping daemon should not even start a request. */
	if (h->should_abort && h->should_abort(h->abort_ctx)) {
		if (msg)
			snprintf(msg, msglen, "aborted: the daemon is stopping");
		return SINK_RETRY;
	}
	if (!h->curl) {
		/* The first transfer of this sink: libcurl is loaded now (once
		 * per process), not at exec. Not remembered when it fails, so a
		 * later send tries again. */
		if (!h->api && curl_loader__get(&h->api, msg, msglen) < 0)
			return SINK_RETRY;
		h->curl = h->api->easy_init();
		if (!h->curl) {
			if (msg)
				snprintf(msg, msglen, "curl: cannot create a handle (out of memory?)");
			return SINK_RETRY;
		}
	}
	if (setup_handle(h)) {
		if (msg)
			snprintf(msg, msglen, "curl: option refused by this libcurl");
		return SINK_RETRY;
	}
	headers = build_headers(h, r->headers);
	if (!headers) {
		if (msg)
			snprintf(msg, msglen, "out of memory");
		return SINK_RETRY;
	}
	cur = strdup(r->url);
	if (!cur) {
		if (msg)
			snprintf(msg, msglen, "out of memory");
		goto out_headers;
	}

	for (hop = 0;; hop++) {
		rc = perform(h, cur, headers, r, &st);
		if (rc != CURLE_OK) {
			curl_msg(h, rc, msg, msglen);
			res = SINK_RETRY;
			break;
		}
		if (st < 300 || st >= 400) {
			res = http_sink__classify(st);
			if (msg)
				http_sink__status_msg(st, h->answer, h->answer_len, msg, msglen);
			break;
		}
		/* 3xx: followed by hand, and only to the same origin, so that a
		 * redirect cannot send the dump or the credentials elsewhere. */
		loc = NULL;
		if (get_str(h, CURLINFO_REDIRECT_URL, &loc) != CURLE_OK || !loc) {
			res = SINK_REJECTED;
			if (msg)
				snprintf(msg, msglen, "HTTP %ld without a usable Location", st);
			break;
		}
		if (!http_sink__same_origin(r->url, loc)) {
			res = SINK_REJECTED;
			redact__url(loc, locbuf, sizeof(locbuf));
			sanitize_into(locbuf, sizeof(locbuf), locbuf, strlen(locbuf));
			if (msg)
				snprintf(msg, msglen, "redirect to another host refused: %s", locbuf);
			break;
		}
		if (hop >= MAX_REDIRECTS) {
			res = SINK_REJECTED;
			if (msg)
				snprintf(msg, msglen, "HTTP %ld: more than %d redirects", st,
					 MAX_REDIRECTS);
			break;
		}
		/* loc belongs to the handle and dies with the next perform */
		loc_copy = strdup(loc);
		if (!loc_copy) {
			res = SINK_RETRY;
			if (msg)
				snprintf(msg, msglen, "out of memory");
			break;
		}
		free(cur);
		cur = loc_copy;
	}
	if (status)
		*status = st;
	free(cur);
out_headers:
	h->api->slist_free_all(headers);
	return res;
}

uint64_t http_sink__retry_after_s(const struct http_sink *h)
{
	return h->retry_after_s;
}

const char *http_sink__answer(const struct http_sink *h, size_t *len)
{
	if (len)
		*len = h->answer_len;
	return h->answer;
}

enum sink_result http_sink__send_json(struct http_sink *h, const void *body_gz, size_t body_len,
				      char *msg, size_t msglen)
{
	static const char *const headers[] = {
		"Content-Type: application/json",
		"Content-Encoding: gzip",
		NULL,
	};
	struct http_req r = {
		.url = h->url,
		.headers = headers,
		.body = body_gz,
		.len = body_len,
	};

	return http_sink__post(h, &r, NULL, msg, msglen);
}
