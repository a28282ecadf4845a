/* The sampler's windows: one per event recorded, each a profile and its
 * counters; what they hold at a window's end (the agent's figures, the
 * recording's counters shared with every event's window), starting the
 * next, and bounding the names they and the caches refer to. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "collector/binary.h"
#include "collector/offcpu.h"
#include "collector/proctable.h"
#include "collector/runtimes.h"
#include "collector/sampler.h"
#include "collector/sampler_state.h"
#include "common/selfusage.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "profile/agent_stats.h"
#include "profile/frame_name.h"
#include "profile/profile.h"
#include "runtimes/accountant.h"
#include "symbolize/loadbudget.h"
#include "symbolize/symbolizer.h"

struct profile *sampler__profile(struct sampler *s) { return s->win[0].profile; }
struct agent_stats *sampler__stats(struct sampler *s) { return &s->win[0].stats; }
size_t sampler__nwindows(const struct sampler *s) { return s->nwin; }

struct profile *sampler__window_profile(struct sampler *s, size_t i)
{
	return i < s->nwin ? s->win[i].profile : NULL;
}

struct agent_stats *sampler__window_stats(struct sampler *s, size_t i)
{
	return i < s->nwin ? &s->win[i].stats : NULL;
}

const char *sampler__window_event(const struct sampler *s, size_t i)
{
	return i < s->nwin ? s->win[i].event : NULL;
}
/* CPU spent on one-off work since start (see agent_stats.agent_load_cpu_ns). */
uint64_t sampler__load_cpu_ns(const struct sampler *s)
{
	struct binaries_stats bst;
	struct symbolizer_stats sst;

	binaries__stats(s->bins, &bst);
	symbolizer__stats(s->sym, &sst);
	return bst.load_cpu_ns + sst.load_cpu_ns + proctable__load_cpu_ns(s->procs) +
	       runtimes__cpu_ns(s->runtimes);
}

/* JIT code named only after it was sampled gets its name in the window. */
static void settle_jit_names(struct sampler *s)
{
	if (symbolizer__settle(s->sym) == 0)
		return;
	size_t i;

	/* on failure the pending frames stay as they are: "[jit PID 0xPC]" */
	for (i = 0; i < s->nwin; i++)
		(void)profile__rename_frames(s->win[i].profile, symbolizer__renamed, s->sym);
	symbolizer__clear_renames(s->sym);
}

/* A runtime block's counters of the window's own samples. */
static void take_sample_counts(struct agent_runtime_stats *to, const struct agent_runtime_stats *own)
{
	to->stacks = own ? own->stacks : 0;
	to->lag_ns = own ? own->lag_ns : 0;
	to->lag_max_ns = own ? own->lag_max_ns : 0;
	to->no_thread = own ? own->no_thread : 0;
	to->unreadable = own ? own->unreadable : 0;
	to->confirmed = own ? own->confirmed : 0;
	to->chained = own ? own->chained : 0;
	to->unproven = own ? own->unproven : 0;
	to->image_changed = own ? own->image_changed : 0;
}

/* The counters of a window other than the first: its own samples' (what
 * they were, how they unwound, the runtime frames they ran, off-cpu's
 * accounting), and for the rest the recording's, as the first has them
 * (records lost, the agent's cost and memory, caches, readers). */
static void share_recording_counters(struct agent_stats *w, const struct agent_stats *first)
{
	struct agent_stats own = *w;
	size_t r, k;

	*w = *first;
	w->kernel_only = own.kernel_only;
	w->idle = own.idle;
	w->filtered = own.filtered;
	w->unwind_complete = own.unwind_complete;
	w->unwind_truncated = own.unwind_truncated;
	w->unwind_no_cfi = own.unwind_no_cfi;
	w->unwind_no_map = own.unwind_no_map;
	w->unwind_bad_pc = own.unwind_bad_pc;
	w->unwind_depth = own.unwind_depth;
	w->deep_stacks = own.deep_stacks;
	w->deep_reads = own.deep_reads;
	w->deep_bytes = own.deep_bytes;
	w->deep_refused = own.deep_refused;
	w->deep_stale = own.deep_stale;
	w->deep_walk_proved = own.deep_walk_proved;
	w->deep_failed = own.deep_failed;
	w->off_cpu_switches = own.off_cpu_switches;
	w->off_cpu_preempted = own.off_cpu_preempted;
	w->off_cpu_sampled = own.off_cpu_sampled;
	w->off_cpu_ns = own.off_cpu_ns;
	w->off_cpu_weighted_ns = own.off_cpu_weighted_ns;
	w->off_cpu_unsampled_ns = own.off_cpu_unsampled_ns;
	w->off_cpu_unmatched = own.off_cpu_unmatched;
	w->off_cpu_dropped = own.off_cpu_dropped;
	w->off_cpu_threads = own.off_cpu_threads;
	w->off_cpu_late_ins = own.off_cpu_late_ins;
	for (r = 0; r < AGENT_RUNTIMES_MAX && w->runtimes[r].name[0]; r++) {
		const struct agent_runtime_stats *mine = NULL;

		for (k = 0; k < AGENT_RUNTIMES_MAX; k++)
			if (strcmp(own.runtimes[k].name, w->runtimes[r].name) == 0)
				mine = &own.runtimes[k];
		take_sample_counts(&w->runtimes[r], mine);
	}
}

