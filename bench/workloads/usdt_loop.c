// SPDX-License-Identifier: MIT
/*
 * bench/usdt's workload: N iterations of a loop holding one USDT probe
 * with two arguments (the iteration and a running sum).  Prints the loop's
 * own time per iteration (CLOCK_MONOTONIC), so the cost of an enabled probe
 * is read without the tracer's start-up and write-out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, sum = 0;
	double t0 = now();

	for (long i = 0; i < n; i++) {
		sum += i ^ (sum >> 3);
		STAP_PROBE2(bench, hit, i, sum);
	}
	printf("%.2f ns/iteration (sum %ld)\n", (now() - t0) / (double)n, sum);
	return 0;
}
