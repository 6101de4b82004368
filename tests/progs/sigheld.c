// SPDX-License-Identifier: MIT
/*
 * sigheld: blocks SIGBUS and SIGTRAP, raises both (this thread), checks
 * that neither handler ran while blocked, unblocks them and checks both ran
 * then; sh_work is called around it.  Prints "held 0 delivered 2" (the
 * kernel's pending-while-blocked semantics), the same traced or not.
 */
#include <signal.h>
#include <stdio.h>

#include "progs.h"

DEFINE_SINK;

static volatile sig_atomic_t got;

static void on_sig(int sig)
{
	(void)sig;
	got++;
}

NOINLINE int sh_work(int x)
{
	SINK(x);
	return x + 1;
}

int main(void)
{
	sigset_t set;
	int held;

	signal(SIGBUS, on_sig);
	signal(SIGTRAP, on_sig);
	sigemptyset(&set);
	sigaddset(&set, SIGBUS);
	sigaddset(&set, SIGTRAP);
	sh_work(1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGBUS);
	raise(SIGTRAP);
	sh_work(2);
	held = got;
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	sh_work(3);
	printf("held %d delivered %d\n", held, (int)got);
	return 0;
}
