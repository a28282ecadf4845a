/* Opening the sampler: probing what the kernel supports, choosing the
 * sampling attr, opening one ring per CPU (the events of that CPU write
 * into it), and the parts the loop uses; and closing it all. */
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
#include "common/selfusage.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "profile/agent_stats.h"
#include "profile/frame_name.h"
#include "profile/profile.h"
#include "runtimes/accountant.h"
#include "symbolize/loadbudget.h"
#include "symbolize/symbolizer.h"
#include "unwind/unwind.h"

void sampler__set_error(struct sampler_error *e, int err, int cpu, int pid, const char *what)
{
	e->err = err;
	e->cpu = cpu;
	e->pid = pid;
	snprintf(e->what, sizeof(e->what), "%s", what);
}

static int map_rings(struct sampler *s, size_t pages, struct sampler_error *e)
{
	size_t n = perf_events__count(s->events), i, j;

	s->rings = calloc(n, sizeof(*s->rings));
	s->pfds = calloc(n, sizeof(*s->pfds));
	s->ring_cpu = calloc(n, sizeof(*s->ring_cpu));
	if (!s->rings || !s->pfds || !s->ring_cpu)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		int fd = perf_events__fd(s->events, i), cpu = perf_events__cpu(s->events, i);
		int rc;

		/* an event on a CPU that already has a ring writes into that ring */
		for (j = 0; j < s->nrings; j++)
			if (perf_events__cpu(s->events, (size_t)s->pfds[j].events) == cpu)
				break;
		if (j < s->nrings) {
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring__fd(s->rings[j])) < 0) {
				rc = -errno;
				sampler__set_error(e, rc, cpu, perf_events__pid(s->events, i),
					  "redirecting a perf event into its CPU's ring");
				return rc;
			}
			continue;
		}
		rc = ring__new(fd, pages, &s->rings[s->nrings]);
		if (rc < 0) {
			sampler__set_error(e, rc, cpu, -1, "mapping the perf ring buffer");
			return rc;
		}
		/* remember which event owns the ring until pfds are filled in */
		s->pfds[s->nrings].events = (short)i;
		s->ring_cpu[s->nrings] = cpu;
		s->nrings++;
	}
	for (j = 0; j < s->nrings; j++) {
		s->pfds[j].fd = ring__fd(s->rings[j]);
		s->pfds[j].events = POLLIN;
	}
	return 0;
}

int sampler__open_twin(struct sampler *s, const struct perf_event_attr *attr, struct perf_events **out,
		       struct sampler_error *e, const char *what)
{
	struct perf_open_error oe;
	size_t i, j;
	int rc;

	rc = perf_events__open_like(&s->features, s->events, attr, out, &oe);
	if (rc < 0) {
		if (e)
			sampler__set_error(e, rc, oe.cpu, oe.pid, what);
		return rc;
	}
	for (i = 0; i < perf_events__count(*out); i++) {
		int cpu = perf_events__cpu(*out, i);

		for (j = 0; j < s->nrings && s->ring_cpu[j] != cpu; j++)
			;
		rc = j == s->nrings ? -ENODEV :
		     ioctl(perf_events__fd(*out, i), PERF_EVENT_IOC_SET_OUTPUT, ring__fd(s->rings[j])) < 0
			     ? -errno
			     : 0;
		if (rc < 0) {
			if (e)
				sampler__set_error(e, rc, cpu, perf_events__pid(*out, i), what);
			perf_events__delete(*out);
			*out = NULL;
			return rc;
		}
	}
	return 0;
}

/* The eager twin of the events, writing into the same rings: without it
 * (fds exhausted, a kernel refusing the redirect) samples are read in
 * batches only, as before, and runtime stacks are read later. */
static void open_eager(struct sampler *s, const struct perf_event_attr *attr)
{
	struct perf_event_attr a;

	perf_events__eager_attr(attr, &a);
	(void)sampler__open_twin(s, &a, &s->eager_events, NULL, "");
}

/* A process's image went: its JIT maps and runtime readers go with it. */
static void forget_process(void *ctx, int pid)
{
	struct sampler *s = ctx;

	symbolizer__forget_process(s->sym, pid);
	runtimes__forget(s->runtimes, pid);
}

