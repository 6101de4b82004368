// SPDX-License-Identifier: MIT
/*
 * pthreads: built plain -O2; four threads call work() and hash1() (the
 * short form: a return within 10 bytes) without pause, so a live `utrace
 * start` patches them while they run.  A line on stdin starts
 * the measured part: each thread calls marked() exactly 1000 times and
 * ends.  Every result of work() is checked: "errors 0" unless a thread
 * ran a half-patched function.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define THREADS 4
#define MARKED 1000

static volatile int go;
static volatile long sink;
static long errors[THREADS];

__attribute__((noinline)) long work(long i, long k)
{
	long r = (i * 7 + k) ^ (k << 3);

	sink += r & 1;
	return r;
}

__attribute__((noinline)) unsigned hash1(unsigned x)
{
	return x * 2654435761u + 1;
}

__attribute__((noinline)) long marked(long i)
{
	long r = i * 3 + sink;

	sink ^= r & 1;
	return r;
}

static void *run(void *arg)
{
	long k = (long)arg, n = 0;

	while (!go) {
		if (work(n, k) != ((n * 7 + k) ^ (k << 3)) ||
		    hash1((unsigned)n) != (unsigned)n * 2654435761u + 1)
			errors[k]++;
		n++;
	}
	for (long i = 0; i < MARKED; i++)
		marked(i);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	char line[16];
	long total = 0;

	for (long k = 0; k < THREADS; k++)
		pthread_create(&t[k], NULL, run, (void *)k);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	go = 1;
	for (long k = 0; k < THREADS; k++) {
		pthread_join(t[k], NULL);
		total += errors[k];
	}
	printf("errors %ld\n", total);
	return 0;
}
