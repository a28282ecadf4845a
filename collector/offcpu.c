/* Off-CPU intervals per thread, their exact time shared out over the
 * stacks of the sampled ones at each window's end. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/offcpu.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "profile/profile.h"

/* The table of threads starts small: most hosts follow a few hundred. */
#define INITIAL_THREADS 64u

struct pending {
	struct profile_key key;
	uint32_t *frames; /* NULL when n == 0 */
	size_t n;
	uint64_t t;
};

/* A sampled wait's part of the window: its stack and its own time. An
 * open wait's part at a cut borrows the wait's stack (it is given out
 * before the wait can change). */
struct contrib {
	struct pending stack;
	uint64_t raw;
	bool borrowed;
};

struct thread {
	int tid, pid;
	bool armed;         /* armed_stack waits for its switch-out */
	bool open;          /* off the CPU since a voluntary switch-out */
	bool sampled;       /* the open interval has a stack */
	bool exited;        /* since exit_t, until a switch-in after it */
	bool dead_out_seen; /* the exited thread's last switch-out came */
	uint64_t start;     /* the open interval began here */
	uint64_t from;      /* and is counted up to here (start or a cut) */
	uint64_t exit_t;
	struct pending armed_stack;
	struct pending stack;
	/* the window's: every wait's time, the sampled waits' own, and
	 * those waits (nc of them) */
	uint64_t win_ns, win_sampled;
	struct contrib *c;
	size_t nc, capc;
};

struct offcpu {
	uint32_t unsampled_frame;
	/* Threads by value, packed: cut walks the array, the map only finds
	 * them (tid -> index). Walking the map while deleting from it could
	 * skip entries its backward shift moves. */
	struct thread *th;
	size_t n, cap;
	struct u64map *by_tid;
	size_t nframes; /* frame ids held by every pending stack */
	uint64_t prev_cut;
	struct offcpu_stats stats;
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t tid_key(int tid)
{
	return (uint64_t)(uint32_t)tid;
}

struct offcpu *offcpu__new(uint32_t unsampled_frame)
{
	struct offcpu *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->unsampled_frame = unsampled_frame;
	o->by_tid = u64map__new(INITIAL_THREADS);
	if (!o->by_tid) {
		free(o);
		return NULL;
	}
	return o;
}

static void pending_free(struct offcpu *o, struct pending *s)
{
	free(s->frames);
	o->nframes -= s->n <= o->nframes ? s->n : o->nframes;
	memset(s, 0, sizeof(*s));
}

static void disarm(struct offcpu *o, struct thread *th)
{
	if (th->armed)
		pending_free(o, &th->armed_stack);
	th->armed = false;
}

/* Ends the interval without counting it. */
static void close_interval(struct offcpu *o, struct thread *th)
{
	if (th->sampled)
		pending_free(o, &th->stack);
	th->sampled = false;
	th->open = false;
}

/* Forgets the window's sampled waits of th. */
static void drop_contribs(struct offcpu *o, struct thread *th)
{
	size_t k;

	for (k = 0; k < th->nc; k++)
		if (!th->c[k].borrowed)
			pending_free(o, &th->c[k].stack);
	th->nc = 0;
}

void offcpu__delete(struct offcpu *o)
{
	size_t i, k;

	if (!o)
		return;
	for (i = 0; i < o->n; i++) {
		free(o->th[i].armed_stack.frames);
		free(o->th[i].stack.frames);
		for (k = 0; k < o->th[i].nc; k++)
			if (!o->th[i].c[k].borrowed)
				free(o->th[i].c[k].stack.frames);
		free(o->th[i].c);
	}
	free(o->th);
	u64map__delete(o->by_tid);
	free(o);
}

static struct thread *find(struct offcpu *o, int tid)
{
	uint64_t i;

	if (!u64map__get(o->by_tid, tid_key(tid), &i) || i >= o->n)
		return NULL;
	return &o->th[i];
}

/* The thread's state, made when new. NULL past the bound or without
 * memory, with *err set; the caller counts it. */
static struct thread *get(struct offcpu *o, int tid, int *err)
{
	struct thread *th = find(o, tid);

