/* The uploader thread: delivers spooled dumps through a sink, oldest first. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "common/hash.h"
#include "common/clock.h"
#include "export/dump_read.h"
#include "export/sink.h"
#include "export/spool.h"
#include "export/uploader.h"

#define MS 1000000ull
#define SEC 1000000000ull
/* Dumps may appear without a kick (another process writing the spool, a
 * lost wakeup): look again this often when idle. */
#define IDLE_RESCAN_NS (30 * SEC)
/* While failing, the same warning at most this often. */
#define WARN_EVERY_NS (60 * SEC)
#define MSG_LEN 1024

struct uploader {
	struct uploader_opts o;
	pthread_t thread;
	pthread_mutex_t lock; /* guards everything below */
	pthread_cond_t cond;  /* CLOCK_MONOTONIC */
	struct sink *sink;    /* current, owned */
	struct sink *inuse;   /* the sink of the request in flight */
	struct sink *retired; /* replaced while in use: deleted after it */
	uploader_send_fn send_fn;
	void *send_ctx;
	int stop, kicked, sink_changed;
	uint64_t deadline_ns;
	struct uploader_stats stats;
};

/* State of the thread only (no lock needed). */
struct run {
	uint64_t backoff_ns;   /* the next failure's upper bound */
	int failing;
	uint64_t last_warn_ns; /* monotonic */
	uint64_t quiet;        /* failures not logged since last_warn_ns */
	uint64_t rng;
};

static void say(struct uploader *u, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(struct uploader *u, int prio, const char *fmt, ...)
{
	char buf[MSG_LEN + 512];
	va_list ap;

	if (!u->o.log)
		return;
	va_start(ap, fmt);
	if (vsnprintf(buf, sizeof(buf), fmt, ap) < 0)
		buf[0] = '\0';
	va_end(ap);
	u->o.log(u->o.log_ctx, prio, buf);
}

static struct timespec mono_ts(uint64_t ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / SEC);
	ts.tv_nsec = (long)(ns % SEC);
	return ts;
}

/* Waits on the condvar until `until` (monotonic ns; 0: no timeout). Lock held. */
static void wait_until(struct uploader *u, uint64_t until)
{
	struct timespec ts;

	if (!until) {
		pthread_cond_wait(&u->cond, &u->lock);
		return;
	}
	ts = mono_ts(until);
	pthread_cond_timedwait(&u->cond, &u->lock, &ts);
}

/* Lock held. */
static int deadline_passed(const struct uploader *u)
{
	return u->stop && clock__mono_ns() >= u->deadline_ns;
}

static uint64_t next_rand(struct run *r)
{
	/* xorshift64*: jitter needs spread, not secrecy. */
	r->rng ^= r->rng >> 12;
	r->rng ^= r->rng << 25;
	r->rng ^= r->rng >> 27;
	return r->rng * 2685821657736338717ull;
}

static void reset_backoff(struct uploader *u, struct run *r)
{
	r->backoff_ns = u->o.backoff_min_ms * MS;
	r->failing = 0;
	r->quiet = 0;
}

/* Full jitter in [b/2, b], then doubles b up to the cap. */
static uint64_t take_backoff(struct uploader *u, struct run *r)
{
	uint64_t b = r->backoff_ns, wait, max = u->o.backoff_max_ms * MS;

	wait = b / 2 + next_rand(r) % (b - b / 2 + 1);
	r->backoff_ns = b > max / 2 ? max : b * 2;
	return wait;
}

/* Sleeps for a failure's backoff. A stop request ends it early (one more
 * try before the deadline), as does a new sink (it may work); once
 * stopping, the wait just ends at the deadline. Kicks do not end it: a
 * failure is pending. */
static void backoff_wait(struct uploader *u, uint64_t wait_ns)
{
	uint64_t until = clock__mono_ns() + wait_ns;
	int stopping;

	pthread_mutex_lock(&u->lock);
	stopping = u->stop;
	if (stopping && u->deadline_ns < until)
		until = u->deadline_ns;
	while ((stopping || !u->stop) && !u->sink_changed && clock__mono_ns() < until)
		wait_until(u, until);
	pthread_mutex_unlock(&u->lock);
}

