/* The CPUs of this host that events can be opened on, from sysfs. */
#ifndef SMOLDER_COLLECTOR_CPUS_H
#define SMOLDER_COLLECTOR_CPUS_H
#include <stddef.h>

/* The CPUs listed in a sysfs cpulist ("0-3,5\n"): ascending ranges, at most
 * `max` CPUs, numbers < 1<<20. Returns 0, -EINVAL (syntax), -E2BIG (more than
 * max). *n and cpus[] untouched on failure. */
int cpus__parse_list(const char *s, size_t len, int *cpus, size_t max, size_t *n);
/* Reads /sys/devices/system/cpu/online into a malloc'd array (free()). */
int cpus__online(int **cpus, size_t *n);

#endif
