// SPDX-License-Identifier: MIT
/*
 * aliases: functions known by more than one name (symbols at one address),
 * each one function whatever name a filter gives.
 *   al_area_impl = al_area              (alias attribute)
 *   al_vol_real = al_volume (weak)       (weak alias)
 *   al_hidden (static) = al_api          (a static function exported as another name)
 *   __al_getbuf = al_getbuf              (an internal __ name and its public one)
 *   al_quiet_impl = al_quiet             (no site: built without instrumentation)
 *   al_twin_a = al_twin_b (gcc)          (identical code folding: gcc's -fipa-icf, on at
 *                                         -O2, merges the two static twins; clang does not)
 * calls() (from main) calls al_area 2x and al_area_impl 1x (3 calls of one function),
 * al_volume 2x, al_api 1x, al_getbuf 2x, al_quiet 1x, al_twin_a 1x,
 * al_twin_b 2x.  Prints "aliases N".
 *
 * "aliases serve" does the same for each "run N" line of stdin (N times,
 * replying "ran N SUM"), "ping" replies "pong", "quit" or EOF ends: the
 * protocol of tests/progs/server.c, for the live and mount tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progs.h"

DEFINE_SINK;

NOINLINE int al_area_impl(int x)
{
	SINK(x);
	return x * 2;
}
int al_area(int x) __attribute__((alias("al_area_impl")));

NOINLINE int al_vol_real(int x)
{
	SINK(x);
	return x * 3;
}
int al_volume(int x) __attribute__((weak, alias("al_vol_real")));

static NOINLINE int al_hidden(int x)
{
	SINK(x);
	return x + 5;
}
int al_api(int x) __attribute__((alias("al_hidden")));

NOINLINE int __al_getbuf(int x)
{
	SINK(x);
	return x + 7;
}
int al_getbuf(int x) __attribute__((alias("__al_getbuf")));

/* no site of its own (neither a patchable entry nor an __fentry__ call) */
__attribute__((no_instrument_function, patchable_function_entry(0, 0))) NOINLINE int
al_quiet_impl(int x)
{
	SINK(x);
	return x - 1;
}
int al_quiet(int x) __attribute__((alias("al_quiet_impl")));

/* identical twins: noinline only (noipa would keep gcc from folding them) */
static __attribute__((noinline)) int al_twin_a(int x)
{
	SINK(x);
	return x * 7 + 1;
}

static __attribute__((noinline)) int al_twin_b(int x)
{
	SINK(x);
	return x * 7 + 1;
}

static NOINLINE int calls(void)
{
	int r = al_area(1) + al_area(2) + al_area_impl(3);

	r += al_volume(1) + al_volume(2);
	r += al_api(4);
	r += al_getbuf(1) + al_getbuf(2);
	r += al_quiet(9);
	/* arguments the compiler cannot see, so that it makes no constant-propagated copy */
	r += al_twin_a((int)prog_sink & 1) + al_twin_b((int)prog_sink & 2) +
	     al_twin_b((int)prog_sink & 4);
	return r;
}

static int serve(void)
{
	char line[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "run ", 4)) {
			long n = atol(line + 4), s = 0;

			for (long i = 0; i < n; i++)
				s += calls();
			printf("ran %ld %ld\n", n, s);
		} else if (!strncmp(line, "ping", 4)) {
			printf("pong\n");
		} else if (!strncmp(line, "quit", 4)) {
			break;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "serve"))
		return serve();
	printf("aliases %d\n", calls());
	return 0;
}
