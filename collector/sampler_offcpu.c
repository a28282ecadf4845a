/* The off-cpu event's part of the sampler (--event off-cpu, alone or
 * beside a CPU event): its events beside a CPU event's, its switch
 * records and its windows' counters. The waits themselves are
 * collector/offcpu.c's bookkeeping; the kernel keeps the stacks to
 * freq_hz a second (frequency mode), each sample saying its period. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "collector/offcpu.h"
#include "collector/perf_events.h"
#include "collector/perf_record.h"
#include "collector/proctable.h"
#include "collector/sched_switch.h"
#include "collector/sampler_state.h"
#include "common/strtab.h"
#include "profile/profile.h"

/* --event off-cpu: what times the threads' waits, filling window w, and
 * the pacing of its stack events (open by now: sampler_offcpu_pace.c). */
int sampler_offcpu__new(struct sampler *s, struct sampler_window *w, struct sampler_error *e)
{
	uint32_t unsampled;

	/* the frame of a thread's time when none of its waits in a window
	 * had its stack sampled */
	s->offcpu = strtab__intern_cstr(s->names, OFFCPU_UNSAMPLED_FRAME, &unsampled) == 0 ?
			    offcpu__new(unsampled) : NULL;
	if (!s->offcpu) {
		sampler__set_error(e, -ENOMEM, -1, -1, "allocating the off-cpu accounting");
		return -ENOMEM;
	}
	s->off = w;
	if (sampler_offcpu__pace_init(s) < 0) {
		sampler__set_error(e, -ENOMEM, -1, -1, "allocating the off-cpu pacing");
		return -ENOMEM;
	}
	return 0;
}

static bool followed(const struct sampler *s, uint32_t pid, uint32_t tid);

int sampler_offcpu__open_tracepoint(struct sampler *s, const struct perf_event_attr *attr,
				    struct sampler_error *e)
{
	struct perf_event_attr a;
	int rc;

	/* Per-thread events see a thread go out, never come back in: the
	 * tracepoint fires in the context of the task going out, and the one
	 * coming in is only named in it. */
	if (!s->opts.system_wide && !s->tree) {
		sampler__set_error(e, -s->trees_err ? -s->trees_err : -EPERM, -1, -1,
				   "off-cpu on a kernel without switch records (before 4.3) needs "
				   "events on every CPU");
		return e->err;
	}
	rc = perf_events__sched_switch_attr(&s->features, attr, &a);
	if (rc < 0) {
		sampler__set_error(e, rc, -1, -1, "building the sched_switch tracepoint's attributes");
		return rc;
	}
	return sampler__open_twin(s, &a, &s->tp_events, e,
				  "opening the sched_switch tracepoint into the rings");
}

bool sampler_offcpu__is_tracepoint(const struct sampler *s, const struct perf_sample *smp)
{
	return s->tp_events && smp->raw_size > 4;
}

/* A switch the tracepoint told, at the sample's time: the task going out
 * is the sample's own (a dying thread's pid is -1), the one coming in is
 * named by its tid and closes its wait if it has one open. */
