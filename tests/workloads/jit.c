/* Workload: a tiny JIT. A spin loop is "compiled" (copied) into anonymous
 * executable memory and named in /tmp/perf-PID.map, perf's JIT convention.
 * Every PERIOD_MS it recompiles: the code moves to a new address, and the map
 * is replaced by one naming only the live generation (its hot function and
 * NAMES cold ones, all new names), as a JIT that frees old code would. A
 * profiler must re-read the map to name the new code, and the names of old
 * generations become garbage it should not keep forever.
 *
 * Usage: jit [SECONDS [PERIOD_MS [NAMES]]]. Exits 77 where the machine code
 * (x86-64) cannot run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl_time.h"

#define REGION (64 * 1024)
#define SLOT 64                    /* bytes per compiled copy */
#define HOT_SLOTS (REGION / 2 / SLOT) /* the first half holds the hot code */

volatile unsigned long sink;

static int write_map(unsigned char *region, unsigned gen, unsigned slot, unsigned names)
{
	char path[64], tmp[80];
	unsigned i;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%lx %x jit_hot_g%u\n", (unsigned long)(region + (size_t)slot * SLOT), SLOT, gen);
	/* cold functions in the second half, never run: names only */
	for (i = 0; i < names; i++)
		fprintf(f, "%lx 10 jit_cold_generation_%u_function_%u\n",
			(unsigned long)(region + REGION / 2 + (size_t)(i % (REGION / 2 / 16)) * 16), gen, i);
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* mov ecx, 400000; 1: dec ecx; jnz 1b; ret */
	static const unsigned char spin[] = { 0xb9, 0x80, 0x1a, 0x06, 0x00, 0xff, 0xc9,
					      0x75, 0xfc, 0xc3 };
	double secs = wl_seconds(argc, argv, 5.0), end, next;
	long period_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 300;
	long names = argc > 3 ? strtol(argv[3], NULL, 10) : 400;
	unsigned char *region;
	unsigned gen = 0, slot = 0;
	char path[64];

	if (period_ms < 10 || period_ms > 60000 || names < 0 || names > 100000) {
		fprintf(stderr, "jit: bad arguments\n");
		return 2;
	}
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("jit: mmap");
		return 1;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	end = wl_now() + secs;
	next = 0;
	while (wl_now() < end) {
		if (wl_now() >= next) {
			/* recompile: W^X, never writable and executable at once */
			if (mprotect(region, REGION, PROT_READ | PROT_WRITE) != 0) {
				perror("jit: mprotect");
				return 1;
			}
			gen++;
			slot = gen % HOT_SLOTS;
			memset(region + (size_t)slot * SLOT, 0xcc, SLOT);
			memcpy(region + (size_t)slot * SLOT, spin, sizeof(spin));
			if (mprotect(region, REGION, PROT_READ | PROT_EXEC) != 0) {
				if (errno == EACCES || errno == EPERM) {
					fprintf(stderr, "jit: executable memory refused here\n");
					return 77;
				}
				perror("jit: mprotect");
				return 1;
			}
			if (write_map(region, gen, slot, (unsigned)names) != 0) {
				perror("jit: writing the perf map");
				return 1;
			}
			next = wl_now() + period_ms / 1000.0;
		}
		((void (*)(void))(void *)(region + (size_t)slot * SLOT))();
		sink++;
	}
	unlink(path);
	printf("jit: %u generations\n", gen);
	return 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jit: x86-64 only\n");
	return 77;
#endif
}
