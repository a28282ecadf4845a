/* What a sample's control frames point to, read in as few calls as it
 * takes: their environments (flags and method entries), their instruction
 * sequences and bodies, the heads of their method entries.
 *
 * The first call reads every frame's environment and sequence together
 * with what the same addresses held at the thread's last read (the
 * environment a block's was made in, the method entry found, the body the
 * sequence had), each kept only where this sample's own reads say it is
 * still what they point to; what was new is read by one call more. A
 * sample of a stack seen before is read in one call. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "runtimes/ruby_state.h"

#define ME_HEAD RUBY_ME_HEAD
#define ISEQ_HEAD 24
#define BODY_HEAD_MAX RUBY_BODY_HEAD_MAX
/* Per sample: distinct method entry candidates read. */
#define CANDIDATES_MAX 512
/* Spans of one call: every frame's environment, the one it was made in,
 * its sequence, body and method entry. */
#define BATCH_MAX (5 * RUBY_WALK_FRAMES)
/* Guesses kept, by environment address; emptied when full. */
#define GUESSES_MAX 8192

struct ruby_batch {
	/* the spans of the call under way */
	uint64_t span_addr[BATCH_MAX];
	size_t span_len[BATCH_MAX];
	void *span_buf[BATCH_MAX];
	bool span_ok[BATCH_MAX];
	size_t nspans;
	unsigned batch;  /* which call of the sample, counted */
	/* what earlier samples found, by environment address */
	struct u64map *prev_by_ep, *me_by_ep;
	/* what the calls read */
	struct u64map *seen_iseq, *seen_body, *seen_cand;
	uint64_t env[RUBY_WALK_FRAMES][3], env1[RUBY_WALK_FRAMES][3];
	uint8_t iseq_head[RUBY_WALK_FRAMES][ISEQ_HEAD];
	uint64_t cand[CANDIDATES_MAX];
	uint8_t cand_head[CANDIDATES_MAX][ME_HEAD];
	int16_t cand_span[CANDIDATES_MAX];
	unsigned cand_batch[CANDIDATES_MAX];
	bool cand_ok[CANDIDATES_MAX];
	size_t ncand;
	uint64_t body[RUBY_WALK_FRAMES];
	uint8_t body_head[RUBY_WALK_FRAMES][BODY_HEAD_MAX];
	int16_t body_span[RUBY_WALK_FRAMES];
	unsigned body_batch[RUBY_WALK_FRAMES];
	bool body_ok[RUBY_WALK_FRAMES];
	size_t nbody;
	/* per frame, span or array indexes (-1: none) */
	int16_t env_span[RUBY_WALK_FRAMES], env1_span[RUBY_WALK_FRAMES];
	/* the frame whose iseq_head holds frame i's sequence (read with the
	 * first call, once for every frame running it), and whether it read */
	int16_t iseq_at[RUBY_WALK_FRAMES];
	bool iseq_ok[RUBY_WALK_FRAMES];
	int16_t frame_body[RUBY_WALK_FRAMES];
	uint64_t guess_prev[RUBY_WALK_FRAMES];
};

struct ruby_batch *ruby_batch__new(void)
{
	struct ruby_batch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->prev_by_ep = u64map__new(64);
	b->me_by_ep = u64map__new(64);
	b->seen_iseq = u64map__new(64);
	b->seen_body = u64map__new(64);
	b->seen_cand = u64map__new(64);
	if (!b->prev_by_ep || !b->me_by_ep || !b->seen_iseq || !b->seen_body || !b->seen_cand) {
		ruby_batch__delete(b);
		return NULL;
	}
	return b;
}

void ruby_batch__delete(struct ruby_batch *b)
{
	if (!b)
		return;
	u64map__delete(b->prev_by_ep);
	u64map__delete(b->me_by_ep);
	u64map__delete(b->seen_iseq);
	u64map__delete(b->seen_body);
	u64map__delete(b->seen_cand);
	free(b);
}

static void batch_reset(struct ruby_batch *b)
{
	b->nspans = 0;
	b->batch++;
}

static int batch_add(struct ruby_batch *b, uint64_t addr, size_t len, void *buf)
{
	if (b->nspans == BATCH_MAX)
		return -1;
	b->span_addr[b->nspans] = addr;
	b->span_len[b->nspans] = len;
	b->span_buf[b->nspans] = buf;
	b->span_ok[b->nspans] = false;
	return (int)b->nspans++;
}

