/* The daemon's windows: time cut into intervals aligned to the wall clock
 * (window k's end is window k+1's start), each becoming one dump in the
 * spool, named and identified by the window's start. Not thread-safe. */
#ifndef SMOLDER_DAEMON_WINDOW_H
#define SMOLDER_DAEMON_WINDOW_H
#include <stddef.h>
#include <stdint.h>

struct conf;
struct sampler;
struct spool;
struct utsname;

struct window {
	uint64_t start_ns, end_ns; /* wall clock; end is the next boundary */
	char id[320];              /* "HOST@START_NS": a receiver drops duplicates by it */
	uint64_t spool_dropped;    /* dumps the spool dropped, told in the next dump */
};

/* A window from start_ns to the next multiple of interval_ns. */
void window__start(struct window *w, uint64_t start_ns, uint64_t interval_ns);

/* Ends the window at end_ns: describes it in the sampler's profile (host,
 * event, the frequency in effect, the configuration's labels), encodes the
 * profile and the agent stats as a gzip'd JSON dump and writes it
 * atomically to the spool. Returns 0, or -errno after logging that the
 * window is lost. Also logs (and remembers for the next dump) what the
 * spool dropped to stay within its bounds. */
int window__spool(struct window *w, uint64_t end_ns, struct sampler *s, const struct conf *c,
		  unsigned hz, const struct utsname *uts, struct spool *spool);

#endif
