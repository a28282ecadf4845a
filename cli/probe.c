/* `smolder probe`: what this host's perf_event supports, which mode smolder will use, and why. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "collector/perf_events.h"
#include "collector/runtimes.h"
#include "common/fileio.h"
#include "common/log.h"
#include "runtimes/accountant.h"
#include "symbolize/loadbudget.h"
#include "symbolize/debuginfod_fetch.h"
#include "symbolize/demangle.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: smolder probe\n"
		     "\n"
		     "Prints what this host's perf_event subsystem supports (kernel, sysctls,\n"
		     "capabilities, each perf_event_open feature), the sampling mode smolder\n"
		     "will use and why, and the budgets that bound what each user's processes\n"
		     "can make the agent do. Exit status: 0 usable, 1 perf_event_open unusable,\n"
		     "2 usage error.\n");
}

static const char *paranoid_meaning(int p)
{
	if (p <= -1)
		return "no restrictions";
	if (p == 0)
		return "unprivileged users may profile the kernel and all CPUs";
	if (p == 1)
		return "unprivileged users: own processes, user and kernel; not system-wide";
	if (p == 2)
		return "unprivileged users: own processes, user space only";
	return "perf_event_open denied to unprivileged users (distribution patch)";
}

/* What each user's processes may make the agent do (runtimes/accountant.h,
 * symbolize/loadbudget.h): what a local user can cost the host's profile. */
static void print_budgets(void)
{
	printf("\nbudgets (each user but root; root's processes are bounded per process):\n");
	printf("  %-26s %u a second a process, %u a user\n", "runtime reads:",
	       ACCOUNTANT_PROCESS_READS_PER_SEC, ACCOUNTANT_USER_READS_PER_SEC);
	printf("  %-26s %llu ms a second a user, %llu ms all users together\n", "runtime reader time:",
	       ACCOUNTANT_USER_CPU_NS_PER_SEC / 1000000ull, ACCOUNTANT_USERS_CPU_NS_PER_SEC / 1000000ull);
	printf("  %-26s %u a user, each closed after %llu s unused\n", "runtime readers open:",
	       ACCOUNTANT_USER_READERS, RUNTIMES_IDLE_NS / 1000000000ull);
	printf("  %-26s %u names and %u MiB a user a window, then \"%s\"\n", "language frame names:",
	       ACCOUNTANT_USER_NAMES_PER_WINDOW, ACCOUNTANT_USER_NAME_BYTES_PER_WINDOW >> 20,
	       ACCOUNTANT_NAMES_MARKER);
	printf("  %-26s %llu MiB in all, a quarter a user (load_max_size)\n", "debug data, JIT names:",
	       LOADBUDGET_DEFAULT_BYTES >> 20);
	printf("  %-26s %.1f%% of a CPU, a quarter a user (load_cpu_budget)\n", "loading them:",
	       LOADBUDGET_DEFAULT_LOAD_PPM / 10000.0);
	printf("  reader and load time never lower the sampling rate (cpu_budget counts\n"
	       "  sampling only); the names in the load lines are configuration keys\n");
}

/* "EINVAL" or "errno 123" into buf. */
static const char *errname(int err, char *buf, size_t size)
{
	const char *n = perf_features__errname(err);

	if (n)
		return n;
	snprintf(buf, size, "errno %d", err);
	return buf;
}

static void feature_line(const char *name, const struct perf_feature *ft, const char *yes_note,
			 const char *no_note)
{
	char eb[32];

	if (!ft->probed) {
		printf("  %-28s %-4s %s\n", name, "-", "not probed");
		return;
	}
	if (ft->ok)
		printf("  %-28s %-4s %s\n", name, "yes", yes_note ? yes_note : "");
	else
		printf("  %-28s %-4s %s: %s\n", name, "no", errname(ft->err, eb, sizeof(eb)),
		       no_note ? no_note : strerror(ft->err));
}

