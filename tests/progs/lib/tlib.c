// SPDX-License-Identifier: MIT
/* libtlib: tlib_mul(a, b) calls tlib_add b times. */
#include "lib/tlib.h"
#include "progs.h"

volatile long tlib_sink;

NOINLINE int tlib_add(int a, int b)
{
	tlib_sink++;
	return a + b;
}

NOINLINE int tlib_mul(int a, int b)
{
	int r = 0;

	for (int i = 0; i < b; i++)
		r = tlib_add(r, a);
	return r;
}
