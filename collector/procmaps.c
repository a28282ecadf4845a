/* /proc/PID/maps parsing: "start-end perms offset maj:min inode   path". */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/procmaps.h"
#include "common/parse.h"

#define MAX_LINES 1000000

/* Takes the token up to `stop` (or end), advancing *p past it and the stop char. */
static int field(const char **p, const char *end, char stop, const char **tok, size_t *tlen)
{
	const char *s = *p, *q = s;

	while (q < end && *q != stop)
		q++;
	if (q == s || q >= end)
		return -EINVAL;
	*tok = s;
	*tlen = (size_t)(q - s);
	*p = q + 1;
	return 0;
}

static int hexfield(const char **p, const char *end, char stop, uint64_t *v)
{
	const char *t;
	size_t n;

	if (field(p, end, stop, &t, &n) < 0 || n > 16)
		return -EINVAL;
	return parse__u64n(t, n, 16, v);
}

int procmaps__parse_line(const char *line, size_t len, struct procmaps_entry *out)
{
	const char *p = line, *end = line + len, *t;
	struct procmaps_entry e;
	uint64_t maj, min;
	size_t n;
	static const char deleted_sfx[] = " (deleted)";

	if (len > 0 && line[len - 1] == '\n')
		end--;
	memset(&e, 0, sizeof(e));
	if (hexfield(&p, end, '-', &e.start) < 0 || hexfield(&p, end, ' ', &e.end) < 0)
		return -EINVAL;
	if (e.end <= e.start)
		return -EINVAL;
	if (field(&p, end, ' ', &t, &n) < 0 || n != 4)
		return -EINVAL;
	e.readable = t[0] == 'r';
	e.writable = t[1] == 'w';
	e.executable = t[2] == 'x';
	if (hexfield(&p, end, ' ', &e.pgoff) < 0 || hexfield(&p, end, ':', &maj) < 0 ||
	    hexfield(&p, end, ' ', &min) < 0 || maj > UINT32_MAX || min > UINT32_MAX)
		return -EINVAL;
	e.maj = (uint32_t)maj;
	e.min = (uint32_t)min;
	/* the inode is the last field before optional padding and the path */
	t = p;
	while (p < end && *p != ' ')
		p++;
	if (p == t || parse__u64n(t, (size_t)(p - t), 10, &e.ino) < 0)
		return -EINVAL;
	while (p < end && *p == ' ')
		p++;
	e.path = p;
	e.path_len = (size_t)(end - p);
	if (e.path_len >= sizeof(deleted_sfx) - 1 &&
	    memcmp(end - (sizeof(deleted_sfx) - 1), deleted_sfx, sizeof(deleted_sfx) - 1) == 0) {
		e.deleted = 1;
		e.path_len -= sizeof(deleted_sfx) - 1;
	}
	if (memchr(e.path, '\0', e.path_len))
		return -EINVAL;
	*out = e;
	return 0;
}

int procmaps__read_fd(int fd, procmaps_fn fn, void *ctx, size_t *bad)
{
	FILE *f = fdopen(fd, "re");
	char line[PROCMAPS_LINE_MAX];
	size_t lines = 0, nbad = 0;
	int rc = 0;

	if (!f) {
		int err = errno;

		close(fd);
		return -err;
	}
	while (lines < MAX_LINES && fgets(line, sizeof(line), f)) {
		struct procmaps_entry e;
		size_t len = strlen(line);

		lines++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			int c;

			/* overlong line: skip the rest of it */
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			nbad++;
			continue;
		}
		if (procmaps__parse_line(line, len, &e) < 0) {
			nbad++;
			continue;
		}
		rc = fn(ctx, &e);
		if (rc)
			break;
	}
	fclose(f);
	if (bad)
		*bad = nbad;
	return rc;
}

static int read_path(const char *path, procmaps_fn fn, void *ctx, size_t *bad)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return procmaps__read_fd(fd, fn, ctx, bad);
}

int procmaps__read(pid_t pid, procmaps_fn fn, void *ctx, size_t *bad)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	return read_path(path, fn, ctx, bad);
}

int procmaps__read_task(pid_t pid, pid_t tid, procmaps_fn fn, void *ctx, size_t *bad)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)pid, (int)tid);
	return read_path(path, fn, ctx, bad);
}
