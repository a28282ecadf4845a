/* A reader's reads of one sample, made again in one call before the next
 * (runtimes/replay.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/accountant.h"
#include "runtimes/prefetch.h"
#include "runtimes/replay.h"

void replay__init(struct replay *r, const struct memsource *inner, struct replay_fill *fill)
{
	memset(r, 0, sizeof(*r));
	r->inner = *inner;
	r->ledger = inner->ledger;
	r->inner.ledger = NULL; /* charged once, by the reader's source */
	r->fill = fill;
}

uint64_t replay__calls(const struct replay *r)
{
	return r->inner.reads;
}

static void record(struct replay *r, uint64_t addr, size_t len)
{
	size_t i;

	if (r->nspans == REPLAY_SPANS || !len || len > REPLAY_BYTES)
		return;
	/* a recursion asks for one object many times, in a row */
	for (i = r->nspans; i > 0 && i + 4 > r->nspans; i--)
		if (r->span_addr[i - 1] == addr && r->span_len[i - 1] == len)
			return;
	r->span_addr[r->nspans] = addr;
	r->span_len[r->nspans++] = (uint32_t)len;
}

/* From the fill, when a range read whole holds all of it. */
static bool serve(struct replay *r, uint64_t addr, void *buf, size_t len)
{
	const struct replay_fill *f = r->fill;
	size_t i, at = 0;

	if (!r->active || f->owner != r)
		return false;
	for (i = 0; i < f->n; i++) {
		if (f->ok[i] && addr >= f->addr[i] && len <= f->len[i] &&
		    addr - f->addr[i] <= f->len[i] - len) {
			memcpy(buf, f->buf + at + (addr - f->addr[i]), len);
			r->served++;
			return true;
		}
		at += f->len[i];
	}
	return false;
}

static int replay_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct replay *r = ctx;

	if (r->active)
		record(r, addr, len);
	if (serve(r, addr, buf, len))
		return 0;
	if (r->active)
		r->missed++;
	return memsource__read(&r->inner, addr, buf, len);
}

static int replay_readv(void *ctx, const uint64_t *addrs, const size_t *lens, void *const *bufs,
			bool *ok, size_t n)
{
	struct replay *r = ctx;
	uint64_t ma[MEMSOURCE_SPANS_MAX];
	size_t ml[MEMSOURCE_SPANS_MAX], idx[MEMSOURCE_SPANS_MAX], i, m = 0;
	void *mb[MEMSOURCE_SPANS_MAX];
	bool mok[MEMSOURCE_SPANS_MAX];
	int got = 0, rc;

	if (n > MEMSOURCE_SPANS_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (r->active)
			record(r, addrs[i], lens[i]);
		ok[i] = serve(r, addrs[i], bufs[i], lens[i]);
		if (ok[i]) {
			got++;
			continue;
		}
		if (r->active)
			r->missed++;
		ma[m] = addrs[i];
		ml[m] = lens[i];
		mb[m] = bufs[i];
		idx[m++] = i;
	}
	if (!m)
		return got;
	rc = memsource__readv(&r->inner, ma, ml, mb, mok, m);
	if (rc < 0)
		return rc;
	for (i = 0; i < m; i++)
		ok[idx[i]] = mok[i];
	return got + rc;
}

void replay__source(struct replay *r, struct memsource *out)
{
	memset(out, 0, sizeof(*out));
	out->read = replay_read;
	out->readv = replay_readv;
	out->ctx = r;
	out->ledger = r->ledger;
}

/* A span grown by its own length each way (at most REPLAY_SLACK), within
 * the pages it starts and ends in: what a reader asks for next moves a
 * little (a stack's top), and a page mapped for the span's bytes is
 * mapped whole, so the slack can never make the read fail. */
#define REPLAY_SLACK 1024u
#define PAGE 4096u
static void widen(uint64_t *addr, size_t *len)
{
	uint64_t lo = *addr, hi = *addr + *len;
	uint64_t page_lo = lo & ~(uint64_t)(PAGE - 1), page_hi = ((hi - 1) | (PAGE - 1)) + 1;

	uint64_t slack = *len < REPLAY_SLACK ? *len : REPLAY_SLACK;

	lo = lo - page_lo > slack ? lo - slack : page_lo;
	hi = page_hi - hi > slack ? hi + slack : page_hi;
	if (page_hi < *addr + *len) /* the last page of the address space */
		hi = *addr + *len;
	*addr = lo;
	*len = (size_t)(hi - lo);
}

