// SPDX-License-Identifier: MIT
/*
 * pcalls: built plain -O2 (no sites), traced through patched prologues.
 * Known counts: scale 3 times, mix 5 times, chain 2 times (each calling
 * scale once), count_down once, hash1 4 times (its ret within 10 bytes:
 * the short form), pick 6 times (a switch: an indirect jump through a
 * jump table, read to check its targets); asm_loop and tiny (once each)
 * cannot be patched.  The bodies use rip-relative data and calls
 * so that the moved instructions need rewriting.
 */
#include <stdio.h>
#include <stdlib.h>

long table[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
volatile long sink;

__attribute__((noinline)) long scale(long x)
{
	long r = table[x & 15] * x + table[(x + 3) & 15];

	sink += r;
	return r;
}

__attribute__((noinline)) long mix(long a, long b)
{
	long s = sink + a;

	table[(a ^ b) & 15] += s;
	return s * b + table[b & 15];
}

__attribute__((noinline)) long chain(long x)
{
	long r = scale(x + 1);

	sink ^= r;
	return r + table[x & 7] + sink;
}

/* a loop: its branches stay after the moved bytes */
__attribute__((noinline)) long count_down(long n)
{
	long s = 0;

	while (n-- > 0)
		s += sink;
	return s;
}

/*
 * the short form: `imul; add (or inc); ret`, a return within the first
 * 10 bytes, the first 5 (with endbr64: after it) one instruction
 */
__attribute__((noinline)) unsigned hash1(unsigned x)
{
	return x * 2654435761u + 1;
}

/* a switch gcc and clang compile to a jump table (its cases are not values) */
__attribute__((noinline)) long pick(long k, long x)
{
	switch (k) {
	case 0:
		sink += x;
		break;
	case 1:
		sink ^= x * 3;
		break;
	case 2:
		sink -= x << 2;
		break;
	case 3:
		table[x & 15] += x;
		break;
	case 4:
		sink = sink * 5 + x;
		break;
	case 5:
		table[(x + 1) & 15] ^= sink;
		break;
	default:
		return -1;
	}
	return sink;
}

/*
 * refused: its loop jumps back into its first 5 bytes.  Written in
 * assembly so that both compilers give it the same bytes:
 *   xor %eax,%eax; 1: add $2,%rax; sub $1,%rdi; jg 1b; ret
 */
long asm_loop(long n);
__asm__(".text\n"
	".globl asm_loop\n"
	".type asm_loop, @function\n"
	"asm_loop:\n"
	"	xor %eax, %eax\n"
	"1:	add $2, %rax\n"
	"	sub $1, %rdi\n"
	"	jg 1b\n"
	"	ret\n"
	".size asm_loop, .-asm_loop\n");

/* refused: shorter than a patch */
__attribute__((noinline)) int tiny(int x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	long t = argc;

	t += scale(1);
	for (int i = 0; i < 5; i++)
		t += mix(i, t);
	for (int i = 0; i < 2; i++)
		t += chain(i);
	t += count_down(argc + 2);
	for (int i = 0; i < 4; i++)
		t += hash1((unsigned)t) & 1;
	for (long k = 0; k < 6; k++)
		t += pick(k, t) & 1;
	t += asm_loop(argc + 1) + tiny(argc);
	printf("pcalls %ld\n", t & 0xff);
	return 0;
}
