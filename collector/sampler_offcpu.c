/* The off-cpu event's part of the sampler (--event off-cpu): its switch
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
#include "collector/sampler_state.h"
#include "common/strtab.h"
#include "profile/profile.h"

/* --event off-cpu: what times the threads' waits. */
int sampler_offcpu__new(struct sampler *s, struct sampler_error *e)
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
	return 0;
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
	struct agent_stats *st = &s->stats;
	struct offcpu_stats o;

	(void)offcpu__cut(s->offcpu, s->profile, s->last_time, key_of, s);
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
}
