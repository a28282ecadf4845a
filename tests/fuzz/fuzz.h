/* Shared by the fuzz targets: the libFuzzer entry point's prototype (the
 * project builds with -Wmissing-prototypes) and one reusable temp file for
 * parsers that only take a path. */
#ifndef SMOLDER_TESTS_FUZZ_FUZZ_H
#define SMOLDER_TESTS_FUZZ_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_tmp_path[] = "/tmp/smolder-fuzz-XXXXXX";
static int fuzz_tmp_fd = -1;

static inline void fuzz_tmp_cleanup(void)
{
	if (fuzz_tmp_fd >= 0) {
		close(fuzz_tmp_fd);
		unlink(fuzz_tmp_path);
		fuzz_tmp_fd = -1;
	}
}

/* Makes the temp file (created once per process, mode 0600 by mkstemp,
 * removed at exit) hold exactly data[0..size) and returns its path. One file
 * reused for every input keeps the fuzzer fast and /tmp clean. */
static inline const char *fuzz_tmp_write(const uint8_t *data, size_t size)
{
	size_t off = 0;

	if (fuzz_tmp_fd < 0) {
		fuzz_tmp_fd = mkstemp(fuzz_tmp_path);
		if (fuzz_tmp_fd < 0) {
			perror("mkstemp");
			abort();
		}
		atexit(fuzz_tmp_cleanup);
	}
	while (off < size) {
		ssize_t w = pwrite(fuzz_tmp_fd, data + off, size - off, (off_t)off);

		if (w <= 0) {
			perror("pwrite");
			abort();
		}
		off += (size_t)w;
	}
	/* Cut to size after writing: ext4 flushes a file truncated to 0 on
	 * every close (auto_da_alloc), which made the fuzzers 30x slower. */
	if (ftruncate(fuzz_tmp_fd, (off_t)size) < 0) {
		perror("ftruncate");
		abort();
	}
	return fuzz_tmp_path;
}

/* Reads every byte of a returned buffer, so that ASan checks a pointer the
 * parser handed out really covers what it claims. */
static inline unsigned fuzz_touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;
	unsigned s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += b[i];
	return s;
}

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
