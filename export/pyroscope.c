/* Grafana Pyroscope sink: folded stacks POSTed to /ingest, one request per profile and chunk. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/log.h"
#include "export/dump_read.h"
#include "export/http_sink.h"
#include "export/pyroscope.h"

#define NAME_MAX_LEN 128   /* label names; Pyroscope's default limit is 1024 */
#define VALUE_MAX_LEN 1024 /* label values; default limit 2048 */
#define APP_MAX_LEN 256
#define MAX_LABELS 24      /* the server's default is 30 names per series, its own included */

#define TOO_OLD_HINT "(Pyroscope rejects profiles older than its -validation.reject-older-than, " \
		     "default 1h; raise it to upload old dumps)"

struct pyroscope {
	struct http_sink *http;
	char *ingest_url;
	char *tenant_header; /* "X-Scope-OrgID: ..." or NULL */
	char *body;
	size_t body_cap;
	/* Which requests of the last dump sent already got a 2xx. */
	char *mem_window_id, *mem_hostname, *mem_event; /* a window's events are dumps each */
	uint64_t mem_start, mem_end;
	size_t mem_nprofiles;
	unsigned char *done;
	size_t ndone;
};

/* A growable string; a failed append poisons it (err) so callers check once. */
struct sbuf {
	char *s;
	size_t len, cap;
	int err;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	char *ns;
	size_t ncap;

	if (b->err)
		return;
	if (n > SIZE_MAX - b->len - 1) {
		b->err = -ENOMEM;
		return;
	}
	if (b->len + n + 1 > b->cap) {
		ncap = b->cap ? b->cap : 64;
		while (ncap < b->len + n + 1)
			ncap = ncap > SIZE_MAX / 2 ? b->len + n + 1 : ncap * 2;
		ns = realloc(b->s, ncap);
		if (!ns) {
			b->err = -ENOMEM;
			return;
		}
		b->s = ns;
		b->cap = ncap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* Percent-encodes all but RFC 3986's unreserved characters, with upper-case
 * hex digits: what curl_easy_escape() does, without needing libcurl to build
 * a query (it is loaded only when a request is sent). */
static void sb_escape(struct sbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char pct[3] = { '%', 0, 0 };
	unsigned char c;

	for (; *s && !b->err; s++) {
		c = (unsigned char)*s;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~') {
			sb_add(b, s, 1);
			continue;
		}
		pct[1] = hex[c >> 4];
		pct[2] = hex[c & 15];
		sb_add(b, pct, 3);
	}
}

static void sb_u64(struct sbuf *b, uint64_t v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%" PRIu64, v);

	sb_add(b, num, (size_t)n);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
	return n;
}

void pyroscope__label_name(const char *s, char *dst, size_t dstlen)
{
	size_t o = 0;

	if (!dstlen)
		return;
	/* Prometheus' legacy grammar [A-Za-z_][A-Za-z0-9_]*: the strictest of
	 * what Pyroscope versions accept ('.' passes its key parser but not
	 * every version's label validation). */
	if (s && *s >= '0' && *s <= '9' && dstlen > 1)
		dst[o++] = '_';
	for (; s && *s && o + 1 < dstlen; s++) {
		char c = *s;

		dst[o++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == '_') ? c : '_';
	}
	dst[o] = '\0';
}

/* Copies s, replacing bytes for which bad() holds and invalid UTF-8 with '_',
 * never cutting a multibyte character. */
static void sanitize(const char *s, char *dst, size_t dstlen, int (*bad)(unsigned char))
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n;

	if (!dstlen)
		return;
	while (p && *p && o + 1 < dstlen) {
		n = utf8_len(p);
		if (n == 1 && !bad(*p)) {
			dst[o++] = (char)*p;
		} else if (n > 1) {
			if (o + n + 1 > dstlen)
				break;
			memcpy(dst + o, p, n);
			o += n;
		} else {
			dst[o++] = '_';
			n = 1;
		}
		p += n;
	}
	dst[o] = '\0';
}

static int bad_value(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == ',' || c == '}' || c == '=' || c == '{';
}

/* What Go's strings.TrimSpace, which the server applies to label values,
 * would take off an end: a value must reach it unchanged. */
