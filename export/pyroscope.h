/* The Grafana Pyroscope sink: one POST /ingest (folded format, plain body)
 * per profile of a dump and per 16,000 distinct stacks. The
 * request-building helpers are exposed for tests. */
#ifndef SMOLDER_EXPORT_PYROSCOPE_H
#define SMOLDER_EXPORT_PYROSCOPE_H
#include <stddef.h>
#include <stdint.h>

#include "export/sink.h"

struct dump;
struct dump_profile;

/* The server refuses profiles with more distinct stacks than this. */
#define PYROSCOPE_MAX_STACKS 16000u
/* Grafana Pyroscope keeps max_profile_stacktrace_depth (default 1000)
 * frames of a stack; a deeper one is sent as its leafmost 999 frames under
 * this root, so the cut shows and is counted. */
#define PYROSCOPE_MAX_DEPTH 1000u
#define PYROSCOPE_CUT_ROOT "[\xe2\x80\xa6" "deeper than 1000 frames]"

struct pyroscope;

/* Copies what it needs from o (url is the server's base URL; "/ingest" is
 * appended unless it already ends so). Returns 0, -EINVAL (bad url, tenant
 * id with control characters, ...), -ENOMEM. Does no I/O; libcurl is loaded
 * by the first send, as for http_sink__new(). */
int pyroscope__new(const struct sink_opts *o, struct pyroscope **out);
void pyroscope__delete(struct pyroscope *p);

/* Sends every profile of d. DELIVERED when every request got a 2xx; stops at
 * the first RETRY or REJECTED. Requests that succeeded are remembered for
 * this dump (window id, times, host, shape), and skipped when the same dump
 * is sent again, so a retried dump is not counted twice by the server; the
 * memory is replaced when another dump is sent. Not thread-safe. */
enum sink_result pyroscope__send(struct pyroscope *p, const struct dump *d, char *msg,
				 size_t msglen);

/* "<service>.cpu{<global labels>,hostname=<host>[,pid=<pid>][,thread=<name>]}",
 * sanitized to the grammar the server parses (see pyroscope.c); a label
 * whose value is empty is left out. malloc'd; NULL on ENOMEM. */
char *pyroscope__name(const struct dump *d, size_t profile);
/* The profile type part of the name for an event: ".cpu" (CPU events),
 * ".block_duration" (off-cpu: waits in nanoseconds). */
const char *pyroscope__type_suffix(const char *event_name);

/* "name=...&from=...&until=...&sampleRate=...&spyName=smolder&format=folded",
 * values percent-encoded. malloc'd; NULL on ENOMEM. */
char *pyroscope__query(const struct dump *d, size_t profile);

/* from = floor(start_ns / 1e9); until = ceil(end_ns / 1e9), at least from + 1. */
void pyroscope__range(uint64_t start_ns, uint64_t end_ns, uint64_t *from, uint64_t *until);

/* Number of requests profile needs (0 for a profile without stacks). */
size_t pyroscope__nchunks(const struct dump_profile *prof);

/* Builds the body of request `chunk` of prof ("stack count\n" lines for
 * stacks [chunk * PYROSCOPE_MAX_STACKS, ...), zero counts left out) into
 * *buf (grown with realloc; *cap its size). Stacks deeper than
 * PYROSCOPE_MAX_DEPTH are cut at their root, each adding 1 to *cut.
 * Returns 0 and the length in *len, or -ENOMEM / -EINVAL (chunk out of
 * range). */
int pyroscope__body(const struct dump_profile *prof, size_t chunk, char **buf, size_t *cap,
		    size_t *len, size_t *cut);

/* Sanitizers (write into dst, always NUL-terminated, truncating at dstlen):
 * label names keep [A-Za-z0-9_] (others become '_', a leading digit gets a
 * '_' prefix); values drop nothing but turn ',', '}', '=', control chars and
 * invalid UTF-8 into '_'; the app name turns '{', '}', ',', '=', whitespace
 * and control chars into '_'. */
void pyroscope__label_name(const char *s, char *dst, size_t dstlen);
void pyroscope__label_value(const char *s, char *dst, size_t dstlen);
void pyroscope__app_name(const char *s, char *dst, size_t dstlen);

/* 1 when the server's answer says the profile is too old for it: it says
 * "too old" or "older than", or it speaks of the ingestion window while the
 * dump ended (end_ns) more than 10 minutes before now_ns (not a clock skew
 * into the future, then). */
/* The last failed request's Retry-After in seconds, 0 when none. */
uint64_t pyroscope__retry_after_s(const struct pyroscope *p);

int pyroscope__answer_too_old(const char *answer, uint64_t end_ns, uint64_t now_ns);

#endif
