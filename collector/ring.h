/* Reader for one mmap'd perf ring buffer: yields whole, validated records
 * between data_tail and data_head, and frees their space only on release. */
#ifndef SMOLDER_COLLECTOR_RING_H
#define SMOLDER_COLLECTOR_RING_H
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* Opaque. One ring is used by one thread at a time (no internal locking);
 * the kernel is the only other writer and is synchronized through
 * data_head (acquire) / data_tail (release). */
struct ring;

/* Largest record the ABI can express (header.size is a u16, records are
 * multiples of 8): the size of the per-ring wrap arena. */
#define RING_MAX_RECORD 65528u

/* Maps 1 + data_pages pages of the perf event `fd` read-write (so the kernel
 * honours data_tail and never overwrites unread records). data_pages must be
 * a power of two >= 1. The fd stays owned by the caller: ring__delete does
 * not close it, and it must stay open while the ring lives.
 * Returns 0, -EINVAL (bad data_pages), -ENOMEM, or the mmap errno (EPERM when
 * over perf_event_mlock_kb and RLIMIT_MEMLOCK). *out untouched on failure. */
int ring__new(int fd, size_t data_pages, struct ring **out);

/* A ring over memory the caller laid out like the mmap'd one: one page
 * holding struct perf_event_mmap_page, then data_pages pages of data. For
 * tests and replay; `base` must be page-aligned, stays owned by the caller
 * and must outlive the ring. Returns 0, -EINVAL, -ENOMEM. */
int ring__new_mem(void *base, size_t data_pages, struct ring **out);

/* Unmaps (ring__new) and frees. Accepts NULL. */
void ring__delete(struct ring *r);

/* Snapshots data_head: records written after this call are seen at the next
 * ring__peek_begin. Records already returned and not released stay valid. */
void ring__peek_begin(struct ring *r);

/* Returns 1 and sets *rec to the next whole record (8-byte aligned, rec->size
 * bytes readable), 0 when the snapshot is exhausted, or -EBADMSG when a
 * header is corrupt (size < 8, not a multiple of 8, larger than the unread
 * bytes) or head is inconsistent: the reader then skips to the snapshot head
 * and counts it in ring__corrupt_count(). A record that wraps around the end
 * of the buffer is returned as a copy in the ring's arena. Every pointer
 * returned stays valid until ring__release(); no allocation happens here. */
int ring__next(struct ring *r, const struct perf_event_header **rec);

/* Puts back rec, the record ring__next returned last: the next ring__next
 * (in this snapshot, or after a release, in a later one) returns it again.
 * For a reader that stops at a record it must not handle yet. */
void ring__unread(struct ring *r, const struct perf_event_header *rec);

/* Gives the space of every record returned so far back to the kernel
 * (data_tail store with release semantics). Invalidates those pointers. */
void ring__release(struct ring *r);

/* Number of corruption events seen (each skipped to head once). */
uint64_t ring__corrupt_count(const struct ring *r);
/* Bytes written but not yet released, as of the last snapshot. */
uint64_t ring__pending_bytes(const struct ring *r);
/* The fd given to ring__new (-1 for ring__new_mem). */
int ring__fd(const struct ring *r);
/* Size of the data area in bytes. */
size_t ring__data_size(const struct ring *r);

#endif