/* Reads the spans added since the last reset (nothing: no call). */
static void batch_read(struct ruby *r)
{
	struct ruby_batch *b = r->batch;
	size_t done, m, i;

	for (done = 0; done < b->nspans; done += m) {
		m = b->nspans - done < MEMSOURCE_SPANS_MAX ? b->nspans - done : MEMSOURCE_SPANS_MAX;
		if (memsource__readv(&r->mem, b->span_addr + done, b->span_len + done, b->span_buf + done,
				     b->span_ok + done, m) < 0)
			memset(b->span_ok + done, 0, m * sizeof(*b->span_ok));
	}
	for (i = 0; i < b->ncand; i++)
		if (b->cand_batch[i] == b->batch)
			b->cand_ok[i] = b->span_ok[b->cand_span[i]];
	for (i = 0; i < b->nbody; i++)
		if (b->body_batch[i] == b->batch)
			b->body_ok[i] = b->span_ok[b->body_span[i]];
}

static bool span_ok(const struct ruby_batch *b, int16_t span)
{
	return span >= 0 && b->span_ok[span];
}

/* Index of addr among the sample's candidate method entries, adding it
 * to the call under way; -1 when full. */
static int candidate(struct ruby_batch *b, uint64_t addr)
{
	uint64_t v;
	int span;

	if (u64map__get(b->seen_cand, addr, &v))
		return (int)v;
	if (b->ncand == CANDIDATES_MAX || (span = batch_add(b, addr, ME_HEAD, b->cand_head[b->ncand])) < 0 ||
	    u64map__put(b->seen_cand, addr, b->ncand) != 0)
		return -1;
	b->cand[b->ncand] = addr;
	b->cand_span[b->ncand] = (int16_t)span;
	b->cand_batch[b->ncand] = b->batch;
	b->cand_ok[b->ncand] = false;
	return (int)b->ncand++;
}

/* The same for bodies of instruction sequences. */
static int body(struct ruby *r, uint64_t addr)
{
	struct ruby_batch *b = r->batch;
	uint64_t v;
	int span;

	if (u64map__get(b->seen_body, addr, &v))
		return (int)v;
	if (b->nbody == RUBY_WALK_FRAMES ||
	    (span = batch_add(b, addr, r->l.body_head, b->body_head[b->nbody])) < 0 ||
	    u64map__put(b->seen_body, addr, b->nbody) != 0)
		return -1;
	b->body[b->nbody] = addr;
	b->body_span[b->nbody] = (int16_t)span;
	b->body_batch[b->nbody] = b->batch;
	b->body_ok[b->nbody] = false;
	return (int)b->nbody++;
}

static void guess(struct u64map *m, uint64_t key, uint64_t value)
{
	if (u64map__count(m) >= GUESSES_MAX)
		u64map__clear(m);
	(void)u64map__put(m, key, value);
}

/* The first call: each frame's environment, the one its block's was
 * made in last time, its method entry last time, its sequence and the
 * body that sequence had. */
static void read_first(struct ruby *r, struct ruby_raw_frame *raw, size_t nf)
{
	const struct ruby_layout *l = &r->l;
	struct ruby_batch *b = r->batch;
	int16_t iseq_span[RUBY_WALK_FRAMES];
	size_t i;
	int span;

	batch_reset(b);
	u64map__clear(b->seen_iseq);
	u64map__clear(b->seen_body);
	u64map__clear(b->seen_cand);
	b->nbody = b->ncand = 0;
	for (i = 0; i < nf; i++) {
		const struct ruby_raw_frame *f = &raw[i];
		uint64_t v;

		b->env_span[i] = b->env1_span[i] = b->iseq_at[i] = b->frame_body[i] = iseq_span[i] = -1;
		b->guess_prev[i] = 0;
		if (l->flag_local && ruby_state__plausible(f->ep)) {
			b->env_span[i] = (int16_t)batch_add(b, f->ep - 16, 24, b->env[i]);
			if (u64map__get(b->prev_by_ep, f->ep, &v)) {
				b->guess_prev[i] = v;
				b->env1_span[i] = (int16_t)batch_add(b, v - 16, 24, b->env1[i]);
			}
			if (u64map__get(b->me_by_ep, f->ep, &v))
				(void)candidate(b, v);
		} else if (l->cfp_flag >= 0 && f->ncand && ruby_state__plausible(f->me_cand[0])) {
			(void)candidate(b, f->me_cand[0]); /* 2.0: in the frame */
		}
		if (!ruby_state__plausible(f->iseq) || (l->cfp_flag >= 0 && f->kind != RUBY_FRAME_ISEQ))
			continue;
		if (l->iseq_body < 0) {
			b->frame_body[i] = (int16_t)body(r, f->iseq); /* 2.0: its own body */
			continue;
		}
		if (u64map__get(b->seen_iseq, f->iseq, &v)) {
			b->iseq_at[i] = (int16_t)v;
			continue;
		}
		span = batch_add(b, f->iseq, ISEQ_HEAD, b->iseq_head[i]);
		if (span < 0 || u64map__put(b->seen_iseq, f->iseq, i) != 0)
			continue;
		b->iseq_at[i] = (int16_t)i;
		iseq_span[i] = (int16_t)span;
		if ((v = ruby_names__known_body(r, f->iseq)) != 0)
			(void)body(r, v);
	}
	batch_read(r);
	for (i = 0; i < nf; i++)
		b->iseq_ok[i] = iseq_span[i] >= 0 && b->span_ok[iseq_span[i]];
}

