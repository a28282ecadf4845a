/* Sinks: where a finished dump goes. A sink sends ONE dump per call and says
 * what became of it; retries, backoff and the spool are the uploader's job.
 * Implementations: JSON over HTTP (doc/format.md) and Grafana Pyroscope's
 * /ingest. A sink is used by one thread at a time. */
#ifndef SMOLDER_EXPORT_SINK_H
#define SMOLDER_EXPORT_SINK_H
#include <stddef.h>
#include <stdint.h>

struct dump;

enum sink_kind {
	SINK_JSON = 0,   /* POST the gzip JSON dump to url */
	SINK_PYROSCOPE,  /* POST folded stacks to url + "/ingest" per profile */
};

enum sink_result {
	SINK_DELIVERED = 0, /* 2xx for every request the dump needed */
	SINK_RETRY,         /* network error, timeout, 408, 429, 5xx: try again later */
	SINK_REJECTED,      /* another 4xx (or a redirect to another host): keep it aside */
};

struct sink_opts {
	enum sink_kind kind;
	const char *url;              /* http:// or https:// */
	const char *bearer_token;     /* secret, from a file; NULL for none */
	const char *basic_user;       /* secret, from a file; NULL for none */
	const char *basic_password;
	const char *tenant_id;        /* X-Scope-OrgID; NULL for none */
	const char *tls_ca_file;      /* NULL: the system's CAs */
	int tls_verify;               /* 1 (default): verify peer and host name */
	long connect_timeout_ms;      /* default 5000 */
	long timeout_ms;              /* whole request, default 30000 */
	size_t max_answer;            /* bytes of the server's answer kept, default 4096 */
	/* Called during transfers; a non-zero return aborts the request (then
	 * SINK_RETRY). Lets a stopping daemon interrupt a hanging request. */
	int (*should_abort)(void *ctx);
	void *abort_ctx;
};

struct sink;

/* Copies everything it needs from o (strings included). Returns 0, -EINVAL
 * (bad url scheme, kind, a credential or tenant id with control characters,
 * basic_user without basic_password or the reverse, a Pyroscope url with a
 * query), -ENOMEM. Does no I/O and does not load libcurl: the first send
 * does (see http_sink__post()). */
int sink__new(const struct sink_opts *o, struct sink **out);
void sink__delete(struct sink *s);

/* Sends dump d. For SINK_JSON, body_gz/body_len is the dump's gzip JSON as
 * stored in the spool (sent as is, Content-Encoding: gzip); the Pyroscope
 * sink builds its own plain bodies from d. Writes a one-line human summary
 * into msg (e.g. "HTTP 400: bad profile" with the server's answer, truncated
 * and sanitized, or "connect: Connection refused"). Never logs. */
enum sink_result sink__send(struct sink *s, const struct dump *d,
			    const void *body_gz, size_t body_len, char *msg, size_t msglen);

/* How long the server asked us to wait (its Retry-After) with the answer
 * that made the last sink__send() return SINK_RETRY, in seconds; 0 when it
 * did not say. */
uint64_t sink__retry_after_s(const struct sink *s);

#endif
