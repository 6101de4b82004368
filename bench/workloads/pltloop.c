// SPDX-License-Identifier: MIT
/*
 * bench/plt's workload: N calls of a libc function through the PLT
 * (strlen of a one-byte string: a few ns untraced), or, with "site", of a
 * function of the program's own with a compiler site (the reference a
 * library call's cost is compared with).  Prints the loop's ns per call on
 * stderr (the thread's CPU time: a loaded machine's preemptions and a
 * lossless record's waits for its writer left out).  Built -O2 -fno-builtin
 * -fpatchable-function-entry=5.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noinline)) size_t site_fn(const char *s)
{
	__asm__ volatile("" ::: "memory");
	return s[0] != 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int site = argc > 2 && !strcmp(argv[2], "site");
	const char *volatile str = "x";
	struct timespec a, b;
	size_t t = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	if (site)
		for (long i = 0; i < n; i++)
			t += site_fn(str);
	else
		for (long i = 0; i < n; i++)
			t += strlen(str);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	fprintf(stderr, "%.2f\n",
		((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
	return t != (size_t)n;
}
