// SPDX-License-Identifier: MIT
/*
 * faults N WORK: calls pf_leaf() N times, WORK loop iterations of untraced
 * work between calls, and counts this thread's minor page faults (the first
 * touches of its trace ring's pages) during the loop.  Prints "faults N
 * low" when the thread took fewer faults than a quarter of the ring pages
 * its events fill (16 bytes each, function tracer), else "faults N high F".
 * A quarter, not zero: the prefaulter starts helping a thread only after it
 * has written 64 KiB itself, and may be slow to get a CPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "progs.h"

#ifndef RUSAGE_THREAD
#define RUSAGE_THREAD 1 /* Linux: glibc names it only under _GNU_SOURCE */
#endif

DEFINE_SINK;

NOINLINE long pf_leaf(long x)
{
	return x + 1;
}

static long thread_minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, work = argc > 2 ? atol(argv[2]) : 2000;
	long before, faults, pages = n * 16 / 4096;

	before = thread_minflt();
	for (long i = 0; i < n; i++) {
		SINK(pf_leaf(i));
		for (long k = 0; k < work; k++)
			__asm__ volatile("" ::: "memory");
	}
	faults = thread_minflt() - before;
	if (faults < pages / 4)
		printf("faults %ld low\n", n);
	else
		printf("faults %ld high %ld of %ld pages\n", n, faults, pages);
	return 0;
}
