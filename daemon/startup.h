/* Helpers shared by the subcommands (CLI layer: they log). */
#ifndef SMOLDER_DAEMON_STARTUP_H
#define SMOLDER_DAEMON_STARTUP_H

#include <stdint.h>

struct cachedir;
struct sampler_error;

/* Logs why opening the perf events failed, with the fix for the usual
 * causes (permissions, limits, an event the host lacks). */
void startup__log_open_error(const struct sampler_error *e, int system_wide, const char *event);

/* Opens the cache directory at path (NULL or "": none; max_bytes 0:
 * unbounded). When that fails the agent runs without one: it only makes
 * starts faster. Logs why at info level and returns NULL. */
struct cachedir *startup__open_cache(const char *path, uint64_t max_bytes);

#endif
