// SPDX-License-Identifier: MIT
/*
 * sigmarks: signal handlers in the function graph (record/310-signal-marks).
 * sm_run() raises, in turn:
 *   SIGUSR1  on_usr1 (a plain handler) -> sm_work(1)
 *   SIGUSR2  on_usr2 (SA_SIGINFO) -> sm_work(2), raise(SIGUSR1) from inside:
 *            on_usr1 nested -> sm_work(1)
 *   SIGHUP   ignored (SIG_IGN): nothing runs
 *   SIGINT   on_int -> sm_work(3), then siglongjmp out of the handler
 * then calls sm_work(4).  sigaction's old action must be the program's own
 * handler.  Prints "usr1 2 usr2 1 int 1 old ok".
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "progs.h"

DEFINE_SINK;

static volatile sig_atomic_t n_usr1, n_usr2, n_int;
static sigjmp_buf jump;

NOINLINE int sm_work(int x)
{
	SINK(x);
	return x;
}

NOINLINE void on_usr1(int sig)
{
	sm_work(1);
	n_usr1 += sig == SIGUSR1;
}

NOINLINE void on_usr2(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	sm_work(2);
	n_usr2 += sig == SIGUSR2 && si->si_signo == SIGUSR2;
	raise(SIGUSR1);
}

NOINLINE void on_int(int sig)
{
	sm_work(3);
	n_int += sig == SIGINT;
	siglongjmp(jump, 1);
}

NOINLINE void sm_run(void)
{
	raise(SIGUSR1);
	raise(SIGUSR2);
	raise(SIGHUP);
	if (!sigsetjmp(jump, 1))
		raise(SIGINT);
	sm_work(4);
}

static void install(int sig, void (*fn)(int), void (*info)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	if (info) {
		sa.sa_sigaction = info;
		sa.sa_flags = SA_SIGINFO;
	} else {
		sa.sa_handler = fn;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

int main(void)
{
	struct sigaction old;

	install(SIGUSR1, on_usr1, NULL);
	install(SIGUSR2, NULL, on_usr2);
	install(SIGHUP, SIG_IGN, NULL);
	install(SIGINT, on_int, NULL);
	sm_run();
	sigaction(SIGUSR2, NULL, &old);
	printf("usr1 %d usr2 %d int %d old %s\n", (int)n_usr1, (int)n_usr2, (int)n_int,
	       old.sa_sigaction == on_usr2 && (old.sa_flags & SA_SIGINFO) ? "ok" : "wrong");
	return 0;
}
