/* The subs a Perl interpreter runs, read from outside (runtimes/perl.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "runtimes/accountant.h"
#include "runtimes/memsource.h"
#include "runtimes/perl.h"
#include "runtimes/perl_state.h"
#include "runtimes/prefetch.h"

int perl__open(const struct memsource *m, uint64_t interp_ptr, uint64_t curcop,
	       uint64_t curstackinfo, const struct perl_layout *l, bool lines,
	       struct strtab *names, struct perl **out)
{
	struct perl *p;

	if (l->cx_size > CX_BYTES_MAX || l->cx_olddepth + 4 > l->cx_size)
		return -EPROTO;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->mem = *m;
	p->interp_ptr = interp_ptr;
	p->curcop = curcop;
	p->curstackinfo = curstackinfo;
	p->l = l;
	p->lines = lines;
	p->names = names;
	p->cache = perl_names__new();
	if (!p->cache) {
		free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void perl__delete(struct perl *p)
{
	if (!p)
		return;
	perl_names__delete(p->cache);
	free(p);
}

/* Two words this near each other are read in one read. */
#define NEAR_WORDS 0x38

/* Two words, at a and b, in one read when they are near each other. */
static int two_words(struct perl *p, uint64_t a, uint64_t b, uint64_t *va, uint64_t *vb)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
	uint8_t w[NEAR_WORDS + 8];

	if (hi - lo <= NEAR_WORDS) {
		if (prefetch__read(&p->pre, &p->mem, lo, w, (size_t)(hi - lo) + 8) != 0)
			return -EFAULT;
		*va = u64_at(w, (uint32_t)(a - lo));
		*vb = u64_at(w, (uint32_t)(b - lo));
		return 0;
	}
	return prefetch__u64(&p->pre, &p->mem, a, va) || prefetch__u64(&p->pre, &p->mem, b, vb)
		       ? -EFAULT
		       : 0;
}

/* PL_curcop and PL_curstackinfo: through the interpreter of a threaded
 * build, the globals of another. */
static int roots(struct perl *p, uint64_t *cop, uint64_t *si)
{
	uint64_t interp;

	if (!p->interp_ptr)
		return two_words(p, p->curcop, p->curstackinfo, cop, si);
	if (prefetch__u64(&p->pre, &p->mem, p->interp_ptr, &interp) != 0)
		return -EFAULT;
	if (!interp)
		return -ENOENT; /* not started, or destroyed */
	if (!plausible(interp) ||
	    two_words(p, interp + p->l->i_curcop, interp + p->l->i_curstackinfo, cop, si) != 0)
		return -EFAULT;
	p->last.interp = interp;
	return 0;
}

/* The head of the stack where the last read found it, read in one call
 * before the walk follows its pointers there (runtimes/prefetch.h): the
 * roots, the stack info, and the contexts around the last top. */
static void read_ahead(struct perl *p)
{
	const struct head *h = &p->last;
	const struct perl_layout *l = p->l;
	uint64_t a, b;

	prefetch__clear(&p->pre);
	p->last.window_stack = 0;
	if (!h->si)
		return;
	if (p->interp_ptr) {
		if (!h->interp)
			return;
		a = h->interp + l->i_curcop;
		b = h->interp + l->i_curstackinfo;
		(void)prefetch__want(&p->pre, p->interp_ptr, 8);
	} else {
		a = p->curcop;
		b = p->curstackinfo;
	}
	if (a > b) {
		uint64_t t = a;

		a = b;
		b = t;
	}
	if (b - a <= NEAR_WORDS) {
		(void)prefetch__want(&p->pre, a, (size_t)(b - a) + 8);
	} else {
		(void)prefetch__want(&p->pre, a, 8);
		(void)prefetch__want(&p->pre, b, 8);
	}
	(void)prefetch__want(&p->pre, h->si, SI_BYTES);
	if (h->cxstack && h->cxix >= 0 && h->cxix <= h->cxmax && h->cxmax <= CXIX_MAX) {
		/* not past the array's end: a guess must not cost a failed read */
		int32_t hi = h->cxmax - h->cxix < CX_AHEAD ? h->cxmax : h->cxix + CX_AHEAD;
		int32_t lo = hi >= CX_BATCH ? hi - CX_BATCH + 1 : 0;

		if (prefetch__want(&p->pre, h->cxstack + (uint64_t)lo * l->cx_size,
				   (size_t)(hi - lo + 1) * l->cx_size)) {
			p->last.window_stack = h->cxstack;
			p->last.window_lo = lo;
			p->last.window_hi = hi;
		}
	}
	if (prefetch__fill(&p->pre, &p->mem) != 0)
		p->last.window_stack = 0;
}

