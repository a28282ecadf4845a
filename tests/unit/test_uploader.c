/* The uploader thread, driven through its send seam instead of HTTP. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "common/clock.h"
#include "export/dump_read.h"
#include "export/gzip.h"
#include "export/spool.h"
#include "export/uploader.h"
#include "tests/unit/tmpdir.h"

#define MS 1000000ull
#define MAX_CALLS 64

static char dir[256];

static void setup(void)
{
	tmpdir_make(dir, sizeof(dir), "upl");
}

static void teardown(void)
{
	tmpdir_remove(dir);
}

TestSuite(uploader, .init = setup, .fini = teardown);

/* What the fake sink saw and will answer. */
struct fake {
	pthread_mutex_t lock;
	struct uploader *u;
	uint64_t starts[MAX_CALLS]; /* window start of each call */
	int calls;
	enum sink_result script[MAX_CALLS]; /* answers by call; DELIVERED after */
	const char *msg;
	uint64_t retry_after_s; /* answered with every SINK_RETRY */
	int block;   /* poll should_abort instead of answering */
	volatile int entered;
	/* log lines */
	int warnings, errors, infos;
	char last_error[512], last_warning[512];
};

static struct fake *fake_new(void)
{
	struct fake *f = calloc(1, sizeof(*f));

	pthread_mutex_init(&f->lock, NULL);
	return f;
}

static enum sink_result fake_send(void *ctx, const struct dump *d, const void *gz, size_t len,
				  char *msg, size_t msglen, uint64_t *retry_after_s)
{
	struct fake *f = ctx;
	enum sink_result r;
	int i;

	/* The body is the dump's gzip form. */
	if (len < 2 || ((const unsigned char *)gz)[0] != 0x1f)
		return SINK_REJECTED;
	pthread_mutex_lock(&f->lock);
	i = f->calls++;
	if (i < MAX_CALLS)
		f->starts[i] = d->start_ns;
	r = i < MAX_CALLS ? f->script[i] : SINK_DELIVERED;
	pthread_mutex_unlock(&f->lock);
	if (f->block) {
		uint64_t give_up = clock__mono_ns() + 10000 * MS;

		f->entered = 1;
		/* A hanging request that only the abort callback ends. */
		while (!uploader__should_abort(f->u) && clock__mono_ns() < give_up)
			usleep(1000);
		snprintf(msg, msglen, "aborted");
		return SINK_RETRY;
	}
	if (f->msg)
		snprintf(msg, msglen, "%s", f->msg);
	if (r == SINK_RETRY)
		*retry_after_s = f->retry_after_s;
	return r;
}

static void fake_log(void *ctx, int prio, const char *msg)
{
	struct fake *f = ctx;

	pthread_mutex_lock(&f->lock);
	if (prio == LOG_WARNING) {
		f->warnings++;
		snprintf(f->last_warning, sizeof(f->last_warning), "%s", msg);
	} else if (prio == LOG_ERR) {
		f->errors++;
		snprintf(f->last_error, sizeof(f->last_error), "%s", msg);
	} else if (prio == LOG_INFO) {
		f->infos++;
	}
	pthread_mutex_unlock(&f->lock);
}

static struct spool *mk_spool(void)
{
	struct spool_opts o = {0};
	struct spool *s = NULL;

	o.dir = dir;
	cr_assert_eq(spool__open(&o, &s), 0);
	return s;
}

/* Spools a valid dump of window `start`. */
static void put_dump(struct spool *s, uint64_t start)
{
	char json[1024], name[128];
	void *gz = NULL;
	size_t gzlen = 0;
	int n;

	n = snprintf(json, sizeof(json),
		     "{\"schema\":\"smolder.profile/v1\",\"agent\":{\"name\":\"smolder\",\"version\":\"0.1.0\"},"
		     "\"host\":{\"hostname\":\"h\",\"kernel\":\"k\",\"arch\":\"x86_64\"},"
		     "\"window\":{\"start_ns\":%llu,\"end_ns\":%llu},"
		     "\"event\":{\"name\":\"cpu-clock\",\"unit\":\"samples\",\"frequency_hz\":99},"
		     "\"labels\":{},\"profiles\":[{\"labels\":{\"service_name\":\"s\",\"exe\":\"/e\",\"comm\":\"c\"},"
		     "\"samples\":3,\"stacks\":[{\"stack\":\"main;f\",\"count\":3}]}],"
		     "\"stats\":{\"samples\":3,\"lost\":0,\"dropped\":0,\"throttled\":0,\"kernel_only\":0,"
		     "\"idle\":0,\"corrupt\":0,\"unwind\":{\"complete\":3,\"truncated\":0,\"no_cfi\":0,"
		     "\"no_map\":0,\"bad_pc\":0,\"depth\":0},\"processes\":1,\"binaries\":1,"
		     "\"agent_cpu_ns\":0,\"agent_rss_bytes\":0}}\n",
		     (unsigned long long)start, (unsigned long long)start + 10);
	cr_assert(n > 0 && (size_t)n < sizeof(json));
	cr_assert_eq(gzip__compress(json, (size_t)n, &gz, &gzlen), 0);
	spool__name(name, sizeof(name), start, "h");
	cr_assert_eq(spool__write(s, name, gz, gzlen), 0);
	free(gz);
}

