// SPDX-License-Identifier: MIT
/*
 * A USDT probe whose argument is a function's address, for hist keys
 * with .sym/.sym-offset: each round calls alpha() once and beta() twice
 * through a pointer, and the probe `ucalls:call` passes the pointer and
 * the round.
 *   usdt_calls -i   driven from stdin (tests/lib/live.sh's protocol):
 *                   "run N" runs N rounds and replies "ran N round R", "ping"
 *                   replies "pong", "quit" (or the end of input) exits
 */
#include <stdio.h>
#include <string.h>
#include <sys/sdt.h>

#include "progs.h"

DEFINE_SINK;

NOINLINE static void alpha(int i)
{
	SINK(i);
}

NOINLINE static void beta(int i)
{
	SINK(-i);
}

static void (*const order[])(int) = {alpha, beta, beta};

static int rounds;

static void run(int n)
{
	for (int i = 0; i < n; i++, rounds++)
		for (unsigned k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
			void (*fn)(int) = order[k];

			STAP_PROBE2(ucalls, call, fn, rounds);
			fn(rounds);
		}
}

int main(void)
{
	char line[64];
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin) && strncmp(line, "quit", 4) != 0) {
		if (sscanf(line, "run %d", &n) == 1) {
			run(n);
			printf("ran %d round %d\n", n, rounds);
		} else {
			printf("pong\n");
		}
	}
	return 0;
}
