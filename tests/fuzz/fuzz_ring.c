/* Fuzz target: the ring reader (collector/ring.c) over a fake ring whose
 * data_tail, data_head (twice, as if the kernel wrote more) and data bytes
 * come from the input; every record returned is read in full and decoded. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/perf_record.h"
#include "collector/ring.h"
#include "tests/fuzz/fuzz.h"

#define HDR_BYTES 21

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages, data_size, n, round;
	struct perf_event_mmap_page *meta;
	const struct perf_event_header *rec;
	struct sample_layout l;
	struct perf_sample s;
	struct perf_record_mmap m;
	uint64_t tail, tm;
	uint32_t delta[2];
	uint8_t flags;
	struct ring *r;
	void *mem;
	int rc;

	if (size < HDR_BYTES)
		return 0;
	flags = data[0];
	memcpy(&tail, data + 1, 8);
	memcpy(&delta[0], data + 9, 4);
	memcpy(&delta[1], data + 13, 4);
	/* bytes 17..20 reserved for release decisions */
	pages = (flags & 1) ? 2 : 1;
	data_size = pages * page;
	if (posix_memalign(&mem, page, (1 + pages) * page))
		return 0;
	memset(mem, 0, (1 + pages) * page);
	meta = mem;
	meta->data_tail = tail;
	n = size - HDR_BYTES;
	if (n > data_size)
		n = data_size;
	memcpy((uint8_t *)mem + page, data + HDR_BYTES, n);

	if (ring__new_mem(mem, pages, &r)) {
		free(mem);
		return 0;
	}
	perf_record__layout_init(&l,
			    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
				    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
			    0xff0fff, 1);
	for (round = 0; round < 2; round++) {
		size_t nrec = 0;

		/* head relative to where the reader is, so small deltas (the
		 * usual case) and absurd ones (corruption) are both reachable */
		meta->data_head = (round == 0 ? tail : meta->data_head) + delta[round];
		ring__peek_begin(r);
		while ((rc = ring__next(r, &rec)) != 0) {
			if (rc < 0)
				continue;
			/* At most data_size / 8 records fit in one snapshot. */
			FUZZ_CHECK(++nrec <= data_size / 8);
			FUZZ_CHECK(((uintptr_t)rec & 7) == 0);
			FUZZ_CHECK(rec->size >= sizeof(*rec) && rec->size <= RING_MAX_RECORD);
			fuzz_touch(rec, rec->size);
			(void)perf_record__time(&l, rec, &tm);
			if (perf_record__parse_sample(&l, rec, &s) == 0 && s.stack)
				fuzz_touch(s.stack, (size_t)s.stack_size);
			if (perf_record__parse_mmap(&l, rec, &m) == 0)
				FUZZ_CHECK(strlen(m.filename) == m.filename_len);
			if (data[17 + round] & (1u << (nrec & 7)))
				ring__release(r);
		}
		FUZZ_CHECK(ring__pending_bytes(r) <= UINT64_MAX);
		if (data[19] & (1u << round))
			ring__release(r);
	}
	(void)ring__corrupt_count(r);
	ring__delete(r);
	free(mem);
	return 0;
}
