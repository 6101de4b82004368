// SPDX-License-Identifier: MIT
/*
 * recurse: r_fib(10) (177 calls, = 55) and r_depth(20) (21 calls, = 20),
 * both non-tail recursive.  Prints "recurse 55 20".
 */
#include <stdio.h>

#include "progs.h"

DEFINE_SINK;

NOINLINE int r_fib(int n)
{
	if (n < 2)
		return n;
	return r_fib(n - 1) + r_fib(n - 2);
}

NOINLINE int r_depth(int n)
{
	int r;

	if (!n)
		return 0;
	r = r_depth(n - 1);
	SINK(r);
	return r + 1;
}

int main(void)
{
	int f = r_fib(10);
	int d = r_depth(20);

	printf("recurse %d %d\n", f, d);
	return 0;
}
