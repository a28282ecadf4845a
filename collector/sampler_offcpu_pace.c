/* Off-cpu's stacks are every Nth context switch, N set here per event:
 * from the switches each event counted since the last look, so that each
 * takes about off_pace_hz stacks a second (doc/decisions.md: the kernel's
 * frequency mode starves threads that switch rarely). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "collector/perf_events.h"
#include "collector/sampler_state.h"
#include "common/clock.h"

/* How often the periods follow the switch rates (the first look soon:
 * until then the period is a guess), and the largest: one stack in a
 * million switches is less than a stack a second on a CPU switching 10^6
 * times a second. */
#define PACE_FIRST_NS 10000000ull
#define PACE_EVERY_NS 100000000ull
#define MAX_PERIOD (1ull << 20)

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

int sampler_offcpu__pace_init(struct sampler *s)
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

void sampler_offcpu__set_pace(struct sampler *s, unsigned hz)
{
	s->off_pace_hz = hz ? hz : 1;
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