/* Probes the host and builds the attr of the best mode it supports. */
static int choose_attr(struct sampler *s, struct perf_event_attr *attr, size_t *pages,
		       int *with_kernel, struct sampler_error *e)
{
	const struct sampler_opts *o = &s->opts;
	struct perf_sampling_opts po;
	enum perf_unwind_mode mode;
	const char *cpu_event;
	int rc;

	perf_features__probe(&s->features);
	if (!s->features.open.ok) {
		rc = -(s->features.open.err ? s->features.open.err : EACCES);
		sampler__set_error(e, rc, -1, -1, "perf_event_open");
		return rc;
	}
	perf_sampling_opts__init(&po);
	cpu_event = event_list__cpu(&s->events_asked);
	po.event = !cpu_event ? PERF_EVENT_OFF_CPU :
		   strcmp(cpu_event, "cycles") == 0 ? PERF_EVENT_CYCLES : PERF_EVENT_CPU_CLOCK;
	if (event_list__has(&s->events_asked, "off-cpu") && !s->features.context_switch.ok &&
	    !s->features.sched_switch_tp.ok) {
		rc = -(s->features.sched_switch_tp.err ? s->features.sched_switch_tp.err : ENOTSUP);
		sampler__set_error(e, rc, -1, -1,
				   "off-cpu needs PERF_RECORD_SWITCH (Linux 4.3) or the sched:sched_switch "
				   "tracepoint (tracefs or debugfs mounted)");
		return rc;
	}
	if (o->freq_hz)
		po.freq_hz = o->freq_hz;
	/* off-cpu beside a CPU event: a twin set of events at its own rate */
	if (cpu_event && event_list__has(&s->events_asked, "off-cpu")) {
		s->off_freq_hz = o->off_cpu_freq_hz ? o->off_cpu_freq_hz : po.freq_hz;
		po.off_cpu_freq_hz = s->off_freq_hz;
	}
	/* off-cpu's stacks a second, alone or beside */
	s->off_pace_hz = s->off_freq_hz ? s->off_freq_hz : po.freq_hz;
	if (o->stack_size)
		po.stack_size = o->stack_size;
	rc = perf_events__resolve_mode(&s->features, &po, &mode, with_kernel);
	if (rc < 0) {
		sampler__set_error(e, rc, -1, -1, "choosing the sampling mode");
		return rc;
	}
	po.mode = mode;
	s->mode_dwarf = mode == PERF_MODE_DWARF;
	snprintf(s->mode, sizeof(s->mode), "%s, %s",
		 s->mode_dwarf ? "dwarf unwinding" : "frame pointers",
		 *with_kernel ? "user+kernel" : "user only");
	*pages = perf_events__ring_pages(&s->features, &po);
	rc = perf_events__build_attr(&s->features, &po, *pages, attr);
	if (rc < 0) {
		sampler__set_error(e, rc, -1, -1, "building the perf event attributes");
		return rc;
	}
	rc = perf_record__layout_from_attr(&s->layout, attr);
	if (rc < 0)
		sampler__set_error(e, rc, -1, -1, "decoding the sample layout");
	return rc;
}

/* The targets as process trees: events on every CPU, whose records the loop
 * keeps to the trees' processes. Returns 0, 1 when this host does not allow
 * it (s->trees_err says why: the targets' threads get events instead), or
 * -errno. */
static int open_tree_events(struct sampler *s, const struct perf_event_attr *attr,
			    struct sampler_error *e)
{
	const struct sampler_opts *o = &s->opts;
	struct perf_open_error oe;
	size_t i;
	int rc;

	/* A child's records must be put after the FORK that makes it a member:
	 * side-band records without a time keep only their own ring's order. */
	if (!s->layout.sample_id_all) {
		s->trees_err = EOPNOTSUPP;
		return 1;
	}
	if (s->features.system_wide.probed && !s->features.system_wide.ok) {
		s->trees_err = s->features.system_wide.err ? s->features.system_wide.err : EACCES;
		return 1;
	}
	rc = perf_events__open(&s->features, attr, NULL, 0, &s->events, &oe);
	if (rc == -EACCES || rc == -EPERM) {
		s->trees_err = -rc;
		return 1;
	}
	if (rc < 0) {
		sampler__set_error(e, rc, oe.cpu, oe.pid, oe.call ? oe.call : "perf_event_open");
		return rc;
	}
	s->tree = ptree__new();
	for (i = 0; s->tree && i < o->npids; i++)
		if (ptree__add(s->tree, o->pids[i]) < 0)
			break;
	if (!s->tree || i < o->npids) {
		sampler__set_error(e, -ENOMEM, -1, -1, "allocating the process trees");
		return -ENOMEM;
	}
	return 0;
}