static size_t space_at(const unsigned char *p)
{
	if (*p == ' ')
		return 1;
	if (p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
		return 2;
	if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80)
		return 3; /* U+1680 */
	if (p[0] == 0xe2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8a) || p[2] == 0xa8 ||
					     p[2] == 0xa9 || p[2] == 0xaf))
		return 3; /* U+2000..200A, 2028, 2029, 202F */
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f)
		return 3; /* U+205F */
	if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)
		return 3; /* U+3000 */
	return 0;
}

void pyroscope__label_value(const char *s, char *dst, size_t dstlen)
{
	size_t len, i, n;

	sanitize(s, dst, dstlen, bad_value);
	/* a space at either end becomes '_' */
	n = space_at((unsigned char *)dst);
	if (n) {
		dst[0] = '_';
		memmove(dst + 1, dst + n, strlen(dst + n) + 1);
	}
	len = strlen(dst);
	for (i = len >= 3 ? len - 3 : 0; i < len; i++) {
		if (space_at((unsigned char *)dst + i) == len - i) {
			dst[i] = '_';
			dst[i + 1] = '\0';
			break;
		}
	}
}

/* Pyroscope's application names: [A-Za-z0-9_.-] and nothing else (its
 * ingest refuses the whole request otherwise). Every other character, a
 * multi-byte one included, becomes one '_'. */
void pyroscope__app_name(const char *s, char *dst, size_t dstlen)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n;

	if (!dstlen)
		return;
	while (p && *p && o + 1 < dstlen) {
		unsigned char c = *p;

		n = utf8_len(p);
		if (n == 0)
			n = 1;
		dst[o++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			    c == '_' || c == '.' || c == '-') ? (char)c : '_';
		p += n;
	}
	dst[o] = '\0';
}

static const char *label_get(const struct dump_label *l, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i].name && !strcmp(l[i].name, name))
			return l[i].value;
	return NULL;
}

struct label_set {
	char names[MAX_LABELS][NAME_MAX_LEN + 1];
	size_t n;
	int any;
};

/* Appends ",name=value" unless the name is reserved, empty, a duplicate
 * (the first one wins: global labels may override hostname) or the value
 * empty (an empty value means "no label" to the server). */
static void add_label(struct sbuf *b, struct label_set *ls, const char *name, const char *value)
{
	char n[NAME_MAX_LEN + 1], v[VALUE_MAX_LEN + 1];
	size_t i;

	if (!name || !value || ls->n >= MAX_LABELS)
		return;
	pyroscope__label_name(name, n, sizeof(n));
	pyroscope__label_value(value, v, sizeof(v));
	if (!n[0] || !v[0] || !strncmp(n, "__", 2) || !strcmp(n, "service_name"))
		return;
	for (i = 0; i < ls->n; i++)
		if (!strcmp(ls->names[i], n))
			return;
	memcpy(ls->names[ls->n++], n, sizeof(n));
	if (ls->any)
		sb_add(b, ",", 1);
	ls->any = 1;
	sb_str(b, n);
	sb_add(b, "=", 1);
	sb_str(b, v);
}

