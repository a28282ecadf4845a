/* The sched:sched_switch tracepoint (collector/sched_switch.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/sched_switch.h"
#include "common/fileio.h"
#include "common/parse.h"

/* Where tracepoints are described: tracefs (4.1+, mounted by systemd), or
 * debugfs's tracing directory (every kernel with tracepoints). */
static const char *const tracing_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
#define FORMAT_MAX 16384

/* The value after "key:" up to ';' within line[0..len), as a number. */
static int field_number(const char *line, size_t len, const char *key, uint32_t *out)
{
	size_t klen = strlen(key), i;
	uint64_t v = 0;

	for (i = 0; i + klen <= len; i++) {
		if (memcmp(line + i, key, klen) != 0)
			continue;
		i += klen;
		if (i >= len || line[i] < '0' || line[i] > '9')
			return -EINVAL;
		while (i < len && line[i] >= '0' && line[i] <= '9') {
			v = v * 10 + (uint64_t)(line[i++] - '0');
			if (v > 65535)
				return -EINVAL;
		}
		*out = (uint32_t)v;
		return 0;
	}
	return -EINVAL;
}

/* Whether the line declares the field `name` ("... prev_pid;"). */
static bool declares(const char *line, size_t len, const char *name)
{
	size_t nlen = strlen(name), i;

	for (i = 0; i + nlen + 1 <= len; i++)
		if (memcmp(line + i, name, nlen) == 0 && line[i + nlen] == ';' &&
		    (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t'))
			return true;
	return false;
}

int sched_switch__parse_format(const char *text, size_t len, struct sched_switch_format *out)
{
	struct sched_switch_format f;
	uint32_t prev_pid_size = 0, next_pid_size = 0;
	bool have[3] = { false, false, false };
	size_t pos = 0;

	memset(&f, 0, sizeof(f));
	f.id = out->id;
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t llen = nl ? (size_t)(nl - line) : len - pos;
		uint32_t off, size;

		pos += llen + 1;
		if (field_number(line, llen, "offset:", &off) < 0 ||
		    field_number(line, llen, "size:", &size) < 0)
			continue;
		if (declares(line, llen, "prev_pid")) {
			f.prev_pid_off = off;
			prev_pid_size = size;
			have[0] = true;
		} else if (declares(line, llen, "prev_state")) {
			f.prev_state_off = off;
			f.prev_state_size = size;
			have[1] = true;
		} else if (declares(line, llen, "next_pid")) {
			f.next_pid_off = off;
			next_pid_size = size;
			have[2] = true;
		}
	}
	if (!have[0] || !have[1] || !have[2] || prev_pid_size != 4 || next_pid_size != 4 ||
	    (f.prev_state_size != 4 && f.prev_state_size != 8))
		return -EINVAL;
	f.min_size = f.prev_pid_off + 4;
	if (f.prev_state_off + f.prev_state_size > f.min_size)
		f.min_size = f.prev_state_off + f.prev_state_size;
	if (f.next_pid_off + 4 > f.min_size)
		f.min_size = f.next_pid_off + 4;
	snprintf(f.dir, sizeof(f.dir), "%s", out->dir);
	*out = f;
	return 0;
}

/* root + dir + "/events/sched/sched_switch/" + name, read whole. */
static int read_tp_file(const char *root, const char *dir, const char *name, char **text, size_t *len)
{
	char path[512];
	int fd, rc;

	snprintf(path, sizeof(path), "%s%s/events/sched/sched_switch/%s", root, dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	rc = fileio__read_upto(fd, 0, FORMAT_MAX, text, len);
	close(fd);
	return rc;
}

int sched_switch__find(const char *root, struct sched_switch_format *out)
{
	int first_err = -ENOENT;
	size_t i;

	for (i = 0; i < sizeof(tracing_dirs) / sizeof(tracing_dirs[0]); i++) {
		struct sched_switch_format f;
		char *text = NULL;
		size_t len = 0;
		uint64_t id;
		int rc;

		memset(&f, 0, sizeof(f));
		rc = read_tp_file(root, tracing_dirs[i], "id", &text, &len);
		if (rc == 0) {
			while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
				text[--len] = '\0';
			rc = parse__u64(text, 10, &id) < 0 || id == 0 ? -EINVAL : 0;
		}
		free(text);
		text = NULL;
		if (rc == 0) {
			f.id = id;
			snprintf(f.dir, sizeof(f.dir), "%s", tracing_dirs[i]);
			rc = read_tp_file(root, tracing_dirs[i], "format", &text, &len);
		}
		if (rc == 0)
			rc = sched_switch__parse_format(text, len, &f);
		free(text);
		if (rc == 0) {
			*out = f;
			return 0;
		}
		/* ENOENT, ENOTDIR: this directory is not mounted; the other
		 * failures say more */
		if (first_err == -ENOENT && rc != -ENOTDIR)
			first_err = rc;
	}
	return first_err;
}

int sched_switch__decode(const struct sched_switch_format *f, const void *raw, size_t len,
			 struct sched_switch_event *out)
{
	const unsigned char *r = raw;
	uint64_t state = 0;
	int32_t prev, next;

	if (!raw || len < f->min_size)
		return -EBADMSG;
	memcpy(&prev, r + f->prev_pid_off, 4);
	memcpy(&next, r + f->next_pid_off, 4);
	if (f->prev_state_size == 8) {
		memcpy(&state, r + f->prev_state_off, 8);
	} else {
		uint32_t s32;

		memcpy(&s32, r + f->prev_state_off, 4);
		state = s32;
	}
	out->prev_tid = (uint32_t)prev;
	out->next_tid = (uint32_t)next;
	/* The task's state bits (S, D, T, t, and the exit states) are the low
	 * byte; a task switched out while runnable has none there, whatever
	 * flag above them marks the preemption (TASK_STATE_MAX on 3.10,
	 * TASK_REPORT_MAX since 4.14). */
	out->preempted = (state & 0xff) == 0;
	return 0;
}
