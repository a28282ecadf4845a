/* Reading a thread's stack in one system call.
 *
 * A stack read is three dependent reads: the thread state (where its
 * innermost frame is), the frames (where their code objects are), the
 * codes' heads (validated, named). Each is a process_vm_readv, and on a
 * host where a system call costs a microsecond or more they are most of
 * what a Python sample costs. But a thread sampled again most often runs
 * the same frames at the same addresses: a loop calls the same functions
 * from the same place, 3.11+ frames sit at the same depth of their data
 * stack, and 2.7-3.10 frame objects are reused from the same pools. So
 * the pages the thread's last walk read its frames from (2.7-3.10: its
 * frame objects themselves, one page each in a deep stack), and the heads
 * of its codes, are read in the same call as its thread state and after it;
 * the walk takes from them what it finds there and reads the rest as
 * before. The order within the call is the order of the reads it stands
 * for (thread state, frames, then for 3.11+ the data stack's bounds that
 * say whether the innermost frame was still live, then the codes), so a
 * stack read ahead is no less current than one read step by step, and
 * each sample still has its own read. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/cpython_ahead.h"
#include "runtimes/cpython_state.h"

/* Pages of the target read during one stack walk: frames of 3.11+ lie
 * next to each other in their thread's data stack, and 2.7-3.10 frame
 * objects of one size share allocator pools, so one page read serves
 * several frames. */
#define WALK_PAGES 4
struct pages {
	uint64_t addr[WALK_PAGES]; /* 0: the slot holds nothing */
	bool used[WALK_PAGES];     /* a frame of the walk was on it */
	unsigned n, next;
	uint8_t data[WALK_PAGES][CPYTHON_PAGE];
};

/* The distinct codes of one walk whose heads are read at once. */
#define WALK_CODES 32

/* What a thread's last walk read: the pages its frames were on and its
 * codes. A loop runs the same frames at the same addresses, so the next
 * read of the thread takes them in the same call as its thread state.
 * Kept for HINTS threads, by TID modulo. */
#define HINTS 64
#define HINT_CODES 16
/* 2.7-3.10 frame objects are allocated one by one, wherever a pool of
 * their size has room, so a deep stack's frames lie on about as many
 * pages as there are frames: the last walk's frame objects themselves are
 * read ahead, up to this many. */
#define HINT_FRAMES 64
struct hint {
	int32_t tid; /* 0: none */
	uint8_t npages, ncodes, nframes;
	uint64_t pages[WALK_PAGES];
	uint64_t codes[HINT_CODES];
	uint64_t frames[HINT_FRAMES];
};

struct cpython_ahead {
	struct pages pages;            /* of the walk under way */
	uint8_t heads[WALK_CODES][CPYTHON_CODE_HEAD_MAX]; /* of the walk */
	struct hint hints[HINTS];
	/* read ahead for the walk under way: code heads in heads[0, nahead),
	 * and the data stack's bounds as read after the pages (3.11+) */
	uint64_t ahead_code[HINT_CODES];
	bool ahead_ok[HINT_CODES];
	size_t nahead;
	uint8_t ahead_ds[24];
	bool ahead_ds_ok;
	/* 2.7-3.10: the frame objects the walk under way read, and those read
	 * ahead for it, ahead_frames[0, nahead_frames) (cursor: where the
	 * next one is most likely, the walk following the last one's order) */
	uint64_t walked[HINT_FRAMES];
	size_t nwalked;
	uint64_t ahead_frame[HINT_FRAMES];
	bool ahead_frame_ok[HINT_FRAMES];
	size_t nahead_frames, ahead_cursor;
	uint8_t ahead_frames[HINT_FRAMES][CPYTHON_FRAME_HEAD_MAX];
};

#define AHEAD_SPANS (1 + WALK_PAGES + HINT_FRAMES + 1 + HINT_CODES)
_Static_assert(AHEAD_SPANS <= MEMSOURCE_SPANS_MAX, "a read ahead is one call");
_Static_assert(WALK_CODES <= MEMSOURCE_SPANS_MAX, "a walk's heads are one call");
_Static_assert(HINT_CODES <= WALK_CODES, "heads read ahead are the walk's first");

struct cpython_ahead *cpython_ahead__new(void)
{
	return calloc(1, sizeof(struct cpython_ahead));
}

void cpython_ahead__delete(struct cpython_ahead *a)
{
	free(a);
}

/* The slot of pg holding page, pg->n when none. */
static unsigned page_find(const struct pages *pg, uint64_t page)
{
	unsigned k;

	for (k = 0; k < pg->n && pg->addr[k] != page; k++)
		;
	return k;
}

/* The slot to fill next. */
static unsigned page_slot(struct pages *pg)
{
	return pg->n < WALK_PAGES ? pg->n : pg->next++ % WALK_PAGES;
}

