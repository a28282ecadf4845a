/* What a sample that wakes its reader costs the reader, at the least: a
 * busy child, and every CPU sampled by cpu-clock at 999 Hz (the idle
 * task left out) into a ring per CPU the parent polls, as smolder's
 * agent samples the host; woken at every sample (as the agent is while
 * it reads runtime stacks) or at a watermark (as it is otherwise),
 * consuming each record and nothing more. The parent's CPU (rusage)
 * over the samples it took is the floor under any reader that must
 * read at the sample.
 *
 *   bench/wake_floor [SECONDS]      (root, or perf_event_paranoid <= 1)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DATA_PAGES 64u

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_us(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

#define CPUS_MAX 256

/* Samples every CPU for secs, woken at each sample (eager) or at a
 * quarter of a ring; prints the parent's CPU a sample. 0, or -1 with a
 * message. */
static int measure(double secs, int eager)
{
	struct perf_event_attr a;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = page * (1 + DATA_PAGES);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pollfd p[CPUS_MAX];
	void *ring[CPUS_MAX];
	uint64_t records = 0, wakes = 0;
	double t0, c0, c1;
	int n = 0, i, rc = -1;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = 999;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.exclude_idle = 1;
	if (eager) {
		a.wakeup_events = 1;
	} else {
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)(page * DATA_PAGES / 4);
	}
	for (i = 0; i < ncpu && i < CPUS_MAX; i++) {
		int fd = (int)syscall(SYS_perf_event_open, &a, -1, i, -1, 0);

		if (fd < 0) {
			fprintf(stderr, "wake_floor: perf_event_open on CPU %d: %s\n", i, strerror(errno));
			goto out;
		}
		ring[n] = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (ring[n] == MAP_FAILED) {
			fprintf(stderr, "wake_floor: mmap: %s\n", strerror(errno));
			close(fd);
			goto out;
		}
		p[n].fd = fd;
		p[n++].events = POLLIN;
	}
	t0 = now_s();
	c0 = cpu_us();
	while (now_s() - t0 < secs) {
		if (poll(p, (nfds_t)n, 100) <= 0)
			continue;
		wakes++;
		for (i = 0; i < n; i++) {
			struct perf_event_mmap_page *meta = ring[i];
			uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
			uint64_t tail = meta->data_tail;

			while (tail < head) {
				const struct perf_event_header *h =
					(const void *)((const char *)ring[i] + page +
						       tail % (page * DATA_PAGES));

				records += h->type == PERF_RECORD_SAMPLE;
				tail += h->size ? h->size : 8;
			}
			__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
		}
	}
	c1 = cpu_us();
	printf("%-6s %8llu samples %8llu wakeups  %6.2f us of the reader's CPU a sample\n",
	       eager ? "eager" : "batch", (unsigned long long)records, (unsigned long long)wakes,
	       records ? (c1 - c0) / (double)records : 0.0);
	rc = 0;
out:
	for (i = 0; i < n; i++) {
		munmap(ring[i], size);
		close(p[i].fd);
	}
	return rc;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5.0;
	pid_t child;
	int rc;

	if (secs <= 0) {
		fprintf(stderr, "usage: wake_floor [SECONDS]\n");
		return 2;
	}
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		volatile uint64_t x = 0;

		for (;;)
			x++;
	}
	rc = measure(secs, 1) || measure(secs, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return rc ? 1 : 0;
}
