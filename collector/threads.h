/* The threads of the processes `record -p` targets. A perf event opened on a
 * pid covers only that thread, and inherit only the threads it creates
 * later, so every thread alive now gets its own events. */
#ifndef SMOLDER_COLLECTOR_THREADS_H
#define SMOLDER_COLLECTOR_THREADS_H
#include <stddef.h>

/* Lists /proc/PID/task of each pid into *out (malloc'd; the caller frees),
 * *n entries. A pid whose task list cannot be read (a child created stopped
 * by the caller, not yet visible) stands for its one thread. Returns 0 or
 * -ENOMEM (nothing allocated then). */
int threads__list(const int *pids, size_t npids, int **out, size_t *n);

#endif