static void page_set(struct pages *pg, unsigned k, uint64_t page)
{
	pg->addr[k] = page;
	pg->used[k] = false;
	if (k == pg->n)
		pg->n++;
}

void cpython_ahead__reset(struct cpython_ahead *a)
{
	a->pages.n = a->pages.next = 0;
	a->nahead = 0;
	a->ahead_ds_ok = false;
	a->nahead_frames = a->ahead_cursor = 0;
	a->nwalked = 0;
}

/* Frame object f's first len bytes, when they were read ahead. */
static bool ahead_frame(struct cpython *c, uint64_t f, uint8_t *buf, size_t len)
{
	struct cpython_ahead *a = c->ahead;
	size_t i = a->ahead_cursor;

	if (len > c->l.frame_size)
		return false;
	if (i >= a->nahead_frames || a->ahead_frame[i] != f)
		for (i = 0; i < a->nahead_frames && a->ahead_frame[i] != f; i++)
			;
	if (i == a->nahead_frames || !a->ahead_frame_ok[i])
		return false;
	a->ahead_cursor = i + 1;
	memcpy(buf, a->ahead_frames[i], len);
	return true;
}

int cpython_ahead__read(struct cpython *c, int tid, uint64_t ts, uint8_t *b, uint32_t tsz)
{
	struct cpython_ahead *a = c->ahead;
	const struct hint *h = &a->hints[(uint32_t)tid % HINTS];
	struct pages *pg = &a->pages;
	uint64_t addrs[AHEAD_SPANS];
	size_t lens[AHEAD_SPANS], n = 0, i, frames, ds, heads;
	void *bufs[AHEAD_SPANS];
	bool ok[AHEAD_SPANS];

	cpython_ahead__reset(a);
	if (h->tid != tid || (!h->npages && !h->nframes && !h->ncodes))
		return memsource__read(&c->mem, ts, b, tsz);
	addrs[n] = ts;
	lens[n] = tsz;
	bufs[n++] = b;
	for (i = 0; i < h->npages && i < WALK_PAGES; i++) {
		addrs[n] = h->pages[i];
		lens[n] = CPYTHON_PAGE;
		bufs[n++] = pg->data[i];
	}
	frames = n;
	for (i = 0; i < h->nframes && c->l.frame_size <= CPYTHON_FRAME_HEAD_MAX; i++) {
		addrs[n] = h->frames[i];
		lens[n] = c->l.frame_size;
		bufs[n++] = a->ahead_frames[i];
	}
	ds = n;
	if (c->l.tstate_datastack) {
		addrs[n] = ts + c->l.tstate_datastack;
		lens[n] = sizeof(a->ahead_ds);
		bufs[n++] = a->ahead_ds;
	}
	heads = n;
	for (i = 0; i < h->ncodes && i < HINT_CODES && c->l.code_size <= CPYTHON_CODE_HEAD_MAX; i++) {
		addrs[n] = h->codes[i];
		lens[n] = c->l.code_size;
		bufs[n++] = a->heads[i];
	}
	if (memsource__readv(&c->mem, addrs, lens, bufs, ok, n) < 0 || !ok[0])
		return -EFAULT;
	for (i = 1; i < frames; i++)
		page_set(pg, (unsigned)(i - 1), ok[i] ? addrs[i] : 0);
	for (i = frames; i < ds; i++) {
		a->ahead_frame[i - frames] = addrs[i];
		a->ahead_frame_ok[i - frames] = ok[i];
	}
	a->nahead_frames = ds - frames;
	a->ahead_ds_ok = ds < heads && ok[ds];
	for (i = heads; i < n; i++) {
		a->ahead_code[i - heads] = addrs[i];
		a->ahead_ok[i - heads] = ok[i];
	}
	a->nahead = n - heads;
	return 0;
}

/* -EAGAIN says the frames were read (or some of them) after the thread had
 * left them, a stack of the lines they returned from. Between reads of the
 * thread state and of its frames the thread runs on; as a program ends,
 * that read is the last one its samples can be given. */
int cpython_ahead__live(struct cpython *c, uint64_t f, uint64_t ts)
{
	struct cpython_ahead *a = c->ahead;
	struct pages *pg = &a->pages;
	uint64_t addrs[2];
	size_t lens[2];
	void *bufs[2];
	bool ok[2];
	uint8_t ds[24];
	uint64_t page = f & ~(uint64_t)(CPYTHON_PAGE - 1);
	unsigned k;

	if (!c->l.tstate_datastack || (f & (CPYTHON_PAGE - 1)) + c->l.frame_size > CPYTHON_PAGE)
		return 0;
	/* read ahead of the bounds, with them */
	k = page_find(pg, page);
	if (k < pg->n && a->ahead_ds_ok)
		return cpython_state__popped(a->ahead_ds, f) ? -EAGAIN : 0;
	if (k == pg->n)
		k = page_slot(pg);
	page_set(pg, k, 0);
	addrs[0] = page;
	lens[0] = CPYTHON_PAGE;
	bufs[0] = pg->data[k];
	addrs[1] = ts + c->l.tstate_datastack;
	lens[1] = sizeof(ds);
	bufs[1] = ds;
	if (memsource__readv(&c->mem, addrs, lens, bufs, ok, 2) < 0 || !ok[0] || !ok[1])
		return 0; /* the walk reads what it can */
	if (cpython_state__popped(ds, f))
		return -EAGAIN;
	pg->addr[k] = page;
	return 0;
}