/* The sub contexts of one stack info, innermost first, appended to
 * p->raw from *n; *scanned counts contexts looked at. */
static int walk_contexts(struct perl *p, uint64_t cxstack, int32_t cxix, size_t *n,
			 size_t *scanned)
{
	const struct perl_layout *l = p->l;
	int32_t top = cxix;

	if (cxix < -1 || cxix > CXIX_MAX)
		return -EPROTO;
	if (cxix >= 0 && !plausible(cxstack))
		return -EFAULT;
	while (top >= 0 && *n < INTERP_MAX_FRAMES && *scanned < CX_SCAN_MAX) {
		int32_t cnt = top + 1 < CX_BATCH ? top + 1 : CX_BATCH, i;
		uint64_t from;

		/* the contexts read ahead, where they hold this batch's top */
		if (cxstack == p->last.window_stack && top <= p->last.window_hi &&
		    top - cnt + 1 < p->last.window_lo && top >= p->last.window_lo)
			cnt = top - p->last.window_lo + 1;
		from = cxstack + (uint64_t)(top - cnt + 1) * l->cx_size;
		if (prefetch__read(&p->pre, &p->mem, from, p->cx, (size_t)cnt * l->cx_size) != 0)
			return -EFAULT;
		for (i = cnt - 1; i >= 0 && *n < INTERP_MAX_FRAMES; i--) {
			const uint8_t *cx = (const uint8_t *)p->cx + (size_t)i * l->cx_size;
			struct raw *r;

			++*scanned;
			if ((cx[0] & 0xf) != l->cxt_sub)
				continue;
			r = &p->raw[(*n)++];
			r->cv = u64_at(cx, l->cx_cv);
			r->retop = u64_at(cx, l->cx_retop);
			r->depth = (int32_t)u32_at(cx, l->cx_olddepth) + 1;
			/* the statement this context's caller was at: the
			 * caller's line, kept in the next older sub's cop */
			r->cop = u64_at(cx, l->cx_oldcop);
		}
		top -= cnt;
	}
	return 0;
}

/* Every stack info from the current one outwards. Returns how many subs,
 * or -errno. Each sub's cop is the statement it runs: the innermost's is
 * PL_curcop, another's the one its callee's context saved. */
static long walk(struct perl *p)
{
	uint64_t cop, si, seen[SI_MAX];
	size_t n = 0, scanned = 0, nsi = 0, k;
	int err = roots(p, &cop, &si);

	if (err)
		return err;
	while (si && n < INTERP_MAX_FRAMES && scanned < CX_SCAN_MAX) {
		uint8_t b[SI_BYTES];

		if (!plausible(si) || nsi == SI_MAX)
			return -EPROTO;
		for (k = 0; k < nsi; k++)
			if (seen[k] == si)
				return -EPROTO; /* a loop: memory posing as stacks */
		seen[nsi++] = si;
		if (prefetch__read(&p->pre, &p->mem, si, b, sizeof(b)) != 0)
			return -EFAULT;
		if (nsi == 1) {
			p->last.si = si;
			p->last.cxstack = u64_at(b, p->l->si_cxstack);
			p->last.cxix = (int32_t)u32_at(b, p->l->si_cxix);
			p->last.cxmax = (int32_t)u32_at(b, p->l->si_cxmax);
		}
		err = walk_contexts(p, u64_at(b, p->l->si_cxstack), (int32_t)u32_at(b, p->l->si_cxix),
				    &n, &scanned);
		if (err)
			return err;
		si = u64_at(b, p->l->si_prev);
	}
	/* shift each saved cop to the older sub it belongs to */
	for (k = n; k-- > 1;)
		p->raw[k].cop = p->raw[k - 1].cop;
	if (n)
		p->raw[0].cop = cop;
	return (long)n;
}