/* A frame's environment as read: its flags and kind (the first), a
 * candidate for its method entry; returns the environment it was made in
 * when it is no local one (0: none to follow). */
static uint64_t take_env(struct ruby *r, struct ruby_raw_frame *f, const uint64_t *w, bool first, uint64_t at)
{
	uint64_t prev;

	if (first) {
		f->flags = w[2];
		f->kind = ruby_state__frame_kind(&r->l, f);
		if (f->kind == RUBY_FRAME_SKIP)
			return 0;
	}
	if (f->ncand >= RUBY_ENV_LEVELS)
		return 0;
	f->me_cand[f->ncand++] = w[0];
	if (w[2] & r->l.flag_local) {
		f->local = true;
		return 0;
	}
	/* VM_ENV_PREV_EP: the specval, GC_GUARDED_PTR_REF */
	prev = w[1] & ~3ull;
	return ruby_state__plausible(prev) && prev != at ? prev : 0;
}

/* 2.4+: the frames' environments and, for blocks, those they were made in
 * (rb_vm_frame_method_entry looks through them): the first level and the
 * guessed second from the first call, more a call a level. */
static void read_environments(struct ruby *r, struct ruby_raw_frame *raw, size_t nf)
{
	struct ruby_batch *b = r->batch;
	uint64_t next[RUBY_WALK_FRAMES];
	size_t i, level;
	bool more = false;

	for (i = 0; i < nf; i++) {
		struct ruby_raw_frame *f = &raw[i];

		next[i] = 0;
		if (!span_ok(b, b->env_span[i]))
			continue;
		next[i] = take_env(r, f, b->env[i], true, f->ep);
		if (next[i])
			guess(b->prev_by_ep, f->ep, next[i]);
		if (next[i] && next[i] == b->guess_prev[i] && span_ok(b, b->env1_span[i]))
			next[i] = take_env(r, f, b->env1[i], false, next[i]);
		more |= next[i] != 0;
	}
	for (level = 1; level < RUBY_ENV_LEVELS && more; level++) {
		batch_reset(b);
		for (i = 0; i < nf; i++)
			b->env_span[i] = next[i] ? (int16_t)batch_add(b, next[i] - 16, 24, b->env[i]) : -1;
		batch_read(r);
		more = false;
		for (i = 0; i < nf; i++) {
			if (!span_ok(b, b->env_span[i])) {
				next[i] = 0;
				continue;
			}
			next[i] = take_env(r, &raw[i], b->env[i], false, next[i]);
			more |= next[i] != 0;
		}
	}
}

/* The body of frame i's instruction sequence, from the sequence's head:
 * the one read with the first call, else added to the call under way. */
