/* CPython's threads and their Python stacks, read from outside. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "runtimes/accountant.h"
#include "runtimes/cpython_ahead.h"
#include "runtimes/cpython_names.h"
#include "runtimes/cpython_state.h"

/* The whole list of thread states is read again, for a thread no state
 * matches, at most this often (the states of threads started since are
 * found without it: scan_new_threads); twice as long after each walk that
 * did not find the thread, up to RESCAN_MAX_NS: a process whose list is
 * built to be walked in vain (thousands of decoy states) costs one walk
 * every few seconds, not five a second. */
#define RESCAN_NS 200000000ull
#define RESCAN_MAX_NS (32 * RESCAN_NS)

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
	c->ahead = cpython_ahead__new();
	c->known_tstates = u64map__new(16);
	c->codes = cpython_names__new(lines);
	if (!c->tstate_by_tid || !c->thread_by_tid || !c->known_tstates || !c->ahead || !c->codes) {
		cpython__delete(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

void cpython__delete(struct cpython *c)
{
	if (!c)
		return;
	cpython_names__delete(c->codes);
	cpython_ahead__delete(c->ahead);
	u64map__delete(c->tstate_by_tid);
	u64map__delete(c->thread_by_tid);
	u64map__delete(c->known_tstates);
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
	if (memsource__u64(&c->mem, c->sym.tstate_current, &ts) != 0 || !cpython_state__plausible(ts))
		return -ENOENT;
	return memsource__u64(&c->mem, ts + l->tstate_interp, interp);
}

/* The TID of a thread state: recorded by 3.11+, else found through the
 * pthread_t it recorded (glibc's struct pthread holds the tid). */
static int tstate_tid(struct cpython *c, const uint8_t *ts, int32_t *tid, uint64_t *thread)
{
	const struct cpython_layout *l = &c->l;
	uint32_t v;

	*thread = cpython_state__u64_at(ts, l->tstate_thread_id);
	if (l->tstate_native_id >= 0) {
		memcpy(&v, ts + l->tstate_native_id, sizeof(v));
		*tid = (int32_t)v;
		return *tid > 0 ? 0 : -ENOENT;
	}
	if (c->sym.pthread_tid < 0 || !cpython_state__plausible(*thread))
		return -ENOENT;
	if (memsource__u32(&c->mem, *thread + (uint64_t)c->sym.pthread_tid, &v) != 0)
		return -EFAULT;
	*tid = (int32_t)v;
	return *tid > 0 ? 0 : -ENOENT;
}

/* Maps the TIDs of the first interpreter's thread states from its list's
 * head, until a state already known when only_new (CPython puts a new
 * thread's state at the head: the threads started since the last walk come
 * first), else through the whole list, anew. */
static int scan_threads(struct cpython *c, bool only_new)
{
	const struct cpython_layout *l = &c->l;
	uint32_t tsz = tstate_bytes(l);
	uint64_t interp, ts, seen = 0, v;
	uint8_t b[TSTATE_MAX_BYTES];
	int err;

	if (!only_new) {
		u64map__clear(c->tstate_by_tid);
		u64map__clear(c->thread_by_tid);
		u64map__clear(c->known_tstates);
	}
	err = first_interp(c, &interp);
	if (err)
		return err;
	if (!cpython_state__plausible(interp))
		return -ENOENT;
	if (memsource__u64(&c->mem, interp + l->interp_tstate_head, &ts) != 0)
		return -EFAULT;
	while (ts && seen++ < CPYTHON_MAX_THREADS) {
		int32_t tid;
		uint64_t thread;

		if (!cpython_state__plausible(ts) || memsource__read(&c->mem, ts, b, tsz) != 0)
			return -EFAULT;
		if (tstate_tid(c, b, &tid, &thread) != 0)
			tid = 0;
		/* a state walked before, of the same thread: the rest of the list
		 * is older (a freed state's memory may hold a new thread's) */
		if (only_new && u64map__get(c->known_tstates, ts, &v) && v == (uint64_t)(uint32_t)tid)
			break;
		/* walks for new threads add to what the last whole walk mapped:
		 * a list whose states take new TIDs at each walk would add
		 * thousands every time; past the bound, all is walked anew */
		if (u64map__count(c->known_tstates) >= CPYTHON_MAX_THREADS ||
		    u64map__count(c->tstate_by_tid) >= CPYTHON_MAX_THREADS) {
			u64map__clear(c->known_tstates);
			u64map__clear(c->tstate_by_tid);
			u64map__clear(c->thread_by_tid);
		}
		if (u64map__put(c->known_tstates, ts, (uint64_t)(uint32_t)tid) != 0)
			return -ENOMEM;
		if (tid && (u64map__put(c->tstate_by_tid, (uint64_t)tid, ts) != 0 ||
			    u64map__put(c->thread_by_tid, (uint64_t)tid, thread) != 0))
			return -ENOMEM;
		ts = cpython_state__u64_at(b, l->tstate_next);
	}
	return 0;
}

/* Thread tid's state as mapped, read into b (tstate_bytes of it), with
 * what its last walk read when ahead (cpython_ahead.c), and checked to
 * still be that thread's: 3.11+ by its TID, before by its pthread_t (one
 * read less than following it to the TID). */
static int mapped_state(struct cpython *c, int tid, bool ahead, uint8_t *b, uint64_t *at)
{
	uint32_t tsz = tstate_bytes(&c->l);
	uint64_t ts, thread, got_thread;
	int32_t got;

	if (!u64map__get(c->tstate_by_tid, (uint64_t)tid, &ts) ||
	    !u64map__get(c->thread_by_tid, (uint64_t)tid, &thread) ||
	    (ahead ? cpython_ahead__read(c, tid, ts, b, tsz) : memsource__read(&c->mem, ts, b, tsz)) != 0)
		return -ENOENT;
	*at = ts;
	if (c->l.tstate_native_id >= 0 ? tstate_tid(c, b, &got, &got_thread) == 0 && got == tid
				       : cpython_state__u64_at(b, c->l.tstate_thread_id) == thread)
		return 0;
	cpython_ahead__reset(c->ahead);
	return -ENOENT;
}

/* Thread tid's state: as mapped; else among the threads started since
 * the last walk of the list (a thread that lives for one request is read
 * at its first sample); else, at most once per RESCAN_NS, through the whole
 * list. */
static int thread_state(struct cpython *c, int tid, uint64_t now_ns, uint8_t *b, uint64_t *at)
{
	if (mapped_state(c, tid, true, b, at) == 0)
		return 0;
	if (scan_threads(c, true) == -ENOMEM)
		return -ENOMEM;
	if (mapped_state(c, tid, false, b, at) == 0)
		return 0;
	if (!c->rescan_wait_ns)
		c->rescan_wait_ns = RESCAN_NS;
	if (c->last_scan_ns && now_ns - c->last_scan_ns < c->rescan_wait_ns)
		return -ENOENT;
	c->last_scan_ns = now_ns ? now_ns : 1;
	if (scan_threads(c, false) == -ENOMEM)
		return -ENOMEM;
	if (mapped_state(c, tid, false, b, at) == 0) {
		c->rescan_wait_ns = RESCAN_NS;
		return 0;
	}
	if (c->rescan_wait_ns < RESCAN_MAX_NS)
		c->rescan_wait_ns *= 2;
	return -ENOENT;
}

void cpython__set_sample_stack(struct cpython *c, uint64_t base, const uint8_t *data, size_t size)
{
	c->copy_base = base;
	c->copy = data;
	c->copy_size = data ? size : 0;
}

/* The innermost frame of a thread state read into b: for 3.11 and 3.12
 * (from_copy) the one the sample ran unless it has returned since, else
 * the one running now. */
static int current_frame(struct cpython *c, const uint8_t *b, bool from_copy, uint64_t *frame)
{
	uint64_t f = cpython_state__u64_at(b, c->l.tstate_frame), at;

	if (c->l.cframe_current >= 0) {
		/* 3.11, 3.12: through the _PyCFrame, a local of the eval loop
		 * the sample's stack copy holds as it was then */
		if (!f || !cpython_state__plausible(f))
			return f ? -EFAULT : -ENOENT;
		at = f + (uint64_t)c->l.cframe_current;
		if (from_copy && at >= c->copy_base && at - c->copy_base + 8 <= c->copy_size) {
			memcpy(&f, c->copy + (at - c->copy_base), sizeof(f));
			if (!c->l.tstate_datastack || !cpython_state__popped(b + c->l.tstate_datastack, f)) {
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

/* Validates and names the codes of the frames walked (their f[].code, from
 * the frames): each distinct code's head read once, all of them in one
 * read where the source allows (a recursion runs one code in many frames,
 * a stack a handful of codes). */
static int name_frames(struct cpython *c, struct cpython_stack *out, const uint64_t *instr)
{
	const uint8_t *head[CPYTHON_MAX_FRAMES];
	bool alone[CPYTHON_MAX_FRAMES], shim;
	size_t i, kept = 0;
	int err = cpython_ahead__heads(c, out, head, alone);

	if (err)
		return err;
	for (i = 0; i < out->n; i++) {
		if ((!head[i] && !alone[i]) ||
		    cpython_names__name(c, &out->f[i], head[i], instr[i], &shim) != 0)
			return -EPROTO;
		if (shim) {
			/* no frame of its own: it ends its native call's frames */
			if (out->f[i].entry_end && kept)
				out->f[kept - 1].entry_end = true;
			continue;
		}
		out->f[kept++] = out->f[i];
	}
	out->n = kept;
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
	if (f && cpython_state__plausible(f) && (err = cpython_ahead__live(c, f, ts)) != 0)
		return err;
	while (f && steps++ < 2 * CPYTHON_MAX_FRAMES) {
		struct cpython_frame *pf;

		if (!cpython_state__plausible(f) || l->frame_size > sizeof(b) ||
		    cpython_ahead__frame(c, f, b, l->frame_size) != 0)
			return -EFAULT;
		if (l->frame_owner >= 0 && b[l->frame_owner] == CPYTHON_OWNED_BY_CSTACK) {
			/* the shim of a native eval call: the frame before it was
			 * that call's first */
			if (out->n)
				out->f[out->n - 1].entry_end = true;
			f = cpython_state__u64_at(b, l->frame_back);
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
				instr[out->n] = cpython_state__u64_at(b, l->frame_instr);
			}
		}
		pf = &out->f[out->n++];
		pf->addr = f;
		pf->code = cpython_state__u64_at(b, l->frame_code);
		pf->name = 0;
		pf->entry_end = l->frames == CPYTHON_FRAME_OBJECTS ||
				(l->frame_entry >= 0 && b[l->frame_entry] != 0);
		f = cpython_state__u64_at(b, l->frame_back);
	}
	if (out->n)
		out->f[out->n - 1].entry_end = true;
	return name_frames(c, out, instr);
}

int cpython__read_stack(struct cpython *c, int tid, uint64_t now_ns, struct cpython_stack *out)
{
	uint8_t b[TSTATE_MAX_BYTES];
	uint64_t frame, ts = 0;
	int err;

	out->n = 0;
	if (tstate_bytes(&c->l) > sizeof(b))
		return -EPROTO;
	if (!ledger__may_read(c->mem.ledger, now_ns)) {
		c->failures++;
		return -EBUSY;
	}
	cpython_ahead__reset(c->ahead);
	err = thread_state(c, tid, now_ns, b, &ts);
	if (!err)
		err = current_frame(c, b, true, &frame);
	if (!err)
		err = walk_frames(c, frame, ts, out);
	/* 3.11, 3.12: the frame the sample's copy names was being set up
	 * (a call entering, a thread starting), or left since: the frame
	 * running now, whose frames the sample may still prove */
	if (c->l.cframe_current >= 0 && c->copy &&
	    (err == -EPROTO || err == -EFAULT || (!err && !out->n)) &&
	    current_frame(c, b, false, &frame) == 0) {
		cpython_ahead__reset(c->ahead);
		err = walk_frames(c, frame, ts, out);
	}
	if (!err && out->n) {
		cpython_ahead__keep(c, tid, out);
		return 0;
	}
	if (err && err != -ENOENT)
		c->failures++;
	return err ? err : -ENOENT;
}

void cpython__stats(const struct cpython *c, struct cpython_stats *out)
{
	out->reads = c->mem.reads;
	out->failures = c->failures;
	out->threads = u64map__count(c->tstate_by_tid);
}

int cpython__remap_names(struct cpython *c, struct strtab_remap *r)
{
	if (r->commit)
		c->names = r->to;
	return cpython_names__remap(c, r);
}
