/* Decoding of perf ring records; every field is bounds-checked against header.size. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "collector/perf_record.h"

/* Identity fields that sample_id_all appends to non-sample records, in ABI order. */
#define ID_TRAILER_FIELDS                                                                          \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |              \
	 PERF_SAMPLE_CPU | RECORD_SAMPLE_IDENTIFIER)

/* A bounded reader over one record. Reads go through memcpy: a hostile or
 * odd-sized field must not turn into an unaligned or out-of-bounds load. */
struct cursor {
	const uint8_t *base;
	size_t off;
	size_t end;
};

static void cursor_init(struct cursor *c, const struct perf_event_header *h, size_t end)
{
	c->base = (const uint8_t *)h;
	c->off = sizeof(*h);
	c->end = end;
}

static size_t remaining(const struct cursor *c)
{
	return c->off <= c->end ? c->end - c->off : 0;
}

static int take_u64(struct cursor *c, uint64_t *v)
{
	if (remaining(c) < 8)
		return -EBADMSG;
	memcpy(v, c->base + c->off, 8);
	c->off += 8;
	return 0;
}

static int take_u32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	if (remaining(c) < 8)
		return -EBADMSG;
	memcpy(a, c->base + c->off, 4);
	memcpy(b, c->base + c->off + 4, 4);
	c->off += 8;
	return 0;
}

static int skip(struct cursor *c, uint64_t n)
{
	if (n > remaining(c))
		return -EBADMSG;
	c->off += (size_t)n;
	return 0;
}

static unsigned popcount64(uint64_t v)
{
	unsigned n = 0;

	while (v) {
		v &= v - 1;
		n++;
	}
	return n;
}

int perf_record__layout_init(struct sample_layout *out, uint64_t sample_type, uint64_t regs_user_mask,
			int sample_id_all)
{
	/* READ's size depends on read_format and BRANCH_STACK's on
	 * branch_sample_type; both precede the fields we need. */
	if (sample_type & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK))
		return -ENOTSUP;
	out->sample_type = sample_type;
	out->regs_user_mask = (sample_type & PERF_SAMPLE_REGS_USER) ? regs_user_mask : 0;
	out->sample_id_all = sample_id_all ? 1 : 0;
	out->nregs = popcount64(out->regs_user_mask);
	out->id_trailer_size = sample_id_all ? 8u * popcount64(sample_type & ID_TRAILER_FIELDS) : 0;
	return 0;
}

int perf_record__layout_from_attr(struct sample_layout *out, const struct perf_event_attr *attr)
{
	return perf_record__layout_init(out, attr->sample_type, attr->sample_regs_user,
				   attr->sample_id_all);
}

int perf_record__type_known(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_MMAP:
	case RECORD_TYPE_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case RECORD_TYPE_SWITCH:
	case RECORD_TYPE_SWITCH_CPU_WIDE:
		return 1;
	default:
		return 0;
	}
}

/* Reads the identity fields in ABI order; shared by trailers (which hold
 * exactly these) and needs nothing else. */
static int read_id_fields(struct cursor *c, uint64_t sample_type, struct perf_record_sample_id *sid)
{
	uint32_t res;
	uint64_t ident;

	memset(sid, 0, sizeof(*sid));
	sid->fields = sample_type & ID_TRAILER_FIELDS;
	if ((sample_type & PERF_SAMPLE_TID) && take_u32x2(c, &sid->pid, &sid->tid))
		return -EBADMSG;
	if ((sample_type & PERF_SAMPLE_TIME) && take_u64(c, &sid->time))
		return -EBADMSG;
	if ((sample_type & PERF_SAMPLE_ID) && take_u64(c, &sid->id))
		return -EBADMSG;
	if ((sample_type & PERF_SAMPLE_STREAM_ID) && take_u64(c, &sid->stream_id))
		return -EBADMSG;
	if ((sample_type & PERF_SAMPLE_CPU) && take_u32x2(c, &sid->cpu, &res))
		return -EBADMSG;
	if (sample_type & RECORD_SAMPLE_IDENTIFIER) {
		if (take_u64(c, &ident))
			return -EBADMSG;
		sid->id = ident;
	}
	return 0;
}

/* Splits a non-sample record into body [header, body_end) and trailer. */
static int body_end(const struct sample_layout *l, const struct perf_event_header *h,
		    size_t *end)
{
	if (h->size < sizeof(*h) + l->id_trailer_size)
		return -EBADMSG;
	*end = h->size - l->id_trailer_size;
	return 0;
}

