// SPDX-License-Identifier: MIT
/*
 * stress: 4 threads call st_step (which calls st_leaf twice) while the main
 * thread switches tracing off and on 1000 times through utrace_set_tracing()
 * (found with dlsym; absent without utrace, then the program just runs).
 *
 * Phase 1: each thread sums st_step over ITERS (argv[1], default 3000)
 * iterations: the printed result.  Phase 2: the threads keep calling st_step
 * (paced) until the main thread is done switching: traced events while the
 * sites change, not part of the output.  The output is the same traced or
 * not; "bad" counts failed switches.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "progs.h"

DEFINE_SINK;

#define NTHREADS 4
static int iters = 3000;
static volatile int go, stop;

NOINLINE long st_leaf(long x)
{
	SINK(1);
	return (x * 7) % 1009;
}

NOINLINE long st_step(long x)
{
	return st_leaf(x) + st_leaf(x + 3);
}

NOINLINE void *st_thread(void *arg)
{
	long id = (long)arg, s = 0;
	struct timespec ts = {0, 20 * 1000};

	while (!go)
		sched_yield();
	for (int i = 0; i < iters; i++)
		s += st_step(i + id);
	for (long i = 0; !stop; i++) {
		st_step(i);
		if (!(i % 4))
			nanosleep(&ts, NULL);
	}
	return (void *)s;
}

int main(int argc, char **argv)
{
	int (*sw)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "utrace_set_tracing");
	struct timespec ts = {0, 20 * 1000};
	pthread_t th[NTHREADS];
	long total = 0;
	int bad = 0;

	if (argc > 1)
		iters = atoi(argv[1]);
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, st_thread, (void *)i))
			return 1;
	go = 1;
	for (int i = 0; i < 1000; i++) {
		if (sw && sw(i & 1) < 0)
			bad++;
		nanosleep(&ts, NULL);
	}
	if (sw && sw(1) < 0)
		bad++;
	stop = 1;
	for (int i = 0; i < NTHREADS; i++) {
		void *r;

		pthread_join(th[i], &r);
		printf("thread %d: %ld\n", i, (long)r);
		total += (long)r;
	}
	printf("total %ld bad %d\n", total, bad);
	return 0;
}
