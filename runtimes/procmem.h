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
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads len bytes at addr of process pid into buf. Returns 0 when all of
 * them were read; -EFAULT when only part (or none) of the range is mapped;
 * -ESRCH when the process is gone; -EPERM when we may not read it; -EINVAL
 * for a range that wraps the address space; -ENOSYS without
 * process_vm_readv (kernels before 3.2). buf is undefined on failure. */
int procmem__read(pid_t pid, uint64_t addr, void *buf, size_t len);

#endif
