/* perf_event_open: the sampling attr, ring sizing, per-CPU opening
 * (probing is collector/perf_features.c). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "collector/cpus.h"
#include "collector/perf_attr.h"
#include "collector/perf_events.h"
#include "collector/perf_record.h"
#include "common/fileio.h"
#include "common/parse.h"
#include "unwind/regs.h"

/* 3.12; the 3.10 headers do not name it */
#ifndef PERF_EVENT_IOC_ID
#define PERF_EVENT_IOC_ID _IOR('$', 7, uint64_t *)
#endif

void perf_sampling_opts__init(struct perf_sampling_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->event = PERF_EVENT_CPU_CLOCK;
	o->freq_hz = PERF_DEFAULT_FREQ;
	o->stack_size = PERF_DEFAULT_STACK;
	o->poll_interval_ms = PERF_DEFAULT_POLL_MS;
	o->mode = PERF_MODE_AUTO;
	o->user_only = 0;
}

int perf_events__resolve_mode(const struct perf_features *f, const struct perf_sampling_opts *o,
			      enum perf_unwind_mode *mode, int *with_kernel)
{
	int dwarf_ok = f->regs_stack_user.ok && f->exclude_callchain_user.ok;
	enum perf_unwind_mode m;

	switch (o->mode) {
	case PERF_MODE_AUTO:
		m = dwarf_ok ? PERF_MODE_DWARF : PERF_MODE_FRAME_POINTER;
		break;
	case PERF_MODE_DWARF:
		if (!dwarf_ok)
			return -ENOTSUP;
		m = PERF_MODE_DWARF;
		break;
	case PERF_MODE_FRAME_POINTER:
		m = PERF_MODE_FRAME_POINTER;
		break;
	default:
		return -EINVAL;
	}
	*mode = m;
	*with_kernel = f->kernel.ok && !o->user_only;
	return 0;
}

static int valid_opts(const struct perf_sampling_opts *o)
{
	if (o->freq_hz < 1 || o->freq_hz > 100000)
		return 0;
	if (o->stack_size < 8 || o->stack_size > PERF_MAX_STACK || (o->stack_size & 7))
		return 0;
	if (o->poll_interval_ms < 1 || o->poll_interval_ms > 60000)
		return 0;
	if (o->off_cpu_freq_hz > 100000 || (o->off_cpu_freq_hz && o->event == PERF_EVENT_OFF_CPU))
		return 0;
	return o->event == PERF_EVENT_CPU_CLOCK || o->event == PERF_EVENT_CYCLES ||
	       o->event == PERF_EVENT_OFF_CPU;
}

/* Bytes one sample takes in the ring: header and fixed fields, registers,
 * a kernel callchain, and the stack copy (with the user callchain). */
static uint64_t sample_bytes(const struct perf_sampling_opts *o, enum perf_unwind_mode m)
{
	return m == PERF_MODE_DWARF ? (uint64_t)o->stack_size + 1600 : 1600;
}

/* off-cpu: a switch record (CPU-wide, with its sample_id trailer), and the
 * switches a second a ring is sized for beside its samples: a busy host's
 * CPU. A ring of 2 MiB, sized for samples alone, overflowed in the
 * agent's first half second on a host switching 200,000 times a second. */
#define SWITCH_RECORD_BYTES 64u
#define OFFCPU_RING_SWITCHES 100000u
/* ...or, without switch records, a sched_switch tracepoint sample at
 * every switch: the sample's fixed fields, registers, the raw record */
#define SWITCH_SAMPLE_BYTES 352u

/* Whether off-cpu times waits by the sched_switch tracepoint (no switch
 * records on this kernel). */
static bool by_tracepoint(const struct perf_features *f)
{
	return !f->context_switch.ok && f->sched_switch_tp.ok;
}

static bool off_cpu_possible(const struct perf_features *f)
{
	return f->context_switch.ok || f->sched_switch_tp.ok;
}

