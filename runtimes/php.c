/* The frames a PHP executor runs, read from outside (runtimes/php.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "runtimes/accountant.h"
#include "runtimes/memsource.h"
#include "runtimes/php.h"
#include "runtimes/php_jit.h"
#include "runtimes/prefetch.h"

/* Bytes of a frame and of a function's head read at once: their largest
 * rows (php_layout.c) fit. */
#define EX_MAX 64
#define FN_MAX 192
/* Bytes above the last read's innermost frame read ahead with it: the
 * frames of the calls made since (a frame is 0x50 and 16 bytes a
 * variable). */
#define EX_AHEAD 4096
/* A function of more instructions than this does not compile. */
#define OPCODES_MAX (16u << 20)
/* The functions the last read found whose heads, and their names' heads,
 * are read ahead with the frames: at most this many, the innermost first,
 * in ranges that join spans this close, of at most this many bytes. A
 * span read in a call of its own costs a microsecond, in a range a page
 * walk at most. */
#define SPEC_FNS 16
#define SPEC_GAP 256
#define SPEC_BYTES 4096

struct php {
	struct memsource mem;
	uint64_t eg;             /* 0 in a thread-safe build */
	uint64_t start;          /* the frame a read starts at without eg */
	const struct php_layout *l;
	bool lines;
	struct strtab *names;
	struct php_names *cache;
	struct php_jit *jit;     /* what JIT code ran (made at first use) */
	uint64_t failures;
	/* one read's scratch */
	uint64_t ex[INTERP_MAX_FRAMES], func[INTERP_MAX_FRAMES], opline[INTERP_MAX_FRAMES];
	uint32_t info[INTERP_MAX_FRAMES];
	uint8_t fhead[INTERP_MAX_FRAMES][FN_MAX];
	struct php_fn fns[INTERP_MAX_FRAMES];
	size_t nread;            /* frames of the last read */
	/* the VM stack's frames where the last read found them (runtimes/
	 * prefetch.h): read again in one call before the walk */
	uint64_t last_lo, last_hi;
	/* the lowest of them over the reads since the chain last moved: a
	 * read that found a chain cut short (a frame being pushed) would
	 * otherwise start the next one's range above its callers */
	uint64_t base_lo;
	uint64_t ahead_failed;   /* the page a range read ahead ended in, unmapped */
	/* the heads the last read took: functions', then their names' */
	uint64_t spec_addr[2 * SPEC_FNS];
	size_t spec_len[2 * SPEC_FNS], nspec;
	struct prefetch pre;
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

int php__open(const struct memsource *m, uint64_t eg, const struct php_layout *l, bool lines,
	      struct strtab *names, struct php **out)
{
	struct php *p;

