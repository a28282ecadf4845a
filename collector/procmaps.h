/* Parsing /proc/PID/maps, which is input from other users' processes: every
 * field is validated, lines and files are bounded. */
#ifndef SMOLDER_COLLECTOR_PROCMAPS_H
#define SMOLDER_COLLECTOR_PROCMAPS_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROCMAPS_LINE_MAX 8192

struct procmaps_entry {
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	int readable, writable, executable;
	const char *path;  /* points into the parsed line; "" for anonymous */
	size_t path_len;
	int deleted;       /* the path ended with " (deleted)" (stripped from path_len) */
};

/* Parses one line (without or with its trailing newline). Returns 0 and fills
 * *out (path points into line), or -EINVAL for a malformed line. */
int procmaps__parse_line(const char *line, size_t len, struct procmaps_entry *out);

/* Calls fn for every well-formed line of /proc/PID/maps (malformed lines are
 * skipped and counted in *bad if bad is not NULL). Stops early when fn returns
 * non-zero and returns that value. Returns 0, or -errno when the file cannot be
 * opened (-ENOENT: the process is gone). At most 1,000,000 lines are read. */
typedef int (*procmaps_fn)(void *ctx, const struct procmaps_entry *e);
int procmaps__read(pid_t pid, procmaps_fn fn, void *ctx, size_t *bad);
/* Same, through thread tid of the process: the maps of a process whose main
 * thread exited (pthread_exit) are empty under /proc/PID/maps, which reads
 * them through the zombie leader, but whole under a live thread's task. */
int procmaps__read_task(pid_t pid, pid_t tid, procmaps_fn fn, void *ctx, size_t *bad);
/* Same, reading an already opened maps file (for tests and fuzzing). */
int procmaps__read_fd(int fd, procmaps_fn fn, void *ctx, size_t *bad);

#endif