static int read_spans(struct perl *p, const uint64_t *addrs, size_t len, void *const *bufs,
		      bool *ok, size_t n)
{
	size_t lens[MEMSOURCE_SPANS_MAX], i, done;

	for (i = 0; i < MEMSOURCE_SPANS_MAX; i++)
		lens[i] = len;
	for (done = 0; done < n; done += MEMSOURCE_SPANS_MAX) {
		size_t m = n - done < MEMSOURCE_SPANS_MAX ? n - done : MEMSOURCE_SPANS_MAX;
		int got = memsource__readv(&p->mem, addrs + done, lens, bufs + done, ok + done, m);

		if (got < 0)
			return got;
	}
	for (i = 0; i < n; i++)
		if (!ok[i])
			return -EFAULT;
	return 0;
}

/* Rows looked back at for the same address: a recursion's frames name one
 * sub over and over, or a few in turn. */
#define SAME_ROWS 8

/* n spans of len bytes at addrs[i] into rows of stride bytes at base, an
 * address that one of the SAME_ROWS rows before asks for read once: each
 * span of a call costs a page walk. */
static int read_rows(struct perl *p, const uint64_t *addrs, size_t len, uint8_t *base,
		     size_t stride, size_t n)
{
	uint64_t distinct[INTERP_MAX_FRAMES];
	void *bufs[INTERP_MAX_FRAMES];
	bool ok[INTERP_MAX_FRAMES];
	size_t i, k, m = 0, from[INTERP_MAX_FRAMES];
	int err;

	for (i = 0; i < n; i++) {
		if (!plausible(addrs[i]))
			return -EPROTO;
		for (k = i; k > 0 && k + SAME_ROWS > i && addrs[k - 1] != addrs[i]; k--)
			;
		from[i] = k > 0 && k + SAME_ROWS > i ? from[k - 1] : i;
		if (from[i] == i) {
			distinct[m] = addrs[i];
			bufs[m++] = base + i * stride;
		}
	}
	err = read_spans(p, distinct, len, bufs, ok, m);
	for (i = 0; !err && i < n; i++)
		if (from[i] != i)
			memcpy(base + i * stride, base + from[i] * stride, len);
	return err;
}

/* Each sub's CV, checked to be one, and what names it: its GV's name
 * HEK and stash, or (a CV named by a HEK of its own) its HEK and stash. */
static int describe(struct perl *p, size_t n)
{
	const struct perl_layout *l = p->l;
	uint64_t addrs[INTERP_MAX_FRAMES];
	size_t k, ngv = 0;
	size_t gvs[INTERP_MAX_FRAMES];
	int err;

	for (k = 0; k < n; k++)
		addrs[k] = p->raw[k].cv;
	if ((err = read_rows(p, addrs, 16, p->head[0], sizeof(p->head[0]), n)) != 0)
		return err;
	for (k = 0; k < n; k++) {
		if ((u32_at(p->head[k], PERL_SV_FLAGS) & PERL_SVTYPE_MASK) != PERL_SVT_PVCV)
			return -EPROTO;
		addrs[k] = u64_at(p->head[k], PERL_SV_ANY);
	}
	/* the body from its head: xcv_stash is at 0x20 */
	if ((err = read_rows(p, addrs, CV_BODY, p->body[0], sizeof(p->body[0]), n)) != 0)
		return err;
	for (k = 0; k < n; k++) {
		struct perl_sub *s = &p->subs[k];
		const uint8_t *b = p->body[k];

		memset(s, 0, sizeof(*s));
		s->cv = p->raw[k].cv;
		s->body = addrs[k];
		s->file = u64_at(b, l->cv_file);
		s->stash = u64_at(b, l->cv_stash);
		if (u32_at(b, l->cv_flags) & PERL_CVF_NAMED) {
			s->hek = u64_at(b, l->cv_gv);
		} else {
			s->gv = u64_at(b, l->cv_gv);
			gvs[ngv] = k;
			addrs[ngv++] = s->gv;
		}
	}
	if (ngv && (err = read_rows(p, addrs, 16, p->head[0], sizeof(p->head[0]), ngv)) != 0)
		return err;
	for (k = 0; k < ngv; k++) {
		if ((u32_at(p->head[k], PERL_SV_FLAGS) & PERL_SVTYPE_MASK) != PERL_SVT_PVGV)
			return -EPROTO;
		addrs[k] = u64_at(p->head[k], PERL_SV_ANY);
	}
	if (ngv && (err = read_rows(p, addrs, GV_BODY, p->gbody[0], sizeof(p->gbody[0]), ngv)) != 0)
		return err;
	for (k = 0; k < ngv; k++) {
		struct perl_sub *s = &p->subs[gvs[k]];

		s->hek = u64_at(p->gbody[k], l->gv_namehek);
		s->stash = u64_at(p->gbody[k], l->gv_stash);
	}
	for (k = 0; k < n; k++)
		addrs[k] = p->subs[k].hek;
	if ((err = read_rows(p, addrs, 16, p->head[0], sizeof(p->head[0]), n)) != 0)
		return err;
	for (k = 0; k < n; k++)
		memcpy(p->subs[k].head, p->head[k], PERL_HEAD_BYTES);
	return 0;
}

