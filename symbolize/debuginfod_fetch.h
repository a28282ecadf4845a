/* Debug files fetched by build ID from debuginfod servers, through
 * elfutils' client (libdebuginfod.so.1, loaded with dlopen when first
 * asked: a build and a host without it work as before, and the agent
 * itself never loads it). For `smolder report --debuginfod`, off by
 * default: the agent's own symbolization never uses the network
 * (cli/main.c unsets DEBUGINFOD_URLS). The client caches what it fetched
 * (its own cache: $DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client). */
#ifndef SMOLDER_SYMBOLIZE_DEBUGINFOD_FETCH_H
#define SMOLDER_SYMBOLIZE_DEBUGINFOD_FETCH_H
#include <stddef.h>

#define DEBUGINFOD_SONAME "libdebuginfod.so.1"

struct debuginfod_fetch;

/* A client of the servers urls (space-separated, as DEBUGINFOD_URLS).
 * 0, -ENOENT when libdebuginfod.so.1 cannot be loaded (why in msg),
 * -EINVAL for empty urls, or -ENOMEM. */
int debuginfod_fetch__open(const char *urls, struct debuginfod_fetch **out, char *msg, size_t msglen);
void debuginfod_fetch__close(struct debuginfod_fetch *f);

/* The debug file of build ID hex (lowercase): its path in the client's
 * cache into path. 0, or -ENOENT (no server has it), another -errno. */
int debuginfod_fetch__debuginfo(struct debuginfod_fetch *f, const char *hex, char *path, size_t size);

/* Whether libdebuginfod.so.1 is beside the C library (for probe, which
 * must not load it). */
int debuginfod_fetch__available(void);

#endif
