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
	SUM("corrupt", corrupt),
	SUM("handled_late", handled_late),
	SUM("unwind.complete", unwind_complete),
	SUM("unwind.truncated", unwind_truncated),
	SUM("unwind.no_cfi", unwind_no_cfi),
	SUM("unwind.no_map", unwind_no_map),
	SUM("unwind.bad_pc", unwind_bad_pc),
	SUM("unwind.depth", unwind_depth),
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
	MAX("jvms", jvms),
	MAX("jvm_reads", jvm_reads),
	MAX("jvm_failures", jvm_failures),
	MAX("pythons", pythons),
	MAX("python_reads", python_reads),
	MAX("python_failures", python_failures),
	SUM("python_stacks", python_stacks),
	SUM("python_last_known", python_last_known),
	SUM("python_lag_ns", python_lag_ns),
	MAX("python_lag_max_ns", python_lag_max_ns),
	SUM("python_no_thread", python_no_thread),
	SUM("python_unreadable", python_unreadable),
	SUM("python_confirmed", python_confirmed),
	SUM("python_corrected", python_corrected),
	SUM("python_unanchored", python_unanchored),
	MAX("debug_bytes", debug_bytes),
	MAX("debug_refused", debug_refused),
	MAX("names", names),
	MAX("names_bytes", names_bytes),
	MAX("names_compactions", names_compactions),
	SUM("names_cut", names_cut),
	{ NULL, 0, AGENT_STAT_SUM },
};

void agent_stats__merge(struct agent_stats *acc, const struct agent_stats *w)
{
	const struct agent_stat_field *f;

	for (f = agent_stats__fields; f->name; f++) {
		uint64_t *a = (uint64_t *)((char *)acc + f->offset);
		uint64_t v = *(const uint64_t *)((const char *)w + f->offset);

		if (f->merge == AGENT_STAT_MAX)
			*a = v > *a ? v : *a;
		else
			*a = v > UINT64_MAX - *a ? UINT64_MAX : *a + v;
	}
}
