// SPDX-License-Identifier: MIT
/*
 * threadchurn: N short threads (argv[1], default 10000) made one after
 * another, at most two alive at a time (each new one is made before the
 * one before it is joined), each calling c_work M times (argv[2], default
 * 10); c_work calls c_leaf once.  So: c_thread N, c_work N*M, c_leaf N*M,
 * main and c_done once.  A server replacing its threads, in small.
 *
 * With a third argument "tids": thread i calls c_work 1 + i % 5 times (not
 * M), the program waits 3 ms between two threads (a reader takes the last
 * one's data meanwhile, so its slot is reused), and prints "tid T calls C"
 * for each thread: who wrote what, to compare with a trace.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "progs.h"

DEFINE_SINK;

static int iters = 10;

NOINLINE int c_leaf(int x)
{
	SINK(x);
	return x + 1;
}

NOINLINE int c_work(int x)
{
	return c_leaf(x) * 2;
}

NOINLINE void *c_thread(void *arg)
{
	long s = 0;

	(void)arg;
	for (int i = 0; i < iters; i++)
		s += c_work(i);
	return (void *)s;
}

NOINLINE void c_done(long total, int n);

/* "tids": thread i (arg) calls c_work 1 + i % 5 times; returns its tid. */
static void *tid_thread(void *arg)
{
	long calls = 1 + (long)arg % 5;

	for (long i = 0; i < calls; i++)
		c_work((int)i);
	return (void *)syscall(SYS_gettid);
}

static int tids(int n)
{
	struct timespec nap = {0, 3000000};

	for (long i = 0; i < n; i++) {
		pthread_t th;
		void *ret;

		if (pthread_create(&th, NULL, tid_thread, (void *)i) || pthread_join(th, &ret))
			return 1;
		printf("tid %ld calls %ld\n", (long)ret, 1 + i % 5);
		nanosleep(&nap, NULL);
	}
	c_done(0, n);
	return 0;
}

NOINLINE void c_done(long total, int n)
{
	printf("threadchurn %d threads total %ld\n", n, total);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	pthread_t prev = 0, th;
	long total = 0;
	void *ret;

	if (argc > 2)
		iters = atoi(argv[2]);
	if (argc > 3 && !strcmp(argv[3], "tids"))
		return tids(n);
	for (int i = 0; i < n; i++) {
		if (pthread_create(&th, NULL, c_thread, NULL))
			return 1;
		if (i && !pthread_join(prev, &ret))
			total += (long)ret;
		prev = th;
	}
	if (n && !pthread_join(prev, &ret))
		total += (long)ret;
	c_done(total, n);
	return 0;
}