static struct uploader *start_capped(struct spool *s, struct fake *f, uint64_t min_ms,
				     uint64_t max_ms, uint64_t retry_after_max_ms)
{
	struct uploader_opts o = {0};
	struct uploader *u = NULL;

	o.spool = s;
	o.backoff_min_ms = min_ms;
	o.backoff_max_ms = max_ms;
	o.retry_after_max_ms = retry_after_max_ms;
	o.log = fake_log;
	o.log_ctx = f;
	cr_assert_eq(uploader__start(&o, &u), 0);
	f->u = u;
	return u;
}

static struct uploader *start(struct spool *s, struct fake *f, uint64_t min_ms, uint64_t max_ms)
{
	return start_capped(s, f, min_ms, max_ms, 0);
}

/* Polls (bounded) until the uploader's stats satisfy pred. */
static int wait_for(struct uploader *u, int (*pred)(const struct uploader_stats *, int), int arg)
{
	struct uploader_stats st;
	int i;

	for (i = 0; i < 5000; i++) {
		uploader__stats(u, &st);
		if (pred(&st, arg))
			return 1;
		usleep(2000);
	}
	return 0;
}

static int delivered_at_least(const struct uploader_stats *st, int n)
{
	return st->delivered >= (uint64_t)n;
}

static int rejected_at_least(const struct uploader_stats *st, int n)
{
	return st->rejected >= (uint64_t)n;
}

static uint64_t depth(struct spool *s)
{
	uint64_t files;

	spool__depth(s, &files, NULL);
	return files;
}

Test(uploader, delivers_oldest_first_and_removes)
{
	struct spool *s = mk_spool();
	struct fake *f = fake_new();
	struct uploader *u;
	struct uploader_stats st;
	uint64_t order[] = {3, 1, 5, 2, 4};
	int i;

	for (i = 0; i < 5; i++)
		put_dump(s, order[i]);
	u = start(s, f, 10, 100);
	uploader__set_send_fn(u, fake_send, f);
	uploader__kick(u);
	cr_assert(wait_for(u, delivered_at_least, 5));
	uploader__stats(u, &st);
	cr_assert_eq(st.delivered, 5);
	cr_assert_eq(st.retries, 0);
	cr_assert(st.last_delivered_ns > 0);
	cr_assert_eq(f->calls, 5);
	for (i = 0; i < 5; i++)
		cr_assert_eq(f->starts[i], (uint64_t)i + 1, "call %d sent window %llu", i,
			     (unsigned long long)f->starts[i]);
	cr_assert_eq(depth(s), 0);
	cr_assert_eq(f->infos, 5);

	/* A dump spooled later is sent after a kick. */
	put_dump(s, 6);
	uploader__kick(u);
	cr_assert(wait_for(u, delivered_at_least, 6));
	cr_assert_eq(f->starts[5], 6);
	uploader__stop(u, clock__mono_ns() + 1000 * MS);
	cr_assert_eq(f->calls, 6);
	spool__close(s);
	free(f);
}

