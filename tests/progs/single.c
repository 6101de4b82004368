// SPDX-License-Identifier: MIT
/*
 * single: one thread, known call counts.
 *   main -> s_top(3) -> s_middle x3 -> s_leaf x6; main -> s_leaf once more.
 *   counts: s_top 1, s_middle 3, s_leaf 7.  Prints "single 13".
 *   Optional argv[1]: N for s_top (s_middle N, s_leaf 2N+1).
 */
#include <stdio.h>
#include <stdlib.h>

#include "progs.h"

DEFINE_SINK;

NOINLINE int s_leaf(int x)
{
	SINK(x);
	return x + 1;
}

NOINLINE int s_middle(int x)
{
	int a = s_leaf(x);

	return a + s_leaf(x - a);
}

NOINLINE int s_top(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += s_middle(i * 2);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int r = s_top(n);

	r += s_leaf(n);
	printf("single %d\n", r);
	return 0;
}
