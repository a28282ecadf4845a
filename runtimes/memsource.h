/* Where a runtime reader's bytes come from: another process's memory
 * (procmem) in the agent, an in-memory image in tests and fuzzers. Every
 * reader in runtimes/ reads through this, so the same parsing code that
 * runs against a live JVM or interpreter runs against mutated images.
 * Bytes read are hostile: callers bound and validate everything. */
#ifndef SMOLDER_RUNTIMES_MEMSOURCE_H
#define SMOLDER_RUNTIMES_MEMSOURCE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ledger;

struct memsource {
	/* 0 when all len bytes at addr were read, else a negative errno
	 * (-EFAULT: not all of it is mapped; -ESRCH: the process is gone) */
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	/* n ranges at once, ok[i] for each (NULL: read one by one); returns
	 * how many were read or a negative errno */
	int (*readv)(void *ctx, const uint64_t *addrs, const size_t *lens, void *const *bufs,
		     bool *ok, size_t n);
	void *ctx;
	uint64_t reads; /* calls made, for the caller's statistics */
	/* who pays for the reads (runtimes/accountant.h); NULL: nobody counts */
	struct ledger *ledger;
};

/* A source reading process pid's memory (ctx holds the pid itself). */
void memsource__process(struct memsource *m, pid_t pid);

int memsource__read(struct memsource *m, uint64_t addr, void *buf, size_t len);
/* Reads n ranges (at most MEMSOURCE_SPANS_MAX): in one call where the
 * source can, ok[i] saying which were read whole. Returns how many were,
 * or a negative errno when the source itself failed (the process gone). */
#define MEMSOURCE_SPANS_MAX 128
int memsource__readv(struct memsource *m, const uint64_t *addrs, const size_t *lens,
		     void *const *bufs, bool *ok, size_t n);
int memsource__u64(struct memsource *m, uint64_t addr, uint64_t *v);
int memsource__u32(struct memsource *m, uint64_t addr, uint32_t *v);
int memsource__u16(struct memsource *m, uint64_t addr, uint16_t *v);

/* A NUL-terminated string of at most size - 1 bytes, read in chunks that
 * stop at page ends (so a string just before an unmapped page reads).
 * Returns its length, -ENAMETOOLONG when no NUL came in size - 1 bytes,
 * or the read's -errno. buf is always terminated when size > 0. */
ssize_t memsource__str(struct memsource *m, uint64_t addr, char *buf, size_t size);

/* An image of memory for tests and fuzzers: regions of bytes at addresses.
 * Reads crossing a region's end or touching no region fail with -EFAULT. */
struct memimage_region {
	uint64_t addr;
	const uint8_t *bytes;
	size_t len;
};
struct memimage {
	const struct memimage_region *regions;
	size_t n;
};
void memsource__image(struct memsource *m, const struct memimage *img);

#endif