Test(uploader, retries_with_backoff_then_delivers_once)
{
	struct spool *s = mk_spool();
	struct fake *f = fake_new();
	struct uploader *u;
	struct uploader_stats st;
	uint64_t t0;

	f->script[0] = SINK_RETRY;
	f->script[1] = SINK_RETRY;
	f->script[2] = SINK_DELIVERED;
	f->msg = "HTTP 503: busy";
	put_dump(s, 7);
	u = start(s, f, 10, 40);
	t0 = clock__mono_ns();
	uploader__set_send_fn(u, fake_send, f);
	cr_assert(wait_for(u, delivered_at_least, 1));
	/* Full jitter: at least half of 10 ms, then half of 20 ms. */
	cr_assert(clock__mono_ns() - t0 >= 15 * MS, "no backoff: %llu ns",
		  (unsigned long long)(clock__mono_ns() - t0));
	uploader__stats(u, &st);
	cr_assert_eq(st.retries, 2);
	cr_assert_eq(st.delivered, 1);
	uploader__stop(u, clock__mono_ns() + 1000 * MS);
	cr_assert_eq(f->calls, 3, "%d sends for one dump", f->calls);
	cr_assert_eq(f->starts[0], 7);
	cr_assert_eq(f->starts[2], 7);
	/* Two failures within a minute: one warning. */
	cr_assert_eq(f->warnings, 1);
	cr_assert(strstr(f->last_warning, "00000000000000000007-h.json.gz: HTTP 503: busy; retrying in"),
		  "%s", f->last_warning);
	cr_assert_eq(depth(s), 0);
	spool__close(s);
	free(f);
}

static int read_reason(const char *name, char *buf, size_t size)
{
	char p[512];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/rejected/%s.reason", dir, name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return 0;
}

Test(uploader, rejected_dump_is_kept_aside)
{
	struct spool *s = mk_spool();
	struct fake *f = fake_new();
	struct uploader *u;
	struct uploader_stats st;
	char p[512], reason[512];

	f->script[0] = SINK_REJECTED;
	f->msg = "HTTP 400: bad profile";
	put_dump(s, 8);
	put_dump(s, 9);
	u = start(s, f, 10, 40);
	uploader__set_send_fn(u, fake_send, f);
	cr_assert(wait_for(u, delivered_at_least, 1));
	uploader__stats(u, &st);
	cr_assert_eq(st.rejected, 1);
	uploader__stop(u, clock__mono_ns() + 1000 * MS);
	cr_assert_eq(f->calls, 2);
	cr_assert_eq(f->starts[0], 8);
	cr_assert_eq(f->starts[1], 9);
	snprintf(p, sizeof(p), "%s/rejected/00000000000000000008-h.json.gz", dir);
	cr_assert_eq(access(p, F_OK), 0);
	cr_assert_eq(read_reason("00000000000000000008-h.json.gz", reason, sizeof(reason)), 0);
	cr_assert_str_eq(reason, "HTTP 400: bad profile\n");
	cr_assert_eq(f->errors, 1);
	cr_assert(strstr(f->last_error, "00000000000000000008-h.json.gz rejected: HTTP 400: bad profile"),
		  "%s", f->last_error);
	cr_assert_eq(depth(s), 0);
	spool__close(s);
	free(f);
}

Test(uploader, unparsable_dump_is_rejected_unsent)
{
	struct spool *s = mk_spool();
	struct fake *f = fake_new();
	struct uploader *u;
	struct uploader_stats st;
	char name[128], reason[512];

	spool__name(name, sizeof(name), 1, "h");
	cr_assert_eq(spool__write(s, name, "<html>oops</html>", 17), 0);
	put_dump(s, 2);
	u = start(s, f, 10, 40);
	uploader__set_send_fn(u, fake_send, f);
	cr_assert(wait_for(u, delivered_at_least, 1));
	cr_assert(wait_for(u, rejected_at_least, 1));
	uploader__stats(u, &st);
	uploader__stop(u, clock__mono_ns() + 1000 * MS);
	cr_assert_eq(st.rejected, 1);
	cr_assert_eq(f->calls, 1, "the broken dump was sent");
	cr_assert_eq(f->starts[0], 2);
	cr_assert_eq(read_reason(name, reason, sizeof(reason)), 0);
	cr_assert(strstr(reason, "not JSON: line 1"), "%s", reason);
	cr_assert(strstr(f->last_error, "rejected: not JSON"), "%s", f->last_error);
	spool__close(s);
	free(f);
}

