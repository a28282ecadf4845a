/* collector/ring.c: a fake ring laid out like the mmap'd one, and a real
 * perf ring on this thread. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "collector/perf_attr.h"
#include "collector/perf_events.h"
#include "collector/perf_record.h"
#include "collector/ring.h"

#define DATA_PAGES 2
#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)
#endif

struct fake {
	void *mem;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t data_size;
	uint64_t head;
};

static void fake_init(struct fake *f, uint64_t start)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	cr_assert_eq(posix_memalign(&f->mem, page, (1 + DATA_PAGES) * page), 0);
	memset(f->mem, 0, (1 + DATA_PAGES) * page);
	f->meta = f->mem;
	f->data = (uint8_t *)f->mem + page;
	f->data_size = DATA_PAGES * page;
	f->head = start;
	f->meta->data_head = start;
	f->meta->data_tail = start;
}

/* Writes a record of `size` bytes (a header, then a counter pattern
 * seeded by `seq`) at head, wrapping like the kernel does. */
static void fake_put(struct fake *f, uint32_t type, uint16_t size, uint8_t seq)
{
	uint8_t rec[RING_MAX_RECORD];
	struct perf_event_header h = { .type = type, .misc = seq, .size = size };
	size_t i;

	cr_assert(size >= sizeof(h) && size <= sizeof(rec));
	memcpy(rec, &h, sizeof(h));
	for (i = sizeof(h); i < size; i++)
		rec[i] = (uint8_t)(seq + i);
	for (i = 0; i < size; i++)
		f->data[(f->head + i) & (f->data_size - 1)] = rec[i];
	f->head += size;
}

static void fake_publish(struct fake *f)
{
	__atomic_store_n(&f->meta->data_head, f->head, __ATOMIC_RELEASE);
}

static void check_rec(const struct perf_event_header *h, uint16_t size, uint8_t seq)
{
	size_t i;

	cr_assert_eq(h->size, size);
	cr_assert_eq(h->misc, seq);
	cr_assert_eq((uintptr_t)h & 7, 0, "record not 8-byte aligned");
	for (i = sizeof(*h); i < size; i++)
		cr_assert_eq(((const uint8_t *)h)[i], (uint8_t)(seq + i), "byte %zu of record %u", i,
			     seq);
}

Test(ring, records_in_order_with_wrap_and_release)
{
	struct fake f;
	struct ring *r = NULL;
	const struct perf_event_header *h[3];
	uint64_t start;

	/* Start 24 bytes before the end so the second record wraps. */
	start = 11 * (uint64_t)DATA_PAGES * (uint64_t)sysconf(_SC_PAGESIZE) - 24; /* free-running */
	fake_init(&f, start);
	cr_assert_eq(ring__new_mem(f.mem, DATA_PAGES, &r), 0);
	fake_put(&f, PERF_RECORD_SAMPLE, 16, 1);
	fake_put(&f, PERF_RECORD_SAMPLE, 48, 2); /* 8 bytes before the end, 40 after */
	fake_put(&f, PERF_RECORD_MMAP, 32, 3);
	fake_publish(&f);

	ring__peek_begin(r);
	cr_assert_eq(ring__next(r, &h[0]), 1);
	cr_assert_eq(ring__next(r, &h[1]), 1);
	cr_assert_eq(ring__next(r, &h[2]), 1);
	cr_assert_eq(ring__next(r, &h[2]), 0);
	/* All three stay valid together until release: check after reading all. */
	check_rec(h[0], 16, 1);
	check_rec(h[1], 48, 2);
	check_rec(h[2], 32, 3);
	cr_assert((const uint8_t *)h[0] >= f.data && (const uint8_t *)h[0] < f.data + f.data_size,
		  "a contiguous record is returned in place");
	cr_assert((const uint8_t *)h[1] < f.data || (const uint8_t *)h[1] >= f.data + f.data_size,
		  "a wrapped record is returned as a copy");
	cr_assert_eq(f.meta->data_tail, start, "tail moved before release");
	cr_assert_eq(ring__pending_bytes(r), 96);
	ring__release(r);
	cr_assert_eq(f.meta->data_tail, start + 96);
	cr_assert_eq(ring__corrupt_count(r), 0);
	ring__delete(r);
	free(f.mem);
}

