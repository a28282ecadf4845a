/* Unit tests for collector/perf_record.c: hand-built records of every type, and
 * truncated, oversized, unterminated and garbage ones (run under ASan). */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/perf_record.h"

#define ST_TEST                                                                                    \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* bp, sp, ip in perf's x86-64 numbering: three values per sample. */
#define REGS_TEST ((1ull << 6) | (1ull << 7) | (1ull << 8))

/* Builds one record in an 8-aligned buffer. */
struct builder {
	uint64_t buf[4096];
	size_t len;
};

static void b_begin(struct builder *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	memset(b->buf, 0, sizeof(b->buf));
	memcpy(b->buf, &h, sizeof(h));
	b->len = sizeof(h);
}

static void put(struct builder *b, const void *p, size_t n)
{
	cr_assert(b->len + n <= sizeof(b->buf));
	memcpy((uint8_t *)b->buf + b->len, p, n);
	b->len += n;
}

static void put64(struct builder *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32x2(struct builder *b, uint32_t x, uint32_t y)
{
	put(b, &x, 4);
	put(b, &y, 4);
}

/* A string with its NUL, zero-padded to 8 bytes like the kernel does. */
static void putstr(struct builder *b, const char *s)
{
	size_t n = strlen(s) + 1;

	put(b, s, n);
	while (b->len & 7)
		b->len++;
}

static void put_trailer(struct builder *b, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	put32x2(b, pid, tid);
	put64(b, time);
	put32x2(b, cpu, 0);
}

static const struct perf_event_header *b_end(struct builder *b)
{
	struct perf_event_header *h = (struct perf_event_header *)(void *)b->buf;

	cr_assert(b->len <= 0xffff);
	h->size = (uint16_t)b->len;
	return h;
}

/* A malloc'd copy of exactly `size` bytes with header.size = size, so that
 * ASan flags any read past the record. */
static struct perf_event_header *exact_copy(const struct perf_event_header *h, size_t size)
{
	struct perf_event_header *c = malloc(size < sizeof(*h) ? sizeof(*h) : size);

	cr_assert(c);
	memcpy(c, h, size < h->size ? size : h->size);
	c->size = (uint16_t)size;
	return c;
}

static struct sample_layout layout(int sample_id_all)
{
	struct sample_layout l;

	cr_assert_eq(perf_record__layout_init(&l, ST_TEST, REGS_TEST, sample_id_all), 0);
	return l;
}

static const struct perf_event_header *build_sample(struct builder *b)
{
	uint8_t stack[64];
	int i;

	b_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(b, 0x401000);                       /* ip */
	put32x2(b, 100, 101);                     /* pid, tid */
	put64(b, 123456789);                      /* time */
	put32x2(b, 3, 0);                         /* cpu, res */
	put64(b, 10101010);                       /* period */
	put64(b, 5);                              /* callchain nr */
	put64(b, (uint64_t)-128);                 /* PERF_CONTEXT_KERNEL */
	put64(b, 0xffffffff81000010ull);
	put64(b, 0xffffffff81000020ull);
	put64(b, (uint64_t)-512);                 /* PERF_CONTEXT_USER */
	put64(b, 0x401000);
	put64(b, 2);                              /* regs abi: 64-bit */
	put64(b, 0x7ffc0010);                     /* bp */
	put64(b, 0x7ffc0000);                     /* sp */
	put64(b, 0x401000);                       /* ip */
	put64(b, sizeof(stack));                  /* stack size */
	for (i = 0; i < (int)sizeof(stack); i++)
		stack[i] = (uint8_t)i;
	put(b, stack, sizeof(stack));
	put64(b, 40);                             /* dyn_size */
	return b_end(b);
}

Test(record, layout)
{
	struct sample_layout l = layout(1), keep;

	cr_assert_eq(l.nregs, 3);
	cr_assert_eq(l.id_trailer_size, 24);
	cr_assert_eq(layout(0).id_trailer_size, 0);
	keep = l;
	cr_assert_eq(perf_record__layout_init(&l, ST_TEST | PERF_SAMPLE_READ, 0, 1), -ENOTSUP);
	cr_assert_eq(perf_record__layout_init(&l, ST_TEST | PERF_SAMPLE_BRANCH_STACK, 0, 1), -ENOTSUP);
	cr_assert_eq(memcmp(&l, &keep, sizeof(l)), 0, "layout touched on failure");
}

Test(record, sample_all_fields)
{
	struct sample_layout l = layout(1);
	struct builder b;
	const struct perf_event_header *h = build_sample(&b);
	struct perf_sample s;
	struct callchain_parts cp;
	uint64_t t = 0;
	int i;

	cr_assert_eq(perf_record__parse_sample(&l, h, &s), 0);
	cr_assert_eq(s.misc, PERF_RECORD_MISC_USER);
	cr_assert_eq(s.ip, 0x401000);
	cr_assert_eq(s.pid, 100);
	cr_assert_eq(s.tid, 101);
	cr_assert_eq(s.time, 123456789);
	cr_assert_eq(s.cpu, 3);
	cr_assert_eq(s.period, 10101010);
	cr_assert_eq(s.callchain_nr, 5);
	cr_assert_eq(s.callchain[0], (uint64_t)-128);
	cr_assert_eq(s.callchain[4], 0x401000);
	cr_assert_eq(s.regs_abi, 2);
	cr_assert_eq(s.regs_nr, 3);
	cr_assert_eq(s.regs[0], 0x7ffc0010);
	cr_assert_eq(s.regs[1], 0x7ffc0000);
	cr_assert_eq(s.regs[2], 0x401000);
	cr_assert_eq(s.stack_size, 64);
	cr_assert_eq(s.stack_dyn_size, 40);
	for (i = 0; i < 64; i++)
		cr_assert_eq(s.stack[i], i);
	/* Pointers point into the record itself. */
	cr_assert((const uint8_t *)s.stack > (const uint8_t *)h);
	cr_assert((const uint8_t *)s.stack + 64 <= (const uint8_t *)h + h->size);

	cr_assert_eq(perf_record__time(&l, h, &t), 0);
	cr_assert_eq(t, 123456789);

	perf_record__callchain_split(s.callchain, s.callchain_nr, &cp);
	cr_assert_eq(cp.kernel_nr, 2);
	cr_assert_eq(cp.kernel[0], 0xffffffff81000010ull);
	cr_assert_eq(cp.kernel[1], 0xffffffff81000020ull);
	cr_assert_eq(cp.user_nr, 1);
	cr_assert_eq(cp.user[0], 0x401000);
}

Test(record, sample_without_user_context)
{
	/* Kernel thread: regs abi NONE (no values), stack size 0 (no dyn_size). */
	struct sample_layout l = layout(1);
	struct builder b;
	struct perf_sample s;
	struct perf_event_header *c;

	b_begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(&b, 0xffffffff81000000ull);
	put32x2(&b, 0, 0);
	put64(&b, 5);
	put32x2(&b, 1, 0);
	put64(&b, 1);
	put64(&b, 2);
	put64(&b, (uint64_t)-128);
	put64(&b, 0xffffffff81000000ull);
	put64(&b, 0);  /* regs abi NONE */
	put64(&b, 0);  /* stack size 0 */
	c = exact_copy(b_end(&b), b.len);
	cr_assert_eq(perf_record__parse_sample(&l, c, &s), 0);
	cr_assert_eq(s.regs_abi, 0);
	cr_assert_eq(s.regs_nr, 0);
	cr_assert_null(s.regs);
	cr_assert_eq(s.stack_size, 0);
	cr_assert_null(s.stack);
	cr_assert_eq(s.stack_dyn_size, 0);
	free(c);
}

Test(record, sample_truncated_is_rejected)
{
	struct sample_layout l = layout(1);
	struct builder b;
	const struct perf_event_header *h = build_sample(&b);
	size_t size;

	for (size = sizeof(*h); size < h->size; size += 8) {
		struct perf_event_header *c = exact_copy(h, size);
		struct perf_sample s;

		memset(&s, 0xa5, sizeof(s));
		cr_assert_eq(perf_record__parse_sample(&l, c, &s), -EBADMSG, "size %zu accepted", size);
		cr_assert_eq(s.pid, 0xa5a5a5a5u, "output touched on failure");
		free(c);
	}
}

Test(record, sample_hostile_lengths)
{
	struct sample_layout l = layout(1);
	struct builder b;
	const struct perf_event_header *h = build_sample(&b);
	struct perf_event_header *c;
	struct perf_sample s;
	uint64_t v;
	/* Offsets within build_sample's record. */
	const size_t callchain_nr_off = 8 + 8 + 8 + 8 + 8 + 8;
	const size_t stack_size_off = callchain_nr_off + 8 + 5 * 8 + 8 + 3 * 8;
	const size_t dyn_off = stack_size_off + 8 + 64;

	c = exact_copy(h, h->size);
	v = 1ull << 61; /* nr * 8 wraps to 0 */
	memcpy((uint8_t *)c + callchain_nr_off, &v, 8);
	cr_assert_eq(perf_record__parse_sample(&l, c, &s), -EBADMSG);
	v = 6; /* one more than present */
	memcpy((uint8_t *)c + callchain_nr_off, &v, 8);
	cr_assert_eq(perf_record__parse_sample(&l, c, &s), -EBADMSG);
	free(c);

	c = exact_copy(h, h->size);
	v = UINT64_MAX; /* stack size beyond the record */
	memcpy((uint8_t *)c + stack_size_off, &v, 8);
	cr_assert_eq(perf_record__parse_sample(&l, c, &s), -EBADMSG);
	free(c);

	c = exact_copy(h, h->size);
	v = 65; /* dyn_size > size */
	memcpy((uint8_t *)c + dyn_off, &v, 8);
	cr_assert_eq(perf_record__parse_sample(&l, c, &s), -EBADMSG);
	free(c);

	/* Oversized (trailing bytes we do not decode) is fine. */
	c = exact_copy(h, h->size + 16u);
	memset((uint8_t *)c + h->size, 0xff, 16);
	cr_assert_eq(perf_record__parse_sample(&l, c, &s), 0);
	cr_assert_eq(s.stack_dyn_size, 40);
	free(c);

	/* An empty callchain whose nr is patched so that nr * 8 wraps to 0: the
	 * rest of the record still parses, only the nr check can catch it. */
	{
		struct builder b2;
		const struct perf_event_header *h2;

		b_begin(&b2, PERF_RECORD_SAMPLE, 0);
		put64(&b2, 1);
		put32x2(&b2, 1, 1);
		put64(&b2, 1);
		put32x2(&b2, 0, 0);
		put64(&b2, 1);
		put64(&b2, 0);     /* callchain nr */
		put64(&b2, 0);     /* regs abi none */
		put64(&b2, 0);     /* no stack */
		h2 = b_end(&b2);
		c = exact_copy(h2, h2->size);
		cr_assert_eq(perf_record__parse_sample(&l, c, &s), 0);
		v = 1ull << 61;
		memcpy((uint8_t *)c + callchain_nr_off, &v, 8);
		cr_assert_eq(perf_record__parse_sample(&l, c, &s), -EBADMSG);
		free(c);
	}

	cr_assert_eq(perf_record__parse_sample(&l, h, &s), 0);
	/* Wrong type for the parser. */
	cr_assert_eq(perf_record__parse_mmap(&l, h, &(struct perf_record_mmap){ 0 }), -EINVAL);
}

Test(record, mmap_with_trailer)
{
	struct sample_layout l = layout(1);
	struct builder b;
	const struct perf_event_header *h;
	struct perf_record_mmap m;
	uint64_t t;

	b_begin(&b, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	put32x2(&b, 42, 43);
	put64(&b, 0x400000);
	put64(&b, 0x1000);
	put64(&b, 0);
	putstr(&b, "/usr/bin/foo");
	put_trailer(&b, 42, 43, 777, 1);
	h = b_end(&b);
	cr_assert_eq(perf_record__parse_mmap(&l, h, &m), 0);
	cr_assert_eq(m.is_mmap2, 0);
	cr_assert_eq(m.pid, 42);
	cr_assert_eq(m.tid, 43);
	cr_assert_eq(m.addr, 0x400000);
	cr_assert_eq(m.len, 0x1000);
	cr_assert_eq(m.pgoff, 0);
	cr_assert_str_eq(m.filename, "/usr/bin/foo");
	cr_assert_eq(m.filename_len, 12);
	cr_assert_eq(m.has_inode, 0);
	cr_assert_eq(m.sid.pid, 42);
	cr_assert_eq(m.sid.time, 777);
	cr_assert_eq(m.sid.cpu, 1);
	cr_assert_eq(perf_record__time(&l, h, &t), 0);
	cr_assert_eq(t, 777);
}

Test(record, mmap_without_sample_id_all)
{
	struct sample_layout l = layout(0);
	struct builder b;
	const struct perf_event_header *h;
	struct perf_record_mmap m;
	uint64_t t = 5;

	b_begin(&b, PERF_RECORD_MMAP, 0);
	put32x2(&b, 1, 1);
	put64(&b, 0x1000);
	put64(&b, 0x2000);
	put64(&b, 0x3000);
	putstr(&b, "[vdso]");
	h = b_end(&b);
	cr_assert_eq(perf_record__parse_mmap(&l, h, &m), 0);
	cr_assert_str_eq(m.filename, "[vdso]");
	cr_assert_eq(m.pgoff, 0x3000);
	cr_assert_eq(perf_record__time(&l, h, &t), -ENOENT);
	cr_assert_eq(t, 5);
	cr_assert_eq(perf_record__parse_sample_id(&l, h, &m.sid), -ENOENT);
}

Test(record, mmap2_inode_and_build_id)
{
	struct sample_layout l = layout(1);
	struct builder b;
	const struct perf_event_header *h;
	struct perf_record_mmap m;
	uint8_t bid[24] = { 0 };
	int i;

	b_begin(&b, RECORD_TYPE_MMAP2, PERF_RECORD_MISC_USER);
	put32x2(&b, 7, 8);
	put64(&b, 0x7f0000000000ull);
	put64(&b, 0x21000);
	put64(&b, 0x2000);
	put32x2(&b, 253, 1);          /* maj, min */
	put64(&b, 131077);            /* ino */
	put64(&b, 9);                 /* ino_generation */
	put32x2(&b, 5, 2);            /* prot, flags */
	putstr(&b, "/lib/x86_64-linux-gnu/libc.so.6");
	put_trailer(&b, 7, 8, 1000, 0);
	h = b_end(&b);
	cr_assert_eq(perf_record__parse_mmap(&l, h, &m), 0);
	cr_assert_eq(m.is_mmap2, 1);
	cr_assert_eq(m.has_inode, 1);
	cr_assert_eq(m.has_build_id, 0);
	cr_assert_eq(m.maj, 253);
	cr_assert_eq(m.min, 1);
	cr_assert_eq(m.ino, 131077);
	cr_assert_eq(m.ino_generation, 9);
	cr_assert_eq(m.prot, 5);
	cr_assert_eq(m.flags, 2);
	cr_assert_eq(m.pgoff, 0x2000);
	cr_assert_str_eq(m.filename, "/lib/x86_64-linux-gnu/libc.so.6");
	cr_assert_eq(m.sid.time, 1000);

	/* The build-id variant reuses the 24 bytes. */
	bid[0] = 20;
	for (i = 0; i < 20; i++)
		bid[4 + i] = (uint8_t)(0xa0 + i);
	b_begin(&b, RECORD_TYPE_MMAP2, PERF_RECORD_MISC_USER | RECORD_MISC_MMAP_BUILD_ID);
	put32x2(&b, 7, 8);
	put64(&b, 0x7f0000000000ull);
	put64(&b, 0x21000);
	put64(&b, 0);
	put(&b, bid, sizeof(bid));
	put32x2(&b, 5, 2);
	putstr(&b, "/usr/lib/libfoo.so");
	put_trailer(&b, 7, 8, 1001, 0);
	h = b_end(&b);
	cr_assert_eq(perf_record__parse_mmap(&l, h, &m), 0);
	cr_assert_eq(m.has_build_id, 1);
	cr_assert_eq(m.has_inode, 0);
	cr_assert_eq(m.build_id_size, 20);
	cr_assert_eq(m.build_id[0], 0xa0);
	cr_assert_eq(m.build_id[19], 0xa0 + 19);
	cr_assert_eq(m.prot, 5);
	cr_assert_str_eq(m.filename, "/usr/lib/libfoo.so");

	/* build_id_size beyond the 20-byte array is hostile. */
	((uint8_t *)b.buf)[8 + 8 + 24] = 21;
	cr_assert_eq(perf_record__parse_mmap(&l, h, &m), -EBADMSG);
}

Test(record, comm_exec_flag)
{
	struct sample_layout l = layout(1);
	struct builder b;
	const struct perf_event_header *h;
	struct perf_record_comm c;

	b_begin(&b, PERF_RECORD_COMM, RECORD_MISC_COMM_EXEC);
	put32x2(&b, 500, 500);
	putstr(&b, "nginx");
	put_trailer(&b, 500, 500, 31337, 2);
	h = b_end(&b);
	cr_assert_eq(perf_record__parse_comm(&l, h, &c), 0);
	cr_assert_eq(c.pid, 500);
	cr_assert_eq(c.exec, 1);
	cr_assert_str_eq(c.comm, "nginx");
	cr_assert_eq(c.comm_len, 5);
	cr_assert_eq(c.sid.time, 31337);
	cr_assert_eq(c.sid.cpu, 2);

	{
		uint16_t misc = 0; /* prctl(PR_SET_NAME) */

		memcpy((uint8_t *)b.buf + offsetof(struct perf_event_header, misc), &misc, 2);
	}
	cr_assert_eq(perf_record__parse_comm(&l, h, &c), 0);
	cr_assert_eq(c.exec, 0);
}

Test(record, unterminated_strings_are_rejected)
{
	struct sample_layout l = layout(1), l0 = layout(0);
	struct builder b;
	const struct perf_event_header *h;
	struct perf_record_comm c;
	struct perf_record_mmap m;
	struct perf_event_header *x;

	/* 8 name bytes without NUL; the trailer's zero bytes must not count. */
	b_begin(&b, PERF_RECORD_COMM, 0);
	put32x2(&b, 1, 1);
	put(&b, "abcdefgh", 8);
	put_trailer(&b, 0, 0, 0, 0);
	h = b_end(&b);
	x = exact_copy(h, h->size);
	memset(&c, 0x5a, sizeof(c));
	cr_assert_eq(perf_record__parse_comm(&l, x, &c), -EBADMSG);
	cr_assert_eq(c.pid, 0x5a5a5a5au);
	free(x);

	/* Without sample_id_all the string runs to the end of the record. */
	b_begin(&b, PERF_RECORD_MMAP, 0);
	put32x2(&b, 1, 1);
	put64(&b, 1);
	put64(&b, 1);
	put64(&b, 1);
	put(&b, "/bin/shx", 8);
	h = b_end(&b);
	x = exact_copy(h, h->size);
	cr_assert_eq(perf_record__parse_mmap(&l0, x, &m), -EBADMSG);
	free(x);

	/* No room for a string at all. */
	b_begin(&b, PERF_RECORD_COMM, 0);
	put32x2(&b, 1, 1);
	h = b_end(&b);
	x = exact_copy(h, h->size);
	cr_assert_eq(perf_record__parse_comm(&l0, x, &c), -EBADMSG);
	free(x);
}

Test(record, fork_exit)
{
	struct sample_layout l = layout(1), l0 = layout(0);
	struct builder b;
	const struct perf_event_header *h;
	struct perf_record_task t;
	uint64_t time;

	b_begin(&b, PERF_RECORD_FORK, 0);
	put32x2(&b, 200, 100);     /* pid, ppid */
	put32x2(&b, 201, 101);     /* tid, ptid */
	put64(&b, 5000);
	put_trailer(&b, 100, 101, 5001, 3);
	h = b_end(&b);
	cr_assert_eq(perf_record__parse_task(&l, h, &t), 0);
	cr_assert_eq(t.is_exit, 0);
	cr_assert_eq(t.pid, 200);
	cr_assert_eq(t.ppid, 100);
	cr_assert_eq(t.tid, 201);
	cr_assert_eq(t.ptid, 101);
	cr_assert_eq(t.time, 5000);
	cr_assert_eq(t.sid.cpu, 3);
	cr_assert_eq(perf_record__time(&l, h, &time), 0);
	cr_assert_eq(time, 5001, "the trailer's time orders records");

	b_begin(&b, PERF_RECORD_EXIT, 0);
	put32x2(&b, 200, 100);
	put32x2(&b, 200, 100);
	put64(&b, 6000);
	h = b_end(&b);
	cr_assert_eq(perf_record__parse_task(&l0, h, &t), 0);
	cr_assert_eq(t.is_exit, 1);
	cr_assert_eq(t.time, 6000);
	cr_assert_eq(perf_record__time(&l0, h, &time), 0);
	cr_assert_eq(time, 6000, "without trailer the record's own time is used");
	/* The same record read with a trailer-expecting layout is too short. */
	cr_assert_eq(perf_record__parse_task(&l, h, &t), -EBADMSG);
}

Test(record, lost_and_throttle)
{
	struct sample_layout l = layout(1);
	struct builder b;
	const struct perf_event_header *h;
	struct perf_record_lost lo;
	struct perf_record_throttle th;
	uint64_t time;

	b_begin(&b, PERF_RECORD_LOST, 0);
	put64(&b, 77);
	put64(&b, 12);
	put_trailer(&b, 0, 0, 9000, 1);
	h = b_end(&b);
	cr_assert_eq(perf_record__parse_lost(&l, h, &lo), 0);
	cr_assert_eq(lo.id, 77);
	cr_assert_eq(lo.lost, 12);
	cr_assert_eq(perf_record__time(&l, h, &time), 0);
	cr_assert_eq(time, 9000);

	b_begin(&b, PERF_RECORD_UNTHROTTLE, 0);
	put64(&b, 9100);
	put64(&b, 77);
	put64(&b, 78);
	put_trailer(&b, 0, 0, 9100, 1);
	h = b_end(&b);
	cr_assert_eq(perf_record__parse_throttle(&l, h, &th), 0);
	cr_assert_eq(th.unthrottle, 1);
	cr_assert_eq(th.time, 9100);
	cr_assert_eq(th.id, 77);
	cr_assert_eq(th.stream_id, 78);
	cr_assert_eq(perf_record__parse_lost(&l, h, &lo), -EINVAL);
}

Test(record, type_known_and_short_headers)
{
	struct sample_layout l = layout(1);
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = 0, .size = 4 };
	struct perf_sample s;
	uint64_t t;

	cr_assert(perf_record__type_known(PERF_RECORD_SAMPLE));
	cr_assert(perf_record__type_known(RECORD_TYPE_MMAP2));
	cr_assert_not(perf_record__type_known(99));
	cr_assert_not(perf_record__type_known(PERF_RECORD_READ));
	cr_assert_eq(perf_record__parse_sample(&l, &h, &s), -EBADMSG);
	cr_assert_eq(perf_record__time(&l, &h, &t), -EBADMSG);
	h.type = 99;
	h.size = 8;
	cr_assert_eq(perf_record__time(&l, &h, &t), -EBADMSG, "unknown type shorter than a trailer");
}

Test(record, callchain_split_edge_cases)
{
	const uint64_t only_user[] = { (uint64_t)-512, 1, 2, 3 };
	const uint64_t no_marker[] = { 1, 2 };
	const uint64_t guest[] = { (uint64_t)-2048, (uint64_t)-2176, 9, (uint64_t)-128, 4,
				   (uint64_t)-512, 5, 6, (uint64_t)-128, 7 };
	struct callchain_parts cp;

	perf_record__callchain_split(only_user, 4, &cp);
	cr_assert_eq(cp.kernel_nr, 0);
	cr_assert_null(cp.kernel);
	cr_assert_eq(cp.user_nr, 3);
	perf_record__callchain_split(no_marker, 2, &cp);
	cr_assert_eq(cp.kernel_nr + cp.user_nr, 0);
	perf_record__callchain_split(NULL, 5, &cp);
	cr_assert_eq(cp.kernel_nr + cp.user_nr, 0);
	perf_record__callchain_split(guest, 10, &cp);
	cr_assert_eq(cp.kernel_nr, 1);
	cr_assert_eq(cp.kernel[0], 4);
	cr_assert_eq(cp.user_nr, 2);
	cr_assert_eq(cp.user[1], 6);
}

/* Deterministic xorshift: garbage records of every known type and size must
 * be rejected or accepted without reading outside them (ASan checks). */
static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

Test(record, garbage_never_reads_out_of_bounds)
{
	static const uint32_t types[] = { PERF_RECORD_SAMPLE,   PERF_RECORD_MMAP, RECORD_TYPE_MMAP2,
					  PERF_RECORD_COMM,     PERF_RECORD_FORK, PERF_RECORD_EXIT,
					  PERF_RECORD_LOST,     PERF_RECORD_THROTTLE, 77 };
	struct sample_layout ls[2] = { layout(0), layout(1) };
	int i;

	for (i = 0; i < 20000; i++) {
		size_t size = 8 + 8 * (rnd() % 40);
		struct perf_event_header *h = malloc(size);
		const struct sample_layout *l = &ls[i & 1];
		union {
			struct perf_sample s;
			struct perf_record_mmap m;
			struct perf_record_comm c;
			struct perf_record_task t;
			struct perf_record_lost lo;
			struct perf_record_throttle th;
		} u;
		uint64_t t;
		size_t j;
		int rc = 0;

		cr_assert(h);
		for (j = 0; j < size; j++)
			((uint8_t *)h)[j] = (uint8_t)((rnd() & 3) ? rnd() : 0);
		h->type = types[rnd() % (sizeof(types) / sizeof(types[0]))];
		h->size = (uint16_t)size;
		h->misc = (uint16_t)rnd();
		switch (h->type) {
		case PERF_RECORD_SAMPLE: rc = perf_record__parse_sample(l, h, &u.s); break;
		case PERF_RECORD_MMAP:
		case RECORD_TYPE_MMAP2: rc = perf_record__parse_mmap(l, h, &u.m); break;
		case PERF_RECORD_COMM: rc = perf_record__parse_comm(l, h, &u.c); break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT: rc = perf_record__parse_task(l, h, &u.t); break;
		case PERF_RECORD_LOST: rc = perf_record__parse_lost(l, h, &u.lo); break;
		case PERF_RECORD_THROTTLE: rc = perf_record__parse_throttle(l, h, &u.th); break;
		default: break;
		}
		cr_assert(rc == 0 || rc == -EBADMSG, "rc %d", rc);
		if (rc == 0 && h->type == PERF_RECORD_SAMPLE) {
			/* Touch everything the decoded sample points at. */
			volatile uint64_t sink = 0;

			for (j = 0; j < u.s.callchain_nr; j++)
				sink += u.s.callchain[j];
			for (j = 0; j < u.s.regs_nr; j++)
				sink += u.s.regs[j];
			for (j = 0; j < u.s.stack_size; j++)
				sink += u.s.stack[j];
			(void)sink;
		}
		if (rc == 0 && (h->type == PERF_RECORD_COMM))
			cr_assert_eq(strlen(u.c.comm), u.c.comm_len);
		rc = perf_record__time(l, h, &t);
		cr_assert(rc == 0 || rc == -EBADMSG || rc == -ENOENT);
		free(h);
	}
}
