/* The perf_event_attr ABI across kernel versions (3.10 headers and later):
 * the flag bits and the clockid field older headers do not name, set by
 * their ABI position, and opening an event close-on-exec on kernels with
 * and without PERF_FLAG_FD_CLOEXEC. Used by feature probing and by the
 * sampler's own attr. */
#ifndef SMOLDER_COLLECTOR_PERF_ATTR_H
#define SMOLDER_COLLECTOR_PERF_ATTR_H
#include <stdbool.h>
#include <stdint.h>

#include <linux/perf_event.h>

#if !HAVE_DECL_PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)
#endif
#ifndef PERF_ATTR_SIZE_VER0
#define PERF_ATTR_SIZE_VER0 64
#endif

/* Bits of the attr flag word that the kernel 3.10 headers do not name; set
 * through the word so this file builds against them (values from the ABI). */
#define ATTR_BIT_SAMPLE_ID_ALL 18
#define ATTR_BIT_EXCLUDE_CALLCHAIN_KERNEL 21
#define ATTR_BIT_EXCLUDE_CALLCHAIN_USER 22
#define ATTR_BIT_MMAP2 23
#define ATTR_BIT_COMM_EXEC 24
#define ATTR_BIT_USE_CLOCKID 25
#define ATTR_BIT_CONTEXT_SWITCH 26

/* Sets flag bit `bit` (ATTR_BIT_*) of a's flag word. */
void perf_attr__set_bit(struct perf_event_attr *a, unsigned bit);
void perf_attr__clear_bit(struct perf_event_attr *a, unsigned bit);
/* attr.clockid (4.1), where older headers have __reserved_2. */
void perf_attr__set_clockid(struct perf_event_attr *a, int32_t clk);
/* Raw perf_event_open(2), flags as the syscall's. Returns the fd or -errno. */
int perf_attr__sys_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
			unsigned long flags);
/* Opens close-on-exec whichever way this kernel allows: with
 * PERF_FLAG_FD_CLOEXEC when flag_cloexec (3.14+), else by fcntl after the
 * open. Returns the fd or -errno. */
int perf_attr__open_cloexec(bool flag_cloexec, struct perf_event_attr *a, int pid, int cpu);

#endif
