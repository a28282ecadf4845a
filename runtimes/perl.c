/* The subs a Perl interpreter runs, read from outside (runtimes/perl.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "runtimes/accountant.h"
#include "runtimes/memsource.h"
#include "runtimes/perl.h"

/* Stack infos (one per nesting of Perl's own stacks: sort blocks, magic,
 * callbacks from C) followed at most, and contexts looked at in a read:
 * deeper recursion keeps its innermost subs. */
#define SI_MAX 64
#define CX_SCAN_MAX 4096
#define CX_BATCH 64
#define CX_BYTES_MAX 0x80
/* A context index past this is no stack of a running program. */
#define CXIX_MAX (1 << 20)
/* Bytes of a CV's body read: up to xcv_flags; of a GV's: up to xgv_stash. */
#define CV_BODY 0x60
#define GV_BODY 0x30
/* A pad of more entries than this is memory posing as one. */
#define PAD_FILL_MAX (1 << 16)
/* Pads read for proof in a read (the innermost sub of each runops call),
 * and the entries of each read: a sub's lexicals, its ops' targets and
 * (threaded builds) its constants come first. */
#define PROOF_PADS 8
#define PAD_SVS 128
/* Op slabs of a sub followed at most: they double up to 2048 pointers,
 * so this is a sub of some 100 000 ops. */
#define SLABS_MAX 16
/* 5.32+: a slab's header before its slots */
#define SLAB_HEAD 0x28
/* 5.18-5.31: a slab's header (opslab_first, _next, _freed, _refcnt), and
 * its smallest and largest sizes (op.c: 64 to 2048 pointers) */
#define LINKED_SLAB_HEAD 0x20
#define LINKED_SLAB_MIN 512
#define LINKED_SLAB_MAX 16384
/* Bytes of 5.18-5.31 slabs read in one stack read at most: a real sub's
 * chain is walked once (cached), a dozen slabs for a sub of thousands of
 * ops; memory posing as subs with new slabs at every read costs this. */
#define LINKED_WALK_BYTES (256u << 10)

struct pad {
	size_t frame;
	uint64_t lo, hi;          /* the pad's array: PL_curpad while it runs */
	uint64_t sv[PAD_SVS];     /* its entries, sorted */
	size_t nsv;
	uint64_t slab_lo[SLABS_MAX], slab_hi[SLABS_MAX]; /* its ops' slabs' slots */
	size_t nslabs;
	/* the sub runs again further out in its runops call (recursion):
	 * its ops and the SVs its pads share (constants) tell no call from
	 * another, only its pad's own array does */
	bool recursive;
	/* recursive, its SVs left only where another depth's pad has
	 * another SV: a lexical of this depth proves this depth's call */
	bool unique_svs;
	uint64_t padl_arr, padl_max; /* its sub's PadlistARRAY, xpadl_max */
};

/* A frame of a recursion further out than its innermost call, with the
 * pad of the depth it runs at (runtimes/perl.h: recursion_pads). */
struct depth_pad {
	size_t frame;
	uint64_t lo, hi;
};

struct raw {
	uint64_t cv, cop, retop;
	int32_t depth;
};

/* A sub's op slabs, known by its CV's body and root op: a live sub's
 * slabs neither move nor grow (ops are allocated while it compiles). */
#define SLAB_CACHE 64
struct slabs {
	uint64_t body, root;
	uint64_t lo[SLABS_MAX], hi[SLABS_MAX];
	size_t n;
};

struct perl {
	struct memsource mem;
	uint64_t interp_ptr, curcop, curstackinfo;
	const struct perl_layout *l;
	bool lines;
	struct strtab *names;
	struct perl_names *cache;
	uint64_t failures;
	/* one read's scratch */
	struct raw raw[INTERP_MAX_FRAMES];
	uint8_t cx[CX_BATCH][CX_BYTES_MAX];
	uint8_t head[INTERP_MAX_FRAMES][24];
	uint8_t body[INTERP_MAX_FRAMES][CV_BODY];
	uint8_t gbody[INTERP_MAX_FRAMES][GV_BODY];
	struct perl_sub subs[INTERP_MAX_FRAMES];
	struct pad pads[PROOF_PADS];
	size_t npads;
	struct depth_pad deep[INTERP_MAX_FRAMES];
	size_t ndeep;
	struct slabs slab_cache[SLAB_CACHE];
	uint64_t slab_words[LINKED_SLAB_MAX / 8]; /* a 5.18-5.31 slab, walked */
	size_t walk_bytes; /* left to this stack read for such slabs */
};