/* Off-cpu's stacks: every Nth switch, N guessed when the events open and
 * then set from the switches they counted (sampler_offcpu_pace.c). Not the kernel's frequency
 * mode: its estimate at each tick counts the switches since the last tick
 * as one tick's, and a CPU idle without ticks leaves it a count of many.
 * On a 2-CPU VM it set periods of 20-130 for about 300 switches a second
 * asked at 999 Hz: a thread that waited 100 times in 2 s had none of its
 * waits sampled. */
static void off_cpu_period(struct perf_event_attr *a)
{
	a->freq = 0;
	a->sample_period = 1;
}

/* Bytes a second the events write into a ring. */
static uint64_t ring_rate(const struct perf_features *f, const struct perf_sampling_opts *o,
			  enum perf_unwind_mode m)
{
	uint64_t r = sample_bytes(o, m) * o->freq_hz;

	if (o->event == PERF_EVENT_OFF_CPU || o->off_cpu_freq_hz)
		r += (uint64_t)(by_tracepoint(f) ? SWITCH_SAMPLE_BYTES : SWITCH_RECORD_BYTES) *
		     OFFCPU_RING_SWITCHES;
	if (o->event != PERF_EVENT_OFF_CPU)
		r += sample_bytes(o, m) * o->off_cpu_freq_hz;
	return r;
}

static size_t floor_pow2(size_t v)
{
	size_t p = 1;

	while (p <= v / 2)
		p *= 2;
	return v ? p : 0;
}

size_t perf_events__ring_pages(const struct perf_features *f, const struct perf_sampling_opts *o)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	enum perf_unwind_mode m = PERF_MODE_FRAME_POINTER;
	int with_kernel;
	uint64_t bytes, want;
	size_t pages = 1;

	if (perf_events__resolve_mode(f, o, &m, &with_kernel))
		m = PERF_MODE_FRAME_POINTER;
	/* About PERF_RING_SECONDS of samples, not just one poll interval: the
	 * reader stalls for longer than a poll when it loads a binary's symbols
	 * and CFI for the first time, and whatever does not fit then is lost.
	 * The power of two nearest to that second (0.7 to 1.4 s), so that a
	 * rate just above a power of two does not double the pinned memory
	 * that the kernel clears at every start (999 Hz: 16 MiB per CPU, not
	 * 32). The wakeup watermark (perf_events__build_attr) is at most half
	 * the ring, so the reader is woken with at least a third of a second
	 * of room left. Every factor is bounded (stack <= 65528 + 600,
	 * freq <= 1e5): the product fits in 64 bits. */
	bytes = ring_rate(f, o, m) * PERF_RING_SECONDS;
	want = (bytes + page - 1) / page;
	while (pages < want && pages < PERF_MAX_RING_PAGES)
		pages *= 2;
	/* nearer the power of two below? (pages / 2 < want <= pages) */
	if (pages > 1 && pages >= want && want - pages / 2 < pages - want)
		pages /= 2;
	/* ...but pinned kernel memory for all CPUs together stays bounded */
	if (f->ncpus > 0) {
		uint64_t cap = PERF_MAX_RING_TOTAL / page / (uint64_t)f->ncpus;

		while (pages > 1 && pages > cap)
			pages /= 2;
	}
	if (pages < PERF_MIN_RING_PAGES)
		pages = PERF_MIN_RING_PAGES;
	if (!perf_features__mlock_unlimited(f) && f->mlock_kb_known) {
		/* perf_mmap() allows mlock_kb per online CPU for all of a user's
		 * rings, metadata page included. */
		uint64_t per_ring = (uint64_t)f->mlock_kb * 1024 / page;
		size_t budget = per_ring > 1 ? floor_pow2((size_t)(per_ring - 1)) : 1;

		if (pages > budget)
			pages = budget;
	}
	return pages;
}

