/* A thread of the test process that names itself and waits, for the tests
 * of thread names read from /proc (test_thread_names, test_proctable).
 * Static inline: header-only test support. */
#ifndef SMOLDER_TESTS_UNIT_NAMED_THREAD_H
#define SMOLDER_TESTS_UNIT_NAMED_THREAD_H
#include <criterion/criterion.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

struct named_thread {
	pthread_t th;
	pthread_barrier_t ready, done;
	const char *name;
	pid_t tid;
};

static inline void *named_thread__run(void *arg)
{
	struct named_thread *n = arg;

	pthread_setname_np(pthread_self(), n->name);
	n->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&n->ready);
	pthread_barrier_wait(&n->done);
	return NULL;
}

/* Starts it; on return it is named and its tid known. */
static inline void named_thread__start(struct named_thread *n, const char *name)
{
	n->name = name;
	pthread_barrier_init(&n->ready, NULL, 2);
	pthread_barrier_init(&n->done, NULL, 2);
	cr_assert_eq(pthread_create(&n->th, NULL, named_thread__run, n), 0);
	pthread_barrier_wait(&n->ready);
}

/* Lets it end, and joins it. */
static inline void named_thread__stop(struct named_thread *n)
{
	pthread_barrier_wait(&n->done);
	pthread_join(n->th, NULL);
	pthread_barrier_destroy(&n->ready);
	pthread_barrier_destroy(&n->done);
}

#endif
