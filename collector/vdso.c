/* The agent's own vDSO, copied into a file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "collector/procmaps.h"
#include "collector/vdso.h"
#include "common/fileio.h"

static int find_vdso_cb(void *ctx, const struct procmaps_entry *e)
{
	uint64_t *range = ctx;

	if (e->path_len == 6 && memcmp(e->path, "[vdso]", 6) == 0) {
		range[0] = e->start;
		range[1] = e->end;
		return 1;
	}
	return 0;
}

int vdso__copy(void)
{
	uint64_t range[2] = { 0, 0 };
	uint64_t base = (uint64_t)getauxval(AT_SYSINFO_EHDR);
	char tmpl[] = "/tmp/smolder-vdso-XXXXXX";
	const uint8_t *p;
	size_t len;
	int fd, err;

	if (!base)
		return -ENOENT;
	if (procmaps__read(getpid(), find_vdso_cb, range, NULL) != 1 || range[0] != base ||
	    range[1] - range[0] > (1u << 20))
		return -ENOENT;
	p = (const uint8_t *)(uintptr_t)base;
	len = (size_t)(range[1] - range[0]);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(tmpl);
	err = fileio__write_all(fd, p, len);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}
