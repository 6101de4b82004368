// SPDX-License-Identifier: MIT
/*
 * bench/inlined: how long the DWARF scan of common/inlined.c takes on one
 * program (what a filter word, `list -f` or the mount pays once per
 * build-id), measured inside one process: REPS scans, each after the cache
 * is dropped, best and median in ms, and what was found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/inlined.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int reps = argc > 2 ? atoi(argv[2]) : 11;
	double t[101];
	size_t n = 0;

	if (argc < 2 || reps < 1 || reps > 101) {
		fprintf(stderr, "usage: dwarfscan PROGRAM [REPS<=101]\n");
		return 2;
	}
	for (int i = 0; i < reps; i++) {
		double t0 = now_ms();
		const struct ut_inltab *tab = ut_inlined_of(argv[1]);

		t[i] = now_ms() - t0;
		n = tab ? tab->n : 0;
		ut_inlined_forget_all();
	}
	qsort(t, (size_t)reps, sizeof(t[0]), cmp);
	printf("%s: %zu inlined instances; scan best %.1f ms, median %.1f ms (%d runs)\n", argv[1], n,
	       t[0], t[reps / 2], reps);
	return 0;
}