/* Whether /proc/kallsyms shows real addresses to us: with kptr_restrict they
 * read as zeros and kernel frames can only be reported as [kernel]. */
static int kallsyms_visible(void)
{
	char buf[128];
	ssize_t n = fileio__read_small("/proc/kallsyms", buf, sizeof(buf));
	int i;

	if (n <= 0)
		return 0;
	for (i = 0; i < n && buf[i] != ' '; i++)
		if (buf[i] != '0')
			return 1;
	return 0;
}

static void print_caps(const struct perf_features *f)
{
	static const struct {
		int cap;
		const char *name;
	} caps[] = {
		{ PERF_CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
		{ PERF_CAP_PERFMON, "CAP_PERFMON" },
		{ PERF_CAP_SYS_PTRACE, "CAP_SYS_PTRACE" },
		{ PERF_CAP_DAC_READ_SEARCH, "CAP_DAC_READ_SEARCH" },
		{ PERF_CAP_IPC_LOCK, "CAP_IPC_LOCK" },
	};
	size_t i;
	int any = 0;

	printf("%-24s", "capabilities:");
	if (!f->caps_known) {
		printf("unknown (CapEff not readable)\n");
		return;
	}
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		if (perf_features__has_cap(f, caps[i].cap)) {
			printf("%s%s", any ? " " : "", caps[i].name);
			any = 1;
		}
	}
	printf("%s(CapEff %016llx)\n", any ? " " : "none of the relevant ones ",
	       (unsigned long long)f->cap_eff);
}

static void print_host(const struct perf_features *f)
{
	printf("%-24s%s\n", "kernel:", f->kernel_release[0] ? f->kernel_release : "unknown");
	if (f->paranoid_known)
		printf("%-24s%d (%s)\n", "perf_event_paranoid:", f->paranoid,
		       paranoid_meaning(f->paranoid));
	else
		printf("%-24s%s\n", "perf_event_paranoid:", "unreadable (no perf_event support?)");
	if (f->kptr_restrict_known)
		printf("%-24s%d (%s)\n", "kptr_restrict:", f->kptr_restrict,
		       kallsyms_visible() ? "kernel symbol addresses visible to us"
					  : "kernel addresses hidden: kernel frames shown as [kernel]");
	else
		printf("%-24s%s\n", "kptr_restrict:", "unreadable");
	if (f->mlock_kb_known)
		printf("%-24s%ld (%s)\n", "perf_event_mlock_kb:", f->mlock_kb,
		       perf_features__mlock_unlimited(f)
			       ? "not applied to us: CAP_IPC_LOCK or paranoid -1"
			       : "ring memory per CPU for this user, metadata page included");
	else
		printf("%-24s%s\n", "perf_event_mlock_kb:", "unreadable");
	print_caps(f);
	if (f->ncpus > 0)
		printf("%-24s%d\n", "online CPUs:", f->ncpus);
	else
		printf("%-24s%s\n", "online CPUs:", "unknown (/sys/devices/system/cpu/online)");
}

static int privileged(const struct perf_features *f)
{
	return perf_features__has_cap(f, PERF_CAP_SYS_ADMIN) ||
	       perf_features__has_cap(f, PERF_CAP_PERFMON);
}