Test(uploader, stop_aborts_a_hanging_send_at_the_deadline)
{
	struct spool *s = mk_spool();
	struct fake *f = fake_new();
	struct uploader *u;
	uint64_t t0, took;
	int i;

	f->block = 1;
	put_dump(s, 1);
	u = start(s, f, 10, 40);
	uploader__set_send_fn(u, fake_send, f);
	for (i = 0; i < 5000 && !f->entered; i++)
		usleep(1000);
	cr_assert(f->entered);
	cr_assert_eq(uploader__should_abort(u), 0);
	t0 = clock__mono_ns();
	uploader__stop(u, t0 + 200 * MS);
	took = clock__mono_ns() - t0;
	cr_assert(took >= 190 * MS, "stopped before the deadline: %llu ms",
		  (unsigned long long)(took / MS));
	cr_assert(took < 2000 * MS, "stop took %llu ms", (unsigned long long)(took / MS));
	/* Not delivered: still spooled for the next start. */
	cr_assert_eq(depth(s), 1);
	spool__close(s);
	free(f);
}

Test(uploader, stop_drains_the_spool_first)
{
	struct spool *s = mk_spool();
	struct fake *f = fake_new();
	struct uploader *u;
	int i;

	u = start(s, f, 10, 40);
	for (i = 1; i <= 4; i++)
		put_dump(s, (uint64_t)i);
	uploader__set_send_fn(u, fake_send, f);
	uploader__stop(u, clock__mono_ns() + 5000 * MS);
	cr_assert_eq(f->calls, 4);
	cr_assert_eq(depth(s), 0);
	spool__close(s);
	free(f);
}

Test(uploader, idle_without_sink_and_stops_at_once)
{
	struct spool *s = mk_spool();
	struct fake *f = fake_new();
	struct uploader *u;
	struct uploader_stats st;
	uint64_t t0;

	put_dump(s, 1);
	u = start(s, f, 10, 40);
	uploader__kick(u);
	usleep(50000);
	uploader__stats(u, &st);
	cr_assert_eq(st.delivered + st.rejected + st.retries, 0);
	uploader__set_sink(u, NULL);
	/* No sink: nothing can be delivered, so no reason to wait. */
	t0 = clock__mono_ns();
	uploader__stop(u, t0 + 5000 * MS);
	cr_assert(clock__mono_ns() - t0 < 1000 * MS);
	cr_assert_eq(depth(s), 1);
	spool__close(s);
	free(f);
}

/* A 429 with Retry-After: 1 waits that second, not the 10 ms backoff. */
Test(uploader, waits_as_long_as_the_server_asks)
{
	struct spool *s = mk_spool();
	struct fake *f = fake_new();
	struct uploader *u;
	uint64_t t0, took;

	f->script[0] = SINK_RETRY;
	f->msg = "HTTP 429: slow down";
	f->retry_after_s = 1;
	put_dump(s, 3);
	u = start_capped(s, f, 10, 40, 5000);
	t0 = clock__mono_ns();
	uploader__set_send_fn(u, fake_send, f);
	cr_assert(wait_for(u, delivered_at_least, 1));
	took = clock__mono_ns() - t0;
	cr_assert(took >= 1000 * MS, "retried after %llu ms", (unsigned long long)(took / MS));
	uploader__stop(u, clock__mono_ns() + 1000 * MS);
	cr_assert_eq(f->calls, 2);
	cr_assert(strstr(f->last_warning, "retrying in 1.0s, as the server asked"), "%s",
		  f->last_warning);
	cr_assert_eq(depth(s), 0);
	spool__close(s);
	free(f);
}

/* An hour's Retry-After is cut to the cap (the spool's age limit in the
 * daemon), so the dump is still sent, after exactly the cap. */
Test(uploader, retry_after_is_capped)
{
	struct spool *s = mk_spool();
	struct fake *f = fake_new();
	struct uploader *u;
	uint64_t t0, took;

	f->script[0] = SINK_RETRY;
	f->msg = "HTTP 503: maintenance";
	f->retry_after_s = 3600;
	put_dump(s, 4);
	u = start_capped(s, f, 10, 40, 300);
	t0 = clock__mono_ns();
	uploader__set_send_fn(u, fake_send, f);
	cr_assert(wait_for(u, delivered_at_least, 1), "still waiting the server's hour");
	took = clock__mono_ns() - t0;
	cr_assert(took >= 300 * MS, "retried after %llu ms", (unsigned long long)(took / MS));
	cr_assert(strstr(f->last_warning, "retrying in 0.3s, as the server asked"), "%s",
		  f->last_warning);
	uploader__stop(u, clock__mono_ns() + 1000 * MS);
	spool__close(s);
	free(f);
}
