// SPDX-License-Identifier: MIT
/*
 * The runtime's own threads (the agent, the prefaulter): detached, with a
 * small stack, and every signal blocked, so a process-directed signal always
 * reaches one of the program's own threads.  Each thread's function keeps
 * itself out of the trace.
 */
#include <pthread.h>
#include <signal.h>

#include "libutrace/internal.h"

/**
 * ut_rt_thread_start - start @fn(@arg) as a runtime thread of @stack bytes
 *
 * Return: 0 or a negative errno.
 */
int ut_rt_thread_start(void *(*fn)(void *), void *arg, size_t stack)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	int ret;

	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* the new thread inherits this mask */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&th, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -ret;
}
