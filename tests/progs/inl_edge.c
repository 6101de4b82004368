// SPDX-License-Identifier: MIT
/*
 * inl_edge: inlined instances where patching them is delicate (-O inlined,
 * issue 16), with their source-level call counts.
 *   edge_redzone  inlined into a leaf function whose locals live in the
 *                 red zone below %rsp: 4 calls; the sum printed must not
 *                 change when traced (a call at the instance would write
 *                 its return address over them)
 *   edge_tail     inlined as the last thing its caller does (its code is
 *                 a lea and the ret): refused, a return among the 5 bytes
 *   edge_loop     inlined in a loop body the loop jumps back to: 6 calls
 *                 (not unrolled: an unrolled copy of the body is one
 *                 instance in DWARF, entered once per several calls)
 * With argv[1] "spin N": N threads call edge_spin (inlined into
 * spin_body) until a line arrives on stdin, then print how many calls each
 * made; tracing is switched on while they run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progs.h"

DEFINE_SINK;

#define ALWAYS static inline __attribute__((always_inline))

ALWAYS int edge_redzone(int x)
{
	SINK(x);
	return x * 7;
}

/* a leaf: the volatile array sits in the red zone (no call, no %rsp change) */
NOINLINE int rz_leaf(int x)
{
	volatile int buf[16];
	int s = 0;

	for (int i = 0; i < 16; i++)
		buf[i] = x + i;
	s += edge_redzone(buf[3]);
	return s + buf[5] + buf[15];
}

ALWAYS int edge_tail(int x)
{
	return x + 1;
}

NOINLINE int use_tail(int x)
{
	return edge_tail(x);
}

ALWAYS int edge_loop(int x)
{
	SINK(x);
	return x & 3;
}

NOINLINE int loop_body(int n)
{
	int s = 0;

	/* not unrolled: an unrolled body runs several calls per pass of its entry */
#ifdef __clang__
#pragma clang loop unroll(disable) vectorize(disable)
#else
#pragma GCC unroll 1
#endif
	for (int i = 0; i < n; i++)
		s += edge_loop(i);
	return s;
}

ALWAYS void edge_spin(long *n)
{
	SINK(*n);
	(*n)++;
}

static volatile int stop;

NOINLINE void spin_body(long *n)
{
	edge_spin(n);
}

static void *spin(void *arg)
{
	long *n = arg;

	while (!stop)
		spin_body(n);
	return NULL;
}

static int spin_threads(int nr)
{
	pthread_t t[16];
	long calls[16] = {0};
	char line[16];
	long total = 0;

	if (nr < 1 || nr > 16)
		return 2;
	for (int i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, spin, &calls[i]);
	printf("spinning\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	stop = 1;
	for (int i = 0; i < nr; i++) {
		pthread_join(t[i], NULL);
		total += calls[i];
	}
	printf("spun %s\n", total > 0 ? "ok" : "none");
	return 0;
}

int main(int argc, char **argv)
{
	int s = 0;

	if (argc > 2 && !strcmp(argv[1], "spin"))
		return spin_threads(atoi(argv[2]));
	for (int i = 0; i < 4; i++)
		s += rz_leaf(i + argc);
	s += use_tail(argc) + loop_body(6);
	printf("inl_edge %d\n", s);
	return 0;
}
