/* Threads of processes, from /proc/PID/task: every thread of the processes
 * `record -p` targets (a perf event opened on a pid covers only that
 * thread, and inherit only the threads it creates later, so every thread
 * alive now gets its own events), and whether a process lives on after its
 * main thread exited. */
#ifndef SMOLDER_COLLECTOR_THREADS_H
#define SMOLDER_COLLECTOR_THREADS_H
#include <stddef.h>

/* Lists /proc/PID/task of each pid into *out (malloc'd; the caller frees),
 * *n entries. A pid whose task list cannot be read (a child created stopped
 * by the caller, not yet visible) stands for its one thread. Returns 0 or
 * -ENOMEM (nothing allocated then). */
int threads__list(const int *pids, size_t npids, int **out, size_t *n);

/* A thread of process pid other than not_tid that has not exited (not a
 * zombie), or 0 when there is none (or the process is gone). Lets the
 * process table keep a process whose main thread exited while others run
 * on, and read its maps through a live thread. */
int threads__live_other(int pid, int not_tid);

#endif
