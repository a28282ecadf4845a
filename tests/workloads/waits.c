/* Workload: threads that wait in known places, for the off-cpu event. For
 * argv[1] seconds (default 3):
 *   "sleeper" sleeps 10 ms at a time in f_sleep;
 *   "reader" blocks reading a pipe in f_read;
 *   the main thread feeds that pipe a byte every 20 ms, sleeping in f_feed;
 *   "spinner" never waits (spin), and is off the CPU only when preempted.
 * Each of the three waiting threads is off the CPU nearly all the time, so
 * the process waits about 3 x its run time, a third in each of f_sleep,
 * f_read and f_feed, and next to none in spin. At the end it prints the
 * spinner's CPU time ("spinner_cpu_s S"): beside other work, the spinner
 * runs less than the run, and so do the CPU samples a test may expect. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "wl_time.h"

static double end;
static int fds[2];
static double spinner_cpu;
volatile unsigned long sink;

WL_NOINLINE void f_sleep(void);
WL_NOINLINE int f_read(void);
WL_NOINLINE void f_feed(void);
WL_NOINLINE void spin(void);

WL_NOINLINE void f_sleep(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

WL_NOINLINE int f_read(void)
{
	char c;

	return (int)read(fds[0], &c, 1);
}

WL_NOINLINE void f_feed(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	if (write(fds[1], "x", 1) != 1)
		sink++;
}

WL_NOINLINE void spin(void)
{
	unsigned long x = sink, i;

	for (i = 0; i < 1000000; i++)
		x = x * 6364136223846793005UL + 1;
	sink = x;
}

static void *sleeper(void *arg)
{
	(void)arg;
	while (wl_now() < end)
		f_sleep();
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	while (f_read() > 0)
		;
	return NULL;
}

static void *spinner(void *arg)
{
	struct timespec ts;

	(void)arg;
	while (wl_now() < end)
		spin();
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		spinner_cpu = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];

	end = wl_now() + wl_seconds(argc, argv, 3.0);
	if (pipe(fds) != 0 || pthread_create(&t[0], NULL, sleeper, NULL) != 0 ||
	    pthread_create(&t[1], NULL, reader, NULL) != 0 ||
	    pthread_create(&t[2], NULL, spinner, NULL) != 0)
		return 1;
	pthread_setname_np(t[0], "sleeper");
	pthread_setname_np(t[1], "reader");
	pthread_setname_np(t[2], "spinner");
	while (wl_now() < end)
		f_feed();
	close(fds[1]); /* the reader reads its end of file */
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pthread_join(t[2], NULL);
	printf("spinner_cpu_s %.3f\n", spinner_cpu);
	return 0;
}
