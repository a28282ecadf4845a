/* CRuby's threads and their control frames, read from outside. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "runtimes/accountant.h"
#include "runtimes/ruby_state.h"

/* The lists of threads are walked again, for a thread none maps, at most
 * this often, and twice as rarely after each walk that did not find it
 * (as the CPython reader: a process whose lists are built to be walked in
 * vain costs a walk every few seconds). */
#define RESCAN_NS 100000000ull
#define RESCAN_MAX_NS (32 * RESCAN_NS)
#define THREAD_HEAD_MAX RUBY_THREAD_HEAD_MAX

int ruby__open(const struct memsource *m, const struct ruby_symbols *sym, bool lines,
	       struct strtab *names, struct ruby **out)
{
	const struct ruby_layout *l = ruby_layout__table(sym->major, sym->minor);
	struct ruby *r;

	if (!l)
		return -ENOTSUP;
	if (!sym->vm_ptr || l->thread_head > THREAD_HEAD_MAX || l->cfp_size > 80 ||
	    (l->thread_id >= 0 && sym->pthread_tid < 0))
		return -EPROTO;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->mem = *m;
	r->l = *l;
	r->sym = *sym;
	r->names = names;
	r->lines = lines;
	r->thread_by_tid = u64map__new(16);
	r->id_by_tid = u64map__new(16);
	r->ec_by_tid = u64map__new(16);
	r->end_by_tid = u64map__new(16);
	r->depth_by_tid = u64map__new(16);
	r->known = u64map__new(16);
	r->codes = ruby_names__new(lines);
	r->objects = ruby_objects__new();
	r->batch = ruby_batch__new();
	if (!r->thread_by_tid || !r->id_by_tid || !r->ec_by_tid || !r->end_by_tid || !r->depth_by_tid ||
	    !r->known || !r->codes || !r->objects || !r->batch) {
		ruby__delete(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

void ruby__delete(struct ruby *r)
{
	if (!r)
		return;
	ruby_names__delete(r->codes);
	ruby_objects__delete(r->objects);
	ruby_batch__delete(r->batch);
	u64map__delete(r->thread_by_tid);
	u64map__delete(r->id_by_tid);
	u64map__delete(r->ec_by_tid);
	u64map__delete(r->end_by_tid);
	u64map__delete(r->depth_by_tid);
	u64map__delete(r->known);
	free(r);
}

/* Thread th's TID and the word that identifies it (its pthread_t, or 3.2+
 * its native thread), read now. */
static int thread_tid(struct ruby *r, uint64_t th, int32_t *tid, uint64_t *ident)
{
	const struct ruby_layout *l = &r->l;
	uint32_t v;
	uint64_t w;

	if (l->thread_id >= 0) {
		if (memsource__u64(&r->mem, th + (uint64_t)l->thread_id, &w) != 0 ||
		    !ruby_state__plausible(w) ||
		    memsource__u32(&r->mem, w + (uint64_t)r->sym.pthread_tid, &v) != 0)
			return -EFAULT;
	} else {
		if (memsource__u64(&r->mem, th + (uint64_t)l->thread_nt, &w) != 0 || !ruby_state__plausible(w) ||
		    memsource__u32(&r->mem, w + (uint64_t)l->nt_tid, &v) != 0)
			return -EFAULT;
	}
	*tid = (int32_t)v;
	*ident = w;
	return *tid > 0 ? 0 : -ENOENT;
}

/* Maps thread th's TID (a thread that cannot be read is passed over). */
static int map_thread(struct ruby *r, uint64_t th)
{
	int32_t tid;
	uint64_t ident;

	if (!ruby_state__plausible(th) || thread_tid(r, th, &tid, &ident) != 0)
		return 0;
	/* walks for new threads add to what the last whole walk mapped: past
	 * the bound, what was mapped is forgotten (the next miss walks anew) */
	if (u64map__count(r->thread_by_tid) >= RUBY_MAX_THREADS || u64map__count(r->known) >= RUBY_MAX_THREADS) {
		u64map__clear(r->thread_by_tid);
		u64map__clear(r->id_by_tid);
		u64map__clear(r->known);
	}
	if (u64map__put(r->thread_by_tid, (uint64_t)tid, th) != 0 ||
	    u64map__put(r->id_by_tid, (uint64_t)tid, ident) != 0 || u64map__put(r->known, th, 1) != 0)
		return -ENOMEM;
	return 0;
}

/* Maps the threads of the list whose list_head is at head, their nodes at
 * node_off in each; *budget bounds the nodes walked over all lists. */
static int map_list(struct ruby *r, uint64_t head, uint32_t node_off, size_t *budget,
		    int (*each)(struct ruby *, uint64_t, size_t *))
{
	uint64_t p;

	if (memsource__u64(&r->mem, head, &p) != 0)
		return -EFAULT;
	while (p != head && *budget > 0) {
		uint64_t next;
		int err;

		(*budget)--;
		if (!ruby_state__plausible(p) || p < node_off || memsource__u64(&r->mem, p, &next) != 0)
			return -EFAULT;
		err = each(r, p - node_off, budget);
		if (err)
			return err;
		p = next;
	}
	return 0;
}

static int each_thread(struct ruby *r, uint64_t th, size_t *budget)
{
	(void)budget;
	return map_thread(r, th);
}

static int each_ractor(struct ruby *r, uint64_t ractor, size_t *budget)
{
	int err = map_list(r, ractor + r->l.ractor_threads, r->l.thread_node, budget, each_thread);

	return err == -ENOMEM ? err : 0; /* a damaged ractor: the others */
}

/* Maps the threads added to the list at head (nodes at node_off) since
 * the last walk: CRuby appends a new thread's node, so they are the last,
 * walked back from the tail to the first thread known. */
static int map_new(struct ruby *r, uint64_t head, uint32_t node_off, size_t *budget)
{
	uint64_t p;

	if (memsource__u64(&r->mem, head + 8, &p) != 0)
		return -EFAULT;
	while (p != head && *budget > 0) {
		uint64_t prev;
		int err;

		(*budget)--;
		if (!ruby_state__plausible(p) || p < node_off || u64map__get(r->known, p - node_off, &prev) ||
		    memsource__u64(&r->mem, p + 8, &prev) != 0)
			return 0;
		err = map_thread(r, p - node_off);
		if (err)
			return err;
		p = prev;
	}
	return 0;
}

static int each_ractor_new(struct ruby *r, uint64_t ractor, size_t *budget)
{
	int err = map_new(r, ractor + r->l.ractor_threads, r->l.thread_node, budget);

	return err == -ENOMEM ? err : 0;
}

/* Maps the threads started since the last walk (a thread that lives for
 * one request is read from its first samples): every ractor's list from
 * its tail. 2.0 has no lists to walk: its three threads are walked anew. */
static int scan_new_threads(struct ruby *r)
{
	const struct ruby_layout *l = &r->l;
	size_t budget = RUBY_MAX_THREADS + RUBY_MAX_RACTORS;
	uint64_t vm;

	if (l->threads == RUBY_THREADS_CURRENT)
		return 0;
	if (memsource__u64(&r->mem, r->sym.vm_ptr, &vm) != 0 || !ruby_state__plausible(vm))
		return -ENOENT;
	if (l->threads == RUBY_THREADS_VM_LIST)
		return map_new(r, vm + l->vm_living_threads, l->thread_node, &budget);
	return map_list(r, vm + l->vm_ractors, l->ractor_node, &budget, each_ractor_new);
}

/* Maps every thread of the VM, anew. */
static int scan_threads(struct ruby *r)
{
	const struct ruby_layout *l = &r->l;
	size_t budget = RUBY_MAX_THREADS + RUBY_MAX_RACTORS;
	uint64_t vm, th;
	int err = 0;

	u64map__clear(r->thread_by_tid);
	u64map__clear(r->id_by_tid);
	u64map__clear(r->known);
	if (memsource__u64(&r->mem, r->sym.vm_ptr, &vm) != 0 || !ruby_state__plausible(vm))
		return -ENOENT;
	switch (l->threads) {
	case RUBY_THREADS_CURRENT:
		/* 2.0 lists threads in an st_table; the main thread and the one
		 * holding the GVL are what a sample runs in nearly always */
		if (memsource__u64(&r->mem, vm + l->vm_main_thread, &th) == 0)
			err = map_thread(r, th);
		if (!err && memsource__u64(&r->mem, vm + l->vm_running_thread, &th) == 0)
			err = map_thread(r, th);
		if (!err && r->sym.current_thread && memsource__u64(&r->mem, r->sym.current_thread, &th) == 0)
			err = map_thread(r, th);
		return err;
	case RUBY_THREADS_VM_LIST:
		err = map_list(r, vm + l->vm_living_threads, l->thread_node, &budget, each_thread);
		break;
	default:
		err = map_list(r, vm + l->vm_ractors, l->ractor_node, &budget, each_ractor);
		break;
	}
	return err == -ENOMEM ? err : 0;
}

/* What reading thread tid takes: its head, and when its last read knew
 * them, its context's head, the control frames its last stack spanned (and
 * a few more), and 3.2+ its native thread's TID, all in one call. */
static void read_thread(struct ruby *r, int tid, uint64_t th, uint64_t ident, struct thread_read *t)
{
	const struct ruby_layout *l = &r->l;
	uint64_t addrs[4], ec = 0, end = 0, depth = 0, span;
	size_t lens[4], n = 0;
	void *bufs[4];
	bool ok[4];

	addrs[n] = th;
	lens[n] = l->thread_head;
	bufs[n++] = t->head;
	if (l->thread_ec >= 0 && u64map__get(r->ec_by_tid, (uint64_t)tid, &ec)) {
		addrs[n] = ec;
		lens[n] = sizeof(t->ec);
		bufs[n++] = t->ec;
	}
	if (l->thread_nt >= 0) {
		addrs[n] = ident + (uint64_t)l->nt_tid;
		lens[n] = sizeof(t->tid);
		bufs[n++] = &t->tid;
	}
	t->frames_at = 0;
	if (u64map__get(r->end_by_tid, (uint64_t)tid, &end) && u64map__get(r->depth_by_tid, (uint64_t)tid, &depth)) {
		depth += 8; /* a few calls deeper than last time */
		if (depth > RUBY_WALK_FRAMES)
			depth = RUBY_WALK_FRAMES;
		span = depth * l->cfp_size;
		t->frames_at = end - span;
		addrs[n] = t->frames_at;
		lens[n] = (size_t)span;
		bufs[n++] = r->block;
	}
	memset(ok, 0, sizeof(ok));
	if (memsource__readv(&r->mem, addrs, lens, bufs, ok, n) < 0)
		memset(ok, 0, sizeof(ok));
	n = 0;
	t->head_ok = ok[n++];
	t->ec_ok = l->thread_ec >= 0 && ec ? ok[n++] : false;
	t->tid_ok = l->thread_nt >= 0 ? ok[n++] : true;
	t->frames_ok = t->frames_at ? ok[n++] : false;
}

/* Thread tid as mapped, read (read_thread) and checked to still be that
 * thread's. */
static int mapped_thread(struct ruby *r, int tid, struct thread_read *t)
{
	const struct ruby_layout *l = &r->l;
	uint64_t th, ident, word;

	if (!u64map__get(r->thread_by_tid, (uint64_t)tid, &th) ||
	    !u64map__get(r->id_by_tid, (uint64_t)tid, &ident))
		return -ENOENT;
	read_thread(r, tid, th, ident, t);
	if (!t->head_ok)
		return -ENOENT;
	word = ruby_state__u64_at(t->head, (uint32_t)(l->thread_id >= 0 ? l->thread_id : l->thread_nt));
	if (word != ident)
		return -ENOENT;
	/* 3.2+: a native thread may come to run another Ruby thread (M:N) */
	if (l->thread_nt >= 0 && (!t->tid_ok || t->tid != (uint32_t)tid))
		return -ENOENT;
	return 0;
}

static int thread_state(struct ruby *r, int tid, uint64_t now_ns, struct thread_read *t)
{
	if (mapped_thread(r, tid, t) == 0)
		return 0;
	if (scan_new_threads(r) == -ENOMEM)
		return -ENOMEM;
	if (mapped_thread(r, tid, t) == 0)
		return 0;
	if (!r->rescan_wait_ns)
		r->rescan_wait_ns = RESCAN_NS;
	if (r->last_scan_ns && now_ns - r->last_scan_ns < r->rescan_wait_ns)
		return -ENOENT;
	r->last_scan_ns = now_ns ? now_ns : 1;
	if (scan_threads(r) == -ENOMEM)
		return -ENOMEM;
	if (mapped_thread(r, tid, t) == 0) {
		r->rescan_wait_ns = RESCAN_NS;
		return 0;
	}
	if (r->rescan_wait_ns < RESCAN_MAX_NS)
		r->rescan_wait_ns *= 2;
	return -ENOENT;
}

/* Reads the control frames from cfp to the end of the VM stack into
 * r->raw (innermost first), with what says what each is. */
static int read_frames(struct ruby *r, uint64_t cfp, uint64_t end, uint64_t ahead, size_t *n)
{
	const struct ruby_layout *l = &r->l;
	uint64_t span = end - cfp;
	size_t i, count;

	if (cfp >= end || span % l->cfp_size)
		return -EPROTO;
	count = (size_t)(span / l->cfp_size);
	if (count > RUBY_WALK_FRAMES)
		count = RUBY_WALK_FRAMES; /* the innermost: the root is lost */
	if (ahead && ahead <= cfp && cfp + count * l->cfp_size <= end) {
		/* read with the thread: the frames are at the block's end */
		memmove(r->block, r->block + (cfp - ahead), count * l->cfp_size);
	} else if (memsource__read(&r->mem, cfp, r->block, count * l->cfp_size) != 0) {
		return -EFAULT;
	}
	for (i = 0; i < count; i++) {
		const uint8_t *b = r->block + i * l->cfp_size;
		struct ruby_raw_frame *f = &r->raw[i];

		f->addr = cfp + i * l->cfp_size;
		f->pc = ruby_state__u64_at(b, l->cfp_pc);
		f->iseq = ruby_state__u64_at(b, l->cfp_iseq);
		f->ep = ruby_state__u64_at(b, l->cfp_ep);
		f->kind = RUBY_FRAME_SKIP;
		f->flags = 0;
		f->ncand = 0;
		f->local = false;
		if (l->cfp_flag >= 0) {
			/* 2.0: the frame says it all */
			f->flags = ruby_state__u64_at(b, (uint32_t)l->cfp_flag);
			f->me_cand[0] = ruby_state__u64_at(b, (uint32_t)l->cfp_me);
			f->ncand = 1;
			f->kind = ruby_state__frame_kind(l, f);
		}
	}
	*n = count;
	return 0;
}

/* Remembers what tid's context and stack were, for its next read. */
static void remember(struct ruby *r, int tid, uint64_t ec, uint64_t end, size_t depth)
{
	if (u64map__count(r->end_by_tid) >= RUBY_MAX_THREADS) {
		u64map__clear(r->ec_by_tid);
		u64map__clear(r->end_by_tid);
		u64map__clear(r->depth_by_tid);
	}
	if (ec)
		(void)u64map__put(r->ec_by_tid, (uint64_t)tid, ec);
	(void)u64map__put(r->end_by_tid, (uint64_t)tid, end);
	(void)u64map__put(r->depth_by_tid, (uint64_t)tid, depth);
}

int ruby__read_stack(struct ruby *r, int tid, uint64_t now_ns, struct ruby_stack *out)
{
	const struct ruby_layout *l = &r->l;
	struct thread_read *t = &r->thread;
	const uint8_t *ctx = t->head;
	uint64_t stack, size, cfp, end, ec = 0, ahead;
	size_t n = 0;
	int err;

	out->n = 0;
	if (!ledger__may_read(r->mem.ledger, now_ns)) {
		r->failures++;
		return -EBUSY;
	}
	err = thread_state(r, tid, now_ns, t);
	if (err)
		return err;
	if (l->thread_ec >= 0) {
		uint64_t known = 0;

		ec = ruby_state__u64_at(t->head, (uint32_t)l->thread_ec);
		/* a fiber switched in since: another context */
		if (!t->ec_ok || !u64map__get(r->ec_by_tid, (uint64_t)tid, &known) || known != ec) {
			t->frames_ok = false;
			if (!ruby_state__plausible(ec) || memsource__read(&r->mem, ec, t->ec, sizeof(t->ec)) != 0) {
				r->failures++;
				return -EFAULT;
			}
		}
		ctx = t->ec;
	}
	stack = ruby_state__u64_at(ctx, l->ec_stack);
	size = ruby_state__u64_at(ctx, l->ec_stack_size);
	cfp = ruby_state__u64_at(ctx, l->ec_cfp);
	/* a thread not started yet, or finished, has no stack */
	if (!stack || !cfp)
		return -ENOENT;
	end = stack + 8 * size;
	if (!ruby_state__plausible(stack) || !ruby_state__plausible(cfp) || size > (64u << 20) ||
	    end >= (1ull << 47) || cfp < stack || cfp >= end) {
		r->failures++;
		return -EPROTO;
	}
	ahead = 0;
	if (t->frames_ok) {
		uint64_t known_end = 0;

		if (u64map__get(r->end_by_tid, (uint64_t)tid, &known_end) && known_end == end)
			ahead = t->frames_at;
	}
	err = read_frames(r, cfp, end, ahead, &n);
	if (!err) {
		remember(r, tid, ec, end, n);
		err = ruby_names__name(r, r->raw, n, out);
	}
	if (err) {
		r->failures++;
		return err;
	}
	/* frames none of which could be named: nothing the sample proves */
	return 0;
}

void ruby__stats(const struct ruby *r, struct ruby_stats *out)
{
	out->reads = r->mem.reads;
	out->failures = r->failures;
	out->threads = u64map__count(r->thread_by_tid);
}

int ruby__remap_names(struct ruby *r, struct strtab_remap *rm)
{
	if (rm->commit)
		r->names = rm->to;
	return ruby_names__remap(r, rm);
}
