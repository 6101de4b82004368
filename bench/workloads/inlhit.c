/* Workload for bench/inlined: a loop calling a noinline function N times,
 * with a function inlined into it (one instance).  Tracing the outer
 * function costs a compiler site per call; tracing the inlined one
 * (-O inlined) an instance's hit.  Prints "inner_ns N", the loop's time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned sink;

static inline __attribute__((always_inline)) unsigned mix(unsigned x)
{
	sink = x;
	return x * 2654435761u + 1;
}

__attribute__((noinline, noipa)) unsigned step(unsigned x)
{
	return mix(x ^ 7) + 3;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	unsigned s = 1;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		s = step(s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("step^%ld = %u\ninner_ns %lld\n", n, s,
	       (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