	if (th)
		return th;
	if (o->n >= OFFCPU_MAX_THREADS) {
		*err = -ENOSPC;
		return NULL;
	}
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : INITIAL_THREADS;
		struct thread *a;

		if (cap > OFFCPU_MAX_THREADS)
			cap = OFFCPU_MAX_THREADS;
		a = realloc(o->th, cap * sizeof(*a));
		if (!a) {
			*err = -ENOMEM;
			return NULL;
		}
		o->th = a;
		o->cap = cap;
	}
	if (u64map__put(o->by_tid, tid_key(tid), o->n) < 0) {
		*err = -ENOMEM;
		return NULL;
	}
	th = &o->th[o->n++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	return th;
}

static void forget(struct offcpu *o, size_t i)
{
	struct thread *th = &o->th[i];

	disarm(o, th);
	close_interval(o, th);
	drop_contribs(o, th);
	free(th->c);
	u64map__del(o->by_tid, tid_key(th->tid));
	if (i != o->n - 1) {
		*th = o->th[o->n - 1];
		/* the key is present: this only overwrites, it cannot fail */
		u64map__put(o->by_tid, tid_key(th->tid), i);
	}
	o->n--;
}

/* p takes the stack (frames: malloc'd, given). */
static void hold(struct offcpu *o, struct pending *p, const struct profile_key *key, uint32_t *frames,
		 size_t n, uint64_t t)
{
	p->key = *key;
	p->frames = frames;
	p->n = n;
	p->t = t;
	o->nframes += n;
}

int offcpu__stack(struct offcpu *o, int tid, uint64_t t, const struct profile_key *key,
		  const uint32_t *frames, size_t n)
{
	struct thread *th;
	uint32_t *copy = NULL;
	int err = 0;

	if (!key || (n && !frames)) {
		o->stats.dropped++;
		return -EINVAL;
	}
	th = get(o, tid, &err);
	if (!th) {
		o->stats.dropped++;
		return err;
	}
	if (th->exited) {
		/* At or after the exit it is the dead thread's last switch,
		 * whose switch-out is ignored; before it, its switch-out went
		 * by already (the exit ended what it opened). */
		if (t < th->exit_t)
			o->stats.unmatched++;
		return 0;
	}
	if (th->armed) {
		/* its switch-out never came */
		o->stats.unmatched++;
		disarm(o, th);
	}
	if (n > OFFCPU_MAX_FRAME_IDS - o->nframes) {
		o->stats.dropped++;
		return -ENOSPC;
	}
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy) {
			o->stats.dropped++;
			return -ENOMEM;
		}
		memcpy(copy, frames, n * sizeof(*copy));
	}
	/* Just after the switch-out that opened the thread's wait: the
	 * sched_switch tracepoint (before 4.3) fires before the sampled event
	 * of the same switch, where switch records come after it. */
	if (th->open && !th->sampled && t >= th->start && t - th->start <= OFFCPU_STACK_MATCH_NS) {
		hold(o, &th->stack, key, copy, n, t);
		th->sampled = true;
		o->stats.sampled++;
		return 0;
	}
	hold(o, &th->armed_stack, key, copy, n, t);
	th->armed = true;
	return 0;
}

