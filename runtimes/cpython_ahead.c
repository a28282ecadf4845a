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
#include <string.h>

#include "runtimes/cpython_impl.h"

#define AHEAD_SPANS (1 + CPYTHON_WALK_PAGES + CPYTHON_HINT_FRAMES + 1 + CPYTHON_HINT_CODES)
_Static_assert(AHEAD_SPANS <= MEMSOURCE_SPANS_MAX, "a read ahead is one call");

unsigned cpython__page_find(const struct cpython_pages *pg, uint64_t page)
{
	unsigned k;

	for (k = 0; k < pg->n && pg->addr[k] != page; k++)
		;
	return k;
}

unsigned cpython__page_slot(struct cpython_pages *pg)
{
	return pg->n < CPYTHON_WALK_PAGES ? pg->n : pg->next++ % CPYTHON_WALK_PAGES;
}

void cpython__page_set(struct cpython_pages *pg, unsigned k, uint64_t page)
{
	pg->addr[k] = page;
	pg->used[k] = false;
	if (k == pg->n)
		pg->n++;
}

void cpython__drop_ahead(struct cpython *c)
{
	c->pages.n = c->pages.next = 0;
	c->nahead = 0;
	c->ahead_ds_ok = false;
	c->nahead_frames = c->ahead_cursor = 0;
}

bool cpython__ahead_frame(struct cpython *c, uint64_t f, uint8_t *buf, size_t len)
{
	size_t i = c->ahead_cursor;

	if (len > c->l.frame_size)
		return false;
	if (i >= c->nahead_frames || c->ahead_frame[i] != f)
		for (i = 0; i < c->nahead_frames && c->ahead_frame[i] != f; i++)
			;
	if (i == c->nahead_frames || !c->ahead_frame_ok[i])
		return false;
	c->ahead_cursor = i + 1;
	memcpy(buf, c->ahead_frames[i], len);
	return true;
}

int cpython__read_ahead(struct cpython *c, int tid, uint64_t ts, uint8_t *b, uint32_t tsz)
{
	const struct cpython_hint *h = &c->hints[(uint32_t)tid % CPYTHON_HINTS];
	struct cpython_pages *pg = &c->pages;
	uint64_t addrs[AHEAD_SPANS];
	size_t lens[AHEAD_SPANS], n = 0, i, frames, ds, heads;
	void *bufs[AHEAD_SPANS];
	bool ok[AHEAD_SPANS];

	cpython__drop_ahead(c);
	if (h->tid != tid || (!h->npages && !h->nframes && !h->ncodes))
		return memsource__read(&c->mem, ts, b, tsz);
	addrs[n] = ts;
	lens[n] = tsz;
	bufs[n++] = b;
	for (i = 0; i < h->npages && i < CPYTHON_WALK_PAGES; i++) {
		addrs[n] = h->pages[i];
		lens[n] = CPYTHON_PAGE;
		bufs[n++] = pg->data[i];
	}
	frames = n;
	for (i = 0; i < h->nframes && c->l.frame_size <= CPYTHON_FRAME_HEAD_MAX; i++) {
		addrs[n] = h->frames[i];
		lens[n] = c->l.frame_size;
		bufs[n++] = c->ahead_frames[i];
	}
	ds = n;
	if (c->l.tstate_datastack) {
		addrs[n] = ts + c->l.tstate_datastack;
		lens[n] = sizeof(c->ahead_ds);
		bufs[n++] = c->ahead_ds;
	}
	heads = n;
	for (i = 0; i < h->ncodes && i < CPYTHON_HINT_CODES && c->l.code_size <= CPYTHON_CODE_HEAD_MAX; i++) {
		addrs[n] = h->codes[i];
		lens[n] = c->l.code_size;
		bufs[n++] = c->heads[i];
	}
	if (memsource__readv(&c->mem, addrs, lens, bufs, ok, n) < 0 || !ok[0])
		return -EFAULT;
	for (i = 1; i < frames; i++)
		cpython__page_set(pg, (unsigned)(i - 1), ok[i] ? addrs[i] : 0);
	for (i = frames; i < ds; i++) {
		c->ahead_frame[i - frames] = addrs[i];
		c->ahead_frame_ok[i - frames] = ok[i];
	}
	c->nahead_frames = ds - frames;
	c->ahead_ds_ok = ds < heads && ok[ds];
	for (i = heads; i < n; i++) {
		c->ahead_code[i - heads] = addrs[i];
		c->ahead_ok[i - heads] = ok[i];
	}
	c->nahead = n - heads;
	return 0;
}

void cpython__keep_hint(struct cpython *c, int tid, const struct cpython_stack *stack)
{
	struct cpython_hint *h = &c->hints[(uint32_t)tid % CPYTHON_HINTS];
	const struct cpython_pages *pg = &c->pages;
	size_t i, k;

	h->tid = tid;
	h->npages = h->ncodes = h->nframes = 0;
	for (i = 0; i < c->nwalked; i++)
		h->frames[h->nframes++] = c->walked[i];
	/* the pages of frames that were not read ahead (a frame object read
	 * ahead leaves its page unused) */
	for (i = 0; i < pg->n; i++)
		if (pg->addr[i] && pg->used[i])
			h->pages[h->npages++] = pg->addr[i];
	for (i = 0; i < stack->n && h->ncodes < CPYTHON_HINT_CODES; i++) {
		for (k = 0; k < h->ncodes && h->codes[k] != stack->f[i].code; k++)
			;
		if (k == h->ncodes && cpython__plausible(stack->f[i].code))
			h->codes[h->ncodes++] = stack->f[i].code;
	}
}
