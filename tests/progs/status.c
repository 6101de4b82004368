// SPDX-License-Identifier: MIT
/*
 * status: prints to stdout and stderr, reads stdin if argv[1] is "cat", then
 * exits with argv[1] (a number) or kills itself with signal argv[2] when
 * argv[1] is "kill".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progs.h"

DEFINE_SINK;

NOINLINE int st_say(const char *what)
{
	printf("stdout: %s\n", what);
	fprintf(stderr, "stderr: %s\n", what);
	return (int)SINK(1);
}

int main(int argc, char **argv)
{
	const char *a = argc > 1 ? argv[1] : "0";
	char buf[256];

	st_say(a);
	if (!strcmp(a, "cat")) {
		while (fgets(buf, sizeof(buf), stdin))
			printf("in: %s", buf);
		return 0;
	}
	fflush(stdout);
	if (!strcmp(a, "kill") && argc > 2) {
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 99;
	}
	return atoi(a);
}