int offcpu__switch_out(struct offcpu *o, int pid, int tid, uint64_t t, bool preempted)
{
	struct thread *th = find(o, tid);
	int err = 0;

	if (th && th->exited) {
		if (t >= th->exit_t) {
			/* the dead thread's last schedule: no one waits */
			th->dead_out_seen = true;
			return 0;
		}
		/* A late record from before the exit: its interval would
		 * have no end that we could still pair with it. */
		o->stats.switches++;
		if (preempted)
			o->stats.preempted++;
		return 0;
	}
	if (!th && preempted) {
		/* nothing to keep for a thread we hold nothing of */
		o->stats.switches++;
		o->stats.preempted++;
		return 0;
	}
	if (!th) {
		th = get(o, tid, &err);
		if (!th) {
			o->stats.dropped++;
			return err;
		}
	}
	th->pid = pid;
	o->stats.switches++;
	if (preempted)
		o->stats.preempted++;
	/* Two switch-outs in a row: the switch-in between them was lost, so
	 * when the first wait ended is unknown. */
	close_interval(o, th);
	if (th->armed && th->armed_stack.t <= t) {
		if (t - th->armed_stack.t <= OFFCPU_STACK_MATCH_NS) {
			if (!preempted) {
				th->stack = th->armed_stack;
				memset(&th->armed_stack, 0, sizeof(th->armed_stack));
				th->armed = false;
				th->sampled = true;
				o->stats.sampled++;
			}
			/* a preemption's stack is its own, and no wait */
		} else {
			o->stats.unmatched++;
		}
		disarm(o, th);
	}
	/* an armed stack later than t waits for a later switch-out */
	if (!preempted) {
		th->open = true;
		th->start = t;
		th->from = t;
	}
	return 0;
}