int perf_events__build_attr(const struct perf_features *f, const struct perf_sampling_opts *o,
			    size_t data_pages, struct perf_event_attr *out)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	enum perf_unwind_mode m;
	struct perf_event_attr a;
	uint64_t wm, half;
	int with_kernel, rc;

	if (!valid_opts(o) || data_pages == 0)
		return -EINVAL;
	rc = perf_events__resolve_mode(f, o, &m, &with_kernel);
	if (rc)
		return rc;

	memset(&a, 0, sizeof(a));
	a.size = f->attr_size_used ? f->attr_size_used : (uint32_t)sizeof(a);
	if ((o->event == PERF_EVENT_OFF_CPU || o->off_cpu_freq_hz) && !off_cpu_possible(f))
		return -ENOTSUP;
	if (o->event == PERF_EVENT_CYCLES) {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_CPU_CYCLES;
	} else if (o->event == PERF_EVENT_OFF_CPU) {
		/* sampled in the context of the thread going off the CPU:
		 * its user registers and stack are those of its system call;
		 * every switch, sampled or not, gives a switch record, which
		 * times the thread's wait. A fixed period, paced by the
		 * sampler (off_cpu_period below). */
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
		if (!by_tracepoint(f))
			perf_attr__set_bit(&a, ATTR_BIT_CONTEXT_SWITCH);
	} else {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
	}
	if (o->event == PERF_EVENT_OFF_CPU) {
		off_cpu_period(&a);
	} else {
		a.freq = 1;
		a.sample_freq = o->freq_hz;
	}
	/* No PERF_SAMPLE_PERIOD: a sample counts one (off-cpu weighs its
	 * stacks by time), and with it a software event of fixed period
	 * makes every event a sample (perf_swevent_event). */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_CALLCHAIN;
	/* beside off-cpu, whose twin writes into the same rings: each sample
	 * says whose it is (PERF_SAMPLE_ID: every kernel has it) */
	if (o->off_cpu_freq_hz)
		a.sample_type |= PERF_SAMPLE_ID;
	/* off-cpu by the tracepoint, whose samples write into the same rings:
	 * every event's samples carry a raw record (4 zero bytes but the
	 * tracepoint's) */
	if ((o->event == PERF_EVENT_OFF_CPU || o->off_cpu_freq_hz) && by_tracepoint(f))
		a.sample_type |= PERF_SAMPLE_RAW;
	if (m == PERF_MODE_DWARF) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = unwind__perf_regs_mask();
		a.sample_stack_user = o->stack_size;
		/* User frames come from our unwinder. The kernel's frame-pointer
		 * walk of the user stack is kept beside them: taken at the
		 * sample, it is what proves memory the copy does not hold (a
		 * Go thread's g0 stack continues on its goroutine's, which
		 * runtimes/gojoin.h joins by it; doc/decisions.md). */
	}
	a.disabled = 1; /* enabled once every ring is mapped */
	a.exclude_kernel = with_kernel ? 0 : 1;
	a.exclude_hv = 1;
	a.mmap = 1;
	a.comm = 1;
	a.task = 1;
	if (f->mmap2.ok)
		perf_attr__set_bit(&a, ATTR_BIT_MMAP2);
	if (f->comm_exec.ok)
		perf_attr__set_bit(&a, ATTR_BIT_COMM_EXEC);
	if (f->sample_id_all.ok || !f->sample_id_all.probed)
		perf_attr__set_bit(&a, ATTR_BIT_SAMPLE_ID_ALL);
	if (f->clockid.ok) {
		/* Sample times then compare with clock_gettime(CLOCK_MONOTONIC). */
		perf_attr__set_bit(&a, ATTR_BIT_USE_CLOCKID);
		perf_attr__set_clockid(&a, CLOCK_MONOTONIC);
	}
	/* Wake the reader about once per poll interval instead of per sample;
	 * the reader's own timeout covers rings that fill slower. */
	wm = ring_rate(f, o, m) * o->poll_interval_ms / 1000;
	half = (uint64_t)data_pages * page / 2;
	if (wm > half)
		wm = half;
	if (wm < page)
		wm = page;
	if (wm > UINT32_MAX)
		wm = UINT32_MAX;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)wm;
	*out = a;
	return 0;
}

/* A twin set of events into rings whose events already report mappings,
 * names and forks: once is enough. */
