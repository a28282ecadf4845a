/* perf_event_open: feature probing, sampling attr, ring sizing, per-CPU opening. */
#include "common/fileio.h"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "collector/perf_events.h"
#include "common/parse.h"
#include "unwind/regs.h"

#if !HAVE_DECL_PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)
#endif
#ifndef PERF_ATTR_SIZE_VER0
#define PERF_ATTR_SIZE_VER0 64
#endif

/* Bits of the attr flag word that the kernel 3.10 headers do not name; set
 * through the word so this file builds against them (values from the ABI). */
#define ATTR_BIT_SAMPLE_ID_ALL 18
#define ATTR_BIT_EXCLUDE_CALLCHAIN_USER 22
#define ATTR_BIT_MMAP2 23
#define ATTR_BIT_COMM_EXEC 24
#define ATTR_BIT_USE_CLOCKID 25

/* Bigger than any kernel's attr (the kernel caps attr.size at one page),
 * for asking the kernel its own size. */
#define ATTR_PROBE_BUF 512

#define CPULIST_MAX_CPU (1 << 20)
#define ONLINE_MAX_CPUS 65536

static void attr_set_bit(struct perf_event_attr *a, unsigned bit)
{
	unsigned char *p = (unsigned char *)a + offsetof(struct perf_event_attr, read_format) + 8;
	uint64_t w;

	memcpy(&w, p, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w |= 1ull << (63 - bit); /* GCC allocates bit-fields from the MSB there */
#else
	w |= 1ull << bit;
#endif
	memcpy(p, &w, sizeof(w));
}

/* attr.clockid (4.1) sits where older headers have __reserved_2. */
static void attr_set_clockid(struct perf_event_attr *a, int32_t clk)
{
	memcpy((unsigned char *)a + offsetof(struct perf_event_attr, sample_stack_user) + 4, &clk,
	       sizeof(clk));
}

int perf_events__sys_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
			  unsigned long flags)
{
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);

	if (fd < 0)
		return -errno;
	return (int)fd;
}

