/* process_vm_readv with the checks a hostile address deserves. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "runtimes/procmem.h"

int procmem__read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local, remote;
	ssize_t n;

	if (len == 0)
		return 0;
	if (addr + len < addr || addr > (uint64_t)UINTPTR_MAX - len)
		return -EINVAL;
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = len;
	do
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* a partial read stops at the first page that is not mapped */
	return (size_t)n == len ? 0 : -EFAULT;
}
