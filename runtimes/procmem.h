/* Reading another process's memory from the outside, the one primitive every
 * runtime reader (HotSpot, CPython) is built on. process_vm_readv copies
 * from the target's address space without stopping, signalling or writing
 * into it; a page that is not mapped (the target unmapped it, or exited)
 * ends the read where it is, it never faults the agent. Everything read this
 * way is hostile and stale the moment it arrives: callers validate it.
 * Needs CAP_SYS_PTRACE over the target (root, or the same user under
 * ptrace_scope 0). Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_PROCMEM_H
#define SMOLDER_RUNTIMES_PROCMEM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads len bytes at addr of process pid into buf. Returns 0 when all of
 * them were read; -EFAULT when only part (or none) of the range is mapped;
 * -ESRCH when the process is gone; -EPERM when we may not read it; -EINVAL
 * for a range that wraps the address space; -ENOSYS without
 * process_vm_readv (kernels before 3.2). buf is undefined on failure. */
int procmem__read(pid_t pid, uint64_t addr, void *buf, size_t len);

/* Reads up to len bytes at addr of process (or thread) pid into buf, in one
 * call, as far as the memory is mapped: a stack read past its end. Returns
 * how many bytes were read from addr on (0: addr itself is not mapped), or
 * -ESRCH/-EPERM/-EINVAL/-ENOSYS as procmem__read. */
ssize_t procmem__read_some(pid_t pid, uint64_t addr, void *buf, size_t len);

/* Reads n ranges at once (one process_vm_readv for all, where each range
 * fits in one page; up to PROCMEM_SPANS_MAX): addrs[i], lens[i] into
 * bufs[i]. ok[i] says whether range i was read whole. Returns the number
 * read, or -ESRCH/-EPERM/-ENOSYS as procmem__read. Ranges after one that
 * fails are read again without it. */
#define PROCMEM_SPANS_MAX 128
int procmem__readv(pid_t pid, const uint64_t *addrs, const size_t *lens, void *const *bufs,
		   bool *ok, size_t n);

#endif
