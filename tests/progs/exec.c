// SPDX-License-Identifier: MIT
/*
 * exec: calls e_before once, then execs single.<style> found next to itself
 * (dirname of /proc/self/exe; style = the suffix after the first '.').
 * Under utrace, both programs' events are under the one pid.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "progs.h"

DEFINE_SINK;

NOINLINE void e_before(void)
{
	SINK(1);
}

int main(void)
{
	char exe[PATH_MAX], target[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash, *dot;

	if (n <= 0)
		return 1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	dot = strchr(slash + 1, '.');
	if (!dot)
		return 1;
	*slash = '\0';
	snprintf(target, sizeof(target), "%s/single%s", exe, dot);
	e_before();
	printf("exec %s\n", strrchr(target, '/') + 1);
	fflush(stdout);
	/*
	 * -pg programs run gprof's ITIMER_PROF, which survives exec while the
	 * SIGPROF handler does not: stop it, or the new program may die of it.
	 */
	setitimer(ITIMER_PROF, &(struct itimerval){{0, 0}, {0, 0}}, NULL);
	execl(target, target, (char *)NULL);
	perror("execl");
	return 1;
}
