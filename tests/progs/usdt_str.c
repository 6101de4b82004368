// SPDX-License-Identifier: MIT
/*
 * USDT probes with string arguments (tests/usdt/utest.usdt describes
 * them): a word per round, and a pair of which the second points to no
 * string the program can read in some rounds: round 3k a near-null
 * pointer, 3k+1 a page with no access, 3k+2 a string that ends on the
 * last byte of a page whose next page has no access (readable: "edge").
 *   usdt_str [N]    N rounds (default 3)
 *   usdt_str -i     driven from stdin (tests/lib/live.sh's protocol): "run N"
 *                   runs N more rounds and replies "ran N", "ping" replies
 *                   "pong", "quit" (or the end of input) exits
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sdt.h>

#include "lib/tlib.h"
#include "progs.h"

DEFINE_SINK;

static const char *const words[] = {"parse_args", "parse_line", "main_loop", "cleanup"};

NOINLINE static void probes(int i, const char *bad)
{
	const char *w = words[i & 3];

	STAP_PROBE2(utest_str, word, w, (int)strlen(w));
	STAP_PROBE3(utest_str, two, w, bad, i);
	SINK(i);
}

static char *pages;
static int rounds;

static void run(int n)
{
	for (int i = 0; i < n; i++, rounds++)
		probes(rounds, rounds % 3 == 0	 ? (const char *)8
			       : rounds % 3 == 1 ? pages + 4096
						 : pages + 4091);
}

static int interactive(void)
{
	char line[64];
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin) && strncmp(line, "quit", 4) != 0) {
		if (sscanf(line, "run %d", &n) == 1) {
			run(n);
			printf("ran %d rounds %d\n", n, rounds);
		} else {
			printf("pong\n");
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED || mprotect(pages + 4096, 4096, PROT_NONE))
		return 1;
	memcpy(pages + 4096 - 5, "edge", 5);
	if (argc > 1 && !strcmp(argv[1], "-i"))
		return interactive();
	run(n);
	printf("rounds %d\n", n);
	return 0;
}
