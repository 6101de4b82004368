// SPDX-License-Identifier: MIT
/*
 * USDT probes written in assembly, so that what surrounds each nop is
 * known whatever the compiler: the cases of a probe enabled with a jump
 * (libutrace/usdt_jump.c).
 *   jt_forms  a leaf using its red zone, flags set before the probe and
 *             read after it, every argument location form (registers of
 *             each width, %ah, constants, %rsp-relative memory in the red
 *             zone, a static variable, an indexed load)
 *   jt_back   a branch lands right after the nop (the code after an `if`):
 *             the jump starts before the probe
 *   jt_ret    a return right after the nop: nothing can move, an int3
 *   jt_xmm    a vector register live across the probe
 * Prints what each returns, so a test compares traced and untraced runs.
 *   usdt_jump [N]   N rounds (default 2)
 *   usdt_jump -i    driven from stdin: "threads T N" runs N rounds in each
 *                   of T threads and replies "ran T*N bad B"; "spin T"
 *                   starts T threads running rounds until "halt", which
 *                   replies "halted bad B"; "fork" forks a child that runs
 *                   rounds until killed and replies "forked PID"; "ping"
 *                   replies "pong"; "quit"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

long jt_forms(long a, long b);
long jt_back(long a);
long jt_ret(long a);
double jt_xmm(double d, long a);

int jt_static = 31;
long jt_table[4] = {100, 200, 300, 400};

/* clang-format off */
__asm__(
	".text\n"
	".globl jt_forms\n.type jt_forms, @function\n"
	"jt_forms:\n"
	"	mov %rdi, -8(%rsp)\n"
	"	mov %rsi, -16(%rsp)\n"
	"	movl $-7, -20(%rsp)\n"
	"	mov %rdi, %rax\n"
	"	lea jt_table(%rip), %rcx\n"
	"	mov $2, %edx\n"
	"	cmp %rsi, %rdi\n"
	STAP_PROBE_ASM(jump, forms, -8@%rdi -8@%rsi 8@-8(%rsp) -8@-16(%rsp) -4@-20(%rsp) -8@$-3 -4@jt_static(%rip) -2@%si 1@%ah 8@(%rcx,%rdx,8))
	"	setl %al\n"
	"	movzbl %al, %eax\n"
	"	add -8(%rsp), %rax\n"
	"	add -16(%rsp), %rax\n"
	"	movslq -20(%rsp), %rcx\n"
	"	add %rcx, %rax\n"
	"	ret\n"
	".size jt_forms, .-jt_forms\n"

	".globl jt_back\n.type jt_back, @function\n"
	"jt_back:\n"
	"	mov %rdi, %rax\n"
	"	test $1, %dil\n"
	"	jz 1f\n"
	STAP_PROBE_ASM(jump, back, -8@%rdi -8@%rax)
	"1:	add $1, %rax\n"
	"	ret\n"
	".size jt_back, .-jt_back\n"

	".globl jt_ret\n.type jt_ret, @function\n"
	"jt_ret:\n"
	STAP_PROBE_ASM(jump, ret, -8@%rdi)
	"	mov %rdi, %rax\n"
	"	ret\n"
	".size jt_ret, .-jt_ret\n"

	".globl jt_xmm\n.type jt_xmm, @function\n"
	"jt_xmm:\n"
	"	addsd %xmm0, %xmm0\n"
	STAP_PROBE_ASM(jump, xmm, -8@%rdi 8@%rdi)
	"	addsd %xmm0, %xmm0\n"
	"	ret\n"
	".size jt_xmm, .-jt_xmm\n");
/* clang-format on */

/* One round: 0 if every function returned what it must. */
static int round_of(long i, char *out, size_t len)
{
	long a = 0x1234 + i, b = 10 * i - 5;
	long f = jt_forms(a, b), k = jt_back(i), r = jt_ret(i);
	double x = jt_xmm(1.5 + (double)i, i);

	if (out)
		snprintf(out, len, "forms %ld back %ld ret %ld xmm %.1f", f, k, r, x);
	return (f != a + b - 7 + (a < b)) + (k != i + 1) + (r != i) + (x != 4 * (1.5 + (double)i));
}

static volatile int halt;
static long bad, rounds_each;

static void *worker(void *arg)
{
	long n = 0, mine = 0;

	(void)arg;
	while (rounds_each ? n < rounds_each : !halt)
		mine += round_of(n++ & 0xff, NULL, 0);
	__atomic_add_fetch(&bad, mine, __ATOMIC_RELAXED);
	return NULL;
}

static void run_threads(int t, long n, pthread_t *tid)
{
	rounds_each = n;
	halt = 0;
	for (int i = 0; i < t; i++)
		pthread_create(&tid[i], NULL, worker, NULL);
}

static void join(int t, pthread_t *tid)
{
	for (int i = 0; i < t; i++)
		pthread_join(tid[i], NULL);
}

static int interactive(void)
{
	pthread_t tid[16];
	char line[64];
	int t = 0, spinning = 0;
	long n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin) && strncmp(line, "quit", 4) != 0) {
		if (sscanf(line, "threads %d %ld", &t, &n) == 2 && t > 0 && t <= 16) {
			run_threads(t, n, tid);
			join(t, tid);
			printf("ran %ld bad %ld\n", t * n, bad);
		} else if (sscanf(line, "spin %d", &t) == 1 && t > 0 && t <= 16) {
			run_threads(t, 0, tid);
			spinning = t;
			printf("spinning\n");
		} else if (!strncmp(line, "fork", 4)) {
			pid_t child = fork();

			if (!child)
				for (long i = 0;; i++) /* until killed */
					bad += round_of(i & 0xff, NULL, 0);
			printf("forked %d\n", (int)child);
		} else if (!strncmp(line, "halt", 4)) {
			halt = 1;
			join(spinning, tid);
			spinning = 0;
			printf("halted bad %ld\n", bad);
		} else {
			printf("pong\n");
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2, wrong = 0;
	char out[160];

	if (argc > 1 && !strcmp(argv[1], "-i"))
		return interactive();
	for (int i = 0; i < n; i++) {
		wrong += round_of(i, out, sizeof(out));
		printf("%s\n", out);
	}
	printf("wrong %d\n", wrong);
	return wrong != 0;
}