/* The wait a server asked for, within what the options allow. */
static uint64_t asked_wait_ns(const struct uploader *u, uint64_t retry_after_s)
{
	uint64_t cap_ms = u->o.retry_after_max_ms;

	if (retry_after_s >= cap_ms / 1000)
		return cap_ms * MS;
	return retry_after_s * SEC;
}

/* Logs a failure (rate-limited) and waits the backoff, or what the server
 * asked (retry_after_s, 0: nothing) when that is longer. */
static void failure(struct uploader *u, struct run *r, const char *what, const char *msg,
		    uint64_t retry_after_s)
{
	uint64_t wait = take_backoff(u, r), now = clock__mono_ns();
	uint64_t asked = asked_wait_ns(u, retry_after_s);
	const char *why = "";

	if (asked > wait) {
		wait = asked;
		why = ", as the server asked";
	}
	if (!r->failing || now - r->last_warn_ns >= WARN_EVERY_NS) {
		if (r->quiet)
			say(u, LOG_WARNING, "%s: %s; retrying in %.1fs%s (%llu failures not logged)",
			    what, msg, (double)wait / SEC, why, (unsigned long long)r->quiet);
		else
			say(u, LOG_WARNING, "%s: %s; retrying in %.1fs%s", what, msg,
			    (double)wait / SEC, why);
		r->last_warn_ns = now;
		r->quiet = 0;
	} else {
		r->quiet++;
	}
	r->failing = 1;
	backoff_wait(u, wait);
}

/* Parks a dump in rejected/. Returns 0, or -errno after logging. */
static int park(struct uploader *u, struct run *r, const char *name, const char *why)
{
	int err = spool__reject(u->o.spool, name, why);

	if (err && err != -ENOENT) {
		char m[MSG_LEN];

		/* It stays in the spool and blocks newer dumps: back off so
		 * this never spins, and say why. */
		snprintf(m, sizeof(m), "cannot move it to rejected/ (%s) after: %s", strerror(-err),
			 why);
		failure(u, r, name, m, 0);
		return err;
	}
	return 0;
}

/* Counted after the log line, so whoever sees the count sees the line. */
static void count_rejected(struct uploader *u)
{
	pthread_mutex_lock(&u->lock);
	u->stats.rejected++;
	pthread_mutex_unlock(&u->lock);
}

/* Reads and sends the oldest dump, then acts on the answer. Returns 1 when
 * the dump left the spool (the next one may follow), 0 after a failure. */
