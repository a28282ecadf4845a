/* Dropping capabilities after start-up (capget/capset, bounding set,
 * no_new_privs), and the sampling thread's priority. */
#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon/privileges.h"

#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38 /* Linux 3.5 */
#endif
#ifndef CAP_SYSLOG
#define CAP_SYSLOG 34
#endif
#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE 40 /* Linux 5.9 */
#endif
/* Highest capability number we may meet; the bounding-set drop stops at the
 * first number the kernel does not know (EINVAL). */
#define CAP_MAX_NR 63

uint64_t privileges__daemon_keep(void)
{
	return PRIV_BIT(CAP_SYS_PTRACE) | PRIV_BIT(CAP_DAC_READ_SEARCH) | PRIV_BIT(CAP_SYSLOG) |
	       PRIV_BIT(CAP_CHECKPOINT_RESTORE);
}

/* glibc has no wrappers for these (libcap is not a dependency). */
static int get_caps(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h;

	memset(&h, 0, sizeof(h));
	h.version = _LINUX_CAPABILITY_VERSION_3;
	return (int)syscall(SYS_capget, &h, d);
}

static int set_caps(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h;

	memset(&h, 0, sizeof(h));
	h.version = _LINUX_CAPABILITY_VERSION_3;
	return (int)syscall(SYS_capset, &h, d);
}

static uint64_t join(uint32_t lo, uint32_t hi)
{
	return (uint64_t)lo | ((uint64_t)hi << 32);
}

uint64_t privileges__effective(void)
{
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (get_caps(d) < 0)
		return 0;
	return join(d[0].effective, d[1].effective);
}

int privileges__drop_except(uint64_t keep)
{
	struct __user_cap_data_struct d[2];
	uint64_t eff, perm, inh;
	int cap;

	memset(d, 0, sizeof(d));
	if (get_caps(d) < 0)
		return -errno;
	/* the bounding set first: dropping from it needs CAP_SETPCAP, which
	 * capset below removes */
	for (cap = 0; cap <= CAP_MAX_NR; cap++) {
		if (keep & PRIV_BIT(cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
			if (errno == EINVAL)
				break; /* past the kernel's last capability */
			if (errno == EPERM)
				break; /* no CAP_SETPCAP: the other sets still shrink */
		}
	}
	eff = join(d[0].effective, d[1].effective) & keep;
	perm = join(d[0].permitted, d[1].permitted) & keep;
	inh = join(d[0].inheritable, d[1].inheritable) & keep;
	d[0].effective = (uint32_t)eff;
	d[1].effective = (uint32_t)(eff >> 32);
	d[0].permitted = (uint32_t)perm;
	d[1].permitted = (uint32_t)(perm >> 32);
	d[0].inheritable = (uint32_t)inh;
	d[1].inheritable = (uint32_t)(inh >> 32);
	if (set_caps(d) < 0)
		return -errno;
	/* we never exec; make sure nothing could regain privileges through one */
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return 0;
}

int privileges__raise_priority(int nice)
{
	int cur;

	errno = 0;
	/* on Linux PRIO_PROCESS with 0 is the calling thread */
	cur = getpriority(PRIO_PROCESS, 0);
	if (cur == -1 && errno)
		return -errno;
	if (cur <= nice)
		return 0;
	if (setpriority(PRIO_PROCESS, 0, nice) < 0)
		return -errno;
	return 0;
}
