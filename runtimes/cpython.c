/* CPython's threads and their Python stacks, read from outside. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "runtimes/accountant.h"
#include "runtimes/cpython_impl.h"

static int layout_of(struct memsource *m, const struct cpython_symbols *sym, struct cpython_layout *out)
{
	const struct cpython_layout *t;

	/* 3.13 says where everything is itself; a name saying 3.13 without
	 * the table is refused rather than guessed */
	if (sym->runtime && (sym->major == 0 || (sym->major == 3 && sym->minor >= 13))) {
		uint8_t b[CPYTHON_DEBUG_OFFSETS_SIZE];

		if (memsource__read(m, sym->runtime, b, sizeof(b)) != 0)
			return -EPROTO;
		return cpython_layout__from_debug_offsets(b, sizeof(b), out) == 0 ? 0 : -ENOTSUP;
	}
	t = cpython_layout__table(sym->major, sym->minor);
	if (!t)
		return -ENOTSUP;
	*out = *t;
	return 0;
}

int cpython__open(const struct memsource *m, const struct cpython_symbols *sym, bool lines,
		  struct strtab *names, struct cpython **out)
{
	struct cpython *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->mem = *m;
	c->sym = *sym;
	c->names = names;
	c->lines = lines;
	err = layout_of(&c->mem, sym, &c->l);
	if (!err && !sym->runtime && !sym->interp_head && !sym->tstate_current)
		err = -EPROTO;
	if (!err && (sym->runtime ? c->l.runtime_interp_head == 0 && c->l.major == 3 && c->l.minor < 7 : 0))
		err = -EPROTO;
	if (err) {
		free(c);
		return err;
	}
	c->tstate_by_tid = u64map__new(16);
	c->thread_by_tid = u64map__new(16);
	c->code_index = u64map__new(256);
	c->last_by_tid = u64map__new(16);
	c->name_by_line = u64map__new(lines ? 256 : 1);
	c->not_code = u64map__new(64);
	if (!c->tstate_by_tid || !c->thread_by_tid || !c->code_index ||
	    !c->last_by_tid || !c->name_by_line || !c->not_code) {
		cpython__delete(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

void cpython__delete(struct cpython *c)
{
	size_t pos = 0;
	uint64_t tid, v;

	if (!c)
		return;
	while (c->last_by_tid && u64map__next(c->last_by_tid, &pos, &tid, &v))
		free((void *)(uintptr_t)v);
	u64map__delete(c->last_by_tid);
	if (c->codes)
		cpython__clear_codes(c);
	u64map__delete(c->name_by_line);
	u64map__delete(c->not_code);
	u64map__delete(c->tstate_by_tid);
	u64map__delete(c->thread_by_tid);
	u64map__delete(c->code_index);
	free(c->codes);
	free(c->ranges);
	free(c);
}


/* Bytes of a thread state read at once: up to its last field used. */
static uint32_t tstate_bytes(const struct cpython_layout *l)
{
	uint32_t n = l->tstate_frame + 8;

	if (l->tstate_next + 8 > n)
		n = l->tstate_next + 8;
	if (l->tstate_thread_id + 8 > n)
		n = l->tstate_thread_id + 8;
	if (l->tstate_native_id >= 0 && (uint32_t)l->tstate_native_id + 8 > n)
		n = (uint32_t)l->tstate_native_id + 8;
	if (l->tstate_datastack && l->tstate_datastack + 24 > n)
		n = l->tstate_datastack + 24;
	return n;
}

#define TSTATE_MAX_BYTES 512

/* The first interpreter's address (the main one: where Python threads of a
 * program run, subinterpreters aside). */
static int first_interp(struct cpython *c, uint64_t *interp)
{
	const struct cpython_layout *l = &c->l;
	uint64_t ts;

	if (c->sym.runtime)
		return memsource__u64(&c->mem, c->sym.runtime + l->runtime_interp_head, interp);
	if (c->sym.interp_head)
		return memsource__u64(&c->mem, c->sym.interp_head, interp);
	/* 2.7 and 3.6 stripped of .symtab: the thread holding the GIL, if any,
	 * says which interpreter it runs */
	if (memsource__u64(&c->mem, c->sym.tstate_current, &ts) != 0 || !cpython__plausible(ts))
		return -ENOENT;
	return memsource__u64(&c->mem, ts + l->tstate_interp, interp);
}

/* The TID of a thread state: recorded by 3.11+, else found through the
 * pthread_t it recorded (glibc's struct pthread holds the tid). */
static int tstate_tid(struct cpython *c, const uint8_t *ts, int32_t *tid, uint64_t *thread)
{
	const struct cpython_layout *l = &c->l;
	uint32_t v;

	*thread = cpython__u64_at(ts, l->tstate_thread_id);
	if (l->tstate_native_id >= 0) {
		memcpy(&v, ts + l->tstate_native_id, sizeof(v));
		*tid = (int32_t)v;
		return *tid > 0 ? 0 : -ENOENT;
	}
	if (c->sym.pthread_tid < 0 || !cpython__plausible(*thread))
		return -ENOENT;
	if (memsource__u32(&c->mem, *thread + (uint64_t)c->sym.pthread_tid, &v) != 0)
		return -EFAULT;
	*tid = (int32_t)v;
	return *tid > 0 ? 0 : -ENOENT;
}

/* Walks every thread state of the first interpreter and maps TIDs to them. */
static int scan_threads(struct cpython *c)
{
	const struct cpython_layout *l = &c->l;
	uint32_t tsz = tstate_bytes(l);
	uint64_t interp, ts, seen = 0;
	uint8_t b[TSTATE_MAX_BYTES];
	int err;

	u64map__clear(c->tstate_by_tid);
	u64map__clear(c->thread_by_tid);
	err = first_interp(c, &interp);
	if (err)
		return err;
	if (!cpython__plausible(interp))
		return -ENOENT;
	if (memsource__u64(&c->mem, interp + l->interp_tstate_head, &ts) != 0)
		return -EFAULT;
	while (ts && seen++ < CPYTHON_MAX_THREADS) {
		int32_t tid;
		uint64_t thread;

		if (!cpython__plausible(ts) || memsource__read(&c->mem, ts, b, tsz) != 0)
			return -EFAULT;
		if (tstate_tid(c, b, &tid, &thread) == 0 &&
		    (u64map__put(c->tstate_by_tid, (uint64_t)tid, ts) != 0 ||
		     u64map__put(c->thread_by_tid, (uint64_t)tid, thread) != 0))
			return -ENOMEM;
		ts = cpython__u64_at(b, l->tstate_next);
	}
	return 0;
}

/* Thread tid's state, read into b (tstate_bytes of it) with what its last
 * walk read (cpython_ahead.c): looked up in the map, checked to still be
 * that thread's, else looked for again (at most once per
 * CPYTHON_RESCAN_NS). */
static int thread_state(struct cpython *c, int tid, uint64_t now_ns, uint8_t *b, uint64_t *at)
{
	uint32_t tsz = tstate_bytes(&c->l);
	int pass;

	for (pass = 0; pass < 2; pass++) {
		uint64_t ts, thread;
		int32_t got;
		uint64_t got_thread;

		if (u64map__get(c->tstate_by_tid, (uint64_t)tid, &ts) &&
		    u64map__get(c->thread_by_tid, (uint64_t)tid, &thread) &&
		    (pass == 0 ? cpython__read_ahead(c, tid, ts, b, tsz)
			       : memsource__read(&c->mem, ts, b, tsz)) == 0) {
			/* the same thread still: 3.11+ by its TID, before by its
			 * pthread_t (one read less than following it to the TID) */
			*at = ts;
			if (c->l.tstate_native_id >= 0) {
				if (tstate_tid(c, b, &got, &got_thread) == 0 && got == tid)
					return 0;
			} else if (cpython__u64_at(b, c->l.tstate_thread_id) == thread) {
				return 0;
			}
			cpython__drop_ahead(c);
		}
		if (pass == 1 || (c->last_scan_ns && now_ns - c->last_scan_ns < CPYTHON_RESCAN_NS))
			return -ENOENT;
		c->last_scan_ns = now_ns ? now_ns : 1;
		if (scan_threads(c) == -ENOMEM)
			return -ENOMEM;
	}
	return -ENOENT;
}

void cpython__set_sample_stack(struct cpython *c, uint64_t base, const uint8_t *data, size_t size)
{
	c->copy_base = base;
	c->copy = data;
	c->copy_size = data ? size : 0;
}

/* Whether frame f is not on its thread's data stack (3.11+): it lies
 * in the current chunk at or above the top, per ds, the thread state's
 * datastack_chunk, _top and _limit. A returned frame's bytes stay as they
 * were when it returned (an exiting program's frames each at its last
 * line): read as a stack they pass for a live one. A frame in an older
 * chunk is taken as live: telling would need the chunks walked. */
static bool popped(const uint8_t *ds, uint64_t f)
{
	uint64_t chunk = cpython__u64_at(ds, 0), top = cpython__u64_at(ds, 8);
	uint64_t limit = cpython__u64_at(ds, 16);

	return chunk < top && top <= f && f < limit;
}

/* The innermost frame of a thread state read into b: for 3.11 and 3.12
 * the one the sample ran unless it has returned since, else the one
 * running now. */
static int current_frame(struct cpython *c, const uint8_t *b, uint64_t *frame)
{
	uint64_t f = cpython__u64_at(b, c->l.tstate_frame), at;

	if (c->l.cframe_current >= 0) {
		/* 3.11, 3.12: through the _PyCFrame, a local of the eval loop
		 * the sample's stack copy holds as it was then */
		if (!f || !cpython__plausible(f))
			return f ? -EFAULT : -ENOENT;
		at = f + (uint64_t)c->l.cframe_current;
		if (at >= c->copy_base && at - c->copy_base + 8 <= c->copy_size) {
			memcpy(&f, c->copy + (at - c->copy_base), sizeof(f));
			if (!c->l.tstate_datastack || !popped(b + c->l.tstate_datastack, f)) {
				*frame = f;
				return 0;
			}
		}
		if (memsource__u64(&c->mem, at, &f) != 0)
			return -EFAULT;
	}
	*frame = f;
	return 0;
}

/* len bytes at addr, from a page read earlier in this walk when one holds
 * them, else by reading that page (a frame across pages is read alone). */
static int read_frame(struct cpython *c, uint64_t addr, uint8_t *buf, size_t len)
{
	struct cpython_pages *pg = &c->pages;
	uint64_t page = addr & ~(uint64_t)(CPYTHON_PAGE - 1);
	unsigned k;

	if (cpython__ahead_frame(c, addr, buf, len))
		return 0;
	if (addr + len > page + CPYTHON_PAGE)
		return memsource__read(&c->mem, addr, buf, len);
	k = cpython__page_find(pg, page);
	if (k == pg->n) {
		k = cpython__page_slot(pg);
		cpython__page_set(pg, k, 0);
		if (memsource__read(&c->mem, page, pg->data[k], CPYTHON_PAGE) != 0)
			return memsource__read(&c->mem, addr, buf, len);
		pg->addr[k] = page;
	}
	pg->used[k] = true;
	memcpy(buf, pg->data[k] + (addr - page), len);
	return 0;
}

/* Validates and names the codes of the frames walked (their f[].code, from
 * the frames): each distinct code's head read once, all of them in one
 * read where the source allows (a recursion runs one code in many frames,
 * a stack a handful of codes). */
static int name_frames(struct cpython *c, struct cpython_stack *out, const uint64_t *instr)
{
	uint64_t addrs[CPYTHON_WALK_CODES];
	size_t lens[CPYTHON_WALK_CODES], nd, na = c->nahead, i, k;
	void *bufs[CPYTHON_WALK_CODES];
	bool ok[CPYTHON_WALK_CODES];
	uint8_t (*heads)[CPYTHON_CODE_HEAD_MAX] = c->heads;

	if (c->l.code_size > CPYTHON_CODE_HEAD_MAX)
		return -EPROTO;
	/* the heads read ahead come first, the others are read after them */
	for (nd = 0; nd < na; nd++) {
		addrs[nd] = c->ahead_code[nd];
		ok[nd] = c->ahead_ok[nd];
	}
	for (i = 0; i < out->n && nd < CPYTHON_WALK_CODES; i++) {
		/* a head read ahead counts when it was read whole; those to
		 * read are not read yet */
		for (k = 0; k < nd && (addrs[k] != out->f[i].code || (k < na && !ok[k])); k++)
			;
		if (k == nd && cpython__plausible(out->f[i].code)) {
			addrs[nd] = out->f[i].code;
			lens[nd] = c->l.code_size;
			bufs[nd] = heads[nd];
			nd++;
		}
	}
	if (nd > na && memsource__readv(&c->mem, addrs + na, lens + na, bufs + na, ok + na, nd - na) < 0)
		return -ESRCH;
	for (i = 0; i < out->n; i++) {
		struct cpython_code *e = NULL;

		for (k = 0; k < nd && (addrs[k] != out->f[i].code || !ok[k]); k++)
			;
		if (k < nd) {
			e = cpython__code_head(c, addrs[k], heads[k]);
		} else {
			/* not read whole, or past CPYTHON_WALK_CODES */
			for (k = na; k < nd && addrs[k] != out->f[i].code; k++)
				;
			if (k == nd)
				e = cpython__code(c, out->f[i].code);
		}
		if (!e)
			return -EPROTO;
		out->f[i].name = c->lines ? cpython__line_name(c, e, instr[i]) : e->name;
	}
	return 0;
}

/* 3.11+: reads the page of innermost frame f for the walk and, in the
 * same call and after it, the data stack bounds of thread state ts. Returns
 * -EAGAIN when they say f had returned by then: the frames were read (or
 * some of them) after the thread had left them, a stack of the lines they
 * returned from. Between reads of the thread state and of its frames the
 * thread runs on; as a program ends, that read is the last one its samples
 * can be given. */
static int read_live_page(struct cpython *c, uint64_t f, uint64_t ts)
{
	struct cpython_pages *pg = &c->pages;
	uint64_t addrs[2];
	size_t lens[2];
	void *bufs[2];
	bool ok[2];
	uint8_t ds[24];

	uint64_t page = f & ~(uint64_t)(CPYTHON_PAGE - 1);
	unsigned k;

	if (!c->l.tstate_datastack || (f & (CPYTHON_PAGE - 1)) + c->l.frame_size > CPYTHON_PAGE)
		return 0;
	/* read ahead of the bounds, with them (cpython_ahead.c) */
	k = cpython__page_find(pg, page);
	if (k < pg->n && c->ahead_ds_ok)
		return popped(c->ahead_ds, f) ? -EAGAIN : 0;
	if (k == pg->n)
		k = cpython__page_slot(pg);
	cpython__page_set(pg, k, 0);
	addrs[0] = page;
	lens[0] = CPYTHON_PAGE;
	bufs[0] = pg->data[k];
	addrs[1] = ts + c->l.tstate_datastack;
	lens[1] = sizeof(ds);
	bufs[1] = ds;
	if (memsource__readv(&c->mem, addrs, lens, bufs, ok, 2) < 0 || !ok[0] || !ok[1])
		return 0; /* the walk reads what it can */
	if (popped(ds, f))
		return -EAGAIN;
	pg->addr[k] = page;
	return 0;
}

/* Walks the frames from f (of thread state ts) outwards into out. */
static int walk_frames(struct cpython *c, uint64_t f, uint64_t ts, struct cpython_stack *out)
{
	const struct cpython_layout *l = &c->l;
	uint64_t instr[CPYTHON_MAX_FRAMES];
	uint8_t b[CPYTHON_FRAME_HEAD_MAX];
	size_t steps = 0;
	int err;

	out->n = 0;
	c->nwalked = 0;
	if (f && cpython__plausible(f) && (err = read_live_page(c, f, ts)) != 0)
		return err;
	while (f && steps++ < 2 * CPYTHON_MAX_FRAMES) {
		struct cpython_frame *pf;

		if (!cpython__plausible(f) || l->frame_size > sizeof(b) || read_frame(c, f, b, l->frame_size) != 0)
			return -EFAULT;
		if (l->frames == CPYTHON_FRAME_OBJECTS && c->nwalked < CPYTHON_HINT_FRAMES)
			c->walked[c->nwalked++] = f;
		if (l->frame_owner >= 0 && b[l->frame_owner] == CPYTHON_OWNED_BY_CSTACK) {
			/* the shim of a native eval call: the frame before it was
			 * that call's first */
			if (out->n)
				out->f[out->n - 1].entry_end = true;
			f = cpython__u64_at(b, l->frame_back);
			continue;
		}
		if (out->n == CPYTHON_MAX_FRAMES)
			break;
		instr[out->n] = 0;
		if (c->lines) {
			uint32_t lasti;

			if (l->instr == CPYTHON_LASTI_BYTES || l->instr == CPYTHON_LASTI_UNITS) {
				memcpy(&lasti, b + l->frame_instr, sizeof(lasti));
				instr[out->n] = lasti;
			} else {
				instr[out->n] = cpython__u64_at(b, l->frame_instr);
			}
		}
		pf = &out->f[out->n++];
		pf->code = cpython__u64_at(b, l->frame_code);
		pf->name = 0;
		pf->entry_end = l->frames == CPYTHON_FRAME_OBJECTS ||
				(l->frame_entry >= 0 && b[l->frame_entry] != 0);
		f = cpython__u64_at(b, l->frame_back);
	}
	if (out->n)
		out->f[out->n - 1].entry_end = true;
	return name_frames(c, out, instr);
}

void cpython__remember(struct cpython *c, int tid, const struct cpython_placed *pl, size_t nev)
{
	struct cpython_last *last = NULL, *grown;
	uint64_t v;
	bool had = u64map__get(c->last_by_tid, (uint64_t)tid, &v);
	size_t k, j, n = 0;

	if (had)
		last = (struct cpython_last *)(uintptr_t)v;
	else if (u64map__count(c->last_by_tid) >= CPYTHON_MAX_THREADS)
		return;
	if (!pl->n)
		return;
	if (!last || last->n < pl->n) {
		grown = realloc(last, sizeof(*last) + pl->n * sizeof(last->f[0]));
		if (!grown)
			return;
		last = grown;
		if (u64map__put(c->last_by_tid, (uint64_t)tid, (uint64_t)(uintptr_t)last) != 0) {
			if (!had)
				free(last);
			else
				(void)u64map__del(c->last_by_tid, (uint64_t)tid);
			return;
		}
	}
	/* each native call's frames end its group */
	for (k = 0; k < nev; k++)
		for (j = 0; j < pl->count[k] && n < pl->n; j++) {
			last->f[n] = pl->frames[pl->first[k] + j];
			last->f[n++].entry_end = j + 1 == pl->count[k];
		}
	last->n = n;
}

/* The stack of tid as last read into out; false when there is none. */
static bool recall(struct cpython *c, int tid, struct cpython_stack *out)
{
	const struct cpython_last *last;
	uint64_t v;

	if (!u64map__get(c->last_by_tid, (uint64_t)tid, &v))
		return false;
	last = (const struct cpython_last *)(uintptr_t)v;
	out->n = last->n <= CPYTHON_MAX_FRAMES ? last->n : CPYTHON_MAX_FRAMES;
	memcpy(out->f, last->f, out->n * sizeof(out->f[0]));
	out->last_known = true;
	return true;
}

int cpython__read_stack(struct cpython *c, int tid, uint64_t now_ns, struct cpython_stack *out)
{
	uint8_t b[TSTATE_MAX_BYTES];
	uint64_t frame, ts = 0;
	int err;

	out->n = 0;
	out->last_known = false;
	if (tstate_bytes(&c->l) > sizeof(b))
		return -EPROTO;
	if (!ledger__may_read(c->mem.ledger, now_ns)) {
		c->failures++;
		return recall(c, tid, out) ? 0 : -EBUSY;
	}
	cpython__drop_ahead(c);
	err = thread_state(c, tid, now_ns, b, &ts);
	if (!err)
		err = current_frame(c, b, &frame);
	if (!err)
		err = walk_frames(c, frame, ts, out);
	cpython__sort_ranges(c);
	if (!err && out->n) {
		cpython__keep_hint(c, tid, out);
		return 0;
	}
	if (err && err != -ENOENT)
		c->failures++;
	if (recall(c, tid, out))
		return 0;
	return err ? err : -ENOENT;
}

void cpython__stats(const struct cpython *c, struct cpython_stats *out)
{
	out->reads = c->mem.reads;
	out->failures = c->failures;
}

int cpython__remap_names(struct cpython *c, struct strtab_remap *r)
{
	size_t i;
	size_t pos = 0, j;
	uint64_t tid, v;

	if (r->commit)
		c->names = r->to;
	for (i = 0; i < c->ncodes; i++)
		if ((c->codes[i].name && strtab_remap__id(r, &c->codes[i].name)) ||
		    (c->codes[i].recent && strtab_remap__id(r, &c->codes[i].recent)))
			return -ENOMEM;
	pos = 0;
	while (u64map__next(c->name_by_line, &pos, &tid, &v)) {
		uint32_t id = (uint32_t)v;

		if (strtab_remap__id(r, &id))
			return -ENOMEM;
		if (r->commit && u64map__put(c->name_by_line, tid, id) != 0)
			return -ENOMEM;
	}
	pos = 0;
	while (u64map__next(c->last_by_tid, &pos, &tid, &v)) {
		struct cpython_last *last = (struct cpython_last *)(uintptr_t)v;

		for (j = 0; j < last->n; j++)
			if (last->f[j].name && strtab_remap__id(r, &last->f[j].name))
				return -ENOMEM;
	}
	return 0;
}
