/* The off-cpu event's part of the sampler (--event off-cpu): its switch
 * records, the periods that keep its stacks to a budget, and its windows'
 * counters. The waits themselves are collector/offcpu.c's bookkeeping. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "collector/offcpu.h"
#include "collector/perf_events.h"
#include "collector/perf_record.h"
#include "collector/sampler_state.h"
#include "common/clock.h"

/* --event off-cpu: what times the threads' waits. */
int sampler_offcpu__new(struct sampler *s, struct sampler_error *e)
{
	s->offcpu = offcpu__new();
	if (!s->offcpu) {
		sampler__set_error(e, -ENOMEM, -1, -1, "allocating the off-cpu accounting");
		return -ENOMEM;
	}
	return 0;
}

/* off-cpu: the switches each CPU's events see, and the period they sample
 * them at (1 to start: every switch-out, until the first adaptation). */
int sampler_offcpu__count_cpus(struct sampler *s, struct sampler_error *e)
{
	size_t i, n = 0;

	for (i = 0; i < perf_events__count(s->events); i++) {
		int cpu = perf_events__cpu(s->events, i);

		if (cpu >= 0 && (size_t)cpu + 1 > n)
			n = (size_t)cpu + 1;
	}
	s->ncpu_slots = n;
	s->cpu_switches = calloc(n ? n : 1, sizeof(*s->cpu_switches));
	s->cpu_period = calloc(n ? n : 1, sizeof(*s->cpu_period));
	if (!s->cpu_switches || !s->cpu_period) {
		sampler__set_error(e, -ENOMEM, -1, -1, "allocating the off-cpu accounting");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		s->cpu_period[i] = 1;
	s->offcpu_adapt_ns = clock__mono_ns();
	return 0;
}

/* How often the off-cpu periods follow the CPUs' switch rates. */
#define OFFCPU_ADAPT_NS 250000000ull
/* The most switches a stack stands for: a CPU switching a million times a
 * second at 1 stack a second; more only loses precision. */
#define OFFCPU_MAX_PERIOD 1000000ull

/* off-cpu: each CPU samples one switch-out in every period, the period
 * chosen from the CPU's last switch rate so that it gives about
 * opts.freq_hz stacks a second; whatever the period, each stack stands for
 * that many switches (the sample carries it), so the totals do not depend
 * on it. */
void sampler_offcpu__adapt(struct sampler *s, uint64_t now)
{
	uint64_t span = now - s->offcpu_adapt_ns;
	size_t c, i;

	if (now < s->offcpu_adapt_ns || span < OFFCPU_ADAPT_NS)
		return;
	for (c = 0; c < s->ncpu_slots; c++) {
		/* switches a second, over stacks a second, rounded up */
		uint64_t rate = s->cpu_switches[c] * 1000000000ull / span;
		uint64_t want = (rate + s->opts.freq_hz - 1) / (s->opts.freq_hz ? s->opts.freq_hz : 1);

		if (want < 1)
			want = 1;
		if (want > OFFCPU_MAX_PERIOD)
			want = OFFCPU_MAX_PERIOD;
		s->cpu_switches[c] = 0;
		/* within a factor of two: not worth an ioctl per event */
		if (want <= s->cpu_period[c] * 2 && want * 2 >= s->cpu_period[c])
			continue;
		s->cpu_period[c] = want;
		for (i = 0; i < perf_events__count(s->events); i++)
			if (perf_events__cpu(s->events, i) == (int)c)
				(void)perf_events__set_period(s->events, i, want);
	}
	s->offcpu_adapt_ns = now;
}

/* A thread leaving or taking a CPU: the bounds of its waits. Another
 * process's, on a CPU the trees share, the idle task's and a dying
 * thread's are not the recording's. */
void sampler_offcpu__switch(struct sampler *s, const struct perf_event_header *h)
{
	struct perf_record_switch w;

	if (perf_record__parse_switch(&s->layout, h, &w) < 0 || w.sid.pid == 0 ||
	    w.sid.pid == DEAD_TASK_ID || w.sid.tid == DEAD_TASK_ID || !sampler__wanted(s, w.sid.pid))
		return;
	if (!w.out) {
		(void)offcpu__switch_in(s->offcpu, s->profile, (int)w.sid.tid, w.sid.time);
		return;
	}
	if (w.sid.cpu < s->ncpu_slots)
		s->cpu_switches[w.sid.cpu]++;
	(void)offcpu__switch_out(s->offcpu, (int)w.sid.tid, w.sid.time, w.preempt != 0);
}

/* off-cpu: waits still open count up to the last record handled, in this
 * window, and go on in the next. */
void sampler_offcpu__finish_window(struct sampler *s)
{
	struct agent_stats *st = &s->stats;
	struct offcpu_stats o;

	(void)offcpu__cut(s->offcpu, s->profile, s->last_time);
	offcpu__take_stats(s->offcpu, &o);
	st->off_cpu_switches = o.switches;
	st->off_cpu_preempted = o.preempted;
	st->off_cpu_sampled = o.sampled;
	st->off_cpu_ns = o.off_ns;
	st->off_cpu_weighted_ns = o.weighted_ns;
	st->off_cpu_unmatched = o.unmatched;
	st->off_cpu_dropped += o.dropped;
	st->off_cpu_threads = o.threads;
}