static int deliver(struct uploader *u, struct run *r, const char *name)
{
	char err[MSG_LEN], msg[MSG_LEN];
	struct dump *d = NULL, *doc;
	void *gz = NULL;
	size_t gzlen = 0;
	struct sink *sink, *retired;
	uploader_send_fn fn;
	void *ctx;
	uint64_t retry_after_s = 0;
	int res, rc;

	err[0] = '\0';
	rc = dump__read_fileat(spool__dirfd(u->o.spool), name, &d, &gz, &gzlen, err, sizeof(err));
	if (rc == -ENOENT)
		return 1; /* dropped by the size/age bounds meanwhile */
	if (rc == -ENOMEM) {
		failure(u, r, name, "out of memory reading it", 0);
		return 0;
	}
	if (rc) {
		/* Retrying cannot fix the file; keep it aside, with why. */
		if (park(u, r, name, err) != 0)
			return 0;
		say(u, LOG_ERR, "%s rejected: %s", name, err);
		count_rejected(u);
		return 1;
	}
	pthread_mutex_lock(&u->lock);
	sink = u->sink;
	fn = u->send_fn;
	ctx = u->send_ctx;
	u->inuse = fn ? NULL : sink;
	pthread_mutex_unlock(&u->lock);
	msg[0] = '\0';
	res = SINK_DELIVERED;
	/* a file of several documents (a recording of two events) is sent
	 * a document at a time, each in its own gzip form */
	for (doc = d; doc && res == SINK_DELIVERED; doc = doc->next) {
		const void *body = doc->doc_gz ? doc->doc_gz : gz;
		size_t blen = doc->doc_gz ? doc->doc_gzlen : gzlen;

		if (fn) {
			res = fn(ctx, doc, body, blen, msg, sizeof(msg), &retry_after_s);
		} else if (sink) {
			res = sink__send(sink, doc, body, blen, msg, sizeof(msg));
			retry_after_s = sink__retry_after_s(sink);
		} else
			res = -1; /* the sink went away meanwhile */
	}
	pthread_mutex_lock(&u->lock);
	u->inuse = NULL;
	retired = u->retired;
	u->retired = NULL;
	pthread_mutex_unlock(&u->lock);
	sink__delete(retired);
	dump__delete(d);
	free(gz);
	msg[sizeof(msg) - 1] = '\0';

	switch (res) {
	case SINK_DELIVERED:
		rc = spool__remove(u->o.spool, name);
		say(u, LOG_INFO, "delivered %s", name);
		pthread_mutex_lock(&u->lock);
		u->stats.delivered++;
		u->stats.last_delivered_ns = clock__real_ns();
		pthread_mutex_unlock(&u->lock);
		reset_backoff(u, r);
		if (rc) {
			/* Else it would be sent again at once, forever. */
			snprintf(err, sizeof(err), "delivered but cannot remove it: %s",
				 strerror(-rc));
			failure(u, r, name, err, 0);
			return 0;
		}
		return 1;
	case SINK_REJECTED:
		if (!msg[0])
			snprintf(msg, sizeof(msg), "rejected by the server");
		reset_backoff(u, r);
		if (park(u, r, name, msg) != 0)
			return 0;
		say(u, LOG_ERR, "%s rejected: %s", name, msg);
		count_rejected(u);
		return 1;
	case SINK_RETRY:
		pthread_mutex_lock(&u->lock);
		u->stats.retries++;
		pthread_mutex_unlock(&u->lock);
		failure(u, r, name, msg[0] ? msg : "failed", retry_after_s); /* logs, waits */
		return 0;
	default:
		return 0; /* no sink any more: the loop waits for one */
	}
}

/* Between two dumps of one listing: go on unless stopping is due or the
 * sink went away. */
static int may_continue(struct uploader *u)
{
	int ok;

	pthread_mutex_lock(&u->lock);
	ok = !deadline_passed(u) && (u->sink || u->send_fn);
	pthread_mutex_unlock(&u->lock);
	return ok;
}



static void *run(void *arg)
{
	struct uploader *u = arg;
	struct run r;
	char **names = NULL;
	size_t n = 0, i;
	int rc;

	/* What stays spooled at exit is the daemon's to report (spool__depth). */
	memset(&r, 0, sizeof(r));
	r.rng = hash__mix(hash__mix(clock__mono_ns(), (uint64_t)getpid()), (uintptr_t)u) | 1;
	reset_backoff(u, &r);
	for (;;) {
		pthread_mutex_lock(&u->lock);
		if (deadline_passed(u)) {
			pthread_mutex_unlock(&u->lock);
			break;
		}
		if (!u->sink && !u->send_fn) {
			/* Nothing to send with: stopping needs no delivery. */
			if (u->stop) {
				pthread_mutex_unlock(&u->lock);
				break;
			}
			while (!u->stop && !u->sink && !u->send_fn)
				wait_until(u, 0);
			pthread_mutex_unlock(&u->lock);
			continue;
		}
		if (u->sink_changed) {
			u->sink_changed = 0;
			reset_backoff(u, &r);
		}
		u->kicked = 0;
		pthread_mutex_unlock(&u->lock);

		rc = spool__list(u->o.spool, &names, &n);
		if (rc) {
			char m[MSG_LEN];

			snprintf(m, sizeof(m), "%s", strerror(-rc));
			failure(u, &r, "listing the spool", m, 0);
			continue;
		}
		if (n == 0) {
			uint64_t until = clock__mono_ns() + IDLE_RESCAN_NS;

			spool__free_list(names, n);
			pthread_mutex_lock(&u->lock);
			if (u->stop) {
				pthread_mutex_unlock(&u->lock);
				break;
			}
			while (!u->kicked && !u->stop && !u->sink_changed && clock__mono_ns() < until)
				wait_until(u, until);
			pthread_mutex_unlock(&u->lock);
			continue;
		}
		/* Oldest first through the whole listing: listing again after
		 * every dump would make draining a big spool quadratic. New
		 * dumps are newer than all listed, so order holds; after a
		 * failure the next round lists again. */
		for (i = 0; i < n; i++)
			if (!deliver(u, &r, names[i]) || !may_continue(u))
				break;
		spool__free_list(names, n);
	}
	return NULL;
}

