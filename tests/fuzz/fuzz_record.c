/* Fuzz target: perf ring record decoding (collector/perf_record.c). The first 17
 * bytes choose the layout (sample_type, regs mask, sample_id_all) so every
 * field combination is explored; the rest is one record. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "collector/perf_record.h"
#include "tests/fuzz/fuzz.h"

#define LAYOUT_BYTES 17

static void check_sid(const struct perf_record_sample_id *sid)
{
	(void)sid;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_header *h;
	struct sample_layout l;
	struct perf_sample s;
	struct perf_record_mmap m;
	struct perf_record_comm c;
	struct perf_record_task t;
	struct perf_record_lost lo;
	struct perf_record_throttle th;
	struct perf_record_sample_id sid;
	struct callchain_parts parts;
	uint64_t st, mask, tm;
	size_t len, alloc;
	uint8_t flags;

	if (size < LAYOUT_BYTES + sizeof(*h))
		return 0;
	memcpy(&st, data, 8);
	memcpy(&mask, data + 8, 8);
	flags = data[16];
	data += LAYOUT_BYTES;
	size -= LAYOUT_BYTES;
	if (perf_record__layout_init(&l, st, mask, flags & 1))
		return 0;

	/* The parsers' contract: h->size bytes are readable. Allocate exactly
	 * that (malloc aligns to 16, like the 8-byte aligned ring) so ASan
	 * sees any read past the record. */
	len = size > 0xffff ? 0xffff : size;
	{
		uint16_t hsize;

		memcpy(&hsize, data + 6, 2);
		if (hsize < len)
			len = hsize;
	}
	alloc = len < sizeof(*h) ? sizeof(*h) : len;
	h = malloc(alloc);
	if (!h)
		return 0;
	memcpy(h, data, alloc);
	h->size = (uint16_t)len;
	/* Bit 1 of flags lets the fuzzer also try an arbitrary record type
	 * against the sample parser; otherwise the type is as given. */
	if (flags & 2)
		h->type = PERF_RECORD_SAMPLE;

	(void)perf_record__type_known(h->type);
	if (perf_record__time(&l, h, &tm) == 0)
		(void)tm;
	if (perf_record__parse_sample(&l, h, &s) == 0) {
		if (s.callchain) {
			fuzz_touch(s.callchain, (size_t)s.callchain_nr * 8);
			perf_record__callchain_split(s.callchain, s.callchain_nr, &parts);
			FUZZ_CHECK(parts.kernel_nr <= s.callchain_nr && parts.user_nr <= s.callchain_nr);
			if (parts.kernel)
				fuzz_touch(parts.kernel, parts.kernel_nr * 8);
			if (parts.user)
				fuzz_touch(parts.user, parts.user_nr * 8);
		}
		FUZZ_CHECK(s.regs_nr == 0 || s.regs_nr == l.nregs);
		if (s.regs)
			fuzz_touch(s.regs, (size_t)s.regs_nr * 8);
		FUZZ_CHECK(s.stack_dyn_size <= s.stack_size);
		if (s.stack)
			fuzz_touch(s.stack, (size_t)s.stack_size);
	}
	if (perf_record__parse_mmap(&l, h, &m) == 0) {
		FUZZ_CHECK(strlen(m.filename) == m.filename_len);
		if (m.build_id) {
			FUZZ_CHECK(m.build_id_size <= RECORD_BUILD_ID_MAX);
			fuzz_touch(m.build_id, RECORD_BUILD_ID_MAX);
		}
		check_sid(&m.sid);
	}
	if (perf_record__parse_comm(&l, h, &c) == 0)
		FUZZ_CHECK(strlen(c.comm) == c.comm_len);
	if (perf_record__parse_task(&l, h, &t) == 0)
		check_sid(&t.sid);
	if (perf_record__parse_lost(&l, h, &lo) == 0)
		check_sid(&lo.sid);
	if (perf_record__parse_throttle(&l, h, &th) == 0)
		check_sid(&th.sid);
	if (perf_record__parse_sample_id(&l, h, &sid) == 0)
		check_sid(&sid);

	/* The splitter on raw input too: markers anywhere, any count. */
	if (len >= 8)
		perf_record__callchain_split((const uint64_t *)(const void *)h, len / 8, &parts);
	free(h);
	return 0;
}