/* Room for one more sampled wait of th. */
static int grow_contribs(struct thread *th)
{
	struct contrib *c;
	size_t cap;

	if (th->nc < th->capc)
		return 0;
	cap = th->capc ? th->capc * 2 : 4;
	c = realloc(th->c, cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	th->c = c;
	th->capc = cap;
	return 0;
}

/* Counts the open interval's time from its last count up to t for the
 * window, a sampled one with its stack: moved to the window's waits when
 * the interval ends (last), else lent to them for the cut (it goes on in
 * the next window). -ENOMEM: the time is counted, the stack not kept for
 * the window. */
static int count_until(struct thread *th, uint64_t t, bool last)
{
	struct pending *to;
	uint64_t dur;

	if (t <= th->from)
		return 0;
	dur = t - th->from;
	th->from = t;
	th->win_ns = add_sat(th->win_ns, dur);
	if (!th->sampled)
		return 0;
	if (grow_contribs(th) < 0)
		return -ENOMEM;
	to = &th->c[th->nc].stack;
	*to = th->stack;
	th->c[th->nc].borrowed = !last;
	if (last) {
		memset(&th->stack, 0, sizeof(th->stack));
		th->sampled = false;
	}
	th->c[th->nc++].raw = dur;
	th->win_sampled = add_sat(th->win_sampled, dur);
	return 0;
}

int offcpu__switch_in(struct offcpu *o, int tid, uint64_t t)
{
	struct thread *th = find(o, tid);
	int err;

	if (!th)
		return 0;
	if (th->exited) {
		if (t > th->exit_t) {
			/* a new thread with the dead one's tid */
			th->exited = false;
			th->dead_out_seen = false;
		}
		return 0;
	}
	/* A switch-in older than the switch-out came late from another
	 * CPU; the one that ends this interval is still to come. */
	if (!th->open || t < th->start)
		return 0;
	err = count_until(th, t, true);
	close_interval(o, th);
	return err;
}

int offcpu__late_switch_in(struct offcpu *o, int tid, uint64_t t)
{
	struct thread *th = find(o, tid);
	int err;

	if (!th || th->exited || !th->open || t < th->start)
		return 0;
	err = offcpu__switch_in(o, tid, t);
	if (err < 0)
		return err;
	o->stats.late_ins++;
	return 1;
}

void offcpu__exit(struct offcpu *o, int tid, uint64_t t)
{
	int err = 0;
	struct thread *th = get(o, tid, &err);

	if (!th) {
		o->stats.dropped++;
		return;
	}
	disarm(o, th);
	close_interval(o, th);
	th->exited = true;
	th->dead_out_seen = false;
	th->exit_t = t;
}

/* An exited thread's marker has done its work once its last switch-out
 * came; without it, it is kept one more window, since that record may
 * reach us after a cut that falls between the exit and the switch. Were
 * it forgotten, the switch-out would open an interval no switch-in ever
 * closes. */
static bool done(const struct offcpu *o, const struct thread *th, uint64_t t)
{
	if (th->exited)
		return th->exit_t < t && (th->dead_out_seen || th->exit_t < o->prev_cut);
	return !th->open && !th->armed;
}

/* v * num / den without overflow (den > 0, num <= den). */
static uint64_t share(uint64_t v, uint64_t num, uint64_t den)
{
	return (uint64_t)((unsigned __int128)v * num / den);
}

/* Gives p th's time in the window: over its sampled waits' stacks in
 * proportion to their times, each share cut from the running total so
 * that the shares add up to the time exactly; else all of it under the
 * unsampled frame, with the key its process has. */
static int give(struct offcpu *o, struct profile *p, struct thread *th, offcpu_key_fn key_of, void *ctx)
{
	uint64_t total = th->win_ns, given = 0, cum = 0;
	struct profile_key key;
	size_t k;
	int first = 0, err;

	if (!total)
		return 0;
	o->stats.off_ns = add_sat(o->stats.off_ns, total);
	if (th->nc && th->win_sampled) {
		for (k = 0; k < th->nc; k++) {
			const struct pending *s = &th->c[k].stack;
			uint64_t upto, value;

			cum = add_sat(cum, th->c[k].raw);
			upto = k + 1 == th->nc ? total : share(total, cum, th->win_sampled);
			value = upto - given;
			given = upto;
			if (!value)
				continue;
			o->stats.weighted_ns = add_sat(o->stats.weighted_ns, value);
			err = profile__add(p, &s->key, s->frames, s->n, value);
			if (err && !first)
				first = err;
		}
		return first;
	}
	if (!key_of || key_of(ctx, th->pid, th->tid, &key) < 0)
		return 0;
	o->stats.weighted_ns = add_sat(o->stats.weighted_ns, total);
	o->stats.unsampled_ns = add_sat(o->stats.unsampled_ns, total);
	return profile__add(p, &key, &o->unsampled_frame, 1, total);
}

int offcpu__cut(struct offcpu *o, struct profile *p, uint64_t t, offcpu_key_fn key_of, void *ctx)
{
	size_t i = 0;
	int first = 0, err;

	while (i < o->n) {
		struct thread *th = &o->th[i];

		if (th->open && (err = count_until(th, t, false)) < 0)
			o->stats.dropped++;
		err = give(o, p, th, key_of, ctx);
		if (err && !first)
			first = err;
		drop_contribs(o, th);
		th->win_ns = th->win_sampled = 0;
		if (done(o, th, t))
			forget(o, i); /* the last one moved to i: look at it next */
		else
			i++;
	}
	if (t > o->prev_cut)
		o->prev_cut = t;
	o->stats.threads = o->n;
	return first;
}

void offcpu__take_stats(struct offcpu *o, struct offcpu_stats *out)
{
	uint64_t threads = o->stats.threads;

	*out = o->stats;
	memset(&o->stats, 0, sizeof(o->stats));
	o->stats.threads = threads;
}

/* The ids of a kept stack: its key's strings and its frames. */
static int remap_pending(struct strtab_remap *r, struct pending *s)
{
	size_t k;

	if (strtab_remap__id(r, &s->key.service_name) || strtab_remap__id(r, &s->key.exe) ||
	    strtab_remap__id(r, &s->key.comm) || strtab_remap__id(r, &s->key.thread) ||
	    strtab_remap__id(r, &s->key.user))
		return -ENOMEM;
	for (k = 0; k < s->n; k++)
		if (strtab_remap__id(r, &s->frames[k]))
			return -ENOMEM;
	return 0;
}

int offcpu__remap_names(struct offcpu *o, struct strtab_remap *r)
{
	size_t i, k;

	if (strtab_remap__id(r, &o->unsampled_frame))
		return -ENOMEM;
	for (i = 0; i < o->n; i++) {
		struct thread *th = &o->th[i];

		if ((th->armed && remap_pending(r, &th->armed_stack)) ||
		    (th->sampled && remap_pending(r, &th->stack)))
			return -ENOMEM;
		for (k = 0; k < th->nc; k++)
			if (remap_pending(r, &th->c[k].stack))
				return -ENOMEM;
	}
	return 0;
}
