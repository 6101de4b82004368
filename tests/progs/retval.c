// SPDX-License-Identifier: MIT
/*
 * retval: functions whose return values funcgraph-retval prints, driven line
 * by line on stdin (as server.c, so the mount's tests can use it too):
 *   call N   rv_outer(N): rv_eio -5 (an int), rv_einval -22 (a long),
 *            rv_hex 0x1234, rv_far -5000 (below -MAX_ERRNO: hex), rv_zero 0;
 *            prints "called N <sum>"
 *   wide N   rv_wide(N): N + 0x123456789a (64 bits), rv_u32(N): 0x80000000 + N
 *            (an unsigned int), each a leaf; prints "wide N <sum>"
 *   ping     prints "pong"
 *   EOF      exits 0
 * With N = 0 every value is the one named above.
 */
#include <stdio.h>

#include "progs.h"

DEFINE_SINK;

NOINLINE int rv_eio(int x)
{
	SINK(x);
	return x - 5;
}

NOINLINE long rv_einval(long x)
{
	SINK(x);
	return x - 22;
}

NOINLINE long rv_hex(long x)
{
	SINK(x);
	return x + 0x1234;
}

NOINLINE long rv_far(long x)
{
	SINK(x);
	return x - 5000;
}

NOINLINE int rv_zero(int x)
{
	SINK(x);
	return x;
}

NOINLINE long rv_wide(long x)
{
	SINK(x);
	return x + 0x123456789a;
}

NOINLINE unsigned rv_u32(unsigned x)
{
	SINK(x);
	return x + 0x80000000u;
}

NOINLINE long rv_outer(int x)
{
	return rv_eio(x) + rv_einval(x) + rv_hex(x) + rv_far(x) + rv_zero(x);
}

int main(void)
{
	char line[64];
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "call %d", &n) == 1)
			printf("called %d %ld\n", n, rv_outer(n));
		else if (sscanf(line, "wide %d", &n) == 1)
			printf("wide %d %ld\n", n, rv_wide(n) + (long)rv_u32((unsigned)n));
		else if (line[0] == 'p')
			printf("pong\n");
	}
	return 0;
}
