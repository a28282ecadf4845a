/* Fuzz target: /proc/PID/maps parsing (collector/procmaps.c), one line as
 * given, every line of the input, and the file reader over a temp file. */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "collector/procmaps.h"
#include "tests/fuzz/fuzz.h"

static void check_entry(const struct procmaps_entry *e)
{
	FUZZ_CHECK(e->end > e->start);
	FUZZ_CHECK(e->path != NULL);
	FUZZ_CHECK(memchr(e->path, '\0', e->path_len) == NULL);
}

static int on_entry(void *ctx, const struct procmaps_entry *e)
{
	size_t *n = ctx;

	check_entry(e);
	fuzz_touch(e->path, e->path_len);
	/* Stop early sometimes, to exercise that path too. */
	return ++*n >= 100000 ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *end = text + size, *p = text;
	struct procmaps_entry e;
	size_t n = 0, bad = 0;
	int fd;

	if (procmaps__parse_line(text, size, &e) == 0) {
		FUZZ_CHECK(e.path >= text && e.path + e.path_len <= end);
		check_entry(&e);
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (procmaps__parse_line(p, len, &e) == 0) {
			FUZZ_CHECK(e.path >= p && e.path + e.path_len <= p + len);
			check_entry(&e);
		}
		p += len;
	}
	fd = open(fuzz_tmp_write(data, size), O_RDONLY | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	/* read_fd owns and closes fd */
	(void)procmaps__read_fd(fd, on_entry, &n, &bad);
	return 0;
}