	if (l->ex_size > EX_MAX || l->op_size > FN_MAX)
		return -EPROTO;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->mem = *m;
	p->eg = eg;
	p->l = l;
	p->lines = lines;
	p->names = names;
	p->cache = php_names__new();
	if (!p->cache) {
		free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void php__delete(struct php *p)
{
	if (!p)
		return;
	php_names__delete(p->cache);
	php_jit__delete(p->jit);
	free(p);
}

/* Walks current_execute_data (or the frame the read starts at) ->
 * prev_execute_data: each frame's address, function, instruction and call
 * info. Returns how many, or -errno. A chain longer than
 * INTERP_MAX_FRAMES keeps its innermost frames. */
static long walk(struct php *p)
{
	const struct php_layout *l = p->l;
	uint8_t b[EX_MAX];
	uint64_t ex = p->start;
	size_t n = 0, steps = 0;

	if (p->eg && prefetch__u64(&p->pre, &p->mem, p->eg + l->eg_current_execute_data, &ex) != 0)
		return -EFAULT;
	while (ex && n < INTERP_MAX_FRAMES) {
		size_t k;

		if (!plausible(ex) || prefetch__read(&p->pre, &p->mem, ex, b, l->ex_size) != 0)
			return -EFAULT;
		/* frames live on the VM stack, callers at lower addresses within
		 * a page of stack; a loop in the chain is memory posing as one */
		for (k = 0; k < n; k++)
			if (p->ex[k] == ex)
				return -EPROTO;
		if (++steps > 2 * INTERP_MAX_FRAMES)
			return -EPROTO;
		p->ex[n] = ex;
		p->opline[n] = u64_at(b, l->ex_opline);
		p->func[n] = u64_at(b, l->ex_func);
		p->info[n] = u32_at(b, l->ex_call_info);
		/* zend_call_function's stand-in caller (a frame of no function,
		 * under a callback called from no PHP code) is no frame */
		if (p->func[n])
			n++;
		ex = u64_at(b, l->ex_prev);
	}
	return (long)n;
}

/* The heads the last read took, sorted and joined where close: at most
 * max ranges of SPEC_BYTES in all (*bytes). */
static size_t spec_ranges(const struct php *p, uint64_t *ra, size_t *rl, size_t max, size_t *bytes)
{
	uint64_t a[2 * SPEC_FNS];
	size_t len[2 * SPEC_FNS], n = p->nspec, i, nr = 0;

	*bytes = 0;
	memcpy(a, p->spec_addr, n * sizeof(a[0]));
	memcpy(len, p->spec_len, n * sizeof(len[0]));
	prefetch__sort_spans(a, len, n);
	for (i = 0; i < n; i++) {
		uint64_t end = a[i] + len[i];

		if (nr && a[i] <= ra[nr - 1] + rl[nr - 1] + SPEC_GAP) {
			uint64_t cur = ra[nr - 1] + rl[nr - 1];

			if (end > cur) {
				if (*bytes + (end - cur) > SPEC_BYTES)
					break;
				*bytes += (size_t)(end - cur);
				rl[nr - 1] += (size_t)(end - cur);
			}
			continue;
		}
		if (nr == max || *bytes + len[i] > SPEC_BYTES)
			break;
		ra[nr] = a[i];
		rl[nr++] = len[i];
		*bytes += len[i];
	}
	return nr;
}

/* What a read took, for the next one's read_ahead: the distinct
 * functions' heads, innermost first, and their names' heads; then those
 * of earlier reads, as many as are left room (a read that found a chain
 * cut short leaves its callers' functions to the next). */
static void remember_heads(struct php *p, const struct php_fn *fns, size_t n)
{
	uint64_t old_addr[2 * SPEC_FNS];
	size_t old_len[2 * SPEC_FNS], nold = p->nspec, k, j;

	memcpy(old_addr, p->spec_addr, nold * sizeof(old_addr[0]));
	memcpy(old_len, p->spec_len, nold * sizeof(old_len[0]));
	p->nspec = 0;
	for (k = 0; k < n && p->nspec < 2 * SPEC_FNS; k++) {
		for (j = 0; j < p->nspec && p->spec_addr[j] != fns[k].func; j += 2)
			;
		if (j < p->nspec)
			continue;
		p->spec_addr[p->nspec] = fns[k].func;
		p->spec_len[p->nspec++] = fns[k].type == PHP_INTERNAL_FUNCTION ? p->l->fn_scope + 8
									 : p->l->op_size;
		p->spec_addr[p->nspec] = fns[k].name_ptr ? fns[k].name_ptr : fns[k].file_ptr;
		p->spec_len[p->nspec++] = PHP_HEAD_BYTES;
	}
	for (k = 0; k < nold && p->nspec < 2 * SPEC_FNS; k += 2) {
		for (j = 0; j < p->nspec && p->spec_addr[j] != old_addr[k]; j += 2)
			;
		if (j < p->nspec)
			continue;
		memcpy(p->spec_addr + p->nspec, old_addr + k, 2 * sizeof(old_addr[0]));
		memcpy(p->spec_len + p->nspec, old_len + k, 2 * sizeof(old_len[0]));
		p->nspec += 2;
	}
}

/* The executor's current frame and the frames where the last read found
 * them, innermost first as far as they fit, read in one call before the
 * walk follows its pointers there: frames live on the VM stack, callers
 * below their callees, so one range holds a whole chain. */
static void read_ahead(struct php *p)
{
	uint64_t ra[PREFETCH_RANGES];
	size_t rl[PREFETCH_RANGES], nr, heads, room, frames, i;
	uint64_t lo = p->last_lo, hi = p->last_hi + p->l->ex_size + EX_AHEAD;
	bool top;

	prefetch__clear(&p->pre);
	if (!p->last_hi)
		return;
	/* the globals' word and the frames take a range each */
	nr = spec_ranges(p, ra, rl, PREFETCH_RANGES - 2, &heads);
	room = PREFETCH_BYTES - 8 - heads;
	/* the top of the stack's last page: not past it (a failed read
	 * would lose the whole range) */
	if (p->ahead_failed && (hi - 1) >> 12 == p->ahead_failed)
		hi = p->last_hi + p->l->ex_size;
	if (p->eg)
		(void)prefetch__want(&p->pre, p->eg + p->l->eg_current_execute_data, 8);
	if (p->base_lo < lo && hi - p->base_lo <= room)
		lo = p->base_lo;
	else
		p->base_lo = lo; /* the chain moved, or there was none */
	if (hi - lo > room)
		lo = hi - room;
	frames = p->pre.n;
	top = prefetch__want(&p->pre, lo, (size_t)(hi - lo));
	for (i = 0; i < nr; i++)
		(void)prefetch__want(&p->pre, ra[i], rl[i]);
	if (prefetch__fill(&p->pre, &p->mem) == 0 && top && !p->pre.ok[frames])
		p->ahead_failed = (hi - 1) >> 12;
}

/* Where this read's frames are, for the next one's read_ahead. */
static void remember_frames(struct php *p, size_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t k;

	for (k = 0; k < n; k++) {
		lo = p->ex[k] < lo ? p->ex[k] : lo;
		hi = p->ex[k] > hi ? p->ex[k] : hi;
	}
	p->last_lo = n ? lo : 0;
	p->last_hi = n ? hi : 0;
	if (n && lo < p->base_lo)
		p->base_lo = lo;
}

/* Reads n spans of len bytes, MEMSOURCE_SPANS_MAX to a call: ok[i] says
 * which were read whole. 0 or the source's -errno. */
static int read_spans(struct php *p, const uint64_t *addrs, size_t len, void *const *bufs, bool *ok,
		      size_t n)
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
	return 0;
}

/* Spans looked back at for the same address: a recursion's frames run one
 * function over and over, or a few in turn. */
#define SAME_SPANS 8

/* The span of the SAME_SPANS before k that reads what k does (the first
 * of them that reads it itself), or k. */
static size_t first_of(const uint64_t *addrs, const size_t *src, size_t k)
{
	size_t j;

	for (j = k; j > 0 && j + SAME_SPANS > k; j--)
		if (addrs[j - 1] == addrs[k])
			return src[j - 1] < k ? src[j - 1] : j - 1;
	return k;
}

/* n spans of len bytes into bufs: each address once (a recursive chain
 * names one function many times), from what was read ahead where it
 * holds them, the rest in one call. ok[i] says which were read whole. */
static int read_distinct(struct php *p, const uint64_t *addrs, size_t len, void *const *bufs,
			 bool *ok, size_t n)
{
	uint64_t ma[INTERP_MAX_FRAMES];
	void *mb[INTERP_MAX_FRAMES];
	bool mok[INTERP_MAX_FRAMES];
	size_t i, nm = 0, src[INTERP_MAX_FRAMES];
	int err;

	for (i = 0; i < n; i++) {
		src[i] = first_of(addrs, src, i);
		ok[i] = false;
		if (src[i] < i)
			continue;
		if (prefetch__take(&p->pre, addrs[i], bufs[i], len) == 0) {
			ok[i] = true;
			continue;
		}
		ma[nm] = addrs[i];
		mb[nm] = bufs[i];
		src[i] = n + nm++; /* read below */
	}
	err = nm ? read_spans(p, ma, len, mb, mok, nm) : 0;
	for (i = 0; !err && i < n; i++) {
		if (src[i] >= n)
			ok[i] = mok[src[i] - n];
		else if (src[i] < i && (ok[i] = ok[src[i]]))
			memcpy(bufs[i], bufs[src[i]], len);
	}
	return err;
}

/* Reads the functions' heads, all in one call where the source can. */
static int read_functions(struct php *p, size_t n)
{
	void *bufs[INTERP_MAX_FRAMES];
	bool ok[INTERP_MAX_FRAMES];
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		bufs[i] = p->fhead[i];
	err = read_distinct(p, p->func, p->l->op_size, bufs, ok, n);
	for (i = 0; !err && i < n; i++)
		/* an internal function's struct is shorter than an op_array:
		 * its common head alone */
		if (!ok[i] && (!plausible(p->func[i]) ||
			       memsource__read(&p->mem, p->func[i], bufs[i], p->l->fn_scope + 8) != 0))
			err = -EFAULT;
	return err;
}

/* Frame k as the name cache knows it, and its code; -EPROTO when its
 * function makes no sense or its instruction is outside its opcodes. */
static int describe(struct php *p, size_t k, struct php_fn *fn, struct interp_frame *f)
{
	const struct php_layout *l = p->l;
	const uint8_t *h = p->fhead[k];
	uint64_t opcodes, last;

	memset(fn, 0, sizeof(*fn));
	memset(f, 0, sizeof(*f));
	fn->func = p->func[k];
	fn->type = h[l->fn_type];
	fn->name_ptr = u64_at(h, l->fn_name);
	fn->scope = u64_at(h, l->fn_scope);
	f->addr = p->ex[k];
	f->entry_end = (p->info[k] & l->call_top) != 0;
	if (fn->type == PHP_INTERNAL_FUNCTION)
		return fn->name_ptr ? 0 : -EPROTO;
	if (fn->type != PHP_USER_FUNCTION && fn->type != PHP_EVAL_CODE)
		return -EPROTO;
	opcodes = u64_at(h, l->op_opcodes);
	last = u32_at(h, l->op_last);
	fn->file_ptr = u64_at(h, l->op_filename);
	if (!plausible(opcodes) || !last || last > OPCODES_MAX / l->zop_size ||
	    !plausible(fn->file_ptr))
		return -EPROTO;
	f->code_lo = opcodes;
	f->code_hi = opcodes + last * l->zop_size;
	/* the instruction the frame saved: inside its own code, or the frame
	 * is not what it says (a wrong layout, memory posing as PHP). Every
	 * caller saved it when it called; the frame running may not have yet
	 * (GCC builds keep it in r15 and store it only before helpers, so a
	 * new frame's slot holds what an earlier frame left there): none. */
	if (p->opline[k] < f->code_lo || p->opline[k] >= f->code_hi) {
		if (k > 0)
			return -EPROTO;
		p->opline[k] = 0;
	}
	return 0;
}

/* The heads of the strings that identify each frame's function. */
static int read_heads(struct php *p, struct php_fn *fns, size_t n)
{
	uint64_t addrs[INTERP_MAX_FRAMES];
	void *bufs[INTERP_MAX_FRAMES];
	bool ok[INTERP_MAX_FRAMES];
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		addrs[i] = fns[i].name_ptr ? fns[i].name_ptr : fns[i].file_ptr;
		bufs[i] = fns[i].head;
	}
	err = read_distinct(p, addrs, PHP_HEAD_BYTES, bufs, ok, n);
	for (i = 0; !err && i < n; i++) {
		if (!ok[i])
			err = -EFAULT;
		/* its reference count (gc) changes as the string is used, not
		 * what the string is */
		memset(fns[i].head, 0, 8);
	}
	return err;
}

/* Each user frame's line, at the instruction it saved, in one call:
 * 0 for a frame that saved none. */
static int frame_lines(struct php *p, struct php_fn *fns, size_t n)
{
	uint64_t addrs[INTERP_MAX_FRAMES];
	void *bufs[INTERP_MAX_FRAMES];
	bool ok[INTERP_MAX_FRAMES];
	size_t k, m = 0;
	int err;

	for (k = 0; k < n; k++) {
		fns[k].line = 0;
		if (!p->opline[k] || fns[k].type == PHP_INTERNAL_FUNCTION)
			continue;
		addrs[m] = p->opline[k] + p->l->zop_lineno;
		bufs[m++] = &fns[k].line;
	}
	err = m ? read_distinct(p, addrs, sizeof(fns[0].line), bufs, ok, m) : 0;
	for (k = 0; !err && k < m; k++)
		if (!ok[k])
			err = -EFAULT;
	return err;
}

static int read_stack(struct php *p, uint64_t now_ns, struct interp_stack *out)
{
	struct php_fn *fns = p->fns;
	long n;
	size_t k;
	int err;

	out->n = 0;
	p->nread = 0;
	if (!ledger__may_read(p->mem.ledger, now_ns)) {
		p->failures++;
		return -EBUSY;
	}
	read_ahead(p);
	n = walk(p);
	remember_frames(p, n > 0 ? (size_t)n : 0);
	if (n <= 0) {
		prefetch__clear(&p->pre);
		if (n < 0)
			p->failures++;
		return n < 0 ? (int)n : -ENOENT;
	}
	err = read_functions(p, (size_t)n);
	for (k = 0; !err && k < (size_t)n; k++)
		err = describe(p, k, &fns[k], &out->f[k]);
	/* a builtin calls PHP code only through a call of the executor of
	 * its own (zend_call_function), whose first frame is marked the top
	 * of it: any other frame under a builtin was read torn, the frames
	 * changing between the reads (or memory posing as PHP) */
	for (k = 1; !err && k < (size_t)n; k++)
		if (fns[k].type == PHP_INTERNAL_FUNCTION && !out->f[k - 1].entry_end)
			err = -EPROTO;
	if (!err)
		err = read_heads(p, fns, (size_t)n);
	if (!err && p->lines)
		err = frame_lines(p, fns, (size_t)n);
	prefetch__clear(&p->pre);
	for (k = 0; !err && k < (size_t)n; k++)
		err = php_names__name(p->cache, &p->mem, p->l, p->names, p->mem.ledger, &fns[k],
				      &out->f[k].name);
	if (err) {
		out->n = 0;
		p->failures++;
		return err;
	}
	remember_heads(p, fns, (size_t)n);
	out->n = p->nread = (size_t)n;
	out->f[n - 1].entry_end = true;
	return 0;
}

int php__read_stack(struct php *p, uint64_t now_ns, struct interp_stack *out)
{
	if (!p->eg) {
		out->n = 0;
		p->nread = 0;
		return -ENOENT;
	}
	return read_stack(p, now_ns, out);
}

int php__read_stack_from(struct php *p, uint64_t ex, uint64_t now_ns, struct interp_stack *out)
{
	p->start = ex;
	return read_stack(p, now_ns, out);
}

int php__name_at(struct php *p, uint64_t frame_addr, uint64_t opline, uint32_t *name)
{
	struct php_fn fn;
	size_t k;
	int err;

	for (k = 0; k < p->nread; k++) {
		if (p->ex[k] != frame_addr || p->fns[k].type == PHP_INTERNAL_FUNCTION)
			continue;
		fn = p->fns[k];
		err = memsource__u32(&p->mem, opline + p->l->zop_lineno, &fn.line);
		if (!err)
			err = php_names__name(p->cache, &p->mem, p->l, p->names, p->mem.ledger, &fn,
					      name);
		return err;
	}
	return -ENOENT;
}

int php__jit_witness(struct php *p, uint64_t frame_addr, uint64_t pc, uint64_t now_ns,
		     uint64_t *opline)
{
	const struct php_layout *l = p->l;
	size_t k;

	*opline = 0;
	/* traces are told by their store to the globals */
	if (!p->eg)
		return -ENOENT;
	if (!p->jit && !(p->jit = php_jit__new(p->eg)))
		return -ENOMEM;
	for (k = 0; k < p->nread; k++) {
		uint64_t opcodes;
		uint32_t last;

		if (p->ex[k] != frame_addr || p->fns[k].type == PHP_INTERNAL_FUNCTION)
			continue;
		/* describe() checked both when it read the frame */
		opcodes = u64_at(p->fhead[k], l->op_opcodes);
		last = u32_at(p->fhead[k], l->op_last);
		return php_jit__witness(p->jit, &p->mem, l, pc, opcodes, last, now_ns, opline);
	}
	return -ENOENT;
}

void php__counters(const struct php *p, struct runtime_counters *out)
{
	out->reads = p->mem.reads;
	out->failures = p->failures;
}

int php__remap_names(struct php *p, struct strtab_remap *r)
{
	if (r->commit)
		p->names = r->to;
	return php_names__remap(p->cache, r);
}
