/* The perf_event_attr ABI across kernel versions: flag bits and fields the
 * oldest supported headers do not name, and opening with close-on-exec. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/perf_attr.h"

/* The mask of flag bit `bit` in the flag word. */
static uint64_t flag_mask(unsigned bit)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return 1ull << (63 - bit); /* GCC allocates bit-fields from the MSB there */
#else
	return 1ull << bit;
#endif
}

static void change_bit(struct perf_event_attr *a, unsigned bit, bool on)
{
	unsigned char *p = (unsigned char *)a + offsetof(struct perf_event_attr, read_format) + 8;
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	w = on ? w | flag_mask(bit) : w & ~flag_mask(bit);
	memcpy(p, &w, sizeof(w));
}

void perf_attr__set_bit(struct perf_event_attr *a, unsigned bit)
{
	change_bit(a, bit, true);
}

void perf_attr__clear_bit(struct perf_event_attr *a, unsigned bit)
{
	change_bit(a, bit, false);
}

/* attr.clockid (4.1) sits where older headers have __reserved_2. */
void perf_attr__set_clockid(struct perf_event_attr *a, int32_t clk)
{
	memcpy((unsigned char *)a + offsetof(struct perf_event_attr, sample_stack_user) + 4, &clk,
	       sizeof(clk));
}

int perf_attr__sys_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
			  unsigned long flags)
{
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);

	if (fd < 0)
		return -errno;
	return (int)fd;
}

/* Opens with O_CLOEXEC semantics whichever way this kernel allows. */
int perf_attr__open_cloexec(bool flag_cloexec, struct perf_event_attr *a, int pid, int cpu)
{
	int fd;

	if (flag_cloexec)
		return perf_attr__sys_open(a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	/* Before 3.14: a fork+exec in another thread between these two calls
	 * can leak the fd; nothing better exists there. */
	fd = perf_attr__sys_open(a, pid, cpu, -1, 0);
	if (fd >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}
