// SPDX-License-Identifier: MIT
/*
 * signal: sig_handler (calls sig_work once) runs for raise(SIGUSR1) x3 and
 * for two one-shot ITIMER_REAL SIGALRMs: sig_handler 5, sig_work 5.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "progs.h"

DEFINE_SINK;

static volatile sig_atomic_t usr1, alrm;

NOINLINE int sig_work(int sig)
{
	SINK(sig);
	return sig;
}

NOINLINE void sig_handler(int sig)
{
	sig_work(sig);
	if (sig == SIGUSR1)
		usr1++;
	else
		alrm++;
}

int main(void)
{
	struct sigaction sa;
	sigset_t block, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	for (int i = 0; i < 3; i++)
		raise(SIGUSR1);

	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (int i = 0; i < 2; i++) {
		struct itimerval it = {{0, 0}, {0, 2000}};
		int want = alrm + 1;

		setitimer(ITIMER_REAL, &it, NULL);
		while (alrm < want)
			sigsuspend(&old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	printf("usr1 %d alrm %d\n", (int)usr1, (int)alrm);
	return 0;
}