static bool plausible(uint64_t p)
{
	return p >= 4096 && p < (1ull << 47) && (p & 7) == 0;
}

static uint64_t u64_at(const uint8_t *b, uint32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static uint32_t u32_at(const uint8_t *b, uint32_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

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

/* PL_curcop and PL_curstackinfo: through the interpreter of a threaded
 * build, the globals of another. */
static int roots(struct perl *p, uint64_t *cop, uint64_t *si)
{
	uint64_t interp;

	if (!p->interp_ptr)
		return memsource__u64(&p->mem, p->curcop, cop) ||
		       memsource__u64(&p->mem, p->curstackinfo, si) ? -EFAULT : 0;
	if (memsource__u64(&p->mem, p->interp_ptr, &interp) != 0)
		return -EFAULT;
	if (!interp)
		return -ENOENT; /* not started, or destroyed */
	if (!plausible(interp) || memsource__u64(&p->mem, interp + p->l->i_curcop, cop) != 0 ||
	    memsource__u64(&p->mem, interp + p->l->i_curstackinfo, si) != 0)
		return -EFAULT;
	return 0;
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
		uint64_t from = cxstack + (uint64_t)(top - cnt + 1) * l->cx_size;

		if (memsource__read(&p->mem, from, p->cx, (size_t)cnt * l->cx_size) != 0)
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
		uint8_t b[0x28];

		if (!plausible(si) || nsi == SI_MAX)
			return -EPROTO;
		for (k = 0; k < nsi; k++)
			if (seen[k] == si)
				return -EPROTO; /* a loop: memory posing as stacks */
		seen[nsi++] = si;
		if (memsource__read(&p->mem, si, b, sizeof(b)) != 0)
			return -EFAULT;
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

/* n spans of len bytes at addrs[i] into rows of stride bytes at base. */
static int read_rows(struct perl *p, const uint64_t *addrs, size_t len, uint8_t *base,
		     size_t stride, size_t n)
{
	void *bufs[INTERP_MAX_FRAMES];
	bool ok[INTERP_MAX_FRAMES];
	size_t i;

	for (i = 0; i < n; i++) {
		if (!plausible(addrs[i]))
			return -EPROTO;
		bufs[i] = base + i * stride;
	}
	return read_spans(p, addrs, len, bufs, ok, n);
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

/* 5.32+: the slabs from the root op's slot (its offset in pointers from
 * its slab's slots) to its slab, to the chain's head (opslab_head), along
 * the chain, each with its size. Into c; 0 or -errno. */
static int sized_slabs(struct perl *p, uint64_t root, struct slabs *c)
{
	const struct perl_layout *l = p->l;
	uint64_t slab, next;
	uint16_t hdr[4], size;
	uint8_t b[SLAB_HEAD];
	size_t i;

	if (memsource__read(&p->mem, root - 8, hdr, 8) != 0)
		return -EFAULT;
	/* hdr[1]: opslot_offset, in pointers from the slab's slots */
	slab = root - 8 - (uint64_t)hdr[1] * 8 - l->slab_slots;
	if (!plausible(slab) || memsource__u64(&p->mem, slab + 8, &next) != 0)
		return -EFAULT;
	if (next)
		slab = next; /* opslab_head: the chain's first */
	for (i = 0; slab && i < SLABS_MAX; i++) {
		if (!plausible(slab) || memsource__read(&p->mem, slab, b, sizeof(b)) != 0)
			return -EFAULT;
		memcpy(&size, b + l->slab_size, 2);
		if (size * 8u <= l->slab_slots)
			return -EPROTO;
		c->lo[i] = slab + SLAB_HEAD;
		c->hi[i] = slab + size * 8u;
		memcpy(&slab, b, 8);
	}
	c->n = i;
	return 0;
}

/* 5.18-5.31: where slab ends, found by walking its slots from
 * opslab_first to the sentinel (next 0) that ends it, in one read of the
 * largest slab there is (fewer bytes where the mapping ends sooner). A
 * slab is 64 pointers times a power of two, 2048 at most: an end found
 * elsewhere is memory posing as a slab. *next: opslab_next. */
static int linked_slab_end(struct perl *p, uint64_t slab, uint64_t *end, uint64_t *next)
{
	uint64_t *w = p->slab_words, slot, size;
	size_t len;

	for (len = LINKED_SLAB_MAX; len >= LINKED_SLAB_MIN; len /= 2)
		if (len <= p->walk_bytes && memsource__read(&p->mem, slab, w, len) == 0)
			break;
	if (len < LINKED_SLAB_MIN)
		return p->walk_bytes < LINKED_SLAB_MIN ? -EAGAIN : -EFAULT;
	p->walk_bytes -= len;
	*next = w[1];
	/* links only upwards inside the read: the walk ends */
	for (slot = w[0];; slot = w[(slot - slab) / 8]) {
		if (slot < slab + LINKED_SLAB_HEAD || slot >= slab + len || (slot & 7))
			return -EPROTO;
		if (!w[(slot - slab) / 8])
			break; /* the sentinel */
		if (w[(slot - slab) / 8] <= slot)
			return -EPROTO; /* slots link upwards */
	}
	size = slot + 8 - slab;
	if (size < LINKED_SLAB_MIN || (size & (size - 1)))
		return -EPROTO;
	*end = slot + 8;
	return 0;
}

/* 5.18-5.31: the slabs from the root op's slab pointer (the chain's
 * head) along the chain, each's end walked. Into c; 0 or -errno. */
static int linked_slabs(struct perl *p, uint64_t root, struct slabs *c)
{
	uint64_t slab, end, next;
	size_t i, j;

	if (memsource__u64(&p->mem, root - 8, &slab) != 0)
		return -EFAULT;
	for (i = 0; slab && i < SLABS_MAX; i++, slab = next) {
		int err;

		if (!plausible(slab))
			return -EPROTO;
		for (j = 0; j < i; j++)
			if (c->lo[j] == slab + LINKED_SLAB_HEAD)
				return -EPROTO; /* a chain in a loop */
		if ((err = linked_slab_end(p, slab, &end, &next)) != 0)
			return err;
		c->lo[i] = slab + LINKED_SLAB_HEAD;
		c->hi[i] = end;
	}
	c->n = i;
	return 0;
}

/* The slabs the ops of frame k's sub live in (5.18+; none before, whose
 * ops are each allocated alone): the root must be in one of them. Cached
 * by the CV's body and root (a live sub's slabs neither move nor grow).
 * 0, or -errno with none kept. */
static int slabs_of(struct perl *p, size_t k, struct pad *pd)
{
	const struct perl_layout *l = p->l;
	uint64_t root = u64_at(p->body[k], l->cv_root);
	uint64_t body = p->subs[k].body;
	struct slabs *c = &p->slab_cache[((body >> 4) ^ (root >> 3)) % SLAB_CACHE];
	bool has_root = false;
	size_t i;
	int err;

	if ((!l->slab_slots && !l->slots_linked) || !plausible(root))
		return -EFAULT;
	if (!(c->n && c->body == body && c->root == root)) {
		c->n = 0;
		err = l->slab_slots ? sized_slabs(p, root, c) : linked_slabs(p, root, c);
		for (i = 0; !err && i < c->n; i++)
			has_root |= root >= c->lo[i] && root < c->hi[i];
		if (err || !has_root) {
			c->n = 0;
			return err ? err : -EPROTO;
		}
		c->body = body;
		c->root = root;
	}
	memcpy(pd->slab_lo, c->lo, c->n * sizeof(c->lo[0]));
	memcpy(pd->slab_hi, c->hi, c->n * sizeof(c->hi[0]));
	pd->nslabs = c->n;
	return 0;
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
	(void)slabs_of(p, k, pd);
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
	size_t idx[INTERP_MAX_FRAMES], m = 0, j = pd->frame, i;

	while (!out->f[j].entry_end && ++j < n) {
		int32_t d = p->raw[j].depth;

		if (p->raw[j].cv == p->raw[pd->frame].cv && d >= 1 && (uint64_t)d <= pd->padl_max) {
			idx[m] = j;
			addrs[m++] = pd->padl_arr + (uint64_t)d * 8;
		}
	}
	if (!m || read_rows(p, addrs, 8, (uint8_t *)av, sizeof(av[0]), m) != 0 ||
	    read_rows(p, av, sizeof(head[0]), (uint8_t *)head, sizeof(head[0]), m) != 0)
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
	n = walk(p);
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
