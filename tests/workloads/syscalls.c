/* Workload: a loop of cheap syscalls (64 KiB reads from /dev/zero, getppid) so
 * that samples land in the kernel under known user frames. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wl_time.h"

volatile unsigned long sink;
static char buf[65536];

unsigned long do_reads(int fd, int n);

WL_NOINLINE unsigned long do_reads(int fd, int n)
{
	unsigned long total = 0;
	int i;

	for (i = 0; i < n; i++) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r > 0)
			total += (unsigned long)r;
		total += (unsigned long)syscall(SYS_getppid);
	}
	return total;
}

int main(int argc, char **argv)
{
	double end = wl_now() + wl_seconds(argc, argv, 3.0);
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror("syscalls: open /dev/zero");
		return 1;
	}
	while (wl_now() < end)
		sink += do_reads(fd, 100);
	close(fd);
	return 0;
}
