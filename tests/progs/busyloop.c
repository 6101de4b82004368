// SPDX-License-Identifier: MIT
/*
 * busyloop: a program tracing at full speed until told to stop, for readers
 * of a busy ring: main calls bl_step (which calls bl_leaf twice) in a loop
 * until stdin ends; prints "busy" once the loop runs and "done <sum>" at
 * the end.
 */
#include <pthread.h>
#include <stdio.h>

#include "progs.h"

DEFINE_SINK;

static volatile int stop;

NOINLINE long bl_leaf(long x)
{
	SINK(x);
	return x & 15;
}

NOINLINE long bl_step(long x)
{
	return bl_leaf(x) + bl_leaf(x + 1);
}

static void *watch_stdin(void *arg)
{
	char line[64];

	(void)arg;
	while (fgets(line, sizeof(line), stdin))
		;
	stop = 1;
	return NULL;
}

int main(void)
{
	pthread_t th;
	long s = 0, i = 0;

	if (pthread_create(&th, NULL, watch_stdin, NULL))
		return 1;
	printf("busy\n");
	fflush(stdout);
	while (!stop)
		s += bl_step(i++);
	pthread_join(th, NULL);
	printf("done %ld\n", s);
	return 0;
}
