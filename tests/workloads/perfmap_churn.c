/* Workload: a hostile JIT map (doc/security.md, F8). Runs code from anonymous
 * executable memory, names it in a /tmp/perf-PID.map padded to MAP_MB
 * megabytes, and also runs a copy the map does not name, so that a reader
 * looks for it again and again; and it keeps the map busy so that a naive
 * reader re-reads all of it every time:
 *   touch    updates its mtime every 100 ms (content unchanged)
 *   append   appends one line every 100 ms, as a live JIT does
 *   replace  writes a whole new map (new inode) every second
 *
 * Usage: perfmap_churn SECONDS MODE MAP_MB. Exits 77 where the machine code
 * (x86-64) cannot run. */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wl_time.h"

#define REGION 4096

volatile unsigned long sink;
static volatile sig_atomic_t stop;

/* The tests end workloads with SIGTERM: the 16 MiB map must not stay. */
static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* The hot function, then filler names for addresses that never run. */
static int write_map(const char *path, unsigned char *region, long bytes, unsigned gen)
{
	char tmp[96], line[160];
	long written = 0;
	unsigned i = 0;
	int n;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	written += fprintf(f, "%lx 40 churn_hot_function\n", (unsigned long)region);
	while (written < bytes) {
		n = snprintf(line, sizeof(line), "%lx 8 churn_filler_generation_%u_function_number_%u\n",
			     (unsigned long)(region + 2048 + (i % 256) * 8), gen, i);
		fputs(line, f);
		written += n;
		i++;
	}
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

static int append_line(const char *path, unsigned char *region, unsigned k)
{
	char line[128];
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	int n, rc = 0;

	if (fd < 0)
		return -1;
	n = snprintf(line, sizeof(line), "%lx 8 churn_appended_function_%u\n",
		     (unsigned long)(region + 3072 + (k % 64) * 8), k);
	if (write(fd, line, (size_t)n) != n)
		rc = -1;
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* mov ecx, 400000; 1: dec ecx; jnz 1b; ret */
	static const unsigned char spin[] = { 0xb9, 0x80, 0x1a, 0x06, 0x00, 0xff, 0xc9,
					      0x75, 0xfc, 0xc3 };
	double secs = wl_seconds(argc, argv, 10.0), end, next_touch, next_replace;
	const char *mode = argc > 2 ? argv[2] : "touch";
	long mb = argc > 3 ? strtol(argv[3], NULL, 10) : 16;
	unsigned char *region;
	unsigned k = 0, gen = 0;
	char path[64];
	int rc = 0;

	if (mb < 1 || mb > 1024 ||
	    (strcmp(mode, "touch") && strcmp(mode, "append") && strcmp(mode, "replace"))) {
		fprintf(stderr, "usage: perfmap_churn SECONDS touch|append|replace MAP_MB\n");
		return 2;
	}
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("perfmap_churn: mmap");
		return 1;
	}
	memcpy(region, spin, sizeof(spin));
	memcpy(region + 1024, spin, sizeof(spin)); /* never named */
	if (mprotect(region, REGION, PROT_READ | PROT_EXEC) != 0) {
		fprintf(stderr, "perfmap_churn: executable memory refused here\n");
		return errno == EACCES || errno == EPERM ? 77 : 1;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (write_map(path, region, mb << 20, gen) != 0) {
		perror("perfmap_churn: writing the perf map");
		return 1;
	}
	end = wl_now() + secs;
	next_touch = wl_now() + 0.1;
	next_replace = wl_now() + 1.0;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	while (wl_now() < end && rc == 0 && !stop) {
		((void (*)(void))(void *)region)();
		((void (*)(void))(void *)(region + 1024))();
		sink++;
		if (wl_now() >= next_touch) {
			next_touch += 0.1;
			if (!strcmp(mode, "touch"))
				rc = utimensat(AT_FDCWD, path, NULL, 0);
			else if (!strcmp(mode, "append"))
				rc = append_line(path, region, k++);
		}
		if (!strcmp(mode, "replace") && wl_now() >= next_replace) {
			next_replace += 1.0;
			rc = write_map(path, region, mb << 20, ++gen);
		}
	}
	if (rc)
		perror("perfmap_churn");
	unlink(path);
	return rc ? 1 : 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "perfmap_churn: x86-64 only\n");
	return 77;
#endif
}
