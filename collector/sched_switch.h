/* The sched:sched_switch tracepoint, off-cpu's timing where the kernel
 * writes no switch records (before 4.3: RHEL 7's 3.10, 2.6.32): where its
 * id and format are (tracefs or debugfs), the offsets of the fields
 * off-cpu needs, and a sample's raw record decoded. The tracepoint fires
 * in the context of the task going out: the sample's pid and tid are its,
 * and the record says whether it was still runnable (a preemption) and
 * which thread comes in. */
#ifndef SMOLDER_COLLECTOR_SCHED_SWITCH_H
#define SMOLDER_COLLECTOR_SCHED_SWITCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the fields are in the raw record, from the tracepoint's format. */
struct sched_switch_format {
	uint64_t id;              /* the tracepoint's id: attr.config */
	uint32_t prev_pid_off, prev_state_off, prev_state_size, next_pid_off;
	uint32_t min_size;        /* a raw record shorter than this is damaged */
	char dir[64];             /* where they were read ("/sys/kernel/tracing") */
};

/* Reads the tracepoint's id and format under the tracing directories
 * (/sys/kernel/tracing, then /sys/kernel/debug/tracing), each relative to
 * root ("" for the host's). Returns 0, -ENOENT (no tracefs or debugfs
 * mounted, or no such tracepoint), -EACCES (not readable: debugfs is
 * root's), or -EINVAL (a format without the fields). */
int sched_switch__find(const char *root, struct sched_switch_format *out);

/* Parses a format file's text ("field:pid_t prev_pid;\toffset:24;\t
 * size:4;..."). Returns 0 or -EINVAL. */
int sched_switch__parse_format(const char *text, size_t len, struct sched_switch_format *out);

/* One switch, from a sample's raw record. */
struct sched_switch_event {
	uint32_t prev_tid, next_tid;
	bool preempted;           /* the task going out was still runnable */
};

/* Decodes raw[0..len). Returns 0, or -EBADMSG for a record too short. */
int sched_switch__decode(const struct sched_switch_format *f, const void *raw, size_t len,
			 struct sched_switch_event *out);

#endif
