// SPDX-License-Identifier: MIT
/*
 * fork: parent calls f_parent_before once, forks; the child calls f_child 3
 * times and exits 0; the parent waits, then calls f_parent_after once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progs.h"

DEFINE_SINK;

NOINLINE void f_parent_before(void)
{
	SINK(1);
}

NOINLINE int f_child(int i)
{
	SINK(i);
	return i;
}

NOINLINE void f_parent_after(int st)
{
	SINK(st);
}

int main(void)
{
	int st = 0;
	pid_t p;

	f_parent_before();
	fflush(stdout);
	p = fork();
	if (p < 0)
		return 1;
	if (p == 0) {
		for (int i = 0; i < 3; i++)
			f_child(i);
		printf("child done\n");
		exit(0);
	}
	waitpid(p, &st, 0);
	f_parent_after(st);
	printf("parent done %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