/* Each sub's line: its statement's cop_line. */
static int lines(struct perl *p, size_t n)
{
	uint64_t addrs[INTERP_MAX_FRAMES];
	size_t k;
	int err;

	/* cop_line is 4 bytes in an 8-aligned cop: the word holding it */
	for (k = 0; k < n; k++)
		addrs[k] = p->raw[k].cop + (p->l->cop_line & ~7u);
	err = read_rows(p, addrs, 8, p->head[0], sizeof(p->head[0]), n);
	for (k = 0; !err && k < n; k++)
		p->subs[k].line = u32_at(p->head[k], p->l->cop_line & 7u);
	return err;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A padlist's highest depth and its array of pads by depth, into
 * out[0] and out[1]: a struct padlist's xpadl_max and PadlistARRAY, or
 * (5.16, whose padlist is an AV) the AV's fill and array. */
static int padlist_of(struct perl *p, uint64_t padlist, uint64_t out[2])
{
	uint64_t head[3];

	if (!p->l->padlist_av)
		return memsource__read(&p->mem, padlist, out, 2 * sizeof(out[0])) != 0 ? -EFAULT : 0;
	if (memsource__read(&p->mem, padlist, head, sizeof(head)) != 0)
		return -EFAULT;
	if (((head[1] >> 32) & PERL_SVTYPE_MASK) != PERL_SVT_PVAV || !plausible(head[0]) ||
	    memsource__u64(&p->mem, head[0] + PERL_XAV_FILL, &out[0]) != 0)
		return -EPROTO;
	out[1] = head[2];
	return 0;
}

/* The pad the sub of frame k runs with (its CV's pad at its depth): the
 * array PL_curpad points to while it runs, and the SVs in it, which the
 * ops running it hold in registers (their targets, the lexicals they
 * read). 0 with the pad kept and f's address and code set to its array,
 * or -errno (the frame stays unprovable; the read stands). */
static int pad_of(struct perl *p, size_t k, struct interp_frame *f)
{
	uint64_t padlist = u64_at(p->body[k], p->l->cv_padlist), pl[2], pad, head[3], fill;
	int32_t depth = p->raw[k].depth;
	struct pad *pd;
	size_t i, n;

	if (p->npads == PROOF_PADS)
		return -ENOSPC;
	if (!plausible(padlist) || padlist_of(p, padlist, pl) != 0)
		return -EFAULT;
	/* xpadl_max: the deepest pad allocated */
	if (depth < 1 || (uint64_t)depth > pl[0] || !plausible(pl[1]) ||
	    memsource__u64(&p->mem, pl[1] + (uint64_t)depth * 8, &pad) != 0)
		return -EPROTO;
	if (!plausible(pad) || memsource__read(&p->mem, pad, head, sizeof(head)) != 0)
		return -EFAULT;
	if (((head[1] >> 32) & PERL_SVTYPE_MASK) != PERL_SVT_PVAV || !plausible(head[0]) ||
	    !plausible(head[2]) || memsource__u64(&p->mem, head[0] + PERL_XAV_FILL, &fill) != 0)
		return -EPROTO;
	if ((int64_t)fill < 0 || fill >= PAD_FILL_MAX)
		return -EPROTO;
	pd = &p->pads[p->npads];
	n = fill + 1 < PAD_SVS ? (size_t)fill + 1 : PAD_SVS;
	if (memsource__read(&p->mem, head[2], pd->sv, n * 8) != 0)
		return -EFAULT;
	/* entry 0 is @_ of a sub; empty slots are 0 */
	for (i = pd->nsv = 0; i < n; i++)
		if (plausible(pd->sv[i]))
			pd->sv[pd->nsv++] = pd->sv[i];
	qsort(pd->sv, pd->nsv, sizeof(pd->sv[0]), cmp_u64);
	pd->padl_arr = pl[1];
	pd->padl_max = pl[0];
	pd->nslabs = 0;
	(void)perl_slabs__of(p, k, pd);
	pd->frame = k;
	pd->lo = head[2];
	pd->hi = head[2] + (fill + 1) * 8;
	p->npads++;
	f->addr = f->code_lo = pd->lo;
	f->code_hi = pd->hi;
	return 0;
}

/* Keeps of pd's SVs those another depth's pad (other's) does not hold:
 * what every depth shares (constants, in threaded builds) tells no call
 * from another, a lexical of pd's own depth does. One read. */
static void unique_svs(struct perl *p, struct pad *pd, const struct depth_pad *other)
{
	uint64_t sv[PAD_SVS];
	size_t n = (size_t)((other->hi - other->lo) / 8), i, k;

	if (n > PAD_SVS)
		n = PAD_SVS;
	if (memsource__read(&p->mem, other->lo, sv, n * 8) != 0)
		return;
	qsort(sv, n, sizeof(sv[0]), cmp_u64);
	for (i = k = 0; i < pd->nsv; i++)
		if (!bsearch(&pd->sv[i], sv, n, sizeof(sv[0]), cmp_u64))
			pd->sv[k++] = pd->sv[i];
	pd->nsv = k;
	pd->unique_svs = true;
}

/* A recursion's outer calls: the frames of pd's group that run pd's sub
 * further out, each with the pad of the depth it runs at. A sample taken
 * while one of them was the innermost call holds that pad: it proves that
 * frame (the placer drops the calls made since). Three reads for all of
 * them; a frame whose pad cannot be read stays unprovable. */
static void recursion_pads(struct perl *p, struct pad *pd, struct interp_stack *out, size_t n)
{
	uint64_t addrs[INTERP_MAX_FRAMES], av[INTERP_MAX_FRAMES], head[INTERP_MAX_FRAMES][3];
	uint64_t pads[INTERP_MAX_FRAMES];
	size_t idx[INTERP_MAX_FRAMES], m = 0, j = pd->frame, i;
	int32_t dlo = INT32_MAX, dhi = 0, d;

	while (!out->f[j].entry_end && ++j < n) {
		d = p->raw[j].depth;
		if (p->raw[j].cv == p->raw[pd->frame].cv && d >= 1 && (uint64_t)d <= pd->padl_max) {
			idx[m++] = j;
			dlo = d < dlo ? d : dlo;
			dhi = d > dhi ? d : dhi;
		}
	}
	/* the pads of the depths they run at: one span of the padlist's
	 * array (depths of a recursion are consecutive), read whole */
	if (!m || dhi - dlo >= INTERP_MAX_FRAMES ||
	    memsource__read(&p->mem, pd->padl_arr + (uint64_t)dlo * 8, pads,
			    (size_t)(dhi - dlo + 1) * 8) != 0)
		return;
	for (i = 0; i < m; i++)
		av[i] = pads[p->raw[idx[i]].depth - dlo];
	if (read_rows(p, av, sizeof(head[0]), (uint8_t *)head, sizeof(head[0]), m) != 0)
		return;
	for (i = 0; i < m; i++) {
		if (((head[i][1] >> 32) & PERL_SVTYPE_MASK) != PERL_SVT_PVAV || !plausible(head[i][0]) ||
		    !plausible(head[i][2]))
			return;
		addrs[i] = head[i][0] + PERL_XAV_FILL;
	}
	if (read_rows(p, addrs, 8, (uint8_t *)av, sizeof(av[0]), m) != 0)
		return;
	for (i = 0; i < m && p->ndeep < INTERP_MAX_FRAMES; i++) {
		struct depth_pad *dp = &p->deep[p->ndeep];

		if ((int64_t)av[i] < 0 || av[i] >= PAD_FILL_MAX)
			continue;
		dp->frame = idx[i];
		dp->lo = head[i][2];
		dp->hi = head[i][2] + (av[i] + 1) * 8;
		out->f[idx[i]].addr = out->f[idx[i]].code_lo = dp->lo;
		out->f[idx[i]].code_hi = dp->hi;
		p->ndeep++;
	}
	if (p->ndeep)
		unique_svs(p, pd, &p->deep[0]);
}

int perl__read_stack(struct perl *p, uint64_t now_ns, struct interp_stack *out)
{
	long n;
	size_t k;
	int err;

	out->n = 0;
	p->npads = p->ndeep = 0;
	p->walk_bytes = LINKED_WALK_BYTES;
	if (!ledger__may_read(p->mem.ledger, now_ns)) {
		p->failures++;
		return -EBUSY;
	}
	read_ahead(p);
	n = walk(p);
	prefetch__clear(&p->pre);
	if (n <= 0) {
		if (n < 0 && n != -ENOENT)
			p->failures++;
		return n < 0 ? (int)n : -ENOENT;
	}
	err = describe(p, (size_t)n);
	if (!err && p->lines)
		err = lines(p, (size_t)n);
	for (k = 0; !err && k < (size_t)n; k++) {
		struct interp_frame *f = &out->f[k];

		memset(f, 0, sizeof(*f));
		/* called from C (call_sv's op has no next): its runops call's
		 * outermost sub */
		f->entry_end = p->raw[k].retop == 0;
		err = perl_names__name(p->cache, &p->mem, p->l, p->names, &p->subs[k], &f->name);
		if (!err && (k == 0 || out->f[k - 1].entry_end))
			(void)pad_of(p, k, f);
	}
	if (err) {
		p->failures++;
		return err;
	}
	for (k = 0; k < p->npads; k++) {
		size_t j = p->pads[k].frame;

		p->pads[k].recursive = p->pads[k].unique_svs = false;
		while (!out->f[j].entry_end && ++j < (size_t)n)
			if (p->raw[j].cv == p->raw[p->pads[k].frame].cv)
				p->pads[k].recursive = true;
		if (p->pads[k].recursive)
			recursion_pads(p, &p->pads[k], out, (size_t)n);
	}
	out->n = (size_t)n;
	out->f[n - 1].entry_end = true;
	return 0;
}

long perl__proof(const struct perl *p, const uint64_t *words, size_t n)
{
	long outermost = -1;
	size_t i, j, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < p->npads; k++) {
			const struct pad *pd = &p->pads[k];

			/* PL_curpad, or an entry's address */
			if (words[i] >= pd->lo && words[i] < pd->hi) {
				if (!pd->recursive)
					return (long)pd->frame;
				if ((long)pd->frame > outermost)
					outermost = (long)pd->frame;
			}
			if (pd->recursive && !pd->unique_svs)
				continue;
			/* a lexical or an op's target */
			if (bsearch(&words[i], pd->sv, pd->nsv, sizeof(pd->sv[0]), cmp_u64))
				return (long)pd->frame;
			if (pd->recursive)
				continue;
			/* an op of the sub: PL_op, or the op the loop runs next */
			for (j = 0; j < pd->nslabs; j++)
				if (words[i] >= pd->slab_lo[j] && words[i] < pd->slab_hi[j])
					return (long)pd->frame;
		}
	/* a recursion's pads: a word may be one a deeper call left behind
	 * after it returned; the outermost depth held was surely live */
	for (i = 0; i < n; i++)
		for (k = 0; k < p->ndeep; k++)
			if (words[i] >= p->deep[k].lo && words[i] < p->deep[k].hi &&
			    (long)p->deep[k].frame > outermost)
				outermost = (long)p->deep[k].frame;
	return outermost;
}

void perl__counters(const struct perl *p, struct runtime_counters *out)
{
	out->reads = p->mem.reads;
	out->failures = p->failures;
}

int perl__remap_names(struct perl *p, struct strtab_remap *r)
{
	if (r->commit)
		p->names = r->to;
	return perl_names__remap(p->cache, r);
}
