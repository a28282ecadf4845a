/* A finished window becomes a dump in the spool. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "collector/sampler.h"
#include "common/log.h"
#include "daemon/conf.h"
#include "daemon/window.h"
#include "export/gzip.h"
#include "export/json_dump.h"
#include "export/spool.h"
#include "profile/agent_stats.h"
#include "profile/profile.h"

void window__start(struct window *w, uint64_t start_ns, uint64_t interval_ns)
{
	w->start_ns = start_ns;
	w->end_ns = (start_ns / interval_ns + 1) * interval_ns;
}

static void describe(struct window *w, struct profile *prof, const char *event, bool event_in_id,
		     uint64_t end_ns, const struct conf *c, unsigned hz, const struct utsname *uts)
{
	/* the meta borrows them until the dump is written */
	static const char *lnames[CONF_MAX_LABELS], *lvalues[CONF_MAX_LABELS];
	struct profile_meta *m = profile__meta(prof);
	size_t i;

	for (i = 0; i < c->nlabels; i++) {
		lnames[i] = c->labels[i].name;
		lvalues[i] = c->labels[i].value;
	}
	/* the first event's window is the host's window; another event's is
	 * a dump of its own, which a receiver must not drop as its twin */
	if (event_in_id)
		snprintf(w->id, sizeof(w->id), "%s@%llu/%s", uts->nodename,
			 (unsigned long long)w->start_ns, event);
	else
		snprintf(w->id, sizeof(w->id), "%s@%llu", uts->nodename,
			 (unsigned long long)w->start_ns);
	m->start_ns = w->start_ns;
	m->end_ns = end_ns;
	m->window_id = w->id;
	m->hostname = uts->nodename;
	m->kernel = uts->release;
	m->arch = uts->machine;
	m->event_name = event;
	m->event_unit = profile_meta__unit_of(event);
	m->frequency_hz = hz;
	m->nlabels = c->nlabels;
	m->label_names = lnames;
	m->label_values = lvalues;
}

/* Returns whether dumps were dropped since the last call. */
static int note_spool_drops(struct window *w, struct spool *spool)
{
	uint64_t files = 0, bytes = 0;

	spool__take_dropped(spool, &files, &bytes);
	if (!files)
		return 0;
	w->spool_dropped += files;
	log__warn("spool %s is full: dropped the %llu oldest dumps (%llu bytes) to stay within "
		  "spool_max_size/spool_max_age; is the collector reachable?",
		  spool__path(spool), (unsigned long long)files, (unsigned long long)bytes);
	return 1;
}

/* The window's dump, gzip'd (malloc'd). */
static int encode(struct profile *prof, const struct agent_stats *st, void **gz, size_t *gzlen)
{
	char *json = NULL;
	size_t jlen = 0;
	int rc = json_dump__to_buffer(prof, st, &json, &jlen);

	if (rc == 0)
		rc = gzip__compress(json, jlen, gz, gzlen);
	free(json);
	return rc;
}

/* A re-encoded dump may differ by the digits of its drop count. */
#define DROP_COUNT_SLACK 64

/* Event i's dump of the window. */
static int spool_one(struct window *w, uint64_t end_ns, struct sampler *s, size_t i,
		     const struct conf *c, unsigned hz, const struct utsname *uts, struct spool *spool)
{
	struct profile *prof = sampler__window_profile(s, i);
	struct agent_stats *st = sampler__window_stats(s, i);
	const char *event = sampler__window_event(s, i);
	char name[160];
	void *gz = NULL;
	size_t gzlen = 0;
	int rc;

	st->spool_dropped = w->spool_dropped;
	describe(w, prof, event, i > 0, end_ns, c, hz, uts);
	spool__name_event(name, sizeof(name), w->start_ns, uts->nodename, i > 0 ? event : NULL);
	rc = encode(prof, st, &gz, &gzlen);
	/* Room first, so that the dumps this one pushes out are counted in it:
	 * counted in the next window's, the drops of the last window of a run
	 * would go untold, and so would those of a dump that is dropped in
	 * turn before its count is read. */
	if (rc == 0) {
		spool__make_room(spool, name, gzlen + DROP_COUNT_SLACK);
		if (note_spool_drops(w, spool)) {
			st->spool_dropped = w->spool_dropped;
			free(gz);
			gz = NULL;
			rc = encode(prof, st, &gz, &gzlen);
		}
	}
	if (rc == 0)
		rc = spool__write(spool, name, gz, gzlen);
	if (rc < 0) {
		log__error("window %s: cannot write its dump to %s: %s; the window is lost", w->id,
			   spool__path(spool), strerror(-rc));
	} else {
		w->spool_dropped = 0;
		log__debug("window %s: %llu samples, %zu bytes in %s", w->id,
			   (unsigned long long)profile__samples(prof), gzlen, name);
	}
	(void)note_spool_drops(w, spool);
	free(gz);
	return rc;
}

int window__spool(struct window *w, uint64_t end_ns, struct sampler *s, const struct conf *c,
		  unsigned hz, const struct utsname *uts, struct spool *spool)
{
	size_t i;
	int rc = 0, rc1;

	sampler__finish_window(s);
	/* one dump per event: each is a profile of one unit */
	for (i = 0; i < sampler__nwindows(s); i++) {
		rc1 = spool_one(w, end_ns, s, i, c, sampler__window_hz(s, i, hz), uts, spool);
		if (rc1 < 0 && rc == 0)
			rc = rc1;
	}
	return rc;
}
