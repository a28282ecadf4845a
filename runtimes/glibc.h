/* What a reader needs to know of the glibc a process runs: where in its
 * thread descriptor (struct pthread) the kernel thread id is, so that a
 * runtime's record of a thread (a pthread_t) can be matched with the tid a
 * sample names. glibc publishes it for thread debuggers. */
#ifndef SMOLDER_RUNTIMES_GLIBC_H
#define SMOLDER_RUNTIMES_GLIBC_H
#include <stdint.h>

#include "runtimes/runtime.h"

/* offsetof(struct pthread, tid) in p's glibc, from the descriptor
 * _thread_db_pthread_tid (bits, count, offset) that libc (2.34+) or
 * libpthread exports; -1 when it cannot be read or makes no sense. */
int32_t glibc__pthread_tid_offset(struct runtime_process *p);

#endif
