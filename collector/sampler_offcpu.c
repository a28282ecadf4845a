/* The off-cpu event's part of the sampler (--event off-cpu, alone or
 * beside a CPU event): its events beside a CPU event's, its switch
 * records and its windows' counters. The waits themselves are
 * collector/offcpu.c's bookkeeping; the kernel keeps the stacks to
 * freq_hz a second (frequency mode), each sample saying its period. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector/offcpu.h"
#include "collector/perf_events.h"
#include "collector/perf_record.h"
#include "collector/proctable.h"
#include "collector/sched_switch.h"
#include "collector/sampler_state.h"
#include "common/clock.h"
#include "common/strtab.h"
#include "profile/profile.h"

/* How often the periods follow the switch rates (the first look soon:
 * until then the period is a guess), and the largest: one stack in a
 * million switches is less than a stack a second on a CPU switching 10^6
 * times a second. */
#define PACE_FIRST_NS 10000000ull
#define PACE_EVERY_NS 100000000ull
#define MAX_PERIOD (1ull << 20)

static uint64_t period_for(uint64_t delta, uint64_t ns, unsigned hz);

/* The host's context switches so far (/proc/stat's ctxt), 0 if unknown. */
static unsigned long long host_switches(void)
{
	unsigned long long ctxt = 0;
	char line[256];
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %llu", &ctxt) == 1)
			break;
	fclose(f);
	return ctxt;
}

/* The first guess: the switches a CPU makes a second now, counted over
 * PACE_GUESS_NS before the events are enabled, or 1. Starting at 1 on a
 * host switching 10^5 times a second, or at the average since boot on a
 * host busier now than it was, filled the rings with stacks before the
 * first look (6,026 records lost in a 9 s run of the bench's ping-pong).
 * Too high for a thread's own event (-p without trees): the first look
 * mends it. */
#define PACE_GUESS_NS 10000000ull

static uint64_t first_period(unsigned hz)
{
	struct timespec pause = { 0, (long)PACE_GUESS_NS };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long before, after;
	uint64_t t0, t1;

	before = host_switches();
	t0 = clock__mono_ns();
	(void)nanosleep(&pause, NULL);
	after = host_switches();
	t1 = clock__mono_ns();
	if (!before || after < before || t1 <= t0 || ncpu < 1)
		return 1;
	return period_for((after - before) / (unsigned long long)ncpu, t1 - t0, hz);
}

/* The events whose samples are off-cpu's stacks: the twin beside a CPU
 * event; alone, the events and their eager twin (one or the other is
 * enabled, at the same index per CPU or thread). */
static size_t stack_sets(struct sampler *s, struct perf_events *sets[2])
{
	size_t n = 0;

	if (!s->off)
		return 0;
	if (s->off_events) {
		sets[n++] = s->off_events;
		return n;
	}
	sets[n++] = s->events;
	if (s->eager_events && perf_events__count(s->eager_events) == perf_events__count(s->events))
		sets[n++] = s->eager_events;
	return n;
}

/* Every stack event at the first guess until the first look. */
static int pace_init(struct sampler *s)
{
	struct perf_events *sets[2];
	size_t nsets = stack_sets(s, sets), n, i, k;
	uint64_t first;

	if (!nsets)
		return 0;
	n = perf_events__count(sets[0]);
	s->off_counts = calloc(n * nsets + 1, sizeof(*s->off_counts));
	s->off_periods = calloc(n + 1, sizeof(*s->off_periods));
	if (!s->off_counts || !s->off_periods)
		return -ENOMEM;
	if (!s->off_pace_hz)
		s->off_pace_hz = 1;
	s->noff_paced = n;
	first = first_period(s->off_pace_hz);
	for (i = 0; i < n; i++) {
		s->off_periods[i] = first;
		for (k = 0; k < nsets && first > 1; k++)
			(void)perf_events__set_period(sets[k], i, first);
	}
	return 0;
}

/* --event off-cpu: what times the threads' waits, filling window w, and
 * the pacing of its stack events (open by now). */
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
	if (pace_init(s) < 0) {
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

void sampler_offcpu__set_pace(struct sampler *s, unsigned hz)
{
	s->off_pace_hz = hz ? hz : 1;
}

/* The period that keeps the event at about hz stacks a second, having
 * counted delta switches in ns. */
static uint64_t period_for(uint64_t delta, uint64_t ns, unsigned hz)
{
	unsigned __int128 want = (unsigned __int128)hz * ns;
	unsigned __int128 p;

	if (!want)
		return 1;
	p = ((unsigned __int128)delta * 1000000000u + want - 1) / want;
	return p < 1 ? 1 : p > MAX_PERIOD ? MAX_PERIOD : (uint64_t)p;
}

/* A period changed only by more than a fifth: the kernel restarts the
 * count at every change, which is a stack out of turn. */
static bool worth_changing(uint64_t cur, uint64_t want)
{
	return want * 5 < cur * 4 || want * 4 > cur * 5;
}

void sampler_offcpu__pace(struct sampler *s, uint64_t now)
{
	struct perf_events *sets[2];
	size_t nsets, i, k;
	uint64_t ns;

	if (!s->noff_paced || !s->enabled)
		return;
	if (!s->off_paced_ns) {
		s->off_paced_ns = now;
		return;
	}
	if (now - s->off_paced_ns < (s->off_looked ? PACE_EVERY_NS : PACE_FIRST_NS))
		return;
	s->off_looked = true;
	ns = now - s->off_paced_ns;
	s->off_paced_ns = now;
	nsets = stack_sets(s, sets);
	for (i = 0; i < s->noff_paced; i++) {
		uint64_t delta = 0, want;

		for (k = 0; k < nsets; k++) {
			uint64_t *last = &s->off_counts[k * s->noff_paced + i], c;

			if (perf_events__read_count(sets[k], i, &c) < 0)
				continue;
			delta += c >= *last ? c - *last : 0;
			*last = c;
		}
		want = period_for(delta, ns, s->off_pace_hz);
		if (!worth_changing(s->off_periods[i], want))
			continue;
		s->off_periods[i] = want;
		for (k = 0; k < nsets; k++)
			(void)perf_events__set_period(sets[k], i, want);
	}
}
