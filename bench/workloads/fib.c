/* Workload 1: recursive fib, non-tail recursion (2*F(n+1)-1 calls of fib).
 * Prints the result, then "inner_ns N": the time of the recursion alone. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long fib(int n)
{
	if (n < 2)
		return n;
	long a = fib(n - 1);
	long b = fib(n - 2);
	/* Neither call is in tail position: no accumulator loop. */
	__asm__ volatile("" : "+r"(a), "+r"(b));
	return a + b;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long r = fib(n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("fib(%d) = %ld\ninner_ns %lld\n", n, r,
	       (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
