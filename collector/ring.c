/* The perf ring buffer reader: validated records, wrap copies, deferred release. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/ring.h"

struct ring {
	int fd;
	int mapped;          /* ring__new: base is our mmap */
	void *base;
	size_t map_size;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t data_size;    /* power of two */
	uint64_t tail;       /* last released position */
	uint64_t cursor;     /* next record to return, tail <= cursor <= head */
	uint64_t head;       /* snapshot */
	uint64_t corrupt;
	/* Within one unread window (at most data_size bytes) only one record can
	 * straddle the end of the buffer, so one record-sized arena suffices and
	 * never has to grow: no allocation on the read path. u64 for alignment. */
	uint64_t *arena;
};

static int is_pow2(size_t v)
{
	return v && !(v & (v - 1));
}

static int ring_init(struct ring **out, int fd, void *base, size_t data_pages, int mapped)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct ring *r;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->arena = malloc(RING_MAX_RECORD);
	if (!r->arena) {
		free(r);
		return -ENOMEM;
	}
	r->fd = fd;
	r->mapped = mapped;
	r->base = base;
	r->map_size = (1 + data_pages) * page;
	r->meta = base;
	/* data_offset/data_size exist only since 4.1 and are 0 before: use the
	 * layout every kernel shares (data right after the first page). */
	r->data = (uint8_t *)base + page;
	r->data_size = data_pages * page;
	r->tail = __atomic_load_n(&r->meta->data_tail, __ATOMIC_RELAXED);
	r->cursor = r->tail;
	r->head = r->tail;
	*out = r;
	return 0;
}

static int check_pages(size_t data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!is_pow2(data_pages) || data_pages > (SIZE_MAX / page) - 1)
		return -EINVAL;
	return 0;
}

int ring__new(int fd, size_t data_pages, struct ring **out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len;
	void *base;
	int err;

	if (fd < 0 || check_pages(data_pages))
		return -EINVAL;
	len = (1 + data_pages) * page;
	/* PROT_WRITE makes the kernel respect data_tail (no overwrite mode). */
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	err = ring_init(out, fd, base, data_pages, 1);
	if (err)
		goto out_unmap;
	return 0;

out_unmap:
	munmap(base, len);
	return err;
}

int ring__new_mem(void *base, size_t data_pages, struct ring **out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!base || ((uintptr_t)base & (page - 1)) || check_pages(data_pages))
		return -EINVAL;
	return ring_init(out, -1, base, data_pages, 0);
}

void ring__delete(struct ring *r)
{
	if (!r)
		return;
	if (r->mapped && r->base)
		munmap(r->base, r->map_size);
	free(r->arena);
	free(r);
}

void ring__peek_begin(struct ring *r)
{
	/* Acquire pairs with the kernel's barrier before it publishes data_head:
	 * the record bytes below head are visible once we see head. */
	r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
}

static int corrupt(struct ring *r)
{
	r->corrupt++;
	r->cursor = r->head;
	return -EBADMSG;
}

int ring__next(struct ring *r, const struct perf_event_header **rec)
{
	const struct perf_event_header *h;
	uint64_t avail, pos;
	size_t off, first;

	if (r->cursor == r->head)
		return 0;
	/* Unsigned distances: a head behind the cursor, or further ahead than
	 * the buffer can hold, both show up as avail > data_size. */
	avail = r->head - r->cursor;
	if (avail > r->data_size || (r->head - r->tail) > r->data_size)
		return corrupt(r);
	if (avail < sizeof(*h) || (r->cursor & 7))
		return corrupt(r);
	pos = r->cursor;
	off = (size_t)(pos & (r->data_size - 1));
	/* off is 8-aligned and data_size a multiple of 8: the header is whole. */
	h = (const struct perf_event_header *)(const void *)(r->data + off);
	if (h->size < sizeof(*h) || (h->size & 7) || h->size > avail)
		return corrupt(r);
	first = r->data_size - off;
	if (h->size > first) {
		/* Wraps: copy both parts so the caller sees one contiguous record. */
		memcpy(r->arena, r->data + off, first);
		memcpy((uint8_t *)r->arena + first, r->data, h->size - first);
		h = (const struct perf_event_header *)(const void *)r->arena;
	}
	r->cursor = pos + h->size;
	*rec = h;
	return 1;
}

void ring__unread(struct ring *r, const struct perf_event_header *rec)
{
	if (rec->size <= r->cursor - r->tail)
		r->cursor -= rec->size;
}

void ring__release(struct ring *r)
{
	if (r->cursor == r->tail)
		return;
	/* Release: our reads of the records happen before the kernel may reuse
	 * their space. */
	__atomic_store_n(&r->meta->data_tail, r->cursor, __ATOMIC_RELEASE);
	r->tail = r->cursor;
}

uint64_t ring__corrupt_count(const struct ring *r)
{
	return r->corrupt;
}

uint64_t ring__pending_bytes(const struct ring *r)
{
	return r->head - r->tail;
}

int ring__fd(const struct ring *r)
{
	return r->fd;
}

size_t ring__data_size(const struct ring *r)
{
	return r->data_size;
}