Test(ring, snapshot_bounds_reading)
{
	struct fake f;
	struct ring *r = NULL;
	const struct perf_event_header *h;

	fake_init(&f, 0);
	cr_assert_eq(ring__new_mem(f.mem, DATA_PAGES, &r), 0);
	fake_put(&f, PERF_RECORD_SAMPLE, 24, 7);
	fake_publish(&f);
	ring__peek_begin(r);
	fake_put(&f, PERF_RECORD_SAMPLE, 24, 8);
	fake_publish(&f);
	cr_assert_eq(ring__next(r, &h), 1);
	check_rec(h, 24, 7);
	cr_assert_eq(ring__next(r, &h), 0, "a record after the snapshot was returned");
	/* Release frees only what was returned, not up to the kernel's head. */
	ring__release(r);
	cr_assert_eq(f.meta->data_tail, 24);
	ring__peek_begin(r);
	cr_assert_eq(ring__next(r, &h), 1);
	check_rec(h, 24, 8);
	ring__release(r);
	cr_assert_eq(f.meta->data_tail, 48);
	ring__delete(r);
	free(f.mem);
}

Test(ring, partial_release)
{
	struct fake f;
	struct ring *r = NULL;
	const struct perf_event_header *h;

	fake_init(&f, 0);
	cr_assert_eq(ring__new_mem(f.mem, DATA_PAGES, &r), 0);
	fake_put(&f, PERF_RECORD_SAMPLE, 16, 1);
	fake_put(&f, PERF_RECORD_SAMPLE, 32, 2);
	fake_publish(&f);
	ring__peek_begin(r);
	cr_assert_eq(ring__next(r, &h), 1);
	check_rec(h, 16, 1);
	ring__release(r);
	cr_assert_eq(f.meta->data_tail, 16, "release freed records not yet returned");
	cr_assert_eq(ring__next(r, &h), 1);
	check_rec(h, 32, 2);
	ring__release(r);
	cr_assert_eq(f.meta->data_tail, 48);
	ring__delete(r);
	free(f.mem);
}

/* A record put back is returned again, wrapped or not, and its space is
 * not given back meanwhile: a reader stops at a record that is not due. */
Test(ring, unread_returns_the_record_again)
{
	struct fake f;
	struct ring *r = NULL;
	const struct perf_event_header *h;
	uint64_t start = 2 * (uint64_t)sysconf(_SC_PAGESIZE) - 16;

	fake_init(&f, start);
	cr_assert_eq(ring__new_mem(f.mem, DATA_PAGES, &r), 0);
	fake_put(&f, PERF_RECORD_SAMPLE, 32, 1); /* wraps */
	fake_put(&f, PERF_RECORD_SAMPLE, 16, 2);
	fake_publish(&f);
	ring__peek_begin(r);
	cr_assert_eq(ring__next(r, &h), 1);
	check_rec(h, 32, 1);
	ring__unread(r, h);
	ring__release(r);
	cr_assert_eq(f.meta->data_tail, start, "a record put back was released");
	cr_assert_eq(ring__next(r, &h), 1);
	check_rec(h, 32, 1);
	cr_assert_eq(ring__next(r, &h), 1);
	check_rec(h, 16, 2);
	ring__unread(r, h);
	ring__release(r);
	cr_assert_eq(f.meta->data_tail, start + 32);
	ring__peek_begin(r);
	cr_assert_eq(ring__next(r, &h), 1);
	check_rec(h, 16, 2);
	cr_assert_eq(ring__next(r, &h), 0);
	ring__release(r);
	cr_assert_eq(f.meta->data_tail, start + 48);
	ring__delete(r);
	free(f.mem);
}

