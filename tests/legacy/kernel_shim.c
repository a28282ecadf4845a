/* LD_PRELOAD shim: perf_event_open(2) answers as an older kernel would.
 *
 * SMOLDER_FAKE_KERNEL=2.6.32|3.10|4.4 selects the kernel; anything else (or
 * unset) passes every call through. The shim only refuses: a call the
 * emulated kernel would accept goes to the running kernel unchanged, so the
 * fallback code of the program under test runs against real rings.
 *
 * The checks follow sys_perf_event_open() and perf_copy_attr() of upstream
 * kernels, in their order:
 *   1. flags outside that kernel's PERF_FLAG_ALL          -> EINVAL
 *   2. attr.size: 0 means PERF_ATTR_SIZE_VER0; below VER0 or above a page,
 *      or larger than the kernel's struct with a non-zero byte beyond it
 *                                                         -> E2BIG, and the
 *      kernel's own size is written into attr.size (put_user in err_size)
 *   3. (2.6.32 only) attr.type >= PERF_TYPE_MAX            -> EINVAL
 *   4. a set bit in __reserved_1 (flag bits that kernel does not have), or
 *      a non-zero reserved field inside its struct         -> EINVAL
 *   5. sample_type bits >= that kernel's PERF_SAMPLE_MAX   -> EINVAL
 * and ioctl(2)'s PERF_EVENT_IOC_ID, which kernels before 3.12 do not know
 * (ENOTTY).
 * Values: include/uapi/linux/perf_event.h history and the perf_event_open(2)
 * man page ("since Linux x.y" of each field). Upstream semantics; distribution
 * kernels (RHEL 7's 3.10) backport more than upstream 3.10 had. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Offsets in struct perf_event_attr (the ABI never moves a field). */
#define OFF_TYPE 0
#define OFF_SIZE 4
#define OFF_SAMPLE_TYPE 24
#define OFF_FLAGS 40

#define ATTR_SIZE_VER0 64
#define PAGE_LIMIT 4096

#define FLAG_FD_NO_GROUP (1UL << 0)
#define FLAG_FD_OUTPUT (1UL << 1)
#define FLAG_PID_CGROUP (1UL << 2)  /* 2.6.39 */
#define FLAG_FD_CLOEXEC (1UL << 3)  /* 3.14 */

struct reserved_range {
	uint32_t off, len;
};

struct fake_kernel {
	const char *name;
	int has_ioc_id;            /* PERF_EVENT_IOC_ID, 3.12 */
	uint32_t attr_size;        /* sizeof(struct perf_event_attr) there */
	unsigned flag_bits;        /* bits of the flag word before __reserved_1 */
	unsigned sample_bits;      /* log2(PERF_SAMPLE_MAX) */
	unsigned long flags_all;   /* PERF_FLAG_ALL */
	uint32_t type_max;         /* checked in perf_copy_attr: 0 = not there */
	struct reserved_range reserved[2]; /* must-be-zero fields in the struct */
};

static const struct fake_kernel kernels[] = {
	/* 2.6.32: VER0 struct; flags up to watermark (bit 14; precise_ip is
	 * 2.6.35, mmap_data 2.6.36, sample_id_all 2.6.38); samples up to RAW
	 * (bit 10); __reserved_2 (u32 at 52) and __reserved_3 (u64 at 56),
	 * later bp_type/bp_addr (2.6.33), must be zero; types up to RAW. */
	{ "2.6.32", 0, 64, 15, 11, FLAG_FD_NO_GROUP | FLAG_FD_OUTPUT, 5, { { 52, 4 }, { 56, 8 } } },
	/* 3.10: VER3 (sample_regs_user/sample_stack_user, 3.7); flags up to
	 * exclude_callchain_user (bit 22; mmap2/comm_exec are 3.16); samples up
	 * to DATA_SRC (bit 15; IDENTIFIER is 3.12); no FD_CLOEXEC (3.14). The
	 * u32 after sample_stack_user (clockid since 4.1) was not checked. */
	{ "3.10", 0, 96, 23, 16, FLAG_FD_NO_GROUP | FLAG_FD_OUTPUT | FLAG_PID_CGROUP, 0, { { 0, 0 }, { 0, 0 } } },
	/* 4.4: VER5 (aux_watermark, 4.1); flags up to context_switch (bit 26;
	 * write_backward is 4.6); samples up to REGS_INTR (bit 18; PHYS_ADDR is
	 * 4.13); the u32 __reserved_2 after aux_watermark must be zero. */
	{ "4.4", 1, 112, 27, 19, FLAG_FD_NO_GROUP | FLAG_FD_OUTPUT | FLAG_PID_CGROUP | FLAG_FD_CLOEXEC, 0,
	  { { 108, 4 }, { 0, 0 } } },
};

