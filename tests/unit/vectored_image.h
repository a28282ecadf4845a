/* A memory image read as a process is (process_vm_readv): ranges in one
 * call, which the memsource's reads count as one. For tests of readers
 * that count their calls. */
#ifndef SMOLDER_TESTS_VECTORED_IMAGE_H
#define SMOLDER_TESTS_VECTORED_IMAGE_H
#include "runtimes/memsource.h"

/* memsource.readv over ctx, a struct memimage. */
static inline int vectored_image_readv(void *ctx, const uint64_t *addrs, const size_t *lens,
				       void *const *bufs, bool *ok, size_t n)
{
	struct memsource m;
	size_t i;
	int got = 0;

	memsource__image(&m, ctx);
	for (i = 0; i < n; i++) {
		ok[i] = m.read(m.ctx, addrs[i], bufs[i], lens[i]) == 0;
		got += ok[i];
	}
	return got;
}

#endif