static void expect_corrupt(uint16_t bad_size, uint64_t head_extra)
{
	struct fake f;
	struct ring *r = NULL;
	const struct perf_event_header *h;
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .misc = 0, .size = bad_size };

	fake_init(&f, 0);
	cr_assert_eq(ring__new_mem(f.mem, DATA_PAGES, &r), 0);
	fake_put(&f, PERF_RECORD_SAMPLE, 16, 1);
	memcpy(f.data + f.head, &bad, sizeof(bad));
	f.head += 16 + head_extra;
	fake_put(&f, PERF_RECORD_SAMPLE, 16, 3);
	fake_publish(&f);

	ring__peek_begin(r);
	cr_assert_eq(ring__next(r, &h), 1);
	check_rec(h, 16, 1);
	cr_assert_eq(ring__next(r, &h), -EBADMSG, "size %u accepted", bad_size);
	cr_assert_eq(ring__corrupt_count(r), 1);
	cr_assert_eq(ring__next(r, &h), 0, "reader did not skip to head");
	ring__release(r);
	cr_assert_eq(f.meta->data_tail, f.head, "release after corruption frees everything");
	ring__delete(r);
	free(f.mem);
}

Test(ring, corrupt_sizes_are_rejected)
{
	expect_corrupt(12, 0);     /* not a multiple of 8 */
	expect_corrupt(0, 0);      /* smaller than a header */
	expect_corrupt(4, 0);
	expect_corrupt(4096, 0);   /* beyond the bytes written */
}

Test(ring, inconsistent_head_is_rejected)
{
	struct fake f;
	struct ring *r = NULL;
	const struct perf_event_header *h;

	fake_init(&f, 0);
	cr_assert_eq(ring__new_mem(f.mem, DATA_PAGES, &r), 0);
	f.meta->data_head = f.data_size + 8; /* more than the ring can hold */
	ring__peek_begin(r);
	cr_assert_eq(ring__next(r, &h), -EBADMSG);
	cr_assert_eq(ring__next(r, &h), 0);
	ring__delete(r);
	free(f.mem);
	cr_assert_eq(ring__new_mem((void *)(uintptr_t)8, DATA_PAGES, &r), -EINVAL, "unaligned");
	ring__delete(NULL);
}

Test(ring, many_rounds_of_wrapping)
{
	struct fake f;
	struct ring *r = NULL;
	unsigned seq_w = 0, seq_r = 0, round;
	uint64_t x = 12345;

	fake_init(&f, 0);
	cr_assert_eq(ring__new_mem(f.mem, DATA_PAGES, &r), 0);
	for (round = 0; round < 2000; round++) {
		const struct perf_event_header *h;
		size_t used = (size_t)(f.head - f.meta->data_tail);
		unsigned n = 0;
		int rc;

		/* Producer: fill while there is room, like the kernel. */
		for (;;) {
			uint16_t size;

			x = x * 6364136223846793005ull + 1442695040888963407ull;
			size = (uint16_t)(8 + 8 * ((x >> 33) % 200));
			if (used + size > f.data_size)
				break;
			fake_put(&f, PERF_RECORD_SAMPLE, size, (uint8_t)seq_w++);
			used += size;
			if (++n > (round % 7))
				break;
		}
		fake_publish(&f);
		ring__peek_begin(r);
		while ((rc = ring__next(r, &h)) == 1) {
			cr_assert_eq(h->misc, (uint8_t)seq_r, "out of order");
			check_rec(h, h->size, (uint8_t)seq_r);
			seq_r++;
		}
		cr_assert_eq(rc, 0);
		ring__release(r);
		cr_assert_eq(f.meta->data_tail, f.head);
	}
	cr_assert_eq(seq_r, seq_w);
	cr_assert_gt(f.head, 10 * f.data_size, "did not wrap often enough");
	ring__delete(r);
	free(f.mem);
}

static __attribute__((noinline)) uint64_t burn_leaf(uint64_t x)
{
	int i;

	for (i = 0; i < 1000; i++)
		x = x * 2862933555777941757ull + 3037000493ull;
	__asm__ volatile("" : "+r"(x));
	return x;
}

