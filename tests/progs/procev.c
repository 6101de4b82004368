// SPDX-License-Identifier: MIT
/*
 * procev: one of each process event, in this order: dlopen libtplug.<style>.so
 * next to itself, a thread started and joined, raise(SIGUSR1) with a handler,
 * fork a child that exits, fork a child that execs this program with argument
 * "execd" (which prints "execd" and exits), dlclose, exit.  Every step is
 * waited for, so the events come in this order.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progs.h"

DEFINE_SINK;

static volatile sig_atomic_t got;

NOINLINE void pe_handler(int sig)
{
	SINK(sig);
	got++;
}

NOINLINE void *pe_thread(void *arg)
{
	SINK(1);
	return arg;
}

/* Run @argv as a child and wait for it. */
static int child(char *const argv[])
{
	int st = 0;
	pid_t p;

	fflush(stdout);
	p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		if (argv)
			execv(argv[0], argv);
		exit(0);
	}
	waitpid(p, &st, 0);
	return st;
}

/* libtplug.<style>.so next to the program (its name's suffix is the style). */
static void *open_plug(const char *exe)
{
	char lib[PATH_MAX + 64];
	const char *slash = strrchr(exe, '/'), *dot = strchr(slash + 1, '.');

	if (!dot)
		return NULL;
	snprintf(lib, sizeof(lib), "%.*s/libtplug%s.so", (int)(slash - exe), exe, dot);
	return dlopen(lib, RTLD_NOW | RTLD_LOCAL);
}

int main(int argc, char **argv)
{
	char exe[PATH_MAX], *args[] = {exe, "execd", NULL};
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct sigaction sa;
	pthread_t th;
	void *h;

	if (argc > 1 && !strcmp(argv[1], "execd")) {
		printf("execd\n");
		return 0;
	}
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	h = open_plug(exe);
	if (!h)
		return 1;
	pthread_create(&th, NULL, pe_thread, NULL);
	pthread_join(th, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pe_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	child(NULL);
	child(args);
	dlclose(h);
	printf("procev done %d\n", (int)got);
	return 0;
}