static int parse_trailer(const struct sample_layout *l, const struct perf_event_header *h,
			 struct perf_record_sample_id *sid)
{
	struct cursor c;
	size_t end;

	if (body_end(l, h, &end))
		return -EBADMSG;
	if (!l->sample_id_all) {
		memset(sid, 0, sizeof(*sid));
		return 0;
	}
	c.base = (const uint8_t *)h;
	c.off = end;
	c.end = h->size;
	return read_id_fields(&c, l->sample_type, sid);
}

int perf_record__parse_sample_id(const struct sample_layout *l, const struct perf_event_header *h,
			    struct perf_record_sample_id *out)
{
	struct perf_record_sample_id sid;

	if (!l->sample_id_all)
		return -ENOENT;
	if (h->type == PERF_RECORD_SAMPLE)
		return -EINVAL;
	if (parse_trailer(l, h, &sid))
		return -EBADMSG;
	*out = sid;
	return 0;
}

int perf_record__parse_sample(const struct sample_layout *l, const struct perf_event_header *h,
			 struct perf_sample *out)
{
	uint64_t st = l->sample_type;
	struct perf_sample s;
	struct cursor c;
	uint32_t res;

	if (h->type != PERF_RECORD_SAMPLE)
		return -EINVAL;
	if (h->size < sizeof(*h))
		return -EBADMSG;
	memset(&s, 0, sizeof(s));
	s.misc = h->misc;
	s.fields = st;
	cursor_init(&c, h, h->size);

	if ((st & RECORD_SAMPLE_IDENTIFIER) && take_u64(&c, &s.id))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_IP) && take_u64(&c, &s.ip))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_TID) && take_u32x2(&c, &s.pid, &s.tid))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_TIME) && take_u64(&c, &s.time))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_ADDR) && take_u64(&c, &s.addr))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_ID) && take_u64(&c, &s.id))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_STREAM_ID) && take_u64(&c, &s.stream_id))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_CPU) && take_u32x2(&c, &s.cpu, &res))
		return -EBADMSG;
	if ((st & PERF_SAMPLE_PERIOD) && take_u64(&c, &s.period))
		return -EBADMSG;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (take_u64(&c, &s.callchain_nr))
			return -EBADMSG;
		/* Divide instead of multiplying: nr is hostile and nr * 8 can wrap. */
		if (s.callchain_nr > remaining(&c) / 8)
			return -EBADMSG;
		s.callchain = s.callchain_nr ? (const uint64_t *)(const void *)(c.base + c.off) : NULL;
		c.off += (size_t)s.callchain_nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t raw_size;

		if (remaining(&c) < 4)
			return -EBADMSG;
		memcpy(&raw_size, c.base + c.off, 4);
		c.off += 4;
		s.raw = c.base + c.off;
		s.raw_size = raw_size;
		/* The kernel pads RAW so the next field is u64-aligned again. */
		if (skip(&c, raw_size) || (c.off & 7))
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (take_u64(&c, &s.regs_abi))
			return -EBADMSG;
		/* ABI_NONE: the task had no user context, no values follow. */
		if (s.regs_abi != 0) {
			if (l->nregs > remaining(&c) / 8)
				return -EBADMSG;
			s.regs_nr = l->nregs;
			s.regs = l->nregs ? (const uint64_t *)(const void *)(c.base + c.off) : NULL;
			c.off += (size_t)l->nregs * 8;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (take_u64(&c, &s.stack_size))
			return -EBADMSG;
		/* dyn_size is only present when size is non-zero. */
		if (s.stack_size != 0) {
			s.stack = c.base + c.off;
			if (skip(&c, s.stack_size) || take_u64(&c, &s.stack_dyn_size))
				return -EBADMSG;
			if (s.stack_dyn_size > s.stack_size)
				return -EBADMSG;
		}
	}
	/* Fields after STACK_USER (WEIGHT, DATA_SRC, ...) are not ours to decode. */
	*out = s;
	return 0;
}

/* Finds the NUL-terminated string starting at c->off inside the body. */
static int take_string(struct cursor *c, const char **s, size_t *len)
{
	const void *nul;
	size_t n = remaining(c);

	if (n == 0)
		return -EBADMSG;
	nul = memchr(c->base + c->off, '\0', n);
	if (!nul)
		return -EBADMSG;
	*s = (const char *)(c->base + c->off);
	*len = (size_t)((const uint8_t *)nul - (c->base + c->off));
	c->off = c->end;
	return 0;
}

