/* The agent's own CPU time and memory. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/clock.h"
#include "common/selfusage.h"

uint64_t selfusage__cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * NS_PER_S +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

uint64_t selfusage__thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static uint64_t status_kb(const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) == 0) {
			if (sscanf(line + klen, " %llu", &kb) != 1)
				kb = 0;
			break;
		}
	}
	fclose(f);
	return (uint64_t)kb * 1024;
}

uint64_t selfusage__rss_bytes(void) { return status_kb("VmRSS:"); }
uint64_t selfusage__peak_rss_bytes(void) { return status_kb("VmHWM:"); }