static void print_features(const struct perf_features *f)
{
	char note[160];

	printf("\nfeatures:\n");
	feature_line("perf_event_open", &f->open, "software cpu-clock event on this thread", NULL);
	if (f->attr_size_kernel)
		snprintf(note, sizeof(note), "%u bytes accepted (ours %u, the kernel's %u)",
			 f->attr_size_used, f->attr_size_ours, f->attr_size_kernel);
	else
		snprintf(note, sizeof(note), "%u bytes accepted (ours %u)", f->attr_size_used,
			 f->attr_size_ours);
	feature_line("perf_event_attr size", &f->attr_size, note, NULL);
	feature_line("PERF_FLAG_FD_CLOEXEC", &f->cloexec, NULL,
		     "kernel < 3.14; using fcntl(FD_CLOEXEC) after open");
	feature_line("sample_id_all", &f->sample_id_all, "side-band records carry time/cpu",
		     "kernel < 2.6.38; side-band records keep their ring's order only");
	feature_line("REGS_USER/STACK_USER", &f->regs_stack_user,
		     "user registers and stack copies (DWARF unwinding)",
		     "kernel < 3.7 or arch without user stack dumps");
	feature_line("exclude_callchain_user", &f->exclude_callchain_user,
		     "kernel skips its frame-pointer walk of user stacks", "kernel < 3.7");
	feature_line("MMAP2", &f->mmap2, "mappings carry device/inode",
		     "kernel < 3.16; plain MMAP records + /proc/PID/maps");
	feature_line("comm_exec", &f->comm_exec, "exec is flagged in COMM records",
		     "kernel < 3.16; exec inferred from /proc/PID/exe on a main thread's COMM");
	feature_line("use_clockid (MONOTONIC)", &f->clockid,
		     "sample times comparable with clock_gettime",
		     "kernel < 4.1; perf clock timestamps");
	feature_line("context_switch (SWITCH)", &f->context_switch,
		     "`--event off-cpu` times threads' waits by switch records",
		     "kernel < 4.3: `--event off-cpu` times waits by the sched_switch tracepoint "
		     "where it can (next line)");
	snprintf(note, sizeof(note), "id %llu in %s%s", (unsigned long long)f->sched_switch.id,
		 f->sched_switch.dir,
		 f->context_switch.ok ? " (not needed: switch records are used)"
				      : ": `--event off-cpu` times waits by it (events on every CPU)");
	feature_line("sched_switch tracepoint", &f->sched_switch_tp, note,
		     f->sched_switch_tp.err == ENOENT
			     ? "no tracefs or debugfs mounted (/sys/kernel/tracing, "
			       "/sys/kernel/debug/tracing), or no such tracepoint"
		     : f->sched_switch_tp.err == EACCES || f->sched_switch_tp.err == EPERM
			     ? "not permitted (tracing directories are root's; raw tracepoint "
			       "records need perf_event_paranoid -1 or CAP_PERFMON/CAP_SYS_ADMIN)"
			     : NULL);
	if (f->kernel.probed && !f->kernel.ok && (f->kernel.err == EACCES || f->kernel.err == EPERM))
		snprintf(note, sizeof(note),
			 "not permitted (perf_event_paranoid %d without CAP_PERFMON/CAP_SYS_ADMIN)",
			 f->paranoid);
	else
		snprintf(note, sizeof(note), "%s", "kernel refused kernel sampling");
	feature_line("kernel samples/callchains", &f->kernel, "kernel frames are sampled", note);
	feature_line("system-wide (pid -1, cpu N)", &f->system_wide,
		     "`record -a` and `run` work; `record -p`/`--` follow process trees",
		     "system-wide needs perf_event_paranoid <= 0 or CAP_PERFMON/CAP_SYS_ADMIN");
	feature_line("sampling attr (defaults)", &f->sampling_attr,
		     "the attr smolder will use opens on this thread", NULL);
}

