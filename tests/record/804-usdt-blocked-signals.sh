#!/bin/bash
# An enabled USDT probe is an int3, and an int3 in a thread that blocks
# SIGTRAP made the kernel kill the process (it resets the handler to the
# default); servers block every signal in their worker threads.  The
# runtime keeps SIGTRAP out of every mask the program sets (sigprocmask,
# pthread_sigmask, a handler's sa_mask) and reports it back as the program
# believes it: the probes record, and the program prints what it prints
# untraced.
. "$(dirname "$0")/../lib/common.sh"

cat >blk.c <<'EOF'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/sdt.h>
static void *worker(void *a)
{
	sigset_t all, now;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (int i = 0; i < 3; i++)
		DTRACE_PROBE1(blk, hit, i);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	printf("worker: SIGTRAP blocked %d\n", sigismember(&now, SIGTRAP));
	return a;
}
static void on_usr1(int sig)
{
	DTRACE_PROBE1(blk, handler, sig);
}
int main(void)
{
	struct sigaction sa = {.sa_handler = on_usr1}, old;
	sigset_t all, was, now;
	pthread_t t;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &was);
	DTRACE_PROBE1(blk, main, 1);
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("main: SIGTRAP blocked %d, before %d\n", sigismember(&now, SIGTRAP),
	       sigismember(&was, SIGTRAP));
	sigprocmask(SIG_SETMASK, &was, NULL);
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("main: SIGTRAP blocked %d after\n", sigismember(&now, SIGTRAP));
	sigfillset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);
	raise(SIGUSR1);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	puts("done");
	return 0;
}
EOF
gcc -O2 -o blk blk.c -lpthread || fail "cannot build the program"
./blk >untraced.txt || fail "the program fails untraced"
record blk.dat -e 'blk:*' -- ./blk
expect_eq "record's exit status (the program's)" 0 "$?"
diff -u untraced.txt blk.dat.out || fail "the program's output changed when traced"
report blk.dat | events | grep -oE ' (main|hit|handler): .*' >ev.txt
expect "the probes recorded" ev.txt <<'EOF'
 main: arg1=1
 handler: arg1=10
 hit: arg1=0
 hit: arg1=1
 hit: arg1=2
EOF
finish