typedef long (*syscall_fn)(long, ...);

static const struct fake_kernel *fake_kernel(void)
{
	const char *v = getenv("SMOLDER_FAKE_KERNEL");
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
		if (strcmp(v, kernels[i].name) == 0)
			return &kernels[i];
	return NULL;
}

static int nonzero(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return 1;
	return 0;
}

/* 0 when kernel k would accept the call, else the errno it would return. */
static int emulate(const struct fake_kernel *k, unsigned char *attr, unsigned long flags)
{
	unsigned char local[PAGE_LIMIT];
	uint32_t size, type;
	uint64_t word, sample_type;
	size_t i;

	if (flags & ~k->flags_all)
		return EINVAL;
	if (!attr)
		return EFAULT;
	memcpy(&size, attr + OFF_SIZE, sizeof(size));
	if (size == 0)
		size = ATTR_SIZE_VER0;
	if (size < ATTR_SIZE_VER0 || size > PAGE_LIMIT)
		goto err_size;
	if (size > k->attr_size && nonzero(attr + k->attr_size, size - k->attr_size))
		goto err_size;
	/* What the kernel copied: its struct, zero-filled past a short attr. */
	memset(local, 0, k->attr_size);
	memcpy(local, attr, size < k->attr_size ? size : k->attr_size);

	memcpy(&type, local + OFF_TYPE, sizeof(type));
	if (k->type_max && type >= k->type_max)
		return EINVAL;
	memcpy(&word, local + OFF_FLAGS, sizeof(word));
	if (k->flag_bits < 64 && (word >> k->flag_bits) != 0)
		return EINVAL;
	for (i = 0; i < sizeof(k->reserved) / sizeof(k->reserved[0]); i++)
		if (k->reserved[i].len && nonzero(local + k->reserved[i].off, k->reserved[i].len))
			return EINVAL;
	memcpy(&sample_type, local + OFF_SAMPLE_TYPE, sizeof(sample_type));
	if (sample_type >> k->sample_bits)
		return EINVAL;
	return 0;

err_size:
	memcpy(attr + OFF_SIZE, &k->attr_size, sizeof(k->attr_size));
	return E2BIG;
}

long syscall(long number, ...)
{
	static syscall_fn real;
	long a[6];
	va_list ap;
	int i;

	va_start(ap, number);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);

	if (number == __NR_perf_event_open) {
		const struct fake_kernel *k = fake_kernel();

		if (k) {
			int err = emulate(k, (unsigned char *)a[0], (unsigned long)a[4]);

			if (err) {
				errno = err;
				return -1;
			}
		}
	}
	if (!real) {
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
		if (!real) {
			errno = ENOSYS;
			return -1;
		}
	}
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* ioctl(2) of perf events: PERF_EVENT_IOC_ID is 3.12; an older kernel's
 * perf_ioctl answers -ENOTTY to a request it does not know. */
#define IOC_ID_NR 7      /* _IOR('$', 7, __u64 *) */
#define IOC_TYPE_PERF '$'

typedef int (*ioctl_fn)(int, unsigned long, ...);

int ioctl(int fd, unsigned long request, ...)
{
	static ioctl_fn real;
	const struct fake_kernel *k = fake_kernel();
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (k && !k->has_ioc_id && ((request >> 8) & 0xff) == IOC_TYPE_PERF &&
	    (request & 0xff) == IOC_ID_NR) {
		errno = ENOTTY;
		return -1;
	}
	if (!real) {
		real = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
		if (!real) {
			errno = ENOSYS;
			return -1;
		}
	}
	return real(fd, request, arg);
}
