/* Sampling loop: gather records of all rings, order them, process them. */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "collector/batch.h"
#include "collector/binary.h"
#include "collector/offcpu.h"
#include "collector/perf_events.h"
#include "collector/proctable.h"
#include "collector/ptree.h"
#include "collector/perf_record.h"
#include "collector/ring.h"
#include "collector/runtimes.h"
#include "collector/sampler.h"
#include "collector/sampler_state.h"
#include "collector/threads.h"
#include "collector/user_stack.h"
#include "common/clock.h"
#include "common/strtab.h"
#include "profile/agent_stats.h"
#include "profile/profile.h"
#include "symbolize/symbolizer.h"
#include "unwind/unwind.h"

static int push_frame(struct sampler *s, size_t *n, uint32_t id)
{
	if (*n >= s->stack_cap)
		return -ENOSPC;
	s->stack[(*n)++] = id;
	return 0;
}

static void count_stop(struct agent_stats *st, enum unwind_stop why)
{
	switch (why) {
	case UNWIND_COMPLETE: st->unwind_complete++; break;
	case UNWIND_TRUNCATED: st->unwind_truncated++; break;
	case UNWIND_NO_CFI: st->unwind_no_cfi++; break;
	case UNWIND_NO_MAP: st->unwind_no_map++; break;
	case UNWIND_BAD_PC: st->unwind_bad_pc++; break;
	case UNWIND_DEPTH: st->unwind_depth++; break;
	default: st->unwind_bad_pc++; break;
	}
}

/* MMAP2 says PROT_EXEC; plain MMAP records are only sent for executable
 * mappings unless mmap_data was asked for. */
static int mmap_is_exec(const struct perf_record_mmap *m)
{
	return m->is_mmap2 ? (m->prot & 0x4) != 0 : !(m->misc & PERF_RECORD_MISC_MMAP_DATA);
}

/* The exe of a process sampled between the COMM of its exec and the mapping
 * of the new executable (execve's own work, a few hundred microseconds): the
 * path of that mapping, when it is in this batch. Short-lived processes are
 * gone by the time /proc/PID/exe could be read, and their exec-time samples
 * were grouped under an empty exe. Only such samples scan, boundedly; the
 * process table learns the exe when the mapping itself is handled. */
