// SPDX-License-Identifier: MIT
/*
 * server: a long-running program for the live-control tests, driven line by
 * line on stdin so a test knows exactly which calls happened while tracing
 * was on:
 *   run N       handle_request(0..N-1); prints "ran N <sum>"
 *               handle_request -> parse_request -> parse_header x2,
 *                                                  parse_noise
 *   hammer N    4 threads each call st_step N times; prints "hammered <sum>"
 *   churn R N   R rounds of hammer N (4R short threads); prints "churned <sum>"
 *   burst N M   N threads alive at once (1..256), each calling st_step 1 + M times;
 *               prints "burst <sum>"
 *   forks K M   K children one after another, each calling handle_request M
 *               times (M = 0: nothing traced) and exiting; prints
 *               "forked K <sum of their exit codes>"
 *   lib N       N calls of tlib_mul(tlib_add(i, 1), 2) in libtlib (:mod:);
 *               prints "lib N <sum>"
 *   hold        st_hold() prints "holding" and returns once the next line
 *               comes (a call in progress while the test changes the
 *               configuration); then prints "held"
 *   ping        prints "pong"
 *   crash       SIGKILLs itself
 *   quit / EOF  exits 0
 * Every reply is flushed at once: the test reads it through a pipe.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/tlib.h"
#include "progs.h"

DEFINE_SINK;

NOINLINE int parse_header(int x)
{
	SINK(x);
	return x * 3 + 1;
}

NOINLINE int parse_noise(int x)
{
	SINK(x);
	return x & 7;
}

NOINLINE int parse_request(int x)
{
	return parse_header(x) + parse_header(x + 1) + parse_noise(x);
}

NOINLINE int handle_request(int x)
{
	return parse_request(x) % 1000;
}

NOINLINE long st_leaf(long x)
{
	SINK(1);
	return (x * 7) % 1009;
}

NOINLINE long st_step(long x)
{
	return st_leaf(x) + st_leaf(x + 3);
}

/* Prints "holding", returns when the next line of stdin comes. */
NOINLINE int st_hold(void)
{
	char line[64];

	printf("holding\n");
	return fgets(line, sizeof(line), stdin) != NULL;
}

static long hammer_iters;

NOINLINE void *hammer_thread(void *arg)
{
	long s = 0, id = (long)arg;

	for (long i = 0; i < hammer_iters; i++)
		s += st_step(i + id);
	return (void *)s;
}

/* 4 threads calling st_step @n times each: their sum. */
static long hammer(long n)
{
	pthread_t th[4];
	long s = 0;

	hammer_iters = n;
	for (long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, hammer_thread, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *r;

		pthread_join(th[i], &r);
		s += (long)r;
	}
	return s;
}

static pthread_barrier_t burst_bar;

/* A burst's thread: traces once, then waits until every one of them has (all alive). */
static void *burst_thread(void *arg)
{
	long s = st_step((long)arg);

	pthread_barrier_wait(&burst_bar);
	return (void *)(s + (long)hammer_thread(arg));
}

/* @n threads alive together, each calling st_step 1 + @m times: their sum. */
static long burst(long n, long m)
{
	pthread_t th[256];
	long s = 0, made = 0;

	n = n < 1 ? 1 : n > 256 ? 256 : n;
	hammer_iters = m;
	pthread_barrier_init(&burst_bar, NULL, (unsigned)n);
	for (long i = 0; i < n; i++, made++)
		if (pthread_create(&th[i], NULL, burst_thread, (void *)(i % 4)))
			return -1; /* the barrier would never open: the test says so */
	for (long i = 0; i < made; i++) {
		void *r;

		pthread_join(th[i], &r);
		s += (long)r;
	}
	pthread_barrier_destroy(&burst_bar);
	return s;
}

/* @k children one after another, each handling @m requests: the sum of their exit codes. */
static long forks(long k, long m)
{
	long s = 0;

	for (long i = 0; i < k; i++) {
		pid_t pid = fork();
		int st = 0;

		if (pid == 0) {
			long r = 0;

			for (long j = 0; j < m; j++)
				r += handle_request((int)j);
			exit((int)(r % 100));
		}
		if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
			s += WEXITSTATUS(st);
	}
	return s;
}

int main(void)
{
	char line[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		long n = 0, m = 0;

		if (sscanf(line, "run %ld", &n) == 1) {
			long s = 0;

			for (long i = 0; i < n; i++)
				s += handle_request((int)i);
			printf("ran %ld %ld\n", n, s);
		} else if (sscanf(line, "churn %ld %ld", &n, &m) == 2) {
			long s = 0;

			for (long i = 0; i < n; i++)
				s += hammer(m);
			printf("churned %ld\n", s);
		} else if (sscanf(line, "burst %ld %ld", &n, &m) == 2) {
			printf("burst %ld\n", burst(n, m));
		} else if (sscanf(line, "forks %ld %ld", &n, &m) == 2) {
			printf("forked %ld %ld\n", n, forks(n, m));
		} else if (sscanf(line, "hammer %ld", &n) == 1) {
			pthread_t th[4];
			long s = 0;

			hammer_iters = n;
			for (long i = 0; i < 4; i++)
				pthread_create(&th[i], NULL, hammer_thread, (void *)i);
			for (int i = 0; i < 4; i++) {
				void *r;

				pthread_join(th[i], &r);
				s += (long)r;
			}
			printf("hammered %ld\n", s);
		} else if (sscanf(line, "lib %ld", &n) == 1) {
			long s = 0;

			for (long i = 0; i < n; i++)
				s += tlib_mul(tlib_add((int)i, 1), 2);
			printf("lib %ld %ld\n", n, s);
		} else if (!strncmp(line, "hold", 4)) {
			printf("held %d\n", st_hold());
		} else if (!strncmp(line, "ping", 4)) {
			printf("pong\n");
		} else if (!strncmp(line, "crash", 5)) {
			kill(getpid(), SIGKILL);
		} else if (!strncmp(line, "quit", 4)) {
			break;
		}
	}
	return 0;
}
