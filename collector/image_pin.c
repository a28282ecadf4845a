/* Pinning a process image: /proc/PID/mem, checked against the maps. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/image_pin.h"
#include "collector/procmaps.h"

struct want {
	uint64_t start, pgoff, ino;
	const char *path;
	bool found;
};

static int match(void *ctx, const struct procmaps_entry *e)
{
	struct want *w = ctx;

	if (w->start < e->start || w->start >= e->end || !e->path_len)
		return 0;
	/* the mapping may have been split since it was made (mprotect) */
	if (e->pgoff + (w->start - e->start) != w->pgoff)
		return 1;
	if (w->ino ? e->ino != w->ino
		   : w->path && (strlen(w->path) != e->path_len || memcmp(w->path, e->path, e->path_len)))
		return 1;
	w->found = true;
	return 1;
}

int image_pin__open(struct image_pin *pin, int pid, uint64_t start, uint64_t pgoff, uint64_t ino,
		    const char *path)
{
	struct want w = { start, pgoff, ino, path, false };
	char file[64];
	int fd, err;

	snprintf(file, sizeof(file), "/proc/%d/mem", pid);
	fd = open(file, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = procmaps__read(pid, match, &w, NULL);
	if (err < 0 || !w.found) {
		close(fd);
		return err < 0 ? err : -ESTALE;
	}
	pin->fd = fd;
	pin->probe = start;
	return 0;
}

bool image_pin__same(const struct image_pin *pin)
{
	unsigned char b;

	/* an address space that is gone reads as end of file */
	return pin->fd >= 0 && pread(pin->fd, &b, 1, (off_t)pin->probe) == 1;
}

void image_pin__close(struct image_pin *pin)
{
	if (pin->fd >= 0)
		close(pin->fd);
	pin->fd = -1;
	pin->probe = 0;
}
