// SPDX-License-Identifier: MIT
/*
 * prep: a thread that is almost always in the middle of a function's first
 * instructions when the patch goes in.  slow_fill's third instruction is a
 * `rep stosb` of 64 MiB, which the CPU interrupts and resumes at its own
 * address: E + 5, where the patch writes `jmp slot`.  A thread left there
 * would jump to the slot and start the fill again from its current
 * position with the whole count, past the end of the buffer; moved to the
 * same instruction in the slot (libutrace/prologue.c), it finishes the
 * fill it was doing.  The canary after the buffer tells.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE (64ul << 20)

/* mov %rsi,%rcx; mov $0x5a,%eax; rep stosb; mov %rdi,%rax; ret */
void *slow_fill(void *buf, unsigned long n);
__asm__(".text\n"
	".globl slow_fill\n"
	".type slow_fill, @function\n"
	"slow_fill:\n"
	"	mov %rsi, %rcx\n"
	"	mov $0x5a, %eax\n"
	"	rep stosb\n"
	"	mov %rdi, %rax\n"
	"	ret\n"
	".size slow_fill, .-slow_fill\n");

static volatile int stop, started;
static unsigned char *buf;
static long fills, bad;

static void *run(void *arg)
{
	(void)arg;
	while (!stop) {
		started = 1;
		slow_fill(buf, SIZE);
		if (buf[SIZE] != 0xc3 || buf[SIZE - 1] != 0x5a)
			bad++;
		fills++;
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	char line[16];

	buf = malloc(SIZE + 4096);
	if (!buf)
		return 2;
	memset(buf + SIZE, 0xc3, 4096);
	pthread_create(&t, NULL, run, NULL);
	while (!started)
		;
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	stop = 1;
	pthread_join(t, NULL);
	printf("canary %s\n", bad ? "overwritten" : "intact");
	return 0;
}