static uint32_t pending_exe(struct sampler *s, const struct process *p)
{
	size_t i, end = s->batch.n;
	uint32_t id;

	if (end - s->batch_pos > EXE_LOOKAHEAD_MAX)
		end = s->batch_pos + EXE_LOOKAHEAD_MAX;
	for (i = s->batch_pos + 1; i < end; i++) {
		const struct perf_event_header *h = s->batch.recs[i].h;
		struct perf_record_mmap m;
		struct perf_record_task t;
		struct perf_record_comm c;

		switch (h->type) {
		case PERF_RECORD_MMAP:
		case RECORD_TYPE_MMAP2:
			if (perf_record__parse_mmap(&s->layout, h, &m) < 0 || (int)m.pid != process__pid(p) ||
			    !mmap_is_exec(&m) || m.len == 0 || m.filename_len == 0 || m.filename[0] != '/')
				break;
			if (strtab__intern(s->names, m.filename, m.filename_len, &id) < 0)
				return 0;
			return id;
		case PERF_RECORD_COMM:
			/* another exec: what follows is not this image */
			if (perf_record__parse_comm(&s->layout, h, &c) == 0 && (int)c.pid == process__pid(p) &&
			    (int)c.tid == process__pid(p))
				return 0;
			break;
		case PERF_RECORD_EXIT:
			if (perf_record__parse_task(&s->layout, h, &t) == 0 && (int)t.pid == process__pid(p))
				return 0;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* The sampled thread's name for the group key; "" when it is not known. */
static uint32_t thread_key(struct sampler *s, struct process *p, int tid)
{
	uint32_t id = proctable__thread_name(s->procs, p, tid);

	if (!id && strtab__intern(s->names, "", 0, &id) < 0)
		return 0;
	return id;
}

void sampler__group_key(struct sampler *s, struct process *p, int tid, struct profile_key *key)
{
	key->exe = process__exe_pending(p) ? pending_exe(s, p) : 0;
	if (!key->exe) {
		proctable__fill_exe(s->procs, p);
		key->exe = process__exe(p);
	}
	/* a system service's name, else the program's, qualified by its
	 * user for all but root's: no user files samples under a service */
	key->user = proctable__user(s->procs, p);
	key->service_name = proctable__service(s->procs, p);
	if (!key->service_name) {
		uint32_t name = runtimes__label(s->runtimes, p);

		key->service_name = proctable__qualify(s->procs, p, name ? name : process__comm(p));
	}
	key->comm = process__comm(p);
	key->pid = s->opts.per_pid ? (int32_t)process__pid(p) : -1;
	key->thread = s->opts.group_by_thread ? thread_key(s, p, tid) : 0;
}

/* A sample not aggregated, counted in the window: a CPU sample as one of
 * the profile's dropped samples; an off-cpu stack, whose profile counts
 * nanoseconds, in the off-cpu counters. */
static void drop_sample(const struct sampler *s, struct sampler_window *w)
{
	if (w == s->off)
		w->stats.off_cpu_dropped++;
	else
		profile__drop(w->profile, 1);
}

/* The window a sample goes to: beside a CPU event, off-cpu's samples are
 * told by their id. */
static struct sampler_window *window_of(struct sampler *s, const struct perf_sample *smp)
{
	if (!s->off)
		return &s->win[0];
	if (!s->off_events || sampler_offcpu__owns(s, smp->id))
		return s->off;
	/* the CPU event's: the other one */
	return s->off == &s->win[0] ? &s->win[1] : &s->win[0];
}

/* A sample that will not be handled (no room in the batch, past the
 * deadline), counted in its event's window. */
static void drop_unhandled(struct sampler *s, const struct perf_event_header *h)
{
	struct perf_sample smp;
	struct sampler_window *w = &s->win[0];

	if (s->off_events && perf_record__parse_sample(&s->layout, h, &smp) == 0)
		w = window_of(s, &smp);
	drop_sample(s, w);
}

static void handle_sample(struct sampler *s, const struct perf_event_header *h)
{
	struct sampler_window *w;
	struct agent_stats *st;
	struct perf_sample smp;
	struct callchain_parts cc;
	struct profile_key key;
	struct process *p;
	enum unwind_stop why = UNWIND_COMPLETE;
	size_t nuf = 0, n = 0, i;
	int have_user;
	bool off;

	if (perf_record__parse_sample(&s->layout, h, &smp) < 0) {
		drop_sample(s, &s->win[0]);
		return;
	}
	/* before 4.3, the tracepoint's: a switch, no stack */
	if (sampler_offcpu__is_tracepoint(s, &smp)) {
		sampler_offcpu__tracepoint(s, &smp);
		return;
	}
	w = window_of(s, &smp);
	st = &w->stats;
	off = w == s->off;
	if (s->nwin > 1)
		runtimes__count_into(s->runtimes, st);
	/* off-cpu: a dying thread's last switch-out is no wait */
	if (off && (smp.pid == DEAD_TASK_ID || smp.tid == DEAD_TASK_ID))
		return;
	/* another process's, on a CPU the trees share: outside the recording,
	 * like a sample after its end, and never read from /proc */
	if (s->tree && !ptree__member(s->tree, (int)smp.pid, smp.time)) {
		st->filtered++;
		return;
	}
	/* pid 0 is the idle task: time the CPU had nothing to run is not
	 * "where the CPU goes"; it is counted, not aggregated. Its switch-outs
	 * (off-cpu) are no thread's wait: counted as idle only */
	if (smp.pid == 0) {
		st->idle++;
		if (!off)
			drop_sample(s, w);
		return;
	}
	p = proctable__get(s->procs, (int)smp.pid);
	if (!p) {
		drop_sample(s, w);
		return;
	}
	memset(&cc, 0, sizeof(cc));
	if (smp.callchain)
		perf_record__callchain_split(smp.callchain, smp.callchain_nr, &cc);

	have_user = (s->mode_dwarf) ? (smp.regs_abi != 0 && smp.regs_nr > 0) : cc.user_nr > 0;
	/* In the kernel with not one byte of user stack copied at the user sp:
	 * the user registers belong to no address space that exists. This is
	 * execve after it switched to the new mm: the registers are still the
	 * old image's (its execve call), the copy is read from the new mm.
	 * Unwinding them gave the old image's execve as a truncated root, or
	 * [unknown] once the COMM of the exec had reset the maps; the sample is
	 * the kernel's (exec) work, so it is counted as kernel-only. A running
	 * task's stack page in user mode is resident: there an empty copy
	 * still leaves the ip, which is kept. */
	if (have_user && s->mode_dwarf && smp.stack_dyn_size == 0 &&
	    (smp.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		have_user = 0;
	if (have_user) {
		nuf = user_stack__unwind(s->user, p, &smp, &cc, &why);
		count_stop(st, why);
		user_stack__count(s->user, st);
	} else {
		st->kernel_only++;
	}

	/* a stack cut short says so at its root, rather than posing as one */
	if (have_user && why != UNWIND_COMPLETE && push_frame(s, &n, symbolizer__truncated(s->sym)) < 0)
		goto add;
	if (user_stack__append_names(s->user, p, nuf, smp.time, s->stack, s->stack_cap, &n) < 0)
		goto add;
	for (i = cc.kernel_nr; i-- > 0;)
		if (push_frame(s, &n, symbolizer__kernel(s->sym, cc.kernel[i])) < 0)
			break;
add:
	sampler__group_key(s, p, (int)smp.tid, &key);
	if (off)
		/* the switch-out's stack: its wait's time is known at the
		 * thread's switch-in */
		(void)offcpu__stack(s->offcpu, (int)smp.tid, smp.time, &key, s->stack, n);
	else
		profile__add(w->profile, &key, s->stack, n, 1);
}

/* Whether a side-band record of process pid (at the time of the record in
 * hand) is the recording's: with trees, only their processes' are, and the
 * process table never learns of the others. */
int sampler__wanted(const struct sampler *s, uint32_t pid)
{
	return !s->tree || ptree__member(s->tree, (int)pid, s->batch.recs[s->batch_pos].time);
}

/* A member's thread exited: the tree loses the process with its last. */
static void tree_exit(struct sampler *s, const struct perf_record_task *t, uint64_t time)
{
	struct process *p = proctable__find(s->procs, (int)t->pid);

	if (p ? process__exited(p) : t->pid == t->tid)
		ptree__exit(s->tree, (int)t->pid, time);
}

static void handle_record(struct sampler *s, const struct perf_event_header *h)
{
	struct agent_stats *st = &s->win[0].stats;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		handle_sample(s, h);
		break;
	case RECORD_TYPE_SWITCH:
	case RECORD_TYPE_SWITCH_CPU_WIDE:
		if (s->offcpu)
			sampler_offcpu__switch(s, h);
		break;
	case PERF_RECORD_MMAP:
	case RECORD_TYPE_MMAP2: {
		struct perf_record_mmap m;
		uint64_t dev = 0, ino = 0;
		int exec;

		if (perf_record__parse_mmap(&s->layout, h, &m) < 0 || !sampler__wanted(s, m.pid))
			break;
		if (m.has_inode) {
			dev = (uint64_t)makedev(m.maj, m.min);
			ino = m.ino;
		}
		exec = mmap_is_exec(&m);
		proctable__mmap(s->procs, (int)m.pid, m.addr, m.len, m.pgoff, dev, ino, m.filename, exec);
		break;
	}
	case PERF_RECORD_COMM: {
		struct perf_record_comm c;

		/* Before comm_exec (3.16) misc bit 13 of a COMM means nothing, and
		 * exec must be inferred: the process table guesses (-1). */
		if (perf_record__parse_comm(&s->layout, h, &c) == 0 && sampler__wanted(s, c.pid))
			proctable__comm(s->procs, (int)c.pid, (int)c.tid, c.comm,
					s->features.comm_exec.ok ? c.exec : -1);
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct perf_record_task t;

		if (perf_record__parse_task(&s->layout, h, &t) < 0)
			break;
		if (t.is_exit) {
			uint64_t time = t.time ? t.time : s->last_time;

			if (!sampler__wanted(s, t.pid))
				break;
			if (s->offcpu)
				offcpu__exit(s->offcpu, (int)t.tid, time);
			proctable__exit(s->procs, (int)t.pid, (int)t.tid, time);
			if (s->tree)
				tree_exit(s, &t, time);
			break;
		}
		/* a process (or thread) the trees' processes did not create */
		if (s->tree && ptree__fork(s->tree, (int)t.pid, (int)t.ppid,
					   s->batch.recs[s->batch_pos].time) <= 0)
			break;
		/* Without sample_id_all (before 2.6.38) the child's COMM and MMAPs
		 * carry no time and may be ordered before its (timed) FORK from
		 * another CPU's ring: a live entry for the child is then that
		 * same child, not a reused pid, and must not be replaced by a
		 * copy of the parent (pid reuse comes after an EXIT). */
		if (!s->layout.sample_id_all && t.pid != t.ppid) {
			struct process *child = proctable__find(s->procs, (int)t.pid);

			if (child && !process__exited(child))
				break;
		}
		proctable__fork(s->procs, (int)t.pid, (int)t.ppid, (int)t.tid, (int)t.ptid);
		break;
	}
	case PERF_RECORD_LOST: {
		struct perf_record_lost l;

		if (perf_record__parse_lost(&s->layout, h, &l) == 0)
			st->lost += l.lost;
		break;
	}
	case PERF_RECORD_THROTTLE: {
		struct perf_record_throttle t;

		if (perf_record__parse_throttle(&s->layout, h, &t) == 0 && !t.unthrottle)
			st->throttled++;
		break;
	}
	default:
		break;
	}
}

/* Whether a sample comes too late for a bounded recording, now_ns being
 * the clock read just before it (process_available). */
static int past_deadline(struct sampler *s, const struct perf_event_header *h, uint64_t now_ns,
			 uint64_t sample_time)
{
	if (!s->end_ns)
		return 0;
	if (!s->late && now_ns >= s->process_by_ns)
		s->late = 1;
	/* With CLOCK_MONOTONIC sample times, a sample after the end is simply
	 * not part of the recording; an older one is a loss. */
	if (s->features.clockid.ok && sample_time >= s->end_ns)
		return 1;
	if (!s->late)
		return 0;
	drop_unhandled(s, h);
	return 1;
}

/* Whether a record other than a sample comes after the recording's
 * processing deadline: then nothing needs it any more (the samples it
 * would help name are dropped), and a starved agent under a fork storm
 * would otherwise spend its little CPU on process bookkeeping. */
static int past_processing(struct sampler *s, uint64_t now_ns)
{
	if (!s->end_ns)
		return 0;
	if (!s->late && now_ns >= s->process_by_ns)
		s->late = 1;
	return s->late;
}

void sampler__set_deadline(struct sampler *s, uint64_t end_ns, uint64_t process_by_ns)
{
	s->end_ns = end_ns;
	s->process_by_ns = process_by_ns;
	s->late = 0;
}

/* While runtime readers read stacks, every sample wakes the reader, so an
 * interpreter's stack is read within its thread's next few microseconds,
 * not a poll interval later; otherwise the watermark paces the wakeups, as
 * a wakeup a sample would cost every other process. One set is disabled
 * before the other is enabled: a gap of microseconds, never a sample
 * twice.
 *
 * The scheduling policy follows. Woken at every sample under the normal
 * policy at nice -10, the agent preempts the thread it has just sampled:
 * in a recording's first second (eager before any reader is asked), a
 * busy thread sharing its CPU got 58-96 % of the samples perf counted on
 * it in the same run. Under SCHED_BATCH a wakeup never preempts (it waits
 * for an idle CPU or the tick), and the counts agree, but a read then
 * comes up to a tick late: 1.7 ms on average on a saturated host against
 * 40 us, too late for interpreters that change stacks every millisecond.
 * So: batch, but normal while runtimes are read, where the bias remains
 * on a saturated host (doc/decisions.md). */
static void pace_wakeups(struct sampler *s, uint64_t now_ns)
{
	bool readers, want;

	if (!s->eager_events || !s->enabled)
		return;
	readers = runtimes__eager(s->runtimes, now_ns);
	if (s->batch_owned && readers != s->readers_policy) {
		struct sched_param sp = { .sched_priority = 0 };

		if (sched_setscheduler(0, readers ? SCHED_OTHER : SCHED_BATCH, &sp) == 0)
			s->readers_policy = readers;
	}
	want = now_ns < s->eager_until || readers;
	if (want == s->eager)
		return;
	(void)perf_events__disable(want ? s->events : s->eager_events);
	(void)perf_events__enable(want ? s->eager_events : s->events);
	s->eager = want;
}

/* Records other than samples handled between two readings of the clock. */
#define CHEAP_RECORDS 64u

/* Reads of live stacks beyond the copy, in every window so far. */
static uint64_t deep_reads_of(const struct sampler *s)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < s->nwin; i++)
		n += s->win[i].stats.deep_reads;
	return n;
}

/* Reads every ring, orders the records by time, processes them, then gives
 * the ring space back. Records without a time keep the time of the record
 * before them in the same ring, which keeps each ring's own order. */
static void process_available(struct sampler *s)
{
	struct agent_stats *st = &s->win[0].stats;
	uint64_t cutoff = UINT64_MAX, deep_reads = deep_reads_of(s), now = 0;
	unsigned cheap = CHEAP_RECORDS;
	size_t i;

	/* With trees, a child's records must come after the FORK that makes it
	 * a member, which another ring may be taking while this pass reads the
	 * rings one by one: what was written after the pass began waits for the
	 * next one. Sample times must be on CLOCK_MONOTONIC (4.1+); before
	 * that the window is the time it takes to read the rings. */
	if (s->tree && s->features.clockid.ok)
		cutoff = clock__mono_ns();
	batch__clear(&s->batch);
	for (i = 0; i < s->nrings; i++) {
		const struct perf_event_header *h;
		uint64_t t = 0;
		int rc;

		ring__peek_begin(s->rings[i]);
		while ((rc = ring__next(s->rings[i], &h)) != 0) {
			uint64_t rt;

			if (rc < 0) {
				st->corrupt++; /* the ring skipped to its head */
				continue;
			}
			if (perf_record__time(&s->layout, h, &rt) == 0)
				t = rt;
			if (t >= cutoff) {
				ring__unread(s->rings[i], h);
				break;
			}
			if (batch__push(&s->batch, t, h) < 0) {
				if (h->type == PERF_RECORD_SAMPLE)
					drop_unhandled(s, h);
				continue;
			}
		}
	}
	batch__sort(&s->batch);
	for (i = 0; i < s->batch.n; i++) {
		const struct perf_event_header *h = s->batch.recs[i].h;
		bool sample = h->type == PERF_RECORD_SAMPLE;

		if (s->batch.recs[i].time > s->last_time)
			s->last_time = s->batch.recs[i].time;
		s->batch_pos = i;
		/* The clock, for a bounded recording: before each sample (tens
		 * of nanoseconds against an unwind's microseconds, and on a
		 * starved CPU every unwind counts), and every CHEAP_RECORDS of
		 * the others, which take a tenth of a microsecond each: read
		 * for each, it was 42 % of the agent's time on a host switching
		 * 180,000 times a second (off-cpu's switch records) */
		if (s->end_ns && (sample || ++cheap >= CHEAP_RECORDS)) {
			now = clock__mono_ns();
			cheap = 0;
		}
		if (sample ? past_deadline(s, h, now, s->batch.recs[i].time) : past_processing(s, now))
			continue;
		handle_record(s, h);
		/* measured apart from the checks above, so that a check lost
		 * shows as records handled late, whatever the host's pace */
		if (s->end_ns && sample)
			now = clock__mono_ns();
		if (s->end_ns && now >= s->process_by_ns)
			st->handled_late++;
	}
	for (i = 0; i < s->nrings; i++)
		ring__release(s->rings[i]);
	batch__clear(&s->batch);
	proctable__reap(s->procs, s->last_time, EXIT_GRACE_NS);
	if (s->tree)
		ptree__reap(s->tree, s->last_time, EXIT_GRACE_NS);
	{
		/* A stack deeper than the copy is read from the thread after the
		 * sample, and only where the thread has not overwritten it since:
		 * a read a poll interval late found a compiler's stack changed
		 * in a third of its reads. Reading them, the sampler handles
		 * each sample as it comes, as it does for runtime readers. */
		now = clock__mono_ns();
		if (deep_reads_of(s) != deep_reads && now + RUNTIMES_EAGER_HOLD_NS > s->eager_until)
			s->eager_until = now + RUNTIMES_EAGER_HOLD_NS;
		pace_wakeups(s, now);
		sampler_offcpu__pace(s, now);
		if (now - s->last_trim_ns >= TRIM_INTERVAL_NS) {
			s->last_trim_ns = now;
			/* what the freed binaries held (symbol tables, DWARF) goes back
			 * to the system, not only to malloc's free lists */
			runtimes__trim(s->runtimes, now);
			symbolizer__forget_gone(s->sym);
			if (binaries__trim(s->bins, now, BINARY_IDLE_GRACE_NS, BINARY_IDLE_MAX))
				malloc_trim(0);
		}
	}
}

int sampler__poll(struct sampler *s, int timeout_ms)
{
	int rc = poll(s->pfds, s->nrings, timeout_ms);
	size_t i;

	if (rc < 0 && errno != EINTR)
		return -errno;
	/* The events of a task that exited report POLLHUP at every poll from
	 * then on: polling them again would spin. The ring is still read at
	 * every pass (other threads' events may write into it); only its
	 * wakeups are ignored, and with no fd left poll() just sleeps. */
	for (i = 0; rc > 0 && i < s->nrings; i++)
		if (s->pfds[i].fd >= 0 && (s->pfds[i].revents & (POLLHUP | POLLERR)))
			s->pfds[i].fd = -1;
	process_available(s);
	return 0;
}

/* Whether a process of the trees lives: one whose end was not seen and
 * that has a thread that is not a zombie. A process whose EXIT is still in
 * the rings (or was lost) is skipped, not marked: its records up to its
 * real end are still the trees'. */
static int tree_alive(const struct sampler *s)
{
	size_t pos = 0;
	int pid;

	while (ptree__next_alive(s->tree, &pos, &pid))
		if (threads__live_other(pid, 0) > 0)
			return 1;
	return 0;
}

int sampler__targets_alive(struct sampler *s)
{
	size_t i;

	if (s->opts.system_wide)
		return 1;
	if (s->tree) {
		if (tree_alive(s))
			return 1;
		process_available(s);
		return tree_alive(s);
	}
	/* a process lives while it has a thread that is no zombie */
	for (i = 0; i < s->opts.npids; i++)
		if (threads__live_other(s->opts.pids[i], 0) > 0)
			return 1;
	return 0;
}

void sampler__drain(struct sampler *s)
{
	/* a few rounds: processing one batch may take long enough for more to arrive */
	int i;

	for (i = 0; i < 4; i++)
		process_available(s);
}

const struct perf_features *sampler__features(const struct sampler *s) { return &s->features; }
const char *sampler__mode(const struct sampler *s) { return s->mode; }

/* Off-cpu's rate beside a CPU event running at hz: lowered with it. */
static unsigned off_hz_at(const struct sampler *s, unsigned hz)
{
	uint64_t off;

	if (!s->opts.freq_hz)
		return s->off_freq_hz;
	off = (uint64_t)s->off_freq_hz * hz / s->opts.freq_hz;
	return off ? (unsigned)(off < 100000 ? off : 100000) : 1u;
}

unsigned sampler__window_hz(const struct sampler *s, size_t i, unsigned hz)
{
	return i < s->nwin && &s->win[i] == s->off && s->off_events ? off_hz_at(s, hz) : hz;
}

int sampler__set_frequency(struct sampler *s, unsigned hz)
{
	int rc;

	/* off-cpu's events have a fixed period, paced to the rate: alone, it
	 * is hz; beside a CPU event, lowered in the same proportion */
	if (s->off && !s->off_events) {
		sampler_offcpu__set_pace(s, hz);
		return 0;
	}
	if (s->off_events)
		sampler_offcpu__set_pace(s, off_hz_at(s, hz));
	rc = perf_events__set_frequency(s->events, hz);
	if (s->eager_events) {
		int rc2 = perf_events__set_frequency(s->eager_events, hz);

		if (!rc)
			rc = rc2;
	}
	return rc;
}

/* Samples are handled at once for the first moments of a recording: the
 * runtimes among the first samples are found then, and their stacks read
 * as near their samples as the later ones. */
#define EAGER_START_NS 1000000000ull

int sampler__follows_trees(const struct sampler *s, int *why)
{
	*why = s->trees_err;
	if (s->opts.system_wide)
		return -1;
	return s->tree != NULL;
}

int sampler__enable(struct sampler *s)
{
	int rc;

	s->enabled = true;
	/* off-cpu's first look at the switch rates counts from here */
	if (s->noff_paced && !s->off_paced_ns)
		s->off_paced_ns = clock__mono_ns();
	if (s->eager_events && !s->eager) {
		s->eager = true;
		s->eager_until = clock__mono_ns() + EAGER_START_NS;
	}
	rc = perf_events__enable(s->eager ? s->eager_events : s->events);
	if (s->off_events) {
		int rc2 = perf_events__enable(s->off_events);

		if (!rc)
			rc = rc2;
	}
	if (s->tp_events) {
		int rc2 = perf_events__enable(s->tp_events);

		if (!rc)
			rc = rc2;
	}
	/* What the targets started before, read once the events run: a process
	 * forked from then on comes with its FORK record, one forked earlier
	 * is in /proc by now, and is read now like the targets (a short-lived
	 * one may be gone by the time its first samples are handled). */
	if (s->tree && !s->tree_walked) {
		size_t pos = 0;
		int pid;

		s->tree_walked = 1;
		if (ptree__add_descendants(s->tree, "/proc") > 0)
			while (ptree__next_alive(s->tree, &pos, &pid))
				if (!proctable__find(s->procs, pid))
					proctable__seed(s->procs, pid);
	}
	return rc;
}

int sampler__disable(struct sampler *s)
{
	s->enabled = false;
	if (s->eager_events)
		(void)perf_events__disable(s->eager_events);
	if (s->off_events)
		(void)perf_events__disable(s->off_events);
	if (s->tp_events)
		(void)perf_events__disable(s->tp_events);
	return perf_events__disable(s->events);
}