void sampler__finish_window(struct sampler *s)
{
	struct agent_stats *st = &s->win[0].stats;
	struct binaries_stats bst;
	struct symbolizer_stats sst;
	struct loadbudget_stats dst;
	size_t i;

	if (s->offcpu)
		sampler_offcpu__finish_window(s);
	settle_jit_names(s);
	st->processes = proctable__count(s->procs);
	st->binaries = binaries__count(s->bins);
	binaries__stats(s->bins, &bst);
	st->cfi_lookups = bst.cfi_lookups;
	st->cfi_hits = bst.cfi_hits;
	st->cfi_evictions = bst.cfi_evictions;
	st->sym_lookups = bst.sym_lookups;
	st->sym_hits = bst.sym_hits;
	st->sym_evictions = bst.sym_evictions;
	st->inline_lookups = bst.inline_lookups;
	st->inline_hits = bst.inline_hits;
	st->inline_evictions = bst.inline_evictions;
	st->inline_builds = bst.inline_builds;
	st->inline_loads = bst.inline_loads;
	st->inline_index_bytes = bst.inline_index_bytes;
	st->inline_rejected = bst.inline_rejected;
	symbolizer__stats(s->sym, &sst);
	st->ksym_lookups = sst.ksym_lookups;
	st->ksym_hits = sst.ksym_hits;
	st->ksym_evictions = sst.ksym_evictions;
	runtimes__finish_window(s->runtimes, st);
	loadbudget__stats(s->budget, &dst);
	st->debug_bytes = dst.bytes;
	st->debug_refused = dst.refused_bytes + dst.refused_time;
	st->names = strtab__count(s->names);
	st->names_bytes = strtab__bytes(s->names);
	st->names_compactions = s->names_compactions;
	st->names_cut = frame_name__cuts() - s->window_cuts_start;
	st->frequency_configured_hz = s->opts.freq_hz;
	st->agent_cpu_ns = selfusage__cpu_ns() - s->window_cpu_start;
	st->agent_load_cpu_ns = sampler__load_cpu_ns(s) - s->window_load_start;
	if (st->agent_load_cpu_ns > st->agent_cpu_ns)
		st->agent_load_cpu_ns = st->agent_cpu_ns; /* clocks of different grain */
	st->agent_rss_bytes = selfusage__rss_bytes();
	st->agent_peak_rss_bytes = selfusage__peak_rss_bytes();
	for (i = 1; i < s->nwin; i++)
		share_recording_counters(&s->win[i].stats, st);
	if (s->off)
		s->off->stats.frequency_configured_hz = s->off_freq_hz ? s->off_freq_hz : s->opts.freq_hz;
}

void sampler__reset_window(struct sampler *s)
{
	size_t i;

	for (i = 0; i < s->nwin; i++) {
		profile__reset(s->win[i].profile);
		memset(&s->win[i].stats, 0, sizeof(s->win[i].stats));
	}
	for (i = s->nwin; i-- > 0;)
		runtimes__start_window(s->runtimes, &s->win[i].stats);
	runtimes__count_into(s->runtimes, &s->win[0].stats);
	s->window_cpu_start = selfusage__cpu_ns();
	s->window_load_start = sampler__load_cpu_ns(s);
	s->window_cuts_start = frame_name__cuts();
}

/* One pass over every holder of name ids. */
static int remap_pass(struct sampler *s, struct strtab_remap *r)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < s->nwin; i++)
		err = profile__remap_names(s->win[i].profile, r);
	if (!err)
		err = proctable__remap_names(s->procs, r);
	if (!err)
		err = binaries__remap_names(s->bins, r);
	if (!err)
		err = symbolizer__remap_names(s->sym, r);
	if (!err)
		err = runtimes__remap_names(s->runtimes, r);
	if (!err)
		err = accountant__remap_names(s->accountant, r);
	if (!err && s->offcpu)
		err = offcpu__remap_names(s->offcpu, r);
	return err;
}

int sampler__compact_names(struct sampler *s, size_t min_bytes)
{
	struct strtab_remap r;
	struct strtab *to;
	size_t bytes = strtab__bytes(s->names), limit;
	int err;

	limit = s->names_live_bytes > SIZE_MAX / 2 ? SIZE_MAX : 2 * s->names_live_bytes;
	if (limit < min_bytes)
		limit = min_bytes;
	if (bytes <= limit)
		return 0;
	to = strtab__new();
	if (!to)
		return -ENOMEM;
	err = strtab_remap__init(&r, s->names, to);
	if (err < 0)
		goto out_delete;
	err = remap_pass(s, &r);
	if (err == -EBUSY) {
		err = 0; /* samples in the window: next time */
		goto out_fini;
	}
	if (err < 0)
		goto out_fini;
	strtab_remap__commit(&r);
	(void)remap_pass(s, &r); /* lookups only: cannot fail */
	strtab__delete(s->names);
	s->names = to;
	to = NULL;
	s->names_live_bytes = strtab__bytes(s->names);
	s->names_compactions++;
	err = 1;
out_fini:
	strtab_remap__fini(&r);
out_delete:
	strtab__delete(to);
	return err;
}

size_t sampler__names_bytes(const struct sampler *s)
{
	return strtab__bytes(s->names);
}
