// SPDX-License-Identifier: MIT
/*
 * shlib: calls libtlib: tlib_add(1, 2) once, tlib_mul(3, 4) once (tlib_mul
 * calls tlib_add 4 times), and its own sh_local once.
 *   tlib_add 5, tlib_mul 1, sh_local 1.  Prints "shlib 3 12 7".
 */
#include <stdio.h>

#include "lib/tlib.h"
#include "progs.h"

DEFINE_SINK;

NOINLINE int sh_local(int x)
{
	SINK(x);
	return x + 1;
}

int main(void)
{
	int a = tlib_add(1, 2);
	int m = tlib_mul(3, 4);

	printf("shlib %d %d %d\n", a, m, sh_local(6));
	return 0;
}
