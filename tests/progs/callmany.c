// SPDX-License-Identifier: MIT
/*
 * callmany: cm_fib(N) (argv[1], default 22: 57313 calls), a fixed number of
 * calls for trace-size checks.  Prints "callmany N RESULT".
 */
#include <stdio.h>
#include <stdlib.h>

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

	printf("callmany %d %d\n", n, cm_fib(n));
	return 0;
}
