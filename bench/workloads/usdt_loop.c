// SPDX-License-Identifier: MIT
/*
 * bench/usdt's workload: N iterations of a loop holding one USDT probe
 * with two arguments (the iteration and a running sum).  Prints the loop's
 * own time per iteration (CLOCK_MONOTONIC), so the cost of an enabled probe
 * is read without the tracer's start-up and write-out, and the thread's
 * CPU time per iteration (CLOCK_THREAD_CPUTIME_ID: user and system time,
 * so the kernel's uprobe handling counts; time the thread waits for a
 * full buffer to drain, or spends preempted on a busy machine, does not).  With a second
 * argument "str" the loop's probe is another, bench:str, whose first
 * argument points to a 12-byte string (a description makes it a string).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, sum = 0;
	int str = argc > 2 && argv[2][0] == 's';
	static const char name[] = "parse_header";
	double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);

	for (long i = 0; i < n; i++) {
		sum += i ^ (sum >> 3);
		if (__builtin_expect(str, 0))
			STAP_PROBE2(bench, str, name, i);
		else
			STAP_PROBE2(bench, hit, i, sum);
	}
	double c1 = now(CLOCK_THREAD_CPUTIME_ID), t1 = now(CLOCK_MONOTONIC);

	printf("%.2f ns/iteration (cpu %.2f ns) (sum %ld)\n", (t1 - t0) / (double)n,
	       (c1 - c0) / (double)n, sum);
	return 0;
}
