/* process_vm_readv with the checks a hostile address deserves. */
#include "config.h"

#include <errno.h>
#include <limits.h>
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

ssize_t procmem__read_some(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local, remote;
	ssize_t n;

	if (len == 0)
		return 0;
	if (len > SSIZE_MAX || addr + len < addr || addr > (uint64_t)UINTPTR_MAX - len)
		return -EINVAL;
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = len;
	do
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	while (n < 0 && errno == EINTR);
	/* nothing mapped at addr at all */
	if (n < 0 && errno == EFAULT)
		return 0;
	return n < 0 ? -errno : n;
}

int procmem__readv(pid_t pid, const uint64_t *addrs, const size_t *lens, void *const *bufs,
		   bool *ok, size_t n)
{
	struct iovec local[PROCMEM_SPANS_MAX], remote[PROCMEM_SPANS_MAX];
	size_t idx[PROCMEM_SPANS_MAX], first = 0, i, m, got = 0;
	ssize_t r;

	if (n > PROCMEM_SPANS_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		ok[i] = false;
	while (first < n) {
		/* the ranges from first on that can be read at all */
		for (m = 0, i = first; i < n; i++) {
			if (lens[i] == 0 || addrs[i] + lens[i] < addrs[i] ||
			    addrs[i] > (uint64_t)UINTPTR_MAX - lens[i])
				continue;
			local[m].iov_base = bufs[i];
			local[m].iov_len = lens[i];
			remote[m].iov_base = (void *)(uintptr_t)addrs[i];
			remote[m].iov_len = lens[i];
			idx[m++] = i;
		}
		if (!m)
			break;
		do
			r = process_vm_readv(pid, local, m, remote, m, 0);
		while (r < 0 && errno == EINTR);
		if (r < 0 && errno != EFAULT)
			return -errno;
		/* whole ranges up to where the read stopped; the one it stopped
		 * in failed, the next call starts after it */
		for (i = 0; i < m && r >= 0 && (size_t)r >= lens[idx[i]]; i++) {
			ok[idx[i]] = true;
			got++;
			r -= (ssize_t)lens[idx[i]];
		}
		if (i == m)
			break;
		first = idx[i] + 1;
	}
	return (int)got;
}
