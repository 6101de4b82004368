// SPDX-License-Identifier: MIT
/*
 * reap: children reaped each way a program can: wait, waitpid, wait3,
 * wait4, waitid, in this order, each child named "kid-N" (prctl) and
 * exiting with N; the fourth runs at nice 5 and is killed by SIGTERM.  Then
 * a waitpid(WNOHANG) that finds a running child (nothing reaped), a
 * waitid(WNOWAIT) that only looks at the exited child, and the wait that
 * reaps it ("kid-6").  Prints "reaped N SUM".
 */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progs.h"

/* A child named kid-@n; @hang: waits for a signal instead of exiting. */
static pid_t kid(int n, int nice_by, int hang)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		char name[16];

		snprintf(name, sizeof(name), "kid-%d", n);
		prctl(PR_SET_NAME, name);
		if (nice_by)
			setpriority(PRIO_PROCESS, 0, nice_by);
		close(p[0]);
		write(p[1], "r", 1); /* named and niced: the parent may go on */
		while (hang)
			pause();
		_exit(n);
	}
	close(p[1]);
	read(p[0], &c, 1);
	close(p[0]);
	return pid;
}

int main(void)
{
	int st, sum = 0, n = 0;
	siginfo_t si;
	pid_t p;

	kid(1, 0, 0);
	if (wait(&st) > 0)
		sum += WEXITSTATUS(st), n++;
	p = kid(2, 0, 0);
	if (waitpid(p, &st, 0) == p)
		sum += WEXITSTATUS(st), n++;
	kid(3, 0, 0);
	if (wait3(&st, 0, NULL) > 0)
		sum += WEXITSTATUS(st), n++;
	p = kid(4, 5, 1);
	kill(p, SIGTERM);
	if (wait4(p, &st, 0, NULL) == p && WIFSIGNALED(st))
		sum += WTERMSIG(st), n++;
	p = kid(5, 0, 0);
	if (!waitid(P_PID, (id_t)p, &si, WEXITED))
		sum += si.si_status, n++;
	p = kid(6, 0, 1);
	if (waitpid(p, &st, WNOHANG) == 0)
		n++;
	kill(p, SIGKILL);
	if (!waitid(P_PID, (id_t)p, &si, WEXITED | WNOWAIT))
		n++;
	if (waitpid(p, &st, 0) == p)
		sum += WTERMSIG(st), n++;
	printf("reaped %d %d\n", n, sum);
	return 0;
}