/* Opens with O_CLOEXEC semantics whichever way this kernel allows. */
static int open_cloexec(const struct perf_features *f, struct perf_event_attr *a, int pid, int cpu)
{
	int fd;

	if (f->cloexec.ok)
		return perf_events__sys_open(a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	/* Before 3.14: a fork+exec in another thread between these two calls
	 * can leak the fd; nothing better exists there. */
	fd = perf_events__sys_open(a, pid, cpu, -1, 0);
	if (fd >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static void set_feature(struct perf_feature *ft, int rc)
{
	ft->probed = 1;
	ft->ok = rc >= 0;
	ft->err = rc < 0 ? -rc : 0;
}

/* Opens and immediately closes; returns 0 or -errno. */
static int try_open(const struct perf_features *f, struct perf_event_attr *a, int pid, int cpu)
{
	int fd = open_cloexec(f, a, pid, cpu);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static void base_attr(struct perf_event_attr *a, uint32_t size)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = size;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = 10000000;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* An integer sysctl: one optional '-', digits, optional trailing newline. */
static int read_sysctl_long(const char *path, long *out)
{
	char buf[64];
	ssize_t n = fileio__read_small(path, buf, sizeof(buf));
	size_t len;
	long v;

	if (n < 0)
		return (int)n;
	len = (size_t)n;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	if (parse__int(buf, LONG_MIN / 2, LONG_MAX / 2, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

static int read_cap_eff(uint64_t *out)
{
	static const char key[] = "\nCapEff:";
	char buf[8192];
	const char *p, *e;
	ssize_t n = fileio__read_small("/proc/self/status", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	p = strstr(buf, key);
	if (!p)
		return -ENOENT;
	p += sizeof(key) - 1;
	while (*p == '\t' || *p == ' ')
		p++;
	e = p;
	while (*e && *e != '\n')
		e++;
	return parse__u64n(p, (size_t)(e - p), 16, out);
}

int perf_events__paranoid(int *level)
{
	long v;
	int err = read_sysctl_long("/proc/sys/kernel/perf_event_paranoid", &v);

	if (err)
		return err;
	if (v <= INT_MIN || v >= INT_MAX)
		return -ERANGE;
	*level = (int)v;
	return 0;
}

static void probe_host(struct perf_features *f)
{
	struct utsname u;
	long v;
	int *cpus = NULL;
	size_t ncpus = 0;

	if (uname(&u) == 0) {
		size_t len = strnlen(u.release, sizeof(u.release));

		if (len >= sizeof(f->kernel_release))
			len = sizeof(f->kernel_release) - 1;
		memcpy(f->kernel_release, u.release, len);
		f->kernel_release[len] = '\0';
	}
	f->paranoid_known = perf_events__paranoid(&f->paranoid) == 0;
	if (read_sysctl_long("/proc/sys/kernel/kptr_restrict", &v) == 0 && v > INT_MIN &&
	    v < INT_MAX) {
		f->kptr_restrict_known = 1;
		f->kptr_restrict = (int)v;
	}
	if (read_sysctl_long("/proc/sys/kernel/perf_event_mlock_kb", &v) == 0 && v >= 0) {
		f->mlock_kb_known = 1;
		f->mlock_kb = v;
	}
	if (read_cap_eff(&f->cap_eff) == 0)
		f->caps_known = 1;
	if (perf_events__online_cpus(&cpus, &ncpus) == 0 && ncpus > 0) {
		f->ncpus = (int)ncpus;
		f->first_cpu = cpus[0];
	}
	free(cpus);
}

/* Finds the attr size the kernel takes: ours, else the one it writes back
 * with E2BIG (our trailing fields are then not seen by the kernel). */
static int probe_open_and_size(struct perf_features *f)
{
	struct perf_event_attr a;
	uint32_t size = (uint32_t)sizeof(a);
	int rc, tries;

	for (tries = 0; tries < 4; tries++) {
		base_attr(&a, size);
		rc = try_open(f, &a, 0, -1);
		if (rc != -E2BIG)
			break;
		if (a.size < PERF_ATTR_SIZE_VER0 || a.size >= size)
			break;
		size = a.size;
	}
	f->attr_size_used = size;
	set_feature(&f->attr_size, rc);
	set_feature(&f->open, rc);
	return rc;
}

/* Asks the kernel for its own attr size: a non-zero byte beyond every known
 * field makes it answer E2BIG and write its size into attr.size. */
static void probe_kernel_attr_size(struct perf_features *f)
{
	union {
		struct perf_event_attr a;
		unsigned char b[ATTR_PROBE_BUF];
	} u;
	int rc;

	memset(&u, 0, sizeof(u));
	base_attr(&u.a, ATTR_PROBE_BUF);
	u.b[ATTR_PROBE_BUF - 1] = 1;
	rc = try_open(f, &u.a, 0, -1);
	if (rc == -E2BIG && u.a.size >= PERF_ATTR_SIZE_VER0 && u.a.size < ATTR_PROBE_BUF)
		f->attr_size_kernel = u.a.size;
}

void perf_features__probe(struct perf_features *out)
{
	struct perf_sampling_opts o;
	struct perf_event_attr a;
	struct perf_features f;
	int rc;

	memset(&f, 0, sizeof(f));
	f.attr_size_ours = (uint32_t)sizeof(struct perf_event_attr);
	f.mode = PERF_MODE_FRAME_POINTER;
	probe_host(&f);

	/* Before we know whether the flag works, the probes use fcntl. */
	if (probe_open_and_size(&f) < 0) {
		*out = f;
		return;
	}
	probe_kernel_attr_size(&f);

	base_attr(&a, f.attr_size_used);
	{
		struct perf_features tmp = f;

		tmp.cloexec.ok = 1; /* makes try_open pass the flag */
		set_feature(&f.cloexec, try_open(&tmp, &a, 0, -1));
	}

	base_attr(&a, f.attr_size_used);
	attr_set_bit(&a, ATTR_BIT_SAMPLE_ID_ALL);
	a.sample_type |= PERF_SAMPLE_TIME;
	set_feature(&f.sample_id_all, try_open(&f, &a, 0, -1));

	base_attr(&a, f.attr_size_used);
	a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = unwind__perf_regs_mask();
	a.sample_stack_user = 8192;
	set_feature(&f.regs_stack_user, try_open(&f, &a, 0, -1));

	base_attr(&a, f.attr_size_used);
	a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	attr_set_bit(&a, ATTR_BIT_EXCLUDE_CALLCHAIN_USER);
	set_feature(&f.exclude_callchain_user, try_open(&f, &a, 0, -1));

	base_attr(&a, f.attr_size_used);
	a.mmap = 1;
	attr_set_bit(&a, ATTR_BIT_MMAP2);
	set_feature(&f.mmap2, try_open(&f, &a, 0, -1));

	base_attr(&a, f.attr_size_used);
	a.comm = 1;
	attr_set_bit(&a, ATTR_BIT_COMM_EXEC);
	set_feature(&f.comm_exec, try_open(&f, &a, 0, -1));

	base_attr(&a, f.attr_size_used);
	attr_set_bit(&a, ATTR_BIT_USE_CLOCKID);
	attr_set_clockid(&a, CLOCK_MONOTONIC);
	set_feature(&f.clockid, try_open(&f, &a, 0, -1));

	/* Kernel samples and kernel callchains are what paranoid >= 2 forbids. */
	base_attr(&a, f.attr_size_used);
	a.exclude_kernel = 0;
	a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	set_feature(&f.kernel, try_open(&f, &a, 0, -1));

	f.mode = (f.regs_stack_user.ok && f.exclude_callchain_user.ok) ? PERF_MODE_DWARF
								       : PERF_MODE_FRAME_POINTER;
	f.with_kernel = f.kernel.ok;

	if (f.ncpus > 0) {
		base_attr(&a, f.attr_size_used);
		a.exclude_kernel = f.kernel.ok ? 0 : 1;
		set_feature(&f.system_wide, try_open(&f, &a, -1, f.first_cpu));
	}

	perf_sampling_opts__init(&o);
	rc = perf_events__build_attr(&f, &o, PERF_MIN_RING_PAGES, &a);
	if (rc == 0)
		rc = try_open(&f, &a, 0, -1);
	set_feature(&f.sampling_attr, rc);
	*out = f;
}

int perf_features__has_cap(const struct perf_features *f, int cap)
{
	if (!f->caps_known || cap < 0 || cap > 63)
		return 0;
	return (f->cap_eff >> cap) & 1;
}

int perf_features__mlock_unlimited(const struct perf_features *f)
{
	/* The kernel skips the RLIMIT_MEMLOCK check for CAP_IPC_LOCK or when
	 * perf is not paranoid at all. */
	return perf_features__has_cap(f, PERF_CAP_IPC_LOCK) ||
	       (f->paranoid_known && f->paranoid < 0);
}

const char *perf_features__errname(int err)
{
	switch (err) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENFILE: return "ENFILE";
	case EMFILE: return "EMFILE";
	case ENOSPC: return "ENOSPC";
	case ENOSYS: return "ENOSYS";
	case EOVERFLOW: return "EOVERFLOW";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	default: return NULL;
	}
}

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
	return o->event == PERF_EVENT_CPU_CLOCK || o->event == PERF_EVENT_CYCLES;
}

/* Bytes one sample takes in the ring: header and fixed fields, registers,
 * a kernel callchain, and the stack copy (or a user callchain instead). */
static uint64_t sample_bytes(const struct perf_sampling_opts *o, enum perf_unwind_mode m)
{
	return m == PERF_MODE_DWARF ? (uint64_t)o->stack_size + 600 : 1600;
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
	bytes = sample_bytes(o, m) * (uint64_t)o->freq_hz * PERF_RING_SECONDS;
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
	if (o->event == PERF_EVENT_CYCLES) {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
	}
	a.freq = 1;
	a.sample_freq = o->freq_hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	if (m == PERF_MODE_DWARF) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = unwind__perf_regs_mask();
		a.sample_stack_user = o->stack_size;
		/* User frames come from our unwinder; the kernel's frame-pointer
		 * walk of user stacks would only cost ring space. */
		attr_set_bit(&a, ATTR_BIT_EXCLUDE_CALLCHAIN_USER);
	}
	a.disabled = 1; /* enabled once every ring is mapped */
	a.exclude_kernel = with_kernel ? 0 : 1;
	a.exclude_hv = 1;
	a.mmap = 1;
	a.comm = 1;
	a.task = 1;
	if (f->mmap2.ok)
		attr_set_bit(&a, ATTR_BIT_MMAP2);
	if (f->comm_exec.ok)
		attr_set_bit(&a, ATTR_BIT_COMM_EXEC);
	if (f->sample_id_all.ok || !f->sample_id_all.probed)
		attr_set_bit(&a, ATTR_BIT_SAMPLE_ID_ALL);
	if (f->clockid.ok) {
		/* Sample times then compare with clock_gettime(CLOCK_MONOTONIC). */
		attr_set_bit(&a, ATTR_BIT_USE_CLOCKID);
		attr_set_clockid(&a, CLOCK_MONOTONIC);
	}
	/* Wake the reader about once per poll interval instead of per sample;
	 * the reader's own timeout covers rings that fill slower. */
	wm = sample_bytes(o, m) * o->freq_hz * o->poll_interval_ms / 1000;
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

int perf_events__parse_cpulist(const char *s, size_t len, int *cpus, size_t max, size_t *n)
{
	size_t i = 0, count = 0, pass;
	long prev = -1;

	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	if (len == 0)
		return -EINVAL;
	/* Pass 0 validates and counts, pass 1 writes: cpus[] stays untouched
	 * on failure. */
	for (pass = 0; pass < 2; pass++) {
		i = 0;
		count = 0;
		prev = -1;
		while (i < len) {
			uint64_t lo, hi;
			size_t start = i;
			uint64_t c;

			while (i < len && s[i] >= '0' && s[i] <= '9')
				i++;
			if (parse__u64n(s + start, i - start, 10, &lo) || lo >= CPULIST_MAX_CPU)
				return -EINVAL;
			hi = lo;
			if (i < len && s[i] == '-') {
				start = ++i;
				while (i < len && s[i] >= '0' && s[i] <= '9')
					i++;
				if (parse__u64n(s + start, i - start, 10, &hi) ||
				    hi >= CPULIST_MAX_CPU || hi < lo)
					return -EINVAL;
			}
			if ((long)lo <= prev)
				return -EINVAL;
			if (hi - lo + 1 > max - count)
				return -E2BIG;
			for (c = lo; c <= hi; c++) {
				if (pass == 1 && cpus)
					cpus[count] = (int)c;
				count++;
			}
			prev = (long)hi;
			if (i < len) {
				if (s[i] != ',' || i + 1 == len)
					return -EINVAL;
				i++;
			}
		}
	}
	*n = count;
	return 0;
}

int perf_events__online_cpus(int **cpus, size_t *n)
{
	char buf[4096];
	size_t count;
	ssize_t len;
	int *v;
	int rc;

	len = fileio__read_small("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (len < 0)
		return (int)len;
	rc = perf_events__parse_cpulist(buf, (size_t)len, NULL, ONLINE_MAX_CPUS, &count);
	if (rc)
		return rc;
	v = malloc(count * sizeof(*v));
	if (!v)
		return -ENOMEM;
	rc = perf_events__parse_cpulist(buf, (size_t)len, v, count, &count);
	if (rc) {
		free(v);
		return rc;
	}
	*cpus = v;
	*n = count;
	return 0;
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

	rc = perf_events__online_cpus(&cpus, &ncpus);
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
			int fd = open_cloexec(f, &a, pid, cpus[c]);

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