static __attribute__((noinline)) uint64_t burn_mid(uint64_t x)
{
	uint64_t r = burn_leaf(x);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct drain_stats {
	unsigned samples, user_stacks, records, bad, lost;
	uint64_t last_time;
	int time_ok;
};

static void drain(struct ring *r, const struct sample_layout *l, struct drain_stats *st)
{
	const struct perf_event_header *h;
	int rc;

	ring__peek_begin(r);
	while ((rc = ring__next(r, &h)) == 1) {
		uint64_t t;

		st->records++;
		if (perf_record__time(l, h, &t) == 0) {
			if (t > now_ns() + 1000000000ull)
				st->time_ok = 0; /* CLOCK_MONOTONIC times cannot be in the future */
			st->last_time = t;
		}
		switch (h->type) {
		case PERF_RECORD_SAMPLE: {
			struct perf_sample s;

			if (perf_record__parse_sample(l, h, &s)) {
				st->bad++;
				break;
			}
			st->samples++;
			if (s.pid == (uint32_t)getpid() && s.regs_abi != 0 && s.regs_nr == l->nregs &&
			    s.stack_dyn_size > 0 && s.stack_dyn_size <= s.stack_size)
				st->user_stacks++;
			break;
		}
		case PERF_RECORD_MMAP:
		case RECORD_TYPE_MMAP2: {
			struct perf_record_mmap m;

			st->bad += perf_record__parse_mmap(l, h, &m) != 0;
			break;
		}
		case PERF_RECORD_COMM: {
			struct perf_record_comm c;

			st->bad += perf_record__parse_comm(l, h, &c) != 0;
			break;
		}
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT: {
			struct perf_record_task t2;

			st->bad += perf_record__parse_task(l, h, &t2) != 0;
			break;
		}
		case PERF_RECORD_LOST: {
			struct perf_record_lost lo;

			st->bad += perf_record__parse_lost(l, h, &lo) != 0;
			st->lost++;
			break;
		}
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE: {
			struct perf_record_throttle th;

			st->bad += perf_record__parse_throttle(l, h, &th) != 0;
			break;
		}
		default:
			break;
		}
	}
	if (rc < 0)
		st->bad++;
	ring__release(r);
}

Test(ring, real_perf_ring_on_this_thread, .timeout = 30)
{
	struct perf_features f;
	struct perf_sampling_opts o;
	struct perf_event_attr a;
	struct sample_layout l;
	struct drain_stats st;
	struct ring *r = NULL;
	size_t pages;
	uint64_t end, x = 1;
	int fd;

	perf_features__probe(&f);
	if (!f.open.ok)
		cr_skip_test("perf_event_open(cpu-clock, pid=0, cpu=-1) not permitted: %s",
			     strerror(f.open.err));
	perf_sampling_opts__init(&o);
	o.freq_hz = 999;
	o.user_only = 1;
	pages = perf_events__ring_pages(&f, &o);
	cr_assert_eq(perf_events__build_attr(&f, &o, pages, &a), 0);
	cr_assert_eq(perf_record__layout_from_attr(&l, &a), 0);
	fd = perf_attr__sys_open(&a, 0, -1, -1, f.cloexec.ok ? PERF_FLAG_FD_CLOEXEC : 0);
	if (fd < 0)
		cr_skip_test("sampling attr refused: %s", strerror(-fd));
	cr_assert_eq(ring__new(fd, pages, &r), 0, "mmap of %zu pages", pages);
	cr_assert_eq(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);

	memset(&st, 0, sizeof(st));
	st.time_ok = 1;
	end = now_ns() + 200000000ull;
	while (now_ns() < end) {
		unsigned i;

		for (i = 0; i < 200; i++)
			x = burn_mid(x);
		drain(r, &l, &st);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(r, &l, &st);
	ring__delete(r);
	close(fd);

	cr_assert_eq(st.bad, 0, "%u records failed to decode", st.bad);
	cr_assert_geq(st.samples, 1, "no samples in 200 ms at 999 Hz (x=%llu)",
		      (unsigned long long)x);
	cr_assert_geq(st.user_stacks, 1, "no sample with user regs and a user stack (%u samples)",
		      st.samples);
	if (f.clockid.ok)
		cr_assert(st.time_ok, "sample time ahead of CLOCK_MONOTONIC");
}