int uploader__start(const struct uploader_opts *o, struct uploader **out)
{
	struct uploader *u;
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	if (!o || !o->spool || !out)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->o = *o;
	if (!u->o.backoff_min_ms)
		u->o.backoff_min_ms = 1000;
	if (!u->o.backoff_max_ms)
		u->o.backoff_max_ms = 300000;
	if (u->o.backoff_max_ms < u->o.backoff_min_ms)
		u->o.backoff_max_ms = u->o.backoff_min_ms;
	if (!u->o.retry_after_max_ms)
		u->o.retry_after_max_ms = u->o.backoff_max_ms;
	err = -pthread_mutex_init(&u->lock, NULL);
	if (err)
		goto out_free;
	err = -pthread_condattr_init(&ca);
	if (err)
		goto out_mutex;
	/* Backoff must not stretch or shrink when the wall clock is set. */
	err = -pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!err)
		err = -pthread_cond_init(&u->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (err)
		goto out_mutex;
	/* Signals belong to the daemon's main loop, not to this thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&u->thread, NULL, run, u);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto out_cond;
	*out = u;
	return 0;

out_cond:
	pthread_cond_destroy(&u->cond);
out_mutex:
	pthread_mutex_destroy(&u->lock);
out_free:
	free(u);
	return err;
}

void uploader__set_sink(struct uploader *u, struct sink *s)
{
	struct sink *old;

	pthread_mutex_lock(&u->lock);
	old = u->sink;
	u->sink = s;
	if (old && old == u->inuse) {
		/* The thread deletes it when its request returns; at most one
		 * sink is in use, so one slot suffices. */
		u->retired = old;
		old = NULL;
	}
	u->sink_changed = 1;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
	sink__delete(old);
}

void uploader__set_send_fn(struct uploader *u, uploader_send_fn fn, void *ctx)
{
	pthread_mutex_lock(&u->lock);
	u->send_fn = fn;
	u->send_ctx = ctx;
	u->sink_changed = 1;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

void uploader__kick(struct uploader *u)
{
	if (!u)
		return;
	pthread_mutex_lock(&u->lock);
	u->kicked = 1;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

int uploader__should_abort(void *arg)
{
	struct uploader *u = arg;
	int r;

	if (!u)
		return 0;
	pthread_mutex_lock(&u->lock);
	r = deadline_passed(u);
	pthread_mutex_unlock(&u->lock);
	return r;
}

void uploader__stop(struct uploader *u, uint64_t deadline_ns)
{
	if (!u)
		return;
	pthread_mutex_lock(&u->lock);
	u->stop = 1;
	u->deadline_ns = deadline_ns;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
	/* Returns once the spool is empty or the deadline passed and the
	 * request in flight (if any) saw should_abort. */
	pthread_join(u->thread, NULL);
	sink__delete(u->retired);
	sink__delete(u->sink);
	pthread_cond_destroy(&u->cond);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

void uploader__stats(struct uploader *u, struct uploader_stats *out)
{
	pthread_mutex_lock(&u->lock);
	*out = u->stats;
	pthread_mutex_unlock(&u->lock);
}
