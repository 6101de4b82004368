/* Workload 2: a tight loop calling a tiny noinline leaf N times.
 * Prints the result, then "inner_ns N": the time of the loop alone. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline, noipa)) unsigned leaf(unsigned x)
{
	return x * 2654435761u + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	unsigned s = 1;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		s = leaf(s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("leaf^%ld = %u\ninner_ns %lld\n", n, s,
	       (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
