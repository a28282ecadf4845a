/* The stats line: windows, samples, completeness, agent cost, delivery. */
#include "config.h"

#include <string.h>

#include "common/log.h"
#include "common/selfusage.h"
#include "daemon/stats_line.h"
#include "export/spool.h"
#include "export/uploader.h"
#include "profile/agent_stats.h"
#include "profile/profile.h"

void stats_line__init(struct stats_line *l, uint64_t now_mono_ns)
{
	memset(l, 0, sizeof(*l));
	l->since_mono_ns = now_mono_ns;
}

void stats_line__add(struct stats_line *l, const struct profile *p, const struct agent_stats *st)
{
	l->windows++;
	l->samples += profile__samples(p);
	l->lost += st->lost;
	l->complete += st->unwind_complete;
	l->user += agent_stats__user_stacks(st);
	l->cpu_ns += st->agent_cpu_ns;
}

int stats_line__due(const struct stats_line *l, uint64_t now_mono_ns, uint64_t interval_ns)
{
	return interval_ns && now_mono_ns - l->since_mono_ns >= interval_ns;
}

void stats_line__log(struct stats_line *l, uint64_t now_mono_ns, struct spool *spool,
		     struct uploader *up, int tls_unverified)
{
	struct uploader_stats us;
	uint64_t files = 0, bytes = 0, wall = now_mono_ns - l->since_mono_ns;

	memset(&us, 0, sizeof(us));
	if (up)
		uploader__stats(up, &us);
	spool__depth(spool, &files, &bytes);
	log__notice("stats: %llu windows, %llu samples, %llu lost, %.1f%% of user stacks complete, "
		    "agent CPU %.2f%%, RSS %.1f MiB, spool %llu dumps (%.1f KiB), delivered %llu, "
		    "retries %llu, rejected %llu%s",
		    (unsigned long long)l->windows, (unsigned long long)l->samples,
		    (unsigned long long)l->lost,
		    l->user ? 100.0 * (double)l->complete / (double)l->user : 100.0,
		    wall ? 100.0 * (double)l->cpu_ns / (double)wall : 0.0,
		    (double)selfusage__rss_bytes() / 1048576.0, (unsigned long long)files,
		    (double)bytes / 1024.0, (unsigned long long)us.delivered,
		    (unsigned long long)us.retries, (unsigned long long)us.rejected,
		    tls_unverified ? ", TLS NOT VERIFIED (tls_verify = no)" : "");
	stats_line__init(l, now_mono_ns);
}
