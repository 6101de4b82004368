// SPDX-License-Identifier: MIT
/*
 * The runtime's own threads (the agent, the prefaulter): detached, with a
 * small stack, and every signal blocked, so a process-directed signal always
 * reaches one of the program's own threads.  Each thread's function keeps
 * itself out of the trace.
 */
#include <pthread.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include "libutrace/internal.h"

/**
 * ut_rt_thread_start - start @fn(@arg) as a runtime thread of @stack bytes
 *
 * Return: 0 or a negative errno.
 */
struct start {
	void *(*fn)(void *);
	void *arg;
};

/* A runtime thread: the library functions it calls are not the program's (plthook.c). */
static void *quiet_thread(void *p)
{
	struct start s = *(struct start *)p;

	free(p);
	ut_quiet = 1;
	return s.fn(s.arg);
}

int ut_rt_thread_start(void *(*fn)(void *), void *arg, size_t stack)
{
	struct start *s = malloc(sizeof(*s));
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	int ret;

	if (!s)
		return -ENOMEM;
	s->fn = fn;
	s->arg = arg;
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* the new thread inherits this mask */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&th, &attr, quiet_thread, s);
	if (ret)
		free(s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -ret;
}