/* The agent sleeps under SCHED_BATCH, and wakes under the normal policy
 * only while runtimes are read (pace_wakeups in sampler.c says why). A
 * policy set from outside (a unit's CPUSchedulingPolicy=) is the
 * operator's and stays. Threads the agent creates later inherit it. */
static bool take_batch_policy(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	return sched_getscheduler(0) == SCHED_OTHER && sched_setscheduler(0, SCHED_BATCH, &sp) == 0;
}

/* The events on every CPU (system-wide, or kept to the targets' trees, or
 * of every thread of the targets), and their rings. */
static int open_events(struct sampler *s, struct perf_event_attr *attr, size_t pages,
		       struct sampler_error *e)
{
	const struct sampler_opts *o = &s->opts;
	struct perf_open_error oe;
	size_t ntids = 0;
	int rc;

	if (o->system_wide) {
		rc = perf_events__open(&s->features, attr, NULL, 0, &s->events, &oe);
	} else {
		rc = open_tree_events(s, attr, e);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			rc = threads__list(o->pids, o->npids, &s->tids, &ntids);
			if (rc < 0) {
				sampler__set_error(e, rc, -1, -1, "listing threads");
				return rc;
			}
			rc = perf_events__open(&s->features, attr, s->tids, ntids, &s->events, &oe);
		}
	}
	if (rc < 0) {
		sampler__set_error(e, rc, oe.cpu, oe.pid, oe.call ? oe.call : "perf_event_open");
		return rc;
	}
	rc = map_rings(s, pages, e);
	/* off-cpu: a thread waiting does not change its stack, so a reader
	 * reads it as well a poll interval later; no twin set */
	if (rc == 0 && !(attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_CONTEXT_SWITCHES))
		open_eager(s, attr);
	s->batch_owned = take_batch_policy();
	return rc;
}

/* What the records feed: names, symbolizer, binaries, processes, profile. */
static int make_model(struct sampler *s, int with_kernel)
{
	const struct sampler_opts *o = &s->opts;
	struct runtimes_opts ro;
	size_t i;

	s->names = strtab__new();
	if (!s->names || symbolizer__new(s->names, o->cache, with_kernel, &s->sym) < 0)
		return -ENOMEM;
	s->bins = binaries__new(s->names);
	if (!s->bins || loadbudget__new(o->debug_max_bytes, o->debug_load_ppm, &s->budget) < 0)
		return -ENOMEM;
	binaries__set_cache(s->bins, o->cache);
	binaries__set_budget(s->bins, s->budget);
	binaries__set_name_detail(s->bins, o->names);
	symbolizer__set_budget(s->sym, s->budget);
	s->procs = proctable__new(s->names, s->bins);
	if (s->procs)
		proctable__keep_thread_names(s->procs, o->group_by_thread);
	s->accountant = accountant__new(NULL, s->names);
	ro.lines = o->lines;
	symbolizer__set_lines(o->lines);
	ro.keep_native = o->keep_native;
	s->runtimes = s->procs && s->accountant ?
		runtimes__new(s->names, s->procs, s->accountant, &s->win[0].stats, &ro) : NULL;
	if (!s->runtimes)
		return -ENOMEM;
	proctable__on_image_gone(s->procs, forget_process, s);
	for (i = 0; i < s->events_asked.n; i++) {
		s->win[i].event = s->events_asked.name[i];
		s->win[i].profile = profile__new(s->names);
		if (!s->win[i].profile)
			return -ENOMEM;
		profile__meta(s->win[i].profile)->mappings = binaries__mappings(s->bins);
		s->nwin++;
	}
	/* user frames with what was inlined at them, the language frames of
	 * runtimes, the kernel's */
	s->stack_cap = 1 + o->max_frames * MAX_FRAMES_PER_PC + RUNTIME_MAX_IDS + MAX_KERNEL_FRAMES;
	s->stack = calloc(s->stack_cap, sizeof(*s->stack));
	if (!s->stack ||
	    user_stack__new(s->procs, s->sym, s->runtimes, s->mode_dwarf, s->layout.regs_user_mask,
			    o->max_frames, s->features.clockid.ok, &s->user) < 0)
		return -ENOMEM;
	return 0;
}