int perf_record__parse_mmap(const struct sample_layout *l, const struct perf_event_header *h,
		       struct perf_record_mmap *out)
{
	struct perf_record_mmap m;
	struct cursor c;
	size_t end;

	if (h->type != PERF_RECORD_MMAP && h->type != RECORD_TYPE_MMAP2)
		return -EINVAL;
	if (body_end(l, h, &end))
		return -EBADMSG;
	memset(&m, 0, sizeof(m));
	m.is_mmap2 = h->type == RECORD_TYPE_MMAP2;
	m.misc = h->misc;
	cursor_init(&c, h, end);
	if (take_u32x2(&c, &m.pid, &m.tid) || take_u64(&c, &m.addr) || take_u64(&c, &m.len) ||
	    take_u64(&c, &m.pgoff))
		return -EBADMSG;
	if (m.is_mmap2) {
		/* 24 bytes that are either maj/min/ino/ino_generation or
		 * build_id_size + 3 reserved bytes + build_id[20]. */
		if (remaining(&c) < 24)
			return -EBADMSG;
		if (h->misc & RECORD_MISC_MMAP_BUILD_ID) {
			m.has_build_id = 1;
			m.build_id_size = c.base[c.off];
			if (m.build_id_size > RECORD_BUILD_ID_MAX)
				return -EBADMSG;
			m.build_id = c.base + c.off + 4;
			c.off += 24;
		} else {
			m.has_inode = 1;
			if (take_u32x2(&c, &m.maj, &m.min) || take_u64(&c, &m.ino) ||
			    take_u64(&c, &m.ino_generation))
				return -EBADMSG;
		}
		if (take_u32x2(&c, &m.prot, &m.flags))
			return -EBADMSG;
	}
	if (take_string(&c, &m.filename, &m.filename_len))
		return -EBADMSG;
	if (parse_trailer(l, h, &m.sid))
		return -EBADMSG;
	*out = m;
	return 0;
}

int perf_record__parse_comm(const struct sample_layout *l, const struct perf_event_header *h,
		       struct perf_record_comm *out)
{
	struct perf_record_comm cm;
	struct cursor c;
	size_t end;

	if (h->type != PERF_RECORD_COMM)
		return -EINVAL;
	if (body_end(l, h, &end))
		return -EBADMSG;
	memset(&cm, 0, sizeof(cm));
	cursor_init(&c, h, end);
	if (take_u32x2(&c, &cm.pid, &cm.tid) || take_string(&c, &cm.comm, &cm.comm_len))
		return -EBADMSG;
	cm.exec = (h->misc & RECORD_MISC_COMM_EXEC) ? 1 : 0;
	if (parse_trailer(l, h, &cm.sid))
		return -EBADMSG;
	*out = cm;
	return 0;
}

int perf_record__parse_task(const struct sample_layout *l, const struct perf_event_header *h,
		       struct perf_record_task *out)
{
	struct perf_record_task t;
	struct cursor c;
	size_t end;

	if (h->type != PERF_RECORD_FORK && h->type != PERF_RECORD_EXIT)
		return -EINVAL;
	if (body_end(l, h, &end))
		return -EBADMSG;
	memset(&t, 0, sizeof(t));
	t.is_exit = h->type == PERF_RECORD_EXIT;
	cursor_init(&c, h, end);
	if (take_u32x2(&c, &t.pid, &t.ppid) || take_u32x2(&c, &t.tid, &t.ptid) ||
	    take_u64(&c, &t.time))
		return -EBADMSG;
	if (parse_trailer(l, h, &t.sid))
		return -EBADMSG;
	*out = t;
	return 0;
}

int perf_record__parse_lost(const struct sample_layout *l, const struct perf_event_header *h,
		       struct perf_record_lost *out)
{
	struct perf_record_lost lo;
	struct cursor c;
	size_t end;

	if (h->type != PERF_RECORD_LOST)
		return -EINVAL;
	if (body_end(l, h, &end))
		return -EBADMSG;
	memset(&lo, 0, sizeof(lo));
	cursor_init(&c, h, end);
	if (take_u64(&c, &lo.id) || take_u64(&c, &lo.lost))
		return -EBADMSG;
	if (parse_trailer(l, h, &lo.sid))
		return -EBADMSG;
	*out = lo;
	return 0;
}

int perf_record__parse_throttle(const struct sample_layout *l, const struct perf_event_header *h,
			   struct perf_record_throttle *out)
{
	struct perf_record_throttle t;
	struct cursor c;
	size_t end;

