/* Workload 4: THREADS threads (default 4), each calling a tiny noinline
 * leaf N times (argument 1; default 5,000,000) at the same time.  Prints
 * the result, then "inner_ns N": from the first thread's creation to the
 * last one's join.  Calls per run: THREADS * (N + 1) + 1 (leaf, worker, main). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define THREADS 4

__attribute__((noinline, noipa)) unsigned leaf(unsigned x)
{
	return x * 2654435761u + 1;
}

static long n_calls;

__attribute__((noinline)) static void *worker(void *arg)
{
	unsigned s = (unsigned)(unsigned long)arg;

	for (long i = 0; i < n_calls; i++)
		s = leaf(s);
	return (void *)(unsigned long)s;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	unsigned sum = 0;
	struct timespec t0, t1;

	n_calls = argc > 1 ? atol(argv[1]) : 5000000;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1))) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < THREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		sum += (unsigned)(unsigned long)r;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%d threads x leaf^%ld: %u\ninner_ns %lld\n", THREADS, n_calls, sum,
	       (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
