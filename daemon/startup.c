/* Helpers shared by the subcommands: explaining perf_event_open failures. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/startup.h"
#include "collector/perf_events.h"
#include "collector/sampler.h"
#include "common/cachedir.h"
#include "common/log.h"
#include "common/parse.h"

/* For the message only: 99 when it cannot be read. */
static int paranoid_level(void)
{
	int level = 99;

	(void)perf_features__paranoid(&level);
	return level;
}

void startup__log_open_error(const struct sampler_error *e, int system_wide, const char *event)
{
	int err = -e->err;
	char where[64] = "";

	if (e->cpu >= 0)
		snprintf(where, sizeof(where), " on cpu %d", e->cpu);
	else if (e->pid >= 0)
		snprintf(where, sizeof(where), " for pid %d", e->pid);
	switch (err) {
	case EACCES:
	case EPERM:
		log__error("%s%s: %s (perf_event_paranoid is %d): run as root, grant CAP_PERFMON "
			   "(Linux 5.8+) or CAP_SYS_ADMIN, or lower /proc/sys/kernel/perf_event_paranoid "
			   "(%s)",
			   e->what, where, strerror(err), paranoid_level(),
			   system_wide ? "-1 or 0 for all CPUs" : "2 or less for your own processes");
		break;
	case ESRCH:
		log__error("%s%s: no such process", e->what, where);
		break;
	case EMFILE:
	case ENFILE:
		log__error("%s%s: %s: raise the open-file limit (ulimit -n)", e->what, where, strerror(err));
		break;
	case ENOENT:
	case EOPNOTSUPP:
		log__error("%s%s: %s: event '%s' is not supported here (no hardware PMU in a VM? use "
			   "--event cpu-clock)",
			   e->what, where, strerror(err), event);
		break;
	case ENOMEM:
		log__error("%s%s: %s: lower --stack-size or -F, or raise "
			   "/proc/sys/kernel/perf_event_mlock_kb",
			   e->what, where, strerror(err));
		break;
	default:
		log__error("%s%s: %s", e->what, where, strerror(err));
		break;
	}
}

struct cachedir *startup__open_cache(const char *path, uint64_t max_bytes)
{
	struct cachedir *c = NULL;
	int rc;

	if (!path || !*path)
		return NULL;
	rc = cachedir__open(path, max_bytes ? max_bytes : UINT64_MAX, &c);
	if (rc < 0) {
		log__info("cache directory %s: %s%s; starting without a cache", path, strerror(-rc),
			  rc == -EPERM ? " (it must be a directory of ours, not writable by others)" :
			  rc == -ELOOP ? " (a symlink: refused)" : "");
		return NULL;
	}
	return c;
}