static void no_side_band(struct perf_event_attr *a)
{
	a->mmap = 0;
	a->comm = 0;
	a->task = 0;
	perf_attr__clear_bit(a, ATTR_BIT_MMAP2);
	perf_attr__clear_bit(a, ATTR_BIT_COMM_EXEC);
}

int perf_events__off_cpu_attr(const struct perf_features *f, const struct perf_event_attr *attr,
			      unsigned hz, struct perf_event_attr *out)
{
	struct perf_event_attr a = *attr;

	if (!off_cpu_possible(f))
		return -ENOTSUP;
	if (!(a.sample_type & PERF_SAMPLE_ID) || hz < 1 || hz > 100000)
		return -EINVAL;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	off_cpu_period(&a);
	/* its id read back where PERF_EVENT_IOC_ID (3.12) is missing */
	a.read_format = PERF_FORMAT_ID;
	no_side_band(&a);
	if (!by_tracepoint(f))
		perf_attr__set_bit(&a, ATTR_BIT_CONTEXT_SWITCH);
	*out = a;
	return 0;
}

int perf_events__sched_switch_attr(const struct perf_features *f, const struct perf_event_attr *attr,
				   struct perf_event_attr *out)
{
	struct perf_event_attr a = *attr;

	if (!by_tracepoint(f))
		return -ENOTSUP;
	if (!(a.sample_type & PERF_SAMPLE_RAW))
		return -EINVAL;
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = f->sched_switch.id;
	/* every switch: its time is the wait's bound */
	a.freq = 0;
	a.sample_period = 1;
	/* no stack and no callchain: what is read at each of 10^5 switches a
	 * second is the raw record; the stacks are the sampled event's */
	a.sample_stack_user = 0;
	if (f->exclude_callchain_user.ok) {
		perf_attr__set_bit(&a, ATTR_BIT_EXCLUDE_CALLCHAIN_USER);
		perf_attr__set_bit(&a, ATTR_BIT_EXCLUDE_CALLCHAIN_KERNEL);
	}
	/* a tracepoint fires in the kernel: excluding it would exclude all */
	a.exclude_kernel = 0;
	no_side_band(&a);
	perf_attr__clear_bit(&a, ATTR_BIT_CONTEXT_SWITCH);
	*out = a;
	return 0;
}

bool perf_events__off_cpu_by_tracepoint(const struct perf_features *f)
{
	return by_tracepoint(f);
}

void perf_events__probe_attr(struct perf_features *f)
{
	struct perf_sampling_opts o;
	struct perf_event_attr a;
	int rc, fd;

	perf_sampling_opts__init(&o);
	rc = perf_events__build_attr(f, &o, PERF_MIN_RING_PAGES, &a);
	if (rc == 0) {
		fd = perf_attr__open_cloexec(f->cloexec.ok, &a, 0, -1);
		rc = fd < 0 ? fd : 0;
		if (fd >= 0)
			close(fd);
	}
	f->sampling_attr.probed = 1;
	f->sampling_attr.ok = rc == 0;
	f->sampling_attr.err = rc < 0 ? -rc : 0;
}

struct perf_event_fd {
	int fd;
	int cpu;
	int pid;
};

struct perf_events {
	size_t n;
	struct perf_event_fd *ev;
	/* what the events count, for perf_events__set_frequency */
	uint32_t type;
	uint64_t config;
};

static void set_error(struct perf_open_error *e, int err, int cpu, int pid, const char *call)
{
	if (!e)
		return;
	e->err = err;
	e->cpu = cpu;
	e->pid = pid;
	e->call = call;
}

int perf_events__open(const struct perf_features *f, const struct perf_event_attr *attr,
		      const int *pids, size_t npids, struct perf_events **out,
		      struct perf_open_error *err)
{
	struct perf_event_attr a = *attr;
	struct perf_events *ev;
	size_t ncpus = 0, p, c, total;
	int *cpus = NULL;
	int rc;

