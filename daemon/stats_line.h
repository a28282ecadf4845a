/* The daemon's periodic stats line (stats_interval): what the windows since
 * the last line sampled, lost and cost, and how delivery is going. The
 * operator's one-glance health check in the journal. Not thread-safe. */
#ifndef SMOLDER_DAEMON_STATS_LINE_H
#define SMOLDER_DAEMON_STATS_LINE_H
#include <stdint.h>

struct agent_stats;
struct profile;
struct spool;
struct uploader;

struct stats_line {
	uint64_t windows, samples, lost, complete, user, cpu_ns;
	uint64_t since_mono_ns; /* start of the period */
};

void stats_line__init(struct stats_line *l, uint64_t now_mono_ns);
/* Counts a window that ended. */
void stats_line__add(struct stats_line *l, const struct profile *p, const struct agent_stats *st);
/* Whether interval_ns (0: never) has passed since the period started. */
int stats_line__due(const struct stats_line *l, uint64_t now_mono_ns, uint64_t interval_ns);
/* Logs the line (notice) and starts a new period. up may be NULL.
 * tls_unverified: export runs with tls_verify = no, which the line says. */
void stats_line__log(struct stats_line *l, uint64_t now_mono_ns, struct spool *spool,
		     struct uploader *up, int tls_unverified);

#endif