static void frame_body(struct ruby *r, const struct ruby_raw_frame *f, size_t i)
{
	struct ruby_batch *b = r->batch;
	const uint8_t *head;
	uint64_t flags, at;
	int k = b->iseq_at[i];

	if (r->l.iseq_body < 0 || f->kind != RUBY_FRAME_ISEQ || k < 0 || !b->iseq_ok[k])
		return;
	head = b->iseq_head[k];
	flags = ruby_state__u64_at(head, 0);
	if ((flags & RUBY_T_MASK) != RUBY_T_IMEMO || RUBY_IMEMO_TYPE(flags) != RUBY_IMEMO_ISEQ)
		return;
	at = ruby_state__u64_at(head, (uint32_t)r->l.iseq_body);
	if (ruby_state__plausible(at))
		b->frame_body[i] = (int16_t)body(r, at);
}

static bool is_svar(const struct ruby *r, const uint8_t *head)
{
	uint64_t flags = ruby_state__u64_at(head, 0);

	return r->l.cfp_flag < 0 && (flags & RUBY_T_MASK) == RUBY_T_IMEMO &&
	       RUBY_IMEMO_TYPE(flags) == RUBY_IMEMO_SVAR;
}

/* Whether a candidate's head is a method entry (2.0: any plausible one). */
static bool is_method_entry(const struct ruby *r, const uint8_t *head)
{
	uint64_t flags = ruby_state__u64_at(head, 0);

	if (r->l.cfp_flag >= 0)
		return ruby_state__plausible(ruby_state__u64_at(head, r->l.me_def));
	return (flags & RUBY_T_MASK) == RUBY_T_IMEMO && RUBY_IMEMO_TYPE(flags) == RUBY_IMEMO_MENT;
}

/* Frame f's method entry: the first candidate that is one, a local
 * environment's possibly inside an svar; -1. */
static int method_entry_of(struct ruby *r, const struct ruby_raw_frame *f)
{
	struct ruby_batch *b = r->batch;
	size_t k;

	for (k = 0; k < f->ncand; k++) {
		uint64_t v;

		if (!u64map__get(b->seen_cand, f->me_cand[k], &v) || !b->cand_ok[v])
			continue;
		if (is_method_entry(r, b->cand_head[v]))
			return (int)v;
		if (f->local && k + 1 == f->ncand && is_svar(r, b->cand_head[v]) &&
		    u64map__get(b->seen_cand, ruby_state__u64_at(b->cand_head[v], 8), &v) && b->cand_ok[v] &&
		    is_method_entry(r, b->cand_head[v]))
			return (int)v;
	}
	return -1;
}

void ruby_batch__read(struct ruby *r, struct ruby_raw_frame *raw, size_t nf, struct ruby_frame_read *out)
{
	struct ruby_batch *b = r->batch;
	size_t i, k;

	read_first(r, raw, nf);
	if (r->l.flag_local)
		read_environments(r, raw, nf);
	/* what the first call did not hold: the method entries and bodies */
	batch_reset(b);
	for (i = 0; i < nf; i++) {
		if (raw[i].kind == RUBY_FRAME_SKIP)
			continue;
		for (k = 0; k < raw[i].ncand; k++)
			if (ruby_state__plausible(raw[i].me_cand[k]))
				(void)candidate(b, raw[i].me_cand[k]);
		frame_body(r, &raw[i], i);
	}
	batch_read(r);
	/* an svar holding a local environment's method entry */
	batch_reset(b);
	for (i = 0; i < nf; i++) {
		const struct ruby_raw_frame *f = &raw[i];
		uint64_t c;

		if (f->kind != RUBY_FRAME_SKIP && f->ncand && f->local &&
		    u64map__get(b->seen_cand, f->me_cand[f->ncand - 1], &c) && b->cand_ok[c] &&
		    is_svar(r, b->cand_head[c]) && ruby_state__plausible(ruby_state__u64_at(b->cand_head[c], 8)))
			(void)candidate(b, ruby_state__u64_at(b->cand_head[c], 8));
	}
	batch_read(r);
	for (i = 0; i < nf; i++) {
		int c = raw[i].kind == RUBY_FRAME_SKIP ? -1 : method_entry_of(r, &raw[i]);
		int bd = b->frame_body[i];

		memset(&out[i], 0, sizeof(out[i]));
		if (c >= 0) {
			out[i].me = b->cand[c];
			out[i].me_head = b->cand_head[c];
			if (r->l.flag_local && ruby_state__plausible(raw[i].ep))
				guess(b->me_by_ep, raw[i].ep, b->cand[c]);
		}
		if (bd >= 0 && b->body_ok[bd]) {
			out[i].body = b->body[bd];
			out[i].body_head = b->body_head[bd];
		}
	}
}