/* len bytes at addr, from a page read earlier in this walk when one holds
 * them, else by reading that page (a frame across pages is read alone). */
static int read_frame(struct cpython *c, uint64_t addr, uint8_t *buf, size_t len)
{
	struct pages *pg = &c->ahead->pages;
	uint64_t page = addr & ~(uint64_t)(CPYTHON_PAGE - 1);
	unsigned k;

	if (ahead_frame(c, addr, buf, len))
		return 0;
	if (addr + len > page + CPYTHON_PAGE)
		return memsource__read(&c->mem, addr, buf, len);
	k = page_find(pg, page);
	if (k == pg->n) {
		k = page_slot(pg);
		page_set(pg, k, 0);
		if (memsource__read(&c->mem, page, pg->data[k], CPYTHON_PAGE) != 0)
			return memsource__read(&c->mem, addr, buf, len);
		pg->addr[k] = page;
	}
	pg->used[k] = true;
	memcpy(buf, pg->data[k] + (addr - page), len);
	return 0;
}

int cpython_ahead__frame(struct cpython *c, uint64_t f, uint8_t *buf, size_t len)
{
	struct cpython_ahead *a = c->ahead;
	int err = read_frame(c, f, buf, len);

	if (!err && c->l.frames == CPYTHON_FRAME_OBJECTS && a->nwalked < HINT_FRAMES)
		a->walked[a->nwalked++] = f;
	return err;
}

int cpython_ahead__heads(struct cpython *c, const struct cpython_stack *stack, const uint8_t **head,
			 bool *alone)
{
	struct cpython_ahead *a = c->ahead;
	uint64_t addrs[WALK_CODES];
	size_t lens[WALK_CODES], nd, na = a->nahead, i, k;
	void *bufs[WALK_CODES];
	bool ok[WALK_CODES];

	if (c->l.code_size > CPYTHON_CODE_HEAD_MAX)
		return -EPROTO;
	/* the heads read ahead come first, the others are read after them */
	for (nd = 0; nd < na; nd++) {
		addrs[nd] = a->ahead_code[nd];
		ok[nd] = a->ahead_ok[nd];
	}
	for (i = 0; i < stack->n && nd < WALK_CODES; i++) {
		/* a head read ahead counts when it was read whole; those to
		 * read are not read yet */
		for (k = 0; k < nd && (addrs[k] != stack->f[i].code || (k < na && !ok[k])); k++)
			;
		if (k == nd && cpython_state__plausible(stack->f[i].code)) {
			addrs[nd] = stack->f[i].code;
			lens[nd] = c->l.code_size;
			bufs[nd] = a->heads[nd];
			nd++;
		}
	}
	if (nd > na && memsource__readv(&c->mem, addrs + na, lens + na, bufs + na, ok + na, nd - na) < 0)
		return -ESRCH;
	for (i = 0; i < stack->n; i++) {
		for (k = 0; k < nd && (addrs[k] != stack->f[i].code || !ok[k]); k++)
			;
		head[i] = k < nd ? a->heads[k] : NULL;
		alone[i] = false;
		if (k == nd) {
			/* not read whole, or past WALK_CODES */
			for (k = na; k < nd && addrs[k] != stack->f[i].code; k++)
				;
			alone[i] = k == nd;
		}
	}
	return 0;
}

void cpython_ahead__keep(struct cpython *c, int tid, const struct cpython_stack *stack)
{
	struct cpython_ahead *a = c->ahead;
	struct hint *h = &a->hints[(uint32_t)tid % HINTS];
	const struct pages *pg = &a->pages;
	size_t i, k;

	h->tid = tid;
	h->npages = h->ncodes = h->nframes = 0;
	for (i = 0; i < a->nwalked; i++)
		h->frames[h->nframes++] = a->walked[i];
	/* the pages of frames that were not read ahead (a frame object read
	 * ahead leaves its page unused) */
	for (i = 0; i < pg->n; i++)
		if (pg->addr[i] && pg->used[i])
			h->pages[h->npages++] = pg->addr[i];
	for (i = 0; i < stack->n && h->ncodes < HINT_CODES; i++) {
		for (k = 0; k < h->ncodes && h->codes[k] != stack->f[i].code; k++)
			;
		if (k == h->ncodes && cpython_state__plausible(stack->f[i].code))
			h->codes[h->ncodes++] = stack->f[i].code;
	}
}
