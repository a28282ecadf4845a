/* The names of the agent's counters and how windows combine them. */
#include "config.h"

#include <string.h>

#include "profile/agent_stats.h"

#define SUM(name, field) { name, offsetof(struct agent_stats, field), AGENT_STAT_SUM }
#define MAX(name, field) { name, offsetof(struct agent_stats, field), AGENT_STAT_MAX }

const struct agent_stat_field agent_stats__fields[] = {
	SUM("lost", lost),
	SUM("throttled", throttled),
	SUM("kernel_only", kernel_only),
	SUM("idle", idle),
	SUM("filtered", filtered),
	SUM("corrupt", corrupt),
	SUM("handled_late", handled_late),
	SUM("unwind.complete", unwind_complete),
	SUM("unwind.truncated", unwind_truncated),
	SUM("unwind.no_cfi", unwind_no_cfi),
	SUM("unwind.no_map", unwind_no_map),
	SUM("unwind.bad_pc", unwind_bad_pc),
	SUM("unwind.depth", unwind_depth),
	SUM("deep_stacks", deep_stacks),
	SUM("deep_reads", deep_reads),
	SUM("deep_bytes", deep_bytes),
	SUM("deep_refused", deep_refused),
	SUM("deep_stale", deep_stale),
	SUM("deep_failed", deep_failed),
	SUM("deep_walk_proved", deep_walk_proved),
	MAX("processes", processes),
	MAX("binaries", binaries),
	SUM("agent_cpu_ns", agent_cpu_ns),
	SUM("agent_load_cpu_ns", agent_load_cpu_ns),
	MAX("agent_rss_bytes", agent_rss_bytes),
	MAX("agent_peak_rss_bytes", agent_peak_rss_bytes),
	SUM("spool_dropped", spool_dropped),
	MAX("frequency_configured_hz", frequency_configured_hz),
	MAX("cfi_lookups", cfi_lookups),
	MAX("cfi_hits", cfi_hits),
	MAX("cfi_evictions", cfi_evictions),
	MAX("sym_lookups", sym_lookups),
	MAX("sym_hits", sym_hits),
	MAX("sym_evictions", sym_evictions),
	MAX("inline_lookups", inline_lookups),
	MAX("inline_hits", inline_hits),
	MAX("inline_evictions", inline_evictions),
	MAX("inline_builds", inline_builds),
	MAX("inline_loads", inline_loads),
	MAX("inline_index_bytes", inline_index_bytes),
	MAX("inline_rejected", inline_rejected),
	MAX("ksym_lookups", ksym_lookups),
	MAX("ksym_hits", ksym_hits),
	MAX("ksym_evictions", ksym_evictions),
	MAX("debug_bytes", debug_bytes),
	MAX("debug_refused", debug_refused),
	MAX("names", names),
	MAX("names_bytes", names_bytes),
	MAX("names_compactions", names_compactions),
	SUM("names_cut", names_cut),
	SUM("off_cpu_switches", off_cpu_switches),
	SUM("off_cpu_preempted", off_cpu_preempted),
	SUM("off_cpu_sampled", off_cpu_sampled),
	SUM("off_cpu_ns", off_cpu_ns),
	SUM("off_cpu_weighted_ns", off_cpu_weighted_ns),
	SUM("off_cpu_unsampled_ns", off_cpu_unsampled_ns),
	SUM("off_cpu_unmatched", off_cpu_unmatched),
	SUM("off_cpu_dropped", off_cpu_dropped),
	MAX("off_cpu_threads", off_cpu_threads),
	SUM("off_cpu_late_ins", off_cpu_late_ins),
	{ NULL, 0, AGENT_STAT_SUM },
};

#define RSUM(name, field) { name, offsetof(struct agent_runtime_stats, field), AGENT_STAT_SUM }
#define RMAX(name, field) { name, offsetof(struct agent_runtime_stats, field), AGENT_STAT_MAX }

const struct agent_stat_field agent_runtime_stats__fields[] = {
	RMAX("readers", readers),
	RMAX("opened", opened),
	RMAX("failed", failed),
	RMAX("reads", reads),
	RMAX("failures", failures),
	RMAX("refused", refused),
	RMAX("names_refused", names_refused),
	RMAX("cpu_ns", cpu_ns),
	RMAX("readers_refused", readers_refused),
	RMAX("idle_closed", idle_closed),
	RSUM("stacks", stacks),
	RSUM("lag_ns", lag_ns),
	RMAX("lag_max_ns", lag_max_ns),
	RSUM("no_thread", no_thread),
	RSUM("unreadable", unreadable),
	RSUM("confirmed", confirmed),
	RSUM("chained", chained),
	RSUM("unproven", unproven),
	RSUM("image_changed", image_changed),
	{ NULL, 0, AGENT_STAT_SUM },
};

const struct agent_stat_former agent_stats__former[] = {
	{ "jvms", "hotspot", "readers" },
	{ "jvm_reads", "hotspot", "reads" },
	{ "jvm_failures", "hotspot", "failures" },
	{ "pythons", "cpython", "readers" },
	{ "python_reads", "cpython", "reads" },
	{ "python_failures", "cpython", "failures" },
	{ "python_stacks", "cpython", "stacks" },
	{ "python_lag_ns", "cpython", "lag_ns" },
	{ "python_lag_max_ns", "cpython", "lag_max_ns" },
	{ "python_no_thread", "cpython", "no_thread" },
	{ "python_unreadable", "cpython", "unreadable" },
	{ "python_confirmed", "cpython", "confirmed" },
	{ NULL, NULL, NULL },
};

struct agent_runtime_stats *agent_stats__runtime(struct agent_stats *s, const char *name)
{
	size_t i;

	for (i = 0; i < AGENT_RUNTIMES_MAX; i++)
		if (strncmp(s->runtimes[i].name, name, sizeof(s->runtimes[i].name)) == 0)
			return &s->runtimes[i];
	if (strlen(name) >= sizeof(s->runtimes[0].name) || !name[0])
		return NULL;
	for (i = 0; i < AGENT_RUNTIMES_MAX; i++)
		if (!s->runtimes[i].name[0]) {
			memcpy(s->runtimes[i].name, name, strlen(name) + 1);
			return &s->runtimes[i];
		}
	return NULL;
}

static void merge_fields(const struct agent_stat_field *fields, void *acc, const void *w)
{
	const struct agent_stat_field *f;

	for (f = fields; f->name; f++) {
		uint64_t *a = (uint64_t *)((char *)acc + f->offset);
		uint64_t v = *(const uint64_t *)((const char *)w + f->offset);

		if (f->merge == AGENT_STAT_MAX)
			*a = v > *a ? v : *a;
		else
			*a = v > UINT64_MAX - *a ? UINT64_MAX : *a + v;
	}
}

void agent_stats__merge(struct agent_stats *acc, const struct agent_stats *w)
{
	size_t i;

	merge_fields(agent_stats__fields, acc, w);
	/* blocks by name: windows of different agents may list readers in
	 * another order */
	for (i = 0; i < AGENT_RUNTIMES_MAX; i++) {
		struct agent_runtime_stats *a;

		if (!w->runtimes[i].name[0] || !(a = agent_stats__runtime(acc, w->runtimes[i].name)))
			continue;
		merge_fields(agent_runtime_stats__fields, a, &w->runtimes[i]);
	}
}
