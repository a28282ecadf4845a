/* The CPUs of this host that events can be opened on. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "collector/cpus.h"
#include "common/fileio.h"
#include "common/parse.h"

/* More CPUs than any host has: a longer list is a damaged file. */
#define ONLINE_MAX_CPUS 65536
#define CPULIST_MAX_CPU (1 << 20)

int cpus__parse_list(const char *s, size_t len, int *cpus, size_t max, size_t *n)
{
	size_t i = 0, count = 0, pass;
	long prev = -1;

	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	if (len == 0)
		return -EINVAL;
	/* Pass 0 validates and counts, pass 1 writes: cpus[] stays untouched
	 * on failure. */
	for (pass = 0; pass < 2; pass++) {
		i = 0;
		count = 0;
		prev = -1;
		while (i < len) {
			uint64_t lo, hi;
			size_t start = i;
			uint64_t c;

			while (i < len && s[i] >= '0' && s[i] <= '9')
				i++;
			if (parse__u64n(s + start, i - start, 10, &lo) || lo >= CPULIST_MAX_CPU)
				return -EINVAL;
			hi = lo;
			if (i < len && s[i] == '-') {
				start = ++i;
				while (i < len && s[i] >= '0' && s[i] <= '9')
					i++;
				if (parse__u64n(s + start, i - start, 10, &hi) ||
				    hi >= CPULIST_MAX_CPU || hi < lo)
					return -EINVAL;
			}
			if ((long)lo <= prev)
				return -EINVAL;
			if (hi - lo + 1 > max - count)
				return -E2BIG;
			for (c = lo; c <= hi; c++) {
				if (pass == 1 && cpus)
					cpus[count] = (int)c;
				count++;
			}
			prev = (long)hi;
			if (i < len) {
				if (s[i] != ',' || i + 1 == len)
					return -EINVAL;
				i++;
			}
		}
	}
	*n = count;
	return 0;
}

int cpus__online(int **cpus, size_t *n)
{
	char buf[4096];
	size_t count;
	ssize_t len;
	int *v;
	int rc;

	len = fileio__read_small("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (len < 0)
		return (int)len;
	rc = cpus__parse_list(buf, (size_t)len, NULL, ONLINE_MAX_CPUS, &count);
	if (rc)
		return rc;
	v = malloc(count * sizeof(*v));
	if (!v)
		return -ENOMEM;
	rc = cpus__parse_list(buf, (size_t)len, v, count, &count);
	if (rc) {
		free(v);
		return rc;
	}
	*cpus = v;
	*n = count;
	return 0;
}
