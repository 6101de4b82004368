// SPDX-License-Identifier: MIT
/*
 * callmany: cm_fib(N) (argv[1], default 22: 57313 calls), a fixed number of
 * calls for trace-size checks.  Prints "callmany N RESULT".  Optionally
 * REPS times (argv[2]), MS milliseconds apart (argv[3]): bursts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "progs.h"

NOINLINE int cm_fib(int n)
{
	if (n < 2)
		return n;
	return cm_fib(n - 1) + cm_fib(n - 2);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 22;
	int reps = argc > 2 ? atoi(argv[2]) : 1, ms = argc > 3 ? atoi(argv[3]) : 0, r = 0;

	for (int i = 0; i < reps; i++) {
		if (i && ms)
			usleep((useconds_t)ms * 1000);
		r = cm_fib(n);
	}
	printf("callmany %d %d\n", n, r);
	return 0;
}
