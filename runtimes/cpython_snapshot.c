/* The reads of an interpreter's memory that stack walks share for a
 * millisecond (struct cpython_snapshot in cpython_impl.h says why): thread
 * states, the words they point to, pages of frames, and the liveness check
 * that goes with the page of a walk's innermost frame. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/cpython_impl.h"

/* Forgets what the snapshot read (its pages stay allocated). */
static void empty(struct cpython_snapshot *s)
{
	s->npages = s->next_page = 0;
	s->ntstates = s->next_tstate = 0;
	s->nwords = s->next_word = 0;
	s->since_ns = 0;
}

void cpython__snapshot_age(struct cpython *c, uint64_t now_ns)
{
	struct cpython_snapshot *s = &c->snap;

	if (s->since_ns && now_ns >= s->since_ns && now_ns - s->since_ns < CPYTHON_SNAPSHOT_NS)
		return;
	empty(s);
	s->since_ns = now_ns ? now_ns : 1;
}

bool cpython__snapshot_tstate(struct cpython *c, int tid, uint8_t *b, size_t len, uint64_t *at)
{
	const struct cpython_snapshot *s = &c->snap;
	unsigned k;

	if (len > CPYTHON_TSTATE_MAX)
		return false;
	for (k = 0; k < s->ntstates; k++)
		if (s->tid[k] == tid) {
			memcpy(b, s->tstate[k], len);
			*at = s->tstate_addr[k];
			return true;
		}
	return false;
}

void cpython__snapshot_keep_tstate(struct cpython *c, int tid, uint64_t at, const uint8_t *b,
				   size_t len)
{
	struct cpython_snapshot *s = &c->snap;
	unsigned k;

	if (len > CPYTHON_TSTATE_MAX)
		return;
	for (k = 0; k < s->ntstates && s->tid[k] != tid; k++)
		;
	if (k == s->ntstates)
		k = s->ntstates < CPYTHON_SNAPSHOT_TSTATES ? s->ntstates++
							   : s->next_tstate++ % CPYTHON_SNAPSHOT_TSTATES;
	s->tid[k] = tid;
	s->tstate_addr[k] = at;
	memcpy(s->tstate[k], b, len);
}

int cpython__snapshot_u64(struct cpython *c, uint64_t addr, uint64_t *v)
{
	struct cpython_snapshot *s = &c->snap;
	unsigned k;
	int err;

	for (k = 0; k < s->nwords; k++)
		if (s->word_addr[k] == addr) {
			*v = s->word[k];
			return 0;
		}
	err = memsource__u64(&c->mem, addr, v);
	if (err)
		return err;
	k = s->nwords < CPYTHON_SNAPSHOT_WORDS ? s->nwords++ : s->next_word++ % CPYTHON_SNAPSHOT_WORDS;
	s->word_addr[k] = addr;
	s->word[k] = *v;
	return 0;
}

static int page_slot(const struct cpython_snapshot *s, uint64_t page)
{
	unsigned k;

	for (k = 0; k < s->npages; k++)
		if (s->page_addr[k] == page)
			return (int)k;
	return -1;
}

/* A slot for a new page (the oldest once all are taken), emptied; -1
 * without memory for it. */
static int new_slot(struct cpython_snapshot *s)
{
	unsigned k = s->npages < CPYTHON_SNAPSHOT_PAGES ? s->npages
							: s->next_page++ % CPYTHON_SNAPSHOT_PAGES;

	if (!s->page[k] && !(s->page[k] = malloc(CPYTHON_PAGE)))
		return -1;
	if (k == s->npages)
		s->npages++;
	s->page_addr[k] = 0;
	s->page_bounded[k] = false;
	return (int)k;
}

void cpython__snapshot_free(struct cpython *c)
{
	unsigned k;

	for (k = 0; k < CPYTHON_SNAPSHOT_PAGES; k++) {
		free(c->snap.page[k]);
		c->snap.page[k] = NULL;
	}
	c->snap.npages = 0;
}

int cpython__frame_bytes(struct cpython *c, uint64_t addr, void *buf, size_t len)
{
	struct cpython_snapshot *s = &c->snap;
	uint64_t page = addr & ~(uint64_t)(CPYTHON_PAGE - 1);
	int k;

	if (addr + len > page + CPYTHON_PAGE)
		return memsource__read(&c->mem, addr, buf, len);
	k = page_slot(s, page);
	if (k < 0) {
		k = new_slot(s);
		if (k < 0 || memsource__read(&c->mem, page, s->page[k], CPYTHON_PAGE) != 0)
			return memsource__read(&c->mem, addr, buf, len);
		s->page_addr[k] = page;
	}
	memcpy(buf, s->page[k] + (addr - page), len);
	return 0;
}

bool cpython__popped(const uint8_t *ds, uint64_t f)
{
	uint64_t chunk = cpython__u64_at(ds, 0), top = cpython__u64_at(ds, 8);
	uint64_t limit = cpython__u64_at(ds, 16);

	return chunk < top && top <= f && f < limit;
}

/* Between reads of a thread state and of its frames the thread runs on: a
 * program can end in between, and its frames' bytes stay as they were
 * when they returned, each at its last line (and that last read is the
 * one its remaining samples are given). So the page is read first and the
 * bounds after it, in one call: if they say f is off the stack, some of
 * what was read may be, and the snapshot is dropped. A page kept from an
 * earlier walk serves when the bounds read with it hold f, else it is
 * read again with the bounds. */
int cpython__innermost_page(struct cpython *c, uint64_t f, uint64_t ts)
{
	struct cpython_snapshot *s = &c->snap;
	uint64_t addrs[2];
	size_t lens[2];
	void *bufs[2];
	bool ok[2];
	uint8_t ds[24];
	int k, kept;

	if (!c->l.tstate_datastack || (f & (CPYTHON_PAGE - 1)) + c->l.frame_size > CPYTHON_PAGE)
		return 0;
	addrs[0] = f & ~(uint64_t)(CPYTHON_PAGE - 1);
	kept = page_slot(s, addrs[0]);
	if (kept >= 0 && s->page_bounded[kept] && !cpython__popped(s->ds[kept], f))
		return 0;
	k = kept >= 0 ? kept : new_slot(s);
	if (k < 0)
		return 0; /* the walk reads page by page */
	s->page_addr[k] = 0;
	lens[0] = CPYTHON_PAGE;
	bufs[0] = s->page[k];
	addrs[1] = ts + c->l.tstate_datastack;
	lens[1] = sizeof(ds);
	bufs[1] = ds;
	if (memsource__readv(&c->mem, addrs, lens, bufs, ok, 2) < 0 || !ok[0] || !ok[1])
		return 0; /* the walk reads what it can */
	if (cpython__popped(ds, f)) {
		/* the thread state kept says f is live, its page says not: the
		 * next read starts again rather than carry a torn snapshot */
		empty(s);
		return -EAGAIN;
	}
	s->page_addr[k] = addrs[0];
	s->page_bounded[k] = true;
	memcpy(s->ds[k], ds, sizeof(ds));
	return 0;
}
