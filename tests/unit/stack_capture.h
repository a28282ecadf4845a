/* Samples of this process's own stack, taken the way the kernel takes
 * them: the registers PERF_SAMPLE_REGS_USER reports at an interrupt and a
 * raw copy of the stack above the sp, for tests that unwind real frames
 * (test_unwind, test_user_stack, test_runtimes). STACK_CAPTURE() in a
 * noinline function makes that function frame 0. Header only: a test of
 * unwind/ uses the perf sample's layout, not the collector's code. */
#ifndef SMOLDER_TESTS_STACK_CAPTURE_H
#define SMOLDER_TESTS_STACK_CAPTURE_H
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "collector/perf_record.h"
#include "unwind/regs.h"
#include "unwind/unwind.h"

static uint8_t stackbuf[1 << 20];
static struct unwind_regs cap_regs;
static struct unwind_stack cap_stack;
static size_t cap_want = sizeof(stackbuf); /* bytes to copy; clipped to the stack's end */
static uint64_t cap_end;   /* end of the current thread's stack */

static inline uint64_t thread_stack_end(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	cr_assert_eq(pthread_getattr_np(pthread_self(), &a), 0);
	cr_assert_eq(pthread_attr_getstack(&a, &addr, &size), 0);
	pthread_attr_destroy(&a);
	return (uintptr_t)addr + size;
}

/* Reads n bytes of this process's memory at src into dst the way the kernel
 * copies a stack: raw bytes, including the redzones ASan poisons around
 * other frames' locals; through process_vm_readv where it can, whose bytes
 * valgrind takes as they are (the padding of frames is uninitialised to it,
 * not to the kernel). */
__attribute__((noinline, no_sanitize_address, unused))
static void read_raw(void *dst, uint64_t src, size_t n)
{
	const volatile uint8_t *from = (const volatile uint8_t *)(uintptr_t)src;
	struct iovec local = { dst, n }, remote = { (void *)(uintptr_t)src, n };
	uint8_t *to = dst;
	size_t i;

	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n)
		return;
	for (i = 0; i < n; i++)
		to[i] = from[i];
}

/* Copies the live stack above the sp the way the kernel does. */
__attribute__((noinline, unused))
static void copy_stack(const uint64_t *r)
{
	size_t n = cap_want;
	unsigned k;

	if (!cap_end)
		cap_end = thread_stack_end();
	if (cap_end - r[UNWIND_REG_SP] < n)
		n = cap_end - r[UNWIND_REG_SP];
	if (n > sizeof(stackbuf))
		n = sizeof(stackbuf);
	read_raw(stackbuf, r[UNWIND_REG_SP], n);
	memset(&cap_regs, 0, sizeof(cap_regs));
	for (k = 0; k < UNWIND_NREGS; k++)
		cap_regs.val[k] = r[k];
	cap_regs.valid = (1u << 3) | (1u << 6) | (1u << 7) | (0xfu << 12) | (1u << 16);
	cap_stack.base = r[UNWIND_REG_SP];
	cap_stack.data = stackbuf;
	cap_stack.size = n;
}

/* rip, rsp and the callee-saved registers where it stands (DWARF
 * numbering: rbx 3, rbp 6, rsp 7, r12-r15, rip 16), then the stack. */
#define STACK_CAPTURE()                                                     \
	do {                                                                \
		uint64_t r_[UNWIND_NREGS];                                  \
		__asm__ volatile("movq %%rbx, 24(%0)\n\t"                   \
				 "movq %%rbp, 48(%0)\n\t"                   \
				 "movq %%rsp, 56(%0)\n\t"                   \
				 "movq %%r12, 96(%0)\n\t"                   \
				 "movq %%r13, 104(%0)\n\t"                  \
				 "movq %%r14, 112(%0)\n\t"                  \
				 "movq %%r15, 120(%0)\n\t"                  \
				 "leaq 0(%%rip), %%rax\n\t"                 \
				 "movq %%rax, 128(%0)\n\t"                  \
				 : : "r"(r_) : "rax", "memory");            \
		copy_stack(r_);                                             \
		__asm__ volatile("" ::: "memory");                          \
	} while (0)

/* The captured stack as the kernel hands it over in a sample of this
 * thread: registers in perf's layout for unwind__perf_regs_mask (vals:
 * room for 24), the copy. */
__attribute__((unused))
static void capture_as_perf_sample(struct perf_sample *smp, uint64_t *vals)
{
	/* perf's x86-64 register indices, in bit order, and their DWARF numbers */
	static const int dwarf_of[24] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1, -1, -1, -1, -1,
					  8, 9, 10, 11, 12, 13, 14, 15 };
	uint64_t mask = unwind__perf_regs_mask();
	unsigned bit, n = 0;

	for (bit = 0; bit < 24; bit++)
		if (mask & (1ull << bit))
			vals[n++] = dwarf_of[bit] >= 0 ? cap_regs.val[dwarf_of[bit]] : 0;
	memset(smp, 0, sizeof(*smp));
	smp->pid = (uint32_t)getpid();
	smp->tid = (uint32_t)syscall(SYS_gettid);
	smp->regs_abi = 2; /* PERF_SAMPLE_REGS_ABI_64 */
	smp->regs_nr = n;
	smp->regs = vals;
	smp->stack = cap_stack.data;
	smp->stack_size = cap_stack.size;
	smp->stack_dyn_size = cap_stack.size;
}

#endif
