/* collector/sched_switch.c: the sched_switch tracepoint's format read and
 * its raw records decoded, as 3.10 and 6.1 lay them out. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collector/sched_switch.h"

/* 6.1: prev_state is a long */
static const char format_6[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

/* 2.6.32: common_lock_depth shifts the fields */
static const char format_2632[] =
	"name: sched_switch\nID: 29\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:int common_lock_depth;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[TASK_COMM_LEN];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:40;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[TASK_COMM_LEN];\toffset:48;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:64;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:68;\tsize:4;\tsigned:1;\n";

static void put32(unsigned char *r, uint32_t off, int32_t v) { memcpy(r + off, &v, 4); }
static void put64(unsigned char *r, uint32_t off, int64_t v) { memcpy(r + off, &v, 8); }

Test(sched_switch, formats_and_records)
{
	struct sched_switch_format f = { .id = 372 };
	struct sched_switch_event ev;
	unsigned char raw[80];

	cr_assert_eq(sched_switch__parse_format(format_6, sizeof(format_6) - 1, &f), 0);
	cr_assert_eq(f.id, 372, "the id is the caller's");
	cr_assert_eq(f.prev_pid_off, 24);
	cr_assert_eq(f.prev_state_off, 32);
	cr_assert_eq(f.prev_state_size, 8);
	cr_assert_eq(f.next_pid_off, 56);
	cr_assert_eq(f.min_size, 60);
	memset(raw, 0, sizeof(raw));
	put32(raw, 24, 4242);
	put64(raw, 32, 1); /* S: a sleep */
	put32(raw, 56, 77);
	cr_assert_eq(sched_switch__decode(&f, raw, 68, &ev), 0);
	cr_assert_eq(ev.prev_tid, 4242);
	cr_assert_eq(ev.next_tid, 77);
	cr_assert(!ev.preempted);
	put64(raw, 32, 0x100); /* R+ since 4.14: preempted */
	cr_assert_eq(sched_switch__decode(&f, raw, 68, &ev), 0);
	cr_assert(ev.preempted);
	put64(raw, 32, 0x400 | 0); /* 3.10's TASK_STATE_MAX marker */
	cr_assert_eq(sched_switch__decode(&f, raw, 68, &ev), 0);
	cr_assert(ev.preempted);
	put64(raw, 32, 2); /* D: I/O */
	cr_assert_eq(sched_switch__decode(&f, raw, 68, &ev), 0);
	cr_assert(!ev.preempted);
	cr_assert_eq(sched_switch__decode(&f, raw, 59, &ev), -EBADMSG, "a short record");
	cr_assert_eq(sched_switch__decode(&f, NULL, 68, &ev), -EBADMSG);

	cr_assert_eq(sched_switch__parse_format(format_2632, sizeof(format_2632) - 1, &f), 0);
	cr_assert_eq(f.prev_pid_off, 28);
	cr_assert_eq(f.prev_state_off, 40);
	cr_assert_eq(f.next_pid_off, 64);
}

Test(sched_switch, damaged_formats_are_refused)
{
	struct sched_switch_format f = { .id = 1 };
	char buf[sizeof(format_6)];
	char *p;

	/* no next_pid */
	memcpy(buf, format_6, sizeof(format_6));
	p = strstr(buf, "next_pid;");
	p[0] = 'X';
	cr_assert_eq(sched_switch__parse_format(buf, sizeof(buf) - 1, &f), -EINVAL);
	/* a pid that is not 4 bytes */
	memcpy(buf, format_6, sizeof(format_6));
	p = strstr(buf, "prev_pid;\toffset:24;\tsize:4");
	p[strlen("prev_pid;\toffset:24;\tsize:")] = '2';
	cr_assert_eq(sched_switch__parse_format(buf, sizeof(buf) - 1, &f), -EINVAL);
	/* a field further out: records shorter than it are refused */
	memcpy(buf, format_6, sizeof(format_6));
	p = strstr(buf, "offset:56");
	memcpy(p, "offset:9", 8);
	cr_assert_eq(sched_switch__parse_format(buf, sizeof(buf) - 1, &f), 0);
	cr_assert_eq(f.next_pid_off, 96);
	cr_assert_eq(f.min_size, 100);
	{
		unsigned char raw[100] = { 0 };
		struct sched_switch_event ev;

		cr_assert_eq(sched_switch__decode(&f, raw, 68, &ev), -EBADMSG);
		cr_assert_eq(sched_switch__decode(&f, raw, 100, &ev), 0);
	}
	cr_assert_eq(sched_switch__parse_format("", 0, &f), -EINVAL);
	/* a prefix of a field's name is not the field ("prev_pidx;") */
	cr_assert_eq(sched_switch__parse_format("\tfield:int prev_pidx;\toffset:1;\tsize:4;\n", 40, &f),
		     -EINVAL);
}

/* Found under a root directory laid out as tracefs is. */
Test(sched_switch, found_under_tracefs_or_debugfs)
{
	char root[] = "/tmp/smolder-tp-XXXXXX", path[256];
	struct sched_switch_format f;
	FILE *fp;

	cr_assert_not_null(mkdtemp(root));
	cr_assert_eq(sched_switch__find(root, &f), -ENOENT, "nothing mounted");
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/tracing/events/sched/sched_switch", root);
	cr_assert_eq(system(NULL) != 0, 1);
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
		cr_assert_eq(system(cmd), 0);
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/tracing/events/sched/sched_switch/id", root);
	fp = fopen(path, "w");
	fputs("29\n", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/tracing/events/sched/sched_switch/format", root);
	fp = fopen(path, "w");
	fputs(format_2632, fp);
	fclose(fp);
	cr_assert_eq(sched_switch__find(root, &f), 0);
	cr_assert_eq(f.id, 29);
	cr_assert_str_eq(f.dir, "/sys/kernel/debug/tracing");
	cr_assert_eq(f.next_pid_off, 64);
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		cr_assert_eq(system(cmd), 0);
	}
}
