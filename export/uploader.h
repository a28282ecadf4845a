/* The uploader: a thread that delivers the spool's dumps through a sink,
 * oldest first, so sending never blocks sampling. A delivered dump is
 * removed; a rejected one moves to rejected/; on SINK_RETRY the uploader
 * waits with capped exponential backoff and full jitter, or as long as the
 * server's Retry-After asks when that is longer, then tries the same
 * (oldest) dump again. A dump that fails to parse is moved to rejected/ too.
 * Log lines are produced through the callback (modules never log). */
#ifndef SMOLDER_EXPORT_UPLOADER_H
#define SMOLDER_EXPORT_UPLOADER_H
#include <stddef.h>
#include <stdint.h>

#include "export/sink.h"

struct dump;
struct spool;
struct uploader;

struct uploader_opts {
	struct spool *spool;          /* borrowed, outlives the uploader */
	uint64_t backoff_min_ms;      /* first retry delay, default 1000 */
	uint64_t backoff_max_ms;      /* cap, default 300000 */
	/* Longest wait a server's Retry-After can impose (default: backoff_max_ms).
	 * The daemon passes spool_max_age: waiting longer would only let the
	 * spool age out what we are waiting to send. */
	uint64_t retry_after_max_ms;
	/* priority is a syslog level (LOG_ERR...); called from the uploader thread */
	void (*log)(void *ctx, int priority, const char *msg);
	void *log_ctx;
};

struct uploader_stats {
	uint64_t delivered, rejected, retries;
	uint64_t last_delivered_ns; /* wall clock */
};

/* Starts the thread with no sink (it idles until uploader__set_sink). */
int uploader__start(const struct uploader_opts *o, struct uploader **out);
/* Replaces the sink (taking ownership; NULL stops sending, e.g. export = none).
 * The old sink is deleted once no request uses it. */
void uploader__set_sink(struct uploader *u, struct sink *s);
/* A new dump is in the spool: wake up (and skip the current backoff wait
 * only if no failure is pending). */
void uploader__kick(struct uploader *u);
/* Tries to deliver what is spooled until deadline_ns (CLOCK_MONOTONIC), then
 * stops the thread (aborting a request in flight) and frees everything. */
void uploader__stop(struct uploader *u, uint64_t deadline_ns);
void uploader__stats(struct uploader *u, struct uploader_stats *out);

/* For sink_opts.should_abort with abort_ctx = the uploader: 1 once a stop
 * was requested and its deadline has passed, so a hanging request ends.
 * Thread-safe. */
int uploader__should_abort(void *u);

/* Test seam: when fn is set it is called instead of sink__send (and counts
 * as a sink, so the thread sends without uploader__set_sink). NULL restores
 * the sink. Thread-safe. */
typedef enum sink_result (*uploader_send_fn)(void *ctx, const struct dump *d, const void *gz,
					     size_t len, char *msg, size_t msglen,
					     uint64_t *retry_after_s);
void uploader__set_send_fn(struct uploader *u, uploader_send_fn fn, void *ctx);

#endif