/* Spans a[0..n), sorted, joined where close (and widened, for spans a
 * reader asked for) into ranges appended to out (at most REPLAY_RANGES,
 * REPLAY_BYTES in all). */
static void join(const uint64_t *a, const size_t *l, size_t n, bool wide, uint64_t *oa, size_t *ol,
		 size_t *on, size_t *bytes)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t lo = a[i];
		size_t len = l[i];

		if (lo + len < lo)
			continue;
		if (wide)
			widen(&lo, &len);
		if (*on && lo <= oa[*on - 1] + ol[*on - 1] + REPLAY_GAP) {
			uint64_t cur = oa[*on - 1] + ol[*on - 1];

			if (lo + len > cur) {
				if (*bytes + (lo + len - cur) > REPLAY_BYTES)
					return;
				*bytes += (size_t)(lo + len - cur);
				ol[*on - 1] += (size_t)(lo + len - cur);
			}
			continue;
		}
		if (*on == REPLAY_RANGES || *bytes + len > REPLAY_BYTES)
			return;
		oa[*on] = lo;
		ol[(*on)++] = len;
		*bytes += len;
	}
}

/* Whether [a, a + l) lies in one of the ranges. */
static bool covered(const uint64_t *oa, const size_t *ol, size_t on, uint64_t a, size_t l)
{
	size_t i;

	for (i = 0; i < on; i++)
		if (a >= oa[i] && l <= ol[i] && a - oa[i] <= ol[i] - l)
			return true;
	return false;
}

/* The next plan: this sample's spans, then the last plan's ranges it did
 * not cover and that read whole, as far as room goes (a read refused
 * halfway asks for less than the next whole one will). */
static void make_plan(struct replay *r)
{
	uint64_t a[REPLAY_SPANS + REPLAY_RANGES], oa[REPLAY_RANGES];
	size_t l[REPLAY_SPANS + REPLAY_RANGES], ol[REPLAY_RANGES], n = r->nspans, on = 0, bytes = 0,
									  m, i;

	memcpy(a, r->span_addr, n * sizeof(a[0]));
	for (i = 0; i < n; i++)
		l[i] = r->span_len[i];
	prefetch__sort_spans(a, l, n);
	join(a, l, n, true, oa, ol, &on, &bytes);
	for (i = m = 0; i < r->nplan; i++)
		if (r->plan_ok[i] && !covered(oa, ol, on, r->plan_addr[i], r->plan_len[i])) {
			a[m] = r->plan_addr[i];
			l[m++] = r->plan_len[i];
		}
	for (i = 0; i < on; i++) {
		a[m] = oa[i];
		l[m++] = ol[i];
	}
	prefetch__sort_spans(a, l, m);
	on = bytes = 0;
	join(a, l, m, false, oa, ol, &on, &bytes);
	memcpy(r->plan_addr, oa, on * sizeof(oa[0]));
	memcpy(r->plan_len, ol, on * sizeof(ol[0]));
	for (i = 0; i < on; i++)
		r->plan_ok[i] = false; /* until a fill says */
	r->nplan = on;
}

void replay__begin(struct replay *r)
{
	struct replay_fill *f = r->fill;
	void *bufs[REPLAY_RANGES];
	size_t i, at = 0, bytes = 0;

	r->active = true;
	r->nspans = 0;
	f->owner = NULL;
	f->n = r->nplan;
	memcpy(f->addr, r->plan_addr, f->n * sizeof(f->addr[0]));
	memcpy(f->len, r->plan_len, f->n * sizeof(f->len[0]));
	if (!f->n)
		return;
	for (i = 0; i < f->n; i++) {
		bufs[i] = f->buf + at;
		at += f->len[i];
		bytes += f->len[i];
	}
	ledger__charge_read(r->ledger, bytes);
	if (memsource__readv(&r->inner, f->addr, f->len, bufs, f->ok, f->n) >= 0)
		f->owner = r;
}

void replay__end(struct replay *r)
{
	size_t i;

	r->active = false;
	for (i = 0; i < r->nplan; i++)
		r->plan_ok[i] = r->fill->owner == r && r->fill->ok[i];
	if (r->fill->owner == r)
		r->fill->owner = NULL;
	make_plan(r);
}
