/* Decoding of perf ring records (SAMPLE, MMAP/MMAP2, COMM, FORK/EXIT, LOST,
 * THROTTLE, SWITCH) with every length checked against the record's own size. */
#ifndef SMOLDER_COLLECTOR_PERF_RECORD_H
#define SMOLDER_COLLECTOR_PERF_RECORD_H
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* Constants newer than the kernel 3.10 headers we must build against. Most
 * are enum members there, so #ifndef cannot see them: use our own names. */
#define RECORD_TYPE_MMAP2 10u                      /* PERF_RECORD_MMAP2, 3.16 */
#define RECORD_SAMPLE_IDENTIFIER (1ull << 16)     /* PERF_SAMPLE_IDENTIFIER, 3.12 */
#define RECORD_MISC_COMM_EXEC (1u << 13)          /* PERF_RECORD_MISC_COMM_EXEC, 3.16 */
#define RECORD_MISC_MMAP_BUILD_ID (1u << 14)      /* PERF_RECORD_MISC_MMAP_BUILD_ID, 5.12 */
#define RECORD_BUILD_ID_MAX 20u
#define RECORD_TYPE_SWITCH 14u                     /* PERF_RECORD_SWITCH, 4.3 */
#define RECORD_TYPE_SWITCH_CPU_WIDE 15u            /* ..._CPU_WIDE, 4.3 */
#define RECORD_MISC_SWITCH_OUT (1u << 13)          /* PERF_RECORD_MISC_SWITCH_OUT, 4.3 */
#define RECORD_MISC_SWITCH_OUT_PREEMPT (1u << 14)  /* ..._OUT_PREEMPT, 4.17 */

/* What the records of one event look like; derived from its attr. A value
 * type: fill with perf_record__layout_init() and copy freely. */
struct sample_layout {
	uint64_t sample_type;
	uint64_t regs_user_mask;
	int sample_id_all;
	/* Derived: registers per REGS_USER payload, bytes of the sample_id trailer
	 * on non-sample records (0 without sample_id_all). */
	unsigned nregs;
	size_t id_trailer_size;
};

/* Fills *out. Returns 0, or -ENOTSUP when sample_type holds a field whose
 * layout depends on other attr fields we do not decode (READ, BRANCH_STACK)
 * and that precedes fields we need. *out untouched on failure. */
int perf_record__layout_init(struct sample_layout *out, uint64_t sample_type, uint64_t regs_user_mask,
			int sample_id_all);
/* Same from an attr as built by perf_events__build_attr(). */
int perf_record__layout_from_attr(struct sample_layout *out, const struct perf_event_attr *attr);

/* The sample_id trailer of non-sample records (and the same identity fields of
 * a sample). `fields` holds the PERF_SAMPLE_* bits that were present. */
struct perf_record_sample_id {
	uint64_t fields;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
};

/* A decoded PERF_RECORD_SAMPLE. Pointers point into the record, which must
 * stay alive (ring space not released) while they are used; records are
 * 8-byte aligned in the ring and in its arena, so uint64_t access is fine.
 * Fields not in the layout's sample_type are 0 / NULL. */
struct perf_sample {
	uint16_t misc;        /* header misc: PERF_RECORD_MISC_CPUMODE_MASK etc. */
	uint64_t fields;      /* sample_type bits present */
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	/* CALLCHAIN, PERF_CONTEXT_* markers included (see perf_record__callchain_split). */
	uint64_t callchain_nr;
	const uint64_t *callchain;
	/* REGS_USER: abi is PERF_SAMPLE_REGS_ABI_* (0 = none: no user context,
	 * e.g. a kernel thread; then regs_nr is 0). regs holds one value per bit
	 * of the layout's regs_user_mask, in increasing bit order. */
	uint64_t regs_abi;
	uint32_t regs_nr;
	/* RAW: a tracepoint's record (raw_size bytes, the kernel's padding
	 * included); an event with no raw data has 4 zero bytes (raw_size 4) */
	uint32_t raw_size;
	const uint8_t *raw;
	const uint64_t *regs;
	/* STACK_USER: stack[0..stack_size) copied from the user sp upwards; only
	 * stack[0..stack_dyn_size) is valid (dyn_size <= size is checked). */
	uint64_t stack_size;
	const uint8_t *stack;
	uint64_t stack_dyn_size;
};