	rc = cpus__online(&cpus, &ncpus);
	if (rc) {
		set_error(err, -rc, -1, -1, "read /sys/devices/system/cpu/online");
		return rc;
	}
	if (npids > 0 && !pids) {
		rc = -EINVAL;
		set_error(err, EINVAL, -1, -1, "perf_events__open");
		goto out_free_cpus;
	}
	total = npids ? npids : 1;
	if (ncpus == 0 || total > SIZE_MAX / ncpus / sizeof(struct perf_event_fd)) {
		rc = -EINVAL;
		set_error(err, EINVAL, -1, -1, "perf_events__open");
		goto out_free_cpus;
	}
	ev = calloc(1, sizeof(*ev));
	if (!ev) {
		rc = -ENOMEM;
		set_error(err, ENOMEM, -1, -1, "calloc");
		goto out_free_cpus;
	}
	ev->type = attr->type;
	ev->config = attr->config;
	ev->ev = calloc(total * ncpus, sizeof(*ev->ev));
	if (!ev->ev) {
		rc = -ENOMEM;
		set_error(err, ENOMEM, -1, -1, "calloc");
		goto out_delete;
	}
	/* Per-task events that follow children (inherit) still need one event
	 * per CPU: each gets its own ring and no CPU contends on another's. */
	a.inherit = npids > 0 ? 1 : 0;
	for (p = 0; p < total; p++) {
		int pid = npids ? pids[p] : -1;

		for (c = 0; c < ncpus; c++) {
			int fd = perf_attr__open_cloexec(f->cloexec.ok, &a, pid, cpus[c]);

			/* A CPU that went offline since we read the list. */
			if (fd == -ENODEV && npids == 0)
				continue;
			/* A thread that exited since it was listed: the others
			 * are still worth sampling. */
			if (fd == -ESRCH && npids > 0) {
				set_error(err, ESRCH, cpus[c], pid, "perf_event_open");
				break;
			}
			if (fd < 0) {
				rc = fd;
				set_error(err, -fd, cpus[c], pid, "perf_event_open");
				goto out_delete;
			}
			ev->ev[ev->n].fd = fd;
			ev->ev[ev->n].cpu = cpus[c];
			ev->ev[ev->n].pid = pid;
			ev->n++;
		}
	}
	if (ev->n == 0) {
		rc = npids ? -ESRCH : -ENODEV;
		if (!npids)
			set_error(err, ENODEV, -1, -1, "perf_event_open");
		goto out_delete;
	}
	free(cpus);
	*out = ev;
	return 0;

out_delete:
	perf_events__delete(ev);
out_free_cpus:
	free(cpus);
	return rc;
}

int perf_events__open_like(const struct perf_features *f, const struct perf_events *like,
			   const struct perf_event_attr *attr, struct perf_events **out,
			   struct perf_open_error *err)
{
	struct perf_event_attr a = *attr;
	struct perf_events *ev = calloc(1, sizeof(*ev));
	size_t i;
	int rc;

	if (!ev || !(ev->ev = calloc(like->n ? like->n : 1, sizeof(*ev->ev)))) {
		set_error(err, ENOMEM, -1, -1, "calloc");
		free(ev);
		return -ENOMEM;
	}
	ev->type = attr->type;
	ev->config = attr->config;
	for (i = 0; i < like->n; i++) {
		int fd;

		a.inherit = like->ev[i].pid >= 0 ? 1 : 0;
		fd = perf_attr__open_cloexec(f->cloexec.ok, &a, like->ev[i].pid, like->ev[i].cpu);
		if (fd == -ESRCH || (fd == -ENODEV && like->ev[i].pid < 0))
			continue;
		if (fd < 0) {
			rc = fd;
			set_error(err, -fd, like->ev[i].cpu, like->ev[i].pid, "perf_event_open");
			perf_events__delete(ev);
			return rc;
		}
		ev->ev[ev->n].fd = fd;
		ev->ev[ev->n].cpu = like->ev[i].cpu;
		ev->ev[ev->n].pid = like->ev[i].pid;
		ev->n++;
	}
	*out = ev;
	return 0;
}

