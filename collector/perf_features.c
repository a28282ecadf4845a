/* What this kernel and this process allow of perf_event_open, probed once
 * at start by opening and closing test events. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "collector/cpus.h"
#include "collector/perf_attr.h"
#include "collector/perf_features.h"
#include "common/fileio.h"
#include "common/parse.h"
#include "unwind/regs.h"

/* Bigger than any kernel's attr (the kernel caps attr.size at one page),
 * for asking the kernel its own size. */
#define ATTR_PROBE_BUF 512

static void set_feature(struct perf_feature *ft, int rc)
{
	ft->probed = 1;
	ft->ok = rc >= 0;
	ft->err = rc < 0 ? -rc : 0;
}

/* Opens and immediately closes; returns 0 or -errno. */
static int try_open(const struct perf_features *f, struct perf_event_attr *a, int pid, int cpu)
{
	int fd = perf_attr__open_cloexec(f->cloexec.ok, a, pid, cpu);

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

/* The tracepoint off-cpu times waits by where the kernel writes no switch
 * records: found in tracefs or debugfs, and opened on this thread with its
 * raw record (a tracepoint fires in the kernel: exclude_kernel would never
 * let it). */
static void probe_sched_switch(struct perf_features *f)
{
	struct perf_event_attr a;
	int rc = sched_switch__find("", &f->sched_switch);

	if (rc == 0) {
		base_attr(&a, f->attr_size_used);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = f->sched_switch.id;
		a.sample_period = 1;
		a.sample_type |= PERF_SAMPLE_RAW;
		a.exclude_kernel = 0;
		rc = try_open(f, &a, 0, -1);
	}
	set_feature(&f->sched_switch_tp, rc);
}

int perf_features__paranoid(int *level)
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
	f->paranoid_known = perf_features__paranoid(&f->paranoid) == 0;
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
	if (cpus__online(&cpus, &ncpus) == 0 && ncpus > 0) {
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
	struct perf_event_attr a;
	struct perf_features f;

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
	perf_attr__set_bit(&a, ATTR_BIT_SAMPLE_ID_ALL);
	a.sample_type |= PERF_SAMPLE_TIME;
	set_feature(&f.sample_id_all, try_open(&f, &a, 0, -1));

	base_attr(&a, f.attr_size_used);
	a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = unwind__perf_regs_mask();
	a.sample_stack_user = 8192;
	set_feature(&f.regs_stack_user, try_open(&f, &a, 0, -1));

	base_attr(&a, f.attr_size_used);
	a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	perf_attr__set_bit(&a, ATTR_BIT_EXCLUDE_CALLCHAIN_USER);
	set_feature(&f.exclude_callchain_user, try_open(&f, &a, 0, -1));

	base_attr(&a, f.attr_size_used);
	a.mmap = 1;
	perf_attr__set_bit(&a, ATTR_BIT_MMAP2);
	set_feature(&f.mmap2, try_open(&f, &a, 0, -1));

	base_attr(&a, f.attr_size_used);
	a.comm = 1;
	perf_attr__set_bit(&a, ATTR_BIT_COMM_EXEC);
	set_feature(&f.comm_exec, try_open(&f, &a, 0, -1));

	base_attr(&a, f.attr_size_used);
	perf_attr__set_bit(&a, ATTR_BIT_USE_CLOCKID);
	perf_attr__set_clockid(&a, CLOCK_MONOTONIC);
	set_feature(&f.clockid, try_open(&f, &a, 0, -1));

	/* what the off-cpu event times a thread's waits by */
	base_attr(&a, f.attr_size_used);
	perf_attr__set_bit(&a, ATTR_BIT_CONTEXT_SWITCH);
	set_feature(&f.context_switch, try_open(&f, &a, 0, -1));

	probe_sched_switch(&f);

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