int sampler__new(const struct sampler_opts *o, struct sampler **out, struct sampler_error *e)
{
	struct perf_event_attr attr;
	struct sampler *s;
	size_t pages = 0, i;
	int with_kernel = 0, rc;

	sampler__set_error(e, 0, -1, -1, "");
	s = calloc(1, sizeof(*s));
	if (!s) {
		sampler__set_error(e, -ENOMEM, -1, -1, "allocating the sampler");
		return -ENOMEM;
	}
	s->opts = *o;
	if (!s->opts.max_frames)
		s->opts.max_frames = DEFAULT_MAX_FRAMES;
	rc = event_list__parse(o->event ? o->event : "cpu-clock", &s->events_asked, e->what,
			       sizeof(e->what));
	if (rc < 0) {
		e->err = rc;
		goto out_delete;
	}
	rc = choose_attr(s, &attr, &pages, &with_kernel, e);
	if (rc == 0)
		rc = open_events(s, &attr, pages, e);
	if (rc == 0 && s->off_freq_hz)
		rc = sampler_offcpu__open_twin(s, &attr, e);
	if (rc == 0 && event_list__has(&s->events_asked, "off-cpu") &&
	    perf_events__off_cpu_by_tracepoint(&s->features))
		rc = sampler_offcpu__open_tracepoint(s, &attr, e);
	if (rc < 0)
		goto out_delete;
	rc = make_model(s, with_kernel);
	if (rc < 0) {
		sampler__set_error(e, rc, -1, -1, "allocating the sampler");
		goto out_delete;
	}
	for (i = 0; i < s->nwin; i++)
		if (strcmp(s->win[i].event, "off-cpu") == 0 &&
		    (rc = sampler_offcpu__new(s, &s->win[i], e)) < 0)
			goto out_delete;
	/* System-wide, a process is read from /proc when it first shows up (a
	 * sample, a mapping, a fork), not all of them at start: that was a
	 * third of the start-up (5 reads of /proc per process), for processes
	 * most of which are never sampled. The price: a process that predates
	 * us, is first sampled in its last moments and is gone before the
	 * batch is read (within a poll interval) has no maps left to read, and
	 * those samples lose their user frames. */
	for (i = 0; !o->system_wide && i < o->npids; i++)
		proctable__seed(s->procs, o->pids[i]);
	for (i = s->nwin; i-- > 0;)
		runtimes__start_window(s->runtimes, &s->win[i].stats);
	s->window_cpu_start = selfusage__cpu_ns();
	s->window_load_start = sampler__load_cpu_ns(s);
	s->window_cuts_start = frame_name__cuts();
	*out = s;
	return 0;

out_delete:
	sampler__delete(s);
	return rc;
}

void sampler__delete(struct sampler *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nrings; i++)
		ring__delete(s->rings[i]);
	free(s->rings);
	free(s->pfds);
	free(s->ring_cpu);
	perf_events__delete(s->eager_events);
	perf_events__delete(s->tp_events);
	perf_events__delete(s->off_events);
	perf_events__delete(s->events);
	free(s->off_ids);
	free(s->off_counts);
	free(s->off_periods);
	offcpu__delete(s->offcpu);
	for (i = 0; i < s->nwin; i++)
		profile__delete(s->win[i].profile);
	proctable__delete(s->procs); /* tells the symbolizer and readers what goes */
	runtimes__delete(s->runtimes);
	accountant__delete(s->accountant);
	symbolizer__delete(s->sym);
	binaries__delete(s->bins);
	loadbudget__delete(s->budget);
	strtab__delete(s->names);
	batch__free(&s->batch);
	free(s->stack);
	user_stack__delete(s->user);
	free(s->tids);
	ptree__delete(s->tree);
	free(s);
}
