// SPDX-License-Identifier: MIT
/*
 * USDT probes (<sys/sdt.h>) of every argument location form: registers of
 * each width, signed and not, constants, memory relative to a register
 * (a volatile local on the stack), a static variable (rip-relative), a
 * string pointer; and a probe with a semaphore, whose guarded code runs
 * only while some tracer has the probe enabled.  Prints the values each
 * probe passes, so tests compare them with what was recorded.
 *   usdt [N]    N rounds (default 3)
 *   usdt -i     driven from stdin (tests/lib/live.sh's protocol): "run N"
 *               runs N more rounds and replies "ran N guarded G", "ping"
 *               replies "pong", "quit" (or the end of input) exits
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

#include "lib/tlib.h"
#include "progs.h"

DEFINE_SINK;

static volatile int counter = 7;
static const char *const words[] = {"zero", "one", "two", "three"};

NOINLINE static void plain_probes(int i)
{
	volatile long on_stack = -1000L * i;
	signed char c = (signed char)(-5 - i);
	unsigned short us = (unsigned short)(65535 - i);
	unsigned long long big = 0x1122334455667788ULL + (unsigned long long)i;

	DTRACE_PROBE2(utest, pair, i, (long)i * -1000);
	STAP_PROBE3(utest, widths, c, us, big);
	STAP_PROBE1(utest, konst, 42);
	STAP_PROBE2(utest, memory, on_stack, counter);
	STAP_PROBE1(utest, string, words[i & 3]);
	DTRACE_PROBE(utest, noargs);
	SINK(on_stack);
}

/*
 * sys/sdt.h decides per file whether probes have semaphores
 * (_SDT_HAS_SEMAPHORES before it is included); this file has both kinds,
 * so the probe below gets its semaphore by hand: the note's third address.
 */
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR p##_##n##_semaphore)
__extension__ unsigned short utest_guarded_semaphore __attribute__((section(".probes"), used));

static int guarded_runs;

NOINLINE static void guarded_probe(int i)
{
	if (__builtin_expect(utest_guarded_semaphore, 0)) {
		guarded_runs++;
		STAP_PROBE2(utest, guarded, i, guarded_runs);
	}
}

static int rounds;

static void run(int n)
{
	for (int i = 0; i < n; i++, rounds++) {
		plain_probes(rounds);
		guarded_probe(rounds);
		counter++;
	}
}

static int interactive(void)
{
	char line[64];
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin) && strncmp(line, "quit", 4) != 0) {
		if (sscanf(line, "run %d", &n) == 1) {
			run(n);
			printf("ran %d guarded %d\n", n, guarded_runs);
		} else {
			printf("pong\n");
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	if (argc > 1 && !strcmp(argv[1], "-i"))
		return interactive();
	run(n);
	printf("rounds %d guarded %d counter %d\n", rounds, guarded_runs, counter);
	return 0;
}
