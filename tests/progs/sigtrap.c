// SPDX-License-Identifier: MIT
/*
 * sigtrap: the program's own SIGTRAP handler (debugger helpers, tests) must
 * keep working while utrace patches sites in other threads: 2 threads call
 * traced functions while main switches tracing on and off and raises
 * SIGTRAP (int3 and raise) now and then; the handler counts.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "progs.h"

DEFINE_SINK;

static volatile sig_atomic_t traps;
static volatile int stop;

NOINLINE int tr_leaf(int x)
{
	SINK(x);
	return x + 1;
}

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

static void *spin(void *arg)
{
	long n = 0;

	(void)arg;
	while (!stop)
		n += tr_leaf((int)n);
	return NULL;
}

int main(void)
{
	int (*sw)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "utrace_set_tracing");
	struct sigaction sa, old;
	pthread_t t[2];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sigaction(SIGTRAP, &sa, NULL);
	sigaction(SIGTRAP, NULL, &old);
	printf("handler installed: %d\n", old.sa_handler == on_trap);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	for (int i = 0; i < 200; i++) {
		if (sw)
			sw(i & 1);
		if (i % 20 == 0) {
			raise(SIGTRAP);
			__asm__ volatile("int3");
		}
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("traps %d\n", (int)traps);
	return 0;
}