	if (h->type != PERF_RECORD_THROTTLE && h->type != PERF_RECORD_UNTHROTTLE)
		return -EINVAL;
	if (body_end(l, h, &end))
		return -EBADMSG;
	memset(&t, 0, sizeof(t));
	t.unthrottle = h->type == PERF_RECORD_UNTHROTTLE;
	cursor_init(&c, h, end);
	if (take_u64(&c, &t.time) || take_u64(&c, &t.id) || take_u64(&c, &t.stream_id))
		return -EBADMSG;
	if (parse_trailer(l, h, &t.sid))
		return -EBADMSG;
	*out = t;
	return 0;
}

int perf_record__parse_switch(const struct sample_layout *l, const struct perf_event_header *h,
			      struct perf_record_switch *out)
{
	struct perf_record_switch w;
	struct cursor c;
	size_t end;

	if (h->type != RECORD_TYPE_SWITCH && h->type != RECORD_TYPE_SWITCH_CPU_WIDE)
		return -EINVAL;
	if (!l->sample_id_all || !(l->sample_type & PERF_SAMPLE_TID) ||
	    !(l->sample_type & PERF_SAMPLE_TIME))
		return -ENOENT;
	if (body_end(l, h, &end))
		return -EBADMSG;
	memset(&w, 0, sizeof(w));
	w.out = (h->misc & RECORD_MISC_SWITCH_OUT) != 0;
	w.preempt = w.out && (h->misc & RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
	cursor_init(&c, h, end);
	if (h->type == RECORD_TYPE_SWITCH_CPU_WIDE && take_u32x2(&c, &w.other_pid, &w.other_tid))
		return -EBADMSG;
	if (parse_trailer(l, h, &w.sid))
		return -EBADMSG;
	*out = w;
	return 0;
}

/* Reads a u64 at a fixed offset of the record, bounds-checked. */
static int u64_at(const struct perf_event_header *h, size_t off, size_t end, uint64_t *v)
{
	if (off > end || end - off < 8)
		return -EBADMSG;
	memcpy(v, (const uint8_t *)h + off, 8);
	return 0;
}

int perf_record__time(const struct sample_layout *l, const struct perf_event_header *h, uint64_t *time)
{
	uint64_t st = l->sample_type;
	struct perf_record_sample_id sid;
	size_t end;

	if (h->size < sizeof(*h))
		return -EBADMSG;
	if (h->type == PERF_RECORD_SAMPLE) {
		size_t off = sizeof(*h);

		if (!(st & PERF_SAMPLE_TIME))
			return -ENOENT;
		/* Only the fixed-size fields before TIME: no need to decode the rest. */
		off += (st & RECORD_SAMPLE_IDENTIFIER) ? 8 : 0;
		off += (st & PERF_SAMPLE_IP) ? 8 : 0;
		off += (st & PERF_SAMPLE_TID) ? 8 : 0;
		return u64_at(h, off, h->size, time);
	}
	if (l->sample_id_all && (st & PERF_SAMPLE_TIME)) {
		if (parse_trailer(l, h, &sid))
			return -EBADMSG;
		*time = sid.time;
		return 0;
	}
	if (body_end(l, h, &end))
		return -EBADMSG;
	switch (h->type) {
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return u64_at(h, sizeof(*h) + 16, end, time);
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		return u64_at(h, sizeof(*h), end, time);
	default:
		return -ENOENT;
	}
}

/* Context markers occupy the top 4095 values of the u64 range. */
static int is_context_marker(uint64_t ip)
{
	return ip >= (uint64_t)-4095;
}

void perf_record__callchain_split(const uint64_t *ips, uint64_t nr, struct callchain_parts *out)
{
	const uint64_t ctx_kernel = (uint64_t)-128; /* PERF_CONTEXT_KERNEL */
	const uint64_t ctx_user = (uint64_t)-512;   /* PERF_CONTEXT_USER */
	uint64_t ctx = 0, i;

	memset(out, 0, sizeof(*out));
	for (i = 0; ips && i < nr; i++) {
		if (is_context_marker(ips[i])) {
			ctx = ips[i];
			/* A second run of the same context would not be contiguous:
			 * keep the first one only. */
			if (ctx == ctx_kernel && out->kernel)
				ctx = 0;
			if (ctx == ctx_user && out->user)
				ctx = 0;
			continue;
		}
		if (ctx == ctx_kernel) {
			if (!out->kernel)
				out->kernel = &ips[i];
			out->kernel_nr++;
		} else if (ctx == ctx_user) {
			if (!out->user)
				out->user = &ips[i];
			out->user_nr++;
		}
	}
}