void sampler_offcpu__tracepoint(struct sampler *s, const struct perf_sample *smp)
{
	struct sched_switch_event ev;

	if (sched_switch__decode(&s->features.sched_switch, smp->raw, smp->raw_size, &ev) < 0) {
		s->off->stats.off_cpu_dropped++;
		return;
	}
	if (followed(s, smp->pid, smp->tid)) {
		/* a switch-in the kernel did not report (the tracepoint in
		 * the idle task's context is not delivered on every kernel):
		 * the thread ran, its wait ends here at the latest */
		(void)offcpu__late_switch_in(s->offcpu, (int)smp->tid, smp->time);
		(void)offcpu__switch_out(s->offcpu, (int)smp->pid, (int)smp->tid, smp->time,
					 ev.preempted);
	}
	if (ev.next_tid != 0)
		(void)offcpu__switch_in(s->offcpu, (int)ev.next_tid, smp->time);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int sampler_offcpu__open_twin(struct sampler *s, const struct perf_event_attr *attr,
			      struct sampler_error *e)
{
	struct perf_event_attr a;
	size_t n, i;
	int rc;

	rc = perf_events__off_cpu_attr(&s->features, attr, s->off_freq_hz, &a);
	if (rc < 0) {
		sampler__set_error(e, rc, -1, -1, "off-cpu needs PERF_RECORD_SWITCH (Linux 4.3)");
		return rc;
	}
	rc = sampler__open_twin(s, &a, &s->off_events, e, "opening the off-cpu events into the rings");
	if (rc < 0)
		return rc;
	n = perf_events__count(s->off_events);
	s->off_ids = calloc(n ? n : 1, sizeof(*s->off_ids));
	if (!s->off_ids) {
		sampler__set_error(e, -ENOMEM, -1, -1, "allocating the off-cpu events");
		return -ENOMEM;
	}
	for (i = 0; rc == 0 && i < n; i++)
		if ((rc = perf_events__id(s->off_events, i, &s->off_ids[i])) < 0)
			sampler__set_error(e, rc, perf_events__cpu(s->off_events, i),
					   perf_events__pid(s->off_events, i), "reading an off-cpu event's id");
	if (rc < 0)
		return rc;
	s->noff_ids = n;
	qsort(s->off_ids, n, sizeof(*s->off_ids), cmp_u64);
	return 0;
}

bool sampler_offcpu__owns(const struct sampler *s, uint64_t id)
{
	size_t lo = 0, hi = s->noff_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->off_ids[mid] == id)
			return true;
		if (s->off_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Whether thread tid of process pid is the recording's: another
 * process's, on a CPU the trees share, the idle task's and a dying
 * thread's are not. */
static bool followed(const struct sampler *s, uint32_t pid, uint32_t tid)
{
	return pid != 0 && pid != DEAD_TASK_ID && tid != DEAD_TASK_ID && sampler__wanted(s, pid);
}

/* A thread leaving or taking a CPU: the bounds of its waits, each from
 * the thread's own record. (A CPU-wide switch-out also names the thread
 * coming in, but not every CPU writes the idle task's records: a thread
 * woken on an idle CPU has only its own switch-in to say so.) */
void sampler_offcpu__switch(struct sampler *s, const struct perf_event_header *h)
{
	struct perf_record_switch w;

	if (perf_record__parse_switch(&s->layout, h, &w) < 0 || !followed(s, w.sid.pid, w.sid.tid))
		return;
	if (w.out)
		(void)offcpu__switch_out(s->offcpu, (int)w.sid.pid, (int)w.sid.tid, w.sid.time,
					 w.preempt != 0);
	else
		(void)offcpu__switch_in(s->offcpu, (int)w.sid.tid, w.sid.time);
}

/* The group of a thread none of whose waits had a stack sampled. */
static int key_of(void *ctx, int pid, int tid, struct profile_key *out)
{
	struct sampler *s = ctx;
	/* a process only ever seen waiting is read now, as a sampled one is */
	struct process *p = proctable__get(s->procs, pid);

	if (!p)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	sampler__group_key(s, p, tid, out);
	return 0;
}

/* off-cpu: waits still open count up to the last record handled, in this
 * window, and go on in the next. */
void sampler_offcpu__finish_window(struct sampler *s)
{
	struct agent_stats *st = &s->off->stats;
	struct offcpu_stats o;

	(void)offcpu__cut(s->offcpu, s->off->profile, s->last_time, key_of, s);
	offcpu__take_stats(s->offcpu, &o);
	st->off_cpu_switches = o.switches;
	st->off_cpu_preempted = o.preempted;
	st->off_cpu_sampled = o.sampled;
	st->off_cpu_ns = o.off_ns;
	st->off_cpu_weighted_ns = o.weighted_ns;
	st->off_cpu_unsampled_ns = o.unsampled_ns;
	st->off_cpu_unmatched = o.unmatched;
	st->off_cpu_dropped += o.dropped;
	st->off_cpu_threads = o.threads;
	st->off_cpu_late_ins = o.late_ins;
}
