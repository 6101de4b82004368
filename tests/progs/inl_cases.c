// SPDX-License-Identifier: MIT
/*
 * inl_cases: functions the compiler inlined (issue 16), with their
 * source-level call counts.
 *   ip_local_out   15 calls: 10 inlined into ip_send_skb (one instance),
 *                  5 through a pointer to its out-of-line copy (traced: 5)
 *   inl_scale      inlined into every caller: inl_a and inl_b (2 instances,
 *                  no copy), 2 calls
 *   inl_inner      nested: inlined into inl_outer, itself inlined into
 *                  inl_nest (1 instance each), 1 call
 *   inl_step       3 instances in inl_thrice (a loop unrolled by hand), 3 calls
 *   send_packet    last in .text, tiny: 1 call, traced
 * With argv[1] "wait": waits for a line on stdin before it exits.
 */
#include <stdio.h>
#include <string.h>

#include "progs.h"

DEFINE_SINK;

#define ALWAYS static inline __attribute__((always_inline))

int ip_local_out(int x);
int send_packet(int x);

/*
 * Inlined into ip_send_skb; with the declaration above, C99 also emits its
 * out-of-line copy, which fp calls.
 */
inline __attribute__((always_inline)) int ip_local_out(int x)
{
	SINK(x);
	return x * 2 + 1;
}

NOINLINE int ip_send_skb(int x)
{
	return ip_local_out(x) + 3;
}

ALWAYS int inl_scale(int x)
{
	SINK(x);
	return x * 3;
}

NOINLINE int inl_a(int x)
{
	return inl_scale(x) + 1;
}

NOINLINE int inl_b(int x)
{
	return inl_scale(x + 1) - 1;
}

ALWAYS int inl_inner(int x)
{
	SINK(x);
	return x ^ 5;
}

ALWAYS int inl_outer(int x)
{
	SINK(x + 1);
	return inl_inner(x) + 7;
}

NOINLINE int inl_nest(int x)
{
	return inl_outer(x) * 2;
}

ALWAYS int inl_step(int x, int i)
{
	SINK(x + i);
	return x + i;
}

NOINLINE int inl_thrice(int x)
{
	return inl_step(x, 0) + inl_step(x, 1) * 3 + inl_step(x, 2) * 5;
}

int (*volatile fp)(int) = ip_local_out;

int main(int argc, char **argv)
{
	int s = 0;
	char line[16];

	for (int i = 0; i < 10; i++)
		s += ip_send_skb(i + argc);
	for (int i = 0; i < 5; i++)
		s += fp(i);
	s += inl_a(1) + inl_b(2) + inl_nest(3) + inl_thrice(4) + send_packet(5);
	printf("inl_cases %d\n", s);
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "wait") && !fgets(line, sizeof(line), stdin))
		return 0;
	return 0;
}

/* last defined, so last in .text (main goes to .text.startup): a tiny function */
NOINLINE int send_packet(int x)
{
	return x + 3;
}