/* PERF_RECORD_MMAP and PERF_RECORD_MMAP2. */
struct perf_record_mmap {
	int is_mmap2;
	uint16_t misc;        /* PERF_RECORD_MISC_MMAP_DATA, CPUMODE */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	/* MMAP2 only, and only when !has_build_id (the ABI puts the build-id in
	 * the same 24 bytes when misc has PERF_RECORD_MISC_MMAP_BUILD_ID). */
	int has_inode;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	int has_build_id;
	uint8_t build_id_size; /* <= RECORD_BUILD_ID_MAX, checked */
	const uint8_t *build_id;
	uint32_t prot, flags;  /* MMAP2 only */
	const char *filename;  /* NUL-terminated inside the record */
	size_t filename_len;
	struct perf_record_sample_id sid;
};

/* PERF_RECORD_COMM. exec is set when the kernel flagged the rename as
 * caused by execve (PERF_RECORD_MISC_COMM_EXEC, 3.16+; 0 on older kernels). */
struct perf_record_comm {
	uint32_t pid, tid;
	int exec;
	const char *comm;      /* NUL-terminated inside the record */
	size_t comm_len;
	struct perf_record_sample_id sid;
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct perf_record_task {
	int is_exit;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
	struct perf_record_sample_id sid;
};

/* PERF_RECORD_LOST: `lost` records were dropped because the ring was full. */
struct perf_record_lost {
	uint64_t id, lost;
	struct perf_record_sample_id sid;
};

/* PERF_RECORD_THROTTLE / UNTHROTTLE: the kernel lowered the sample rate. */
struct perf_record_throttle {
	int unthrottle;
	uint64_t time, id, stream_id;
	struct perf_record_sample_id sid;
};

/* PERF_RECORD_SWITCH and SWITCH_CPU_WIDE: a thread leaves or takes a CPU.
 * The record is written in the context of that thread, so its identity is
 * the sample_id trailer's (required: without sample_id_all it says no
 * one's); the CPU-wide form also names the other thread of the switch. */
struct perf_record_switch {
	int out;      /* the thread left the CPU (else it took it) */
	int preempt;  /* it left still runnable: preempted (4.17+; before, 0) */
	uint32_t other_pid, other_tid; /* CPU-wide: the thread coming in (out)
	                                  or going out (in); else 0 */
	struct perf_record_sample_id sid;
};

/* All parsers: `h` points to a whole record of h->size bytes (as returned by
 * ring__next). They return 0 and fill *out, or -EBADMSG when a length field,
 * string or the record size is inconsistent, or -EINVAL when h is not of the
 * parser's type. *out untouched on failure. Thread-safe (no state). */
int perf_record__parse_sample(const struct sample_layout *l, const struct perf_event_header *h,
			 struct perf_sample *out);
int perf_record__parse_mmap(const struct sample_layout *l, const struct perf_event_header *h,
		       struct perf_record_mmap *out);
int perf_record__parse_comm(const struct sample_layout *l, const struct perf_event_header *h,
		       struct perf_record_comm *out);
int perf_record__parse_task(const struct sample_layout *l, const struct perf_event_header *h,
		       struct perf_record_task *out);
int perf_record__parse_lost(const struct sample_layout *l, const struct perf_event_header *h,
		       struct perf_record_lost *out);
int perf_record__parse_throttle(const struct sample_layout *l, const struct perf_event_header *h,
			   struct perf_record_throttle *out);
/* -ENOENT without sample_id_all or without TID and TIME in it. */
int perf_record__parse_switch(const struct sample_layout *l, const struct perf_event_header *h,
			      struct perf_record_switch *out);
/* The sample_id trailer of a non-sample record. -ENOENT without
 * sample_id_all, -EBADMSG when the record is shorter than the trailer. */
int perf_record__parse_sample_id(const struct sample_layout *l, const struct perf_event_header *h,
			    struct perf_record_sample_id *out);

/* The time of any record, for ordering records from several rings: the
 * sample's TIME, else the sample_id trailer, else the record's own time field
 * (FORK/EXIT/THROTTLE). -ENOENT when the record carries none (e.g. MMAP without
 * sample_id_all, or an unknown type without a trailer), -EBADMSG when short. */
int perf_record__time(const struct sample_layout *l, const struct perf_event_header *h, uint64_t *time);

/* Whether this module decodes records of this type; others are to be skipped. */
int perf_record__type_known(uint32_t type);

/* The two halves of a CALLCHAIN, markers removed: the entries following
 * PERF_CONTEXT_KERNEL and those following PERF_CONTEXT_USER, each up to the
 * next marker. Entries under other contexts (hypervisor, guest) and before any
 * marker are dropped. Pointers alias `ips`. */
struct callchain_parts {
	const uint64_t *kernel;
	size_t kernel_nr;
	const uint64_t *user;
	size_t user_nr;
};
void perf_record__callchain_split(const uint64_t *ips, uint64_t nr, struct callchain_parts *out);

#endif
