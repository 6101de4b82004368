// SPDX-License-Identifier: MIT
/*
 * threads: 4 threads (argv[1] to change), each calls t_work N times (argv[2],
 * default 50); t_work calls t_a once and t_b twice.  Per thread:
 *   t_thread 1, t_work N, t_a N, t_b 2N.  Main calls t_main_done once.
 * With "pin" as argv[3], thread i runs on CPU i modulo the CPUs there are
 * (so that every CPU's buffer gets events).
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progs.h"

DEFINE_SINK;

static int iters = 50;

NOINLINE int t_a(int x)
{
	SINK(x);
	return x + 1;
}

NOINLINE int t_b(int x)
{
	SINK(x);
	return x * 2;
}

NOINLINE int t_work(int x)
{
	return t_a(x) + t_b(x) + t_b(x + 1);
}

NOINLINE void *t_thread(void *arg)
{
	long s = 0, cpu = (long)arg;

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}

	for (int i = 0; i < iters; i++)
		s += t_work(i);
	return (void *)s;
}

NOINLINE void t_main_done(long total)
{
	printf("threads total %ld\n", total);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t th[64];
	long total = 0, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	bool pin = argc > 3 && !strcmp(argv[3], "pin");

	if (argc > 2)
		iters = atoi(argv[2]);
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, t_thread, (void *)(pin ? i % ncpu : -1L)))
			return 1;
	for (int i = 0; i < n; i++) {
		void *r;

		pthread_join(th[i], &r);
		total += (long)r;
	}
	t_main_done(total);
	return 0;
}