void perf_events__eager_attr(const struct perf_event_attr *attr, struct perf_event_attr *out)
{
	*out = *attr;
	out->watermark = 0;
	out->wakeup_events = 1;
	/* An idle CPU's cpu-clock samples are the idle task's: dropped
	 * unread, yet each would wake the reader. On a host with one
	 * interpreter busy and a CPU idle, they were half its wakeups. The
	 * hrtimer honours exclude_idle on every kernel; hardware events do
	 * not sample a halted CPU, and some PMUs refuse the bit. */
	if (out->type == PERF_TYPE_SOFTWARE && out->config == PERF_COUNT_SW_CPU_CLOCK)
		out->exclude_idle = 1;
}

void perf_events__delete(struct perf_events *ev)
{
	size_t i;

	if (!ev)
		return;
	for (i = 0; ev->ev && i < ev->n; i++)
		close(ev->ev[i].fd);
	free(ev->ev);
	free(ev);
}

size_t perf_events__count(const struct perf_events *ev)
{
	return ev->n;
}

int perf_events__fd(const struct perf_events *ev, size_t i)
{
	return i < ev->n ? ev->ev[i].fd : -1;
}

int perf_events__cpu(const struct perf_events *ev, size_t i)
{
	return i < ev->n ? ev->ev[i].cpu : -1;
}

int perf_events__pid(const struct perf_events *ev, size_t i)
{
	return i < ev->n ? ev->ev[i].pid : -1;
}

int perf_events__id(const struct perf_events *ev, size_t i, uint64_t *id)
{
	uint64_t v[2];
	ssize_t n;

	if (i >= ev->n)
		return -EINVAL;
	if (ioctl(ev->ev[i].fd, PERF_EVENT_IOC_ID, id) == 0)
		return 0;
	/* before 3.12: the count and the id, read_format being PERF_FORMAT_ID */
	n = read(ev->ev[i].fd, v, sizeof(v));
	if (n != (ssize_t)sizeof(v))
		return n < 0 ? -errno : -EINVAL;
	*id = v[1];
	return 0;
}

static int ioctl_all(struct perf_events *ev, unsigned long req)
{
	int first = 0;
	size_t i;

	for (i = 0; i < ev->n; i++)
		if (ioctl(ev->ev[i].fd, req, 0) < 0 && !first)
			first = -errno;
	return first;
}

int perf_events__enable(struct perf_events *ev)
{
	return ioctl_all(ev, PERF_EVENT_IOC_ENABLE);
}

int perf_events__disable(struct perf_events *ev)
{
	return ioctl_all(ev, PERF_EVENT_IOC_DISABLE);
}

int perf_events__set_frequency(struct perf_events *ev, unsigned hz)
{
	/* PERF_EVENT_IOC_PERIOD takes a frequency for events in frequency mode,
	 * but the kernel's hrtimer-based software clocks (cpu-clock, task-clock)
	 * turn frequency mode into a fixed period in ns when created and clear
	 * attr.freq: for them the value is a period. */
	int hrtimer = ev->type == PERF_TYPE_SOFTWARE &&
		      (ev->config == PERF_COUNT_SW_CPU_CLOCK || ev->config == PERF_COUNT_SW_TASK_CLOCK);
	uint64_t v;
	int first = 0;
	size_t i;

	if (hz == 0)
		return -EINVAL;
	v = hrtimer ? 1000000000ull / hz : hz;
	for (i = 0; i < ev->n; i++)
		if (ioctl(ev->ev[i].fd, PERF_EVENT_IOC_PERIOD, &v) < 0 && !first)
			first = -errno;
	return first;
}

int perf_events__read_count(const struct perf_events *ev, size_t i, uint64_t *count)
{
	uint64_t v[4];
	ssize_t n;

	if (i >= ev->n)
		return -EINVAL;
	n = read(ev->ev[i].fd, v, sizeof(v));
	if (n < (ssize_t)sizeof(v[0]))
		return n < 0 ? -errno : -EIO;
	*count = v[0];
	return 0;
}

int perf_events__set_period(struct perf_events *ev, size_t i, uint64_t period)
{
	if (i >= ev->n || period == 0)
		return -EINVAL;
	return ioctl(ev->ev[i].fd, PERF_EVENT_IOC_PERIOD, &period) < 0 ? -errno : 0;
}