static void print_mode(const struct perf_features *f)
{
	struct perf_sampling_opts o;
	char eb[32];
	size_t pages;
	long page = sysconf(_SC_PAGESIZE);

	printf("\nmode: %s (%s)\n",
	       f->mode == PERF_MODE_DWARF ? "dwarf unwinding" : "frame-pointer unwinding",
	       f->with_kernel ? "user+kernel" : "user only");
	if (f->mode == PERF_MODE_DWARF)
		printf("  why: REGS_USER/STACK_USER and exclude_callchain_user work: each sample\n"
		       "       copies the user stack and smolder unwinds it with DWARF CFI\n");
	else
		printf("  why: %s unavailable (%s): user frames come from the kernel's\n"
		       "       frame-pointer callchain; code built without frame pointers gives\n"
		       "       short stacks\n",
		       f->regs_stack_user.ok ? "exclude_callchain_user" : "REGS_USER/STACK_USER",
		       errname(f->regs_stack_user.ok ? f->exclude_callchain_user.err
						     : f->regs_stack_user.err,
			       eb, sizeof(eb)));
	if (f->with_kernel)
		printf("  kernel: sampled%s\n",
		       kallsyms_visible() ? "" : ", but reported as [kernel] (addresses hidden)");
	else
		printf("  kernel: excluded (exclude_kernel=1): lower perf_event_paranoid to 1 or\n"
		       "          grant CAP_PERFMON (5.8+) / CAP_SYS_ADMIN to see kernel frames\n");
	perf_sampling_opts__init(&o);
	pages = perf_events__ring_pages(f, &o);
	printf("  rings: %zu data pages (%zu KiB) per CPU for %u Hz with %u-byte stacks\n", pages,
	       pages * (size_t)page / 1024, o.freq_hz, o.stack_size);
	if (f->system_wide.probed && !f->system_wide.ok)
		printf("  note: system-wide sampling is not permitted here; `record -p PID` and\n"
		       "        `record -- CMD` still work for your own processes, through events\n"
		       "        on their threads: processes started before the recording are\n"
		       "        missed, and threads that live less than a sampling period are\n"
		       "        hardly ever sampled\n");
	else if (f->sample_id_all.probed && !f->sample_id_all.ok)
		printf("  note: side-band records carry no time: `record -p PID` and `record --\n"
		       "        CMD` follow processes through events on their threads (processes\n"
		       "        started before the recording are missed, threads that live less\n"
		       "        than a sampling period hardly ever sampled)\n");
}

int probe_cmd__main(int argc, char **argv)
{
	struct perf_features f;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}

	perf_features__probe(&f);
	perf_events__probe_attr(&f);
	print_host(&f);
	printf("%-24s%s\n", "demangler:", demangle__engine());
	printf("%-24s%s\n", "debuginfod:",
	       debuginfod_fetch__available()
		       ? "client present: report --debuginfod URL fetches debug files (off by default; never record, run)"
		       : "no client (" DEBUGINFOD_SONAME "): report --debug-dir only");
	if (!f.open.ok) {
		char eb[32];

		printf("\nperf_event_open: unusable (%s: %s)\n", errname(f.open.err, eb, sizeof(eb)),
		       strerror(f.open.err));
		if (f.open.err == EACCES || f.open.err == EPERM) {
			printf("  fix: lower /proc/sys/kernel/perf_event_paranoid (sysctl -w "
			       "kernel.perf_event_paranoid=2),\n"
			       "       or grant CAP_PERFMON (5.8+) / CAP_SYS_ADMIN to smolder\n");
			log__error("perf_event_open(cpu-clock, this thread): %s; lower "
				   "/proc/sys/kernel/perf_event_paranoid or grant CAP_PERFMON "
				   "(5.8+) / CAP_SYS_ADMIN",
				   strerror(f.open.err));
		} else if (f.open.err == ENOSYS || f.open.err == ENOENT) {
			printf("  the kernel was built without perf events (CONFIG_PERF_EVENTS) or\n"
			       "  a seccomp filter blocks perf_event_open\n");
			log__error("perf_event_open(cpu-clock, this thread): %s", strerror(f.open.err));
		} else {
			log__error("perf_event_open(cpu-clock, this thread): %s", strerror(f.open.err));
		}
		return 1;
	}
	print_features(&f);
	print_mode(&f);
	print_budgets();
	if (!f.sampling_attr.ok && !privileged(&f))
		printf("  note: the sampling attr was refused; see the features above\n");
	return 0;
}