char *pyroscope__name(const struct dump *d, size_t profile)
{
	const struct dump_profile *pr;
	struct label_set *ls;
	struct sbuf b = { 0 };
	char app[APP_MAX_LEN + 1];
	const char *svc;
	size_t i;

	if (!d || profile >= d->nprofiles)
		return NULL;
	pr = &d->profiles[profile];
	svc = label_get(pr->labels, pr->nlabels, "service_name");
	if (!svc || !*svc)
		svc = label_get(pr->labels, pr->nlabels, "comm");
	pyroscope__app_name(svc, app, sizeof(app));
	if (!app[0])
		memcpy(app, "unknown", sizeof("unknown"));

	ls = calloc(1, sizeof(*ls));
	if (!ls)
		return NULL;
	sb_str(&b, app);
	sb_str(&b, pyroscope__type_suffix(d->event_name));
	sb_add(&b, "{", 1);
	/* whose it is, before the operator's labels can name one: a user's
	 * process is never a series of root's */
	add_label(&b, ls, "user", label_get(pr->labels, pr->nlabels, "user"));
	for (i = 0; i < d->nlabels; i++)
		add_label(&b, ls, d->labels[i].name, d->labels[i].value);
	/* exe and comm stay out: per-binary series would multiply cardinality */
	add_label(&b, ls, "hostname", d->hostname);
	add_label(&b, ls, "pid", label_get(pr->labels, pr->nlabels, "pid"));
	/* grouped per thread on request: the operator chose the cardinality */
	add_label(&b, ls, "thread", label_get(pr->labels, pr->nlabels, "thread"));
	sb_add(&b, "}", 1);
	free(ls);
	if (b.err) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

void pyroscope__range(uint64_t start_ns, uint64_t end_ns, uint64_t *from, uint64_t *until)
{
	uint64_t f = start_ns / 1000000000ull;
	uint64_t u = end_ns / 1000000000ull + (end_ns % 1000000000ull ? 1 : 0);

	if (u <= f)
		u = f + 1;
	*from = f;
	*until = u;
}

const char *pyroscope__type_suffix(const char *event_name)
{
	/* The legacy ingest knows a fixed set of types by the name's last
	 * part. ".cpu" files samples under process_cpu (scaled to CPU time by
	 * sampleRate). Off-CPU time is what Go's block profile holds, time
	 * spent waiting in nanoseconds: ".block_duration" files it under
	 * block:delay:nanoseconds, unscaled (a ".wall" would be samples
	 * times the rate's period, a ".off_cpu" is refused). */
	return event_name && strcmp(event_name, "off-cpu") == 0 ? ".block_duration" : ".cpu";
}

char *pyroscope__query(const struct dump *d, size_t profile)
{
	struct sbuf b = { 0 };
	uint64_t from, until;
	char *name;

	name = pyroscope__name(d, profile);
	if (!name)
		return NULL;
	pyroscope__range(d->start_ns, d->end_ns, &from, &until);
	sb_str(&b, "name=");
	sb_escape(&b, name);
	free(name);
	sb_str(&b, "&from=");
	sb_u64(&b, from);
	sb_str(&b, "&until=");
	sb_u64(&b, until);
	/* sampleRate=0 would make the server divide by zero or refuse; its default is 100 */
	if (d->frequency_hz) {
		sb_str(&b, "&sampleRate=");
		sb_u64(&b, d->frequency_hz);
	}
	sb_str(&b, "&spyName=smolder&format=folded");
	if (b.err) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

size_t pyroscope__nchunks(const struct dump_profile *prof)
{
	return prof->nstacks / PYROSCOPE_MAX_STACKS + (prof->nstacks % PYROSCOPE_MAX_STACKS ? 1 : 0);
}

/* Where the leafmost PYROSCOPE_MAX_DEPTH - 1 frames of stack st start, or
 * st itself when it is not deeper than PYROSCOPE_MAX_DEPTH. */
static const char *deep_tail(const char *st)
{
	size_t frames = 1, keep = PYROSCOPE_MAX_DEPTH - 1;
	const char *p;

	for (p = st; *p; p++)
		frames += *p == ';';
	if (frames <= PYROSCOPE_MAX_DEPTH)
		return st;
	for (p = st; frames > keep; p++)
		if (*p == ';')
			frames--;
	return p;
}

int pyroscope__body(const struct dump_profile *prof, size_t chunk, char **buf, size_t *cap,
		    size_t *len, size_t *cut)
{
	struct sbuf b = { .s = *buf, .len = 0, .cap = *cap };
	size_t i, first, last;
	const char *st, *tail;

	if (chunk >= pyroscope__nchunks(prof))
		return -EINVAL;
	first = chunk * PYROSCOPE_MAX_STACKS;
	last = prof->nstacks - first > PYROSCOPE_MAX_STACKS ? first + PYROSCOPE_MAX_STACKS
							   : prof->nstacks;
	if (b.s)
		b.s[0] = '\0';
	for (i = first; i < last && !b.err; i++) {
		size_t start = b.len, k;

		if (!prof->stacks[i].count)
			continue;
		st = prof->stacks[i].stack;
		if (!st || !*st)
			st = "[unknown]";
		/* The server would drop the frames past its depth limit without
		 * a trace: the root side goes here instead, under a marked root. */
		tail = deep_tail(st);
		if (tail != st) {
			sb_str(&b, PYROSCOPE_CUT_ROOT ";");
			(*cut)++;
		}
		sb_str(&b, tail);
		/* A newline in a (hostile) stack would forge lines. */
		for (k = start; !b.err && k < b.len; k++)
			if ((unsigned char)b.s[k] < 0x20 || b.s[k] == 0x7f)
				b.s[k] = '_';
		sb_add(&b, " ", 1);
		sb_u64(&b, prof->stacks[i].count);
		sb_add(&b, "\n", 1);
	}
	*buf = b.s;
	*cap = b.cap;
	if (b.err)
		return b.err;
	*len = b.len;
	return 0;
}

/* Case-insensitive strstr without GNU's strcasestr portability questions. */
static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

int pyroscope__answer_too_old(const char *answer, uint64_t end_ns, uint64_t now_ns)
{
	if (!answer)
		return 0;
	if (contains_ci(answer, "too old") || contains_ci(answer, "older than"))
		return 1;
	return contains_ci(answer, "ingestion window") && end_ns + 600000000000ull < now_ns;
}

static void forget(struct pyroscope *p)
{
	free(p->mem_window_id);
	free(p->mem_hostname);
	free(p->mem_event);
	free(p->done);
	p->mem_window_id = p->mem_hostname = p->mem_event = NULL;
	p->done = NULL;
	p->ndone = 0;
}

static int same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Keeps the "done" flags when d is the dump remembered, else starts afresh. */
static int remember(struct pyroscope *p, const struct dump *d, size_t nreq)
{
	if (p->done && p->ndone == nreq && p->mem_start == d->start_ns &&
	    p->mem_end == d->end_ns && p->mem_nprofiles == d->nprofiles &&
	    same_str(p->mem_window_id, d->window_id) && same_str(p->mem_hostname, d->hostname) &&
	    same_str(p->mem_event, d->event_name))
		return 0;
	forget(p);
	p->done = calloc(nreq ? nreq : 1, 1);
	p->mem_window_id = strdup(d->window_id ? d->window_id : "");
	p->mem_hostname = strdup(d->hostname ? d->hostname : "");
	p->mem_event = strdup(d->event_name ? d->event_name : "");
	if (!p->done || !p->mem_window_id || !p->mem_hostname || !p->mem_event) {
		forget(p);
		return -ENOMEM;
	}
	p->ndone = nreq;
	p->mem_start = d->start_ns;
	p->mem_end = d->end_ns;
	p->mem_nprofiles = d->nprofiles;
	return 0;
}

static void fail_msg(char *msg, size_t msglen, const struct dump *d, size_t pi, size_t chunk,
		     size_t nchunks, const char *what, int too_old)
{
	const struct dump_profile *pr = &d->profiles[pi];
	char app[64];
	size_t hint = too_old ? sizeof(TOO_OLD_HINT) : 0;
	int n;

	if (!msg || !msglen)
		return;
	pyroscope__app_name(label_get(pr->labels, pr->nlabels, "service_name"), app, sizeof(app));
	if (nchunks > 1)
		n = snprintf(msg, msglen, "profile %zu (%s) part %zu/%zu: %s", pi + 1, app,
			     chunk + 1, nchunks, what);
	else
		n = snprintf(msg, msglen, "profile %zu (%s): %s", pi + 1, app, what);
	if (!too_old || n < 0)
		return;
	/* The hint matters more than the tail of the server's answer. */
	if ((size_t)n + 1 + hint > msglen)
		n = msglen > hint + 1 ? (int)(msglen - hint - 1) : 0;
	snprintf(msg + n, msglen - (size_t)n, "%s%s", n ? " " : "", TOO_OLD_HINT);
}

enum sink_result pyroscope__send(struct pyroscope *p, const struct dump *d, char *msg,
				 size_t msglen)
{
	const char *headers[3] = { "Content-Type: binary/octet-stream", NULL, NULL };
	char what[512];
	struct http_req r;
	enum sink_result res;
	size_t pi, c, nc, idx, nreq = 0, sent = 0, len, cut = 0;
	char *query = NULL, *url = NULL;
	struct sbuf ub;
	struct timespec now;

	if (msg && msglen)
		msg[0] = '\0';
	if (!d || (d->nprofiles && !d->profiles)) {
		if (msg)
			snprintf(msg, msglen, "internal: no dump");
		return SINK_REJECTED;
	}
	for (pi = 0; pi < d->nprofiles; pi++) {
		nc = pyroscope__nchunks(&d->profiles[pi]);
		if (nc > SIZE_MAX - nreq)
			return SINK_REJECTED;
		nreq += nc;
	}
	if (remember(p, d, nreq)) {
		if (msg)
			snprintf(msg, msglen, "out of memory");
		return SINK_RETRY;
	}
	if (p->tenant_header)
		headers[1] = p->tenant_header;

	idx = 0;
	res = SINK_DELIVERED;
	for (pi = 0; pi < d->nprofiles && res == SINK_DELIVERED; pi++) {
		nc = pyroscope__nchunks(&d->profiles[pi]);
		for (c = 0; c < nc && res == SINK_DELIVERED; c++, idx++) {
			if (p->done[idx])
				continue;
			if (!url) {
				query = pyroscope__query(d, pi);
				memset(&ub, 0, sizeof(ub));
				if (query) {
					sb_str(&ub, p->ingest_url);
					sb_add(&ub, "?", 1);
					sb_str(&ub, query);
				}
				free(query);
				if (!query || ub.err) {
					free(ub.s);
					res = SINK_RETRY;
					if (msg)
						snprintf(msg, msglen, "out of memory");
					break;
				}
				url = ub.s;
			}
			if (pyroscope__body(&d->profiles[pi], c, &p->body, &p->body_cap, &len, &cut)) {
				res = SINK_RETRY;
				if (msg)
					snprintf(msg, msglen, "out of memory");
				break;
			}
			if (len == 0) { /* only zero counts: nothing to say */
				p->done[idx] = 1;
				continue;
			}
			r.url = url;
			r.headers = headers;
			r.body = p->body;
			r.len = len;
			res = http_sink__post(p->http, &r, NULL, what, sizeof(what));
			if (res == SINK_DELIVERED) {
				p->done[idx] = 1;
				sent++;
				continue;
			}
			clock_gettime(CLOCK_REALTIME, &now);
			fail_msg(msg, msglen, d, pi, c, nc, what,
				 res == SINK_REJECTED &&
					 pyroscope__answer_too_old(
						 http_sink__answer(p->http, NULL), d->end_ns,
						 (uint64_t)now.tv_sec * 1000000000ull +
							 (uint64_t)now.tv_nsec));
		}
		free(url);
		url = NULL;
	}
	if (res == SINK_DELIVERED && msg)
		snprintf(msg, msglen, "delivered: %zu request%s to Pyroscope%s", sent, sent == 1 ? "" : "s",
			 cut ? "; stacks deeper than Pyroscope keeps were cut at their root" : "");
	if (cut)
		log__info("%s: %zu stack%s deeper than %u frames sent as their %u leafmost frames "
			  "under a root named " PYROSCOPE_CUT_ROOT,
			  d->window_id && *d->window_id ? d->window_id : "dump", cut, cut == 1 ? "" : "s",
			  PYROSCOPE_MAX_DEPTH, PYROSCOPE_MAX_DEPTH - 1);
	return res;
}

void pyroscope__delete(struct pyroscope *p)
{
	if (!p)
		return;
	http_sink__delete(p->http);
	free(p->ingest_url);
	free(p->tenant_header);
	free(p->body);
	forget(p);
	free(p);
}

int pyroscope__new(const struct sink_opts *o, struct pyroscope **out)
{
	struct pyroscope *p;
	struct sbuf b = { 0 };
	size_t ulen;
	const char *c;
	int err;

	if (!o || !out || !http_sink__url_ok(o->url))
		return -EINVAL;
	for (c = o->tenant_id; c && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return -EINVAL;
	/* the query string is ours */
	if (strchr(o->url, '?') || strchr(o->url, '#'))
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	err = http_sink__new(o, &p->http);
	if (err)
		goto out_delete;
	ulen = strlen(o->url);
	while (ulen > 0 && o->url[ulen - 1] == '/')
		ulen--;
	sb_add(&b, o->url, ulen);
	if (!(ulen >= 7 && !strncmp(o->url + ulen - 7, "/ingest", 7)))
		sb_str(&b, "/ingest");
	p->ingest_url = b.s;
	if (b.err) {
		err = -ENOMEM;
		goto out_delete;
	}
	if (o->tenant_id && *o->tenant_id) {
		memset(&b, 0, sizeof(b));
		sb_str(&b, "X-Scope-OrgID: ");
		sb_str(&b, o->tenant_id);
		p->tenant_header = b.s;
		if (b.err) {
			err = -ENOMEM;
			goto out_delete;
		}
	}
	*out = p;
	return 0;

out_delete:
	pyroscope__delete(p);
	return err;
}

uint64_t pyroscope__retry_after_s(const struct pyroscope *p)
{
	return http_sink__retry_after_s(p->http);
}
