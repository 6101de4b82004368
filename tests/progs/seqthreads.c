// SPDX-License-Identifier: MIT
/*
 * seqthreads: many short threads, one after another (never more than one
 * alive besides main), as a server replacing its workers does.
 *   seqthreads N [M]   N threads (default 100), each calling sq_work M
 *                      times (default 3); prints "threads N <sum>", then
 *                      waits for stdin to end (a test reads the buffers
 *                      while it is alive; </dev/null: exits at once).
 *   seqthreads N M go  the same once a first line came on stdin (a reader
 *                      attaches before the threads run).
 * Per thread: sq_thread 1, sq_work M.  Main calls sq_done once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "progs.h"

DEFINE_SINK;

static long iters = 3;

NOINLINE long sq_work(long x)
{
	SINK(x);
	return x + 1;
}

NOINLINE void *sq_thread(void *arg)
{
	long s = (long)arg;

	for (long i = 0; i < iters; i++)
		s += sq_work(i);
	return (void *)s;
}

NOINLINE void sq_done(long n, long total)
{
	printf("threads %ld %ld\n", n, total);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, total = 0;
	char line[64];

	if (argc > 2)
		iters = atol(argv[2]);
	if (argc > 3 && !fgets(line, sizeof(line), stdin))
		return 1;
	for (long i = 0; i < n; i++) {
		pthread_t th;
		void *r;

		if (pthread_create(&th, NULL, sq_thread, (void *)(i & 1)) || pthread_join(th, &r))
			return 1;
		total += (long)r;
	}
	sq_done(n, total);
	while (fgets(line, sizeof(line), stdin))
		;
	return 0;
}
