/*
 * function_graph robustness: every way a program leaves a function other
 * than by returning, and stack tricks.  The output must be identical traced
 * and untraced.  Argument: which case (all when none).
 */
#include <execinfo.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

/* The recursions below end only by leaving (longjmp, pthread_exit, exit):
 * on purpose, which gcc takes for infinite recursion. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Winfinite-recursion"
#endif

static jmp_buf jb;
static volatile int bottom;
static sigjmp_buf sjb;

__attribute__((noinline)) int g_leaf(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 2;
}

/* longjmp out of several frames */
__attribute__((noinline)) void g_dive(int n)
{
	if (n == bottom)
		longjmp(jb, 7);
	g_dive(n - 1);
	__asm__ volatile("" ::: "memory");
}

static void case_longjmp(void)
{
	int r = setjmp(jb);

	if (r == 0)
		g_dive(4);
	printf("longjmp: back with %d, leaf %d\n", r, g_leaf(3));
}

/* functions inside signal handlers, one of which siglongjmps out */
__attribute__((noinline)) void g_handler(int sig)
{
	g_leaf(sig);
	if (sig == SIGUSR2)
		siglongjmp(sjb, 1);
}

__attribute__((noinline)) void g_wait_signal(int n)
{
	if (n == 0)
		raise(SIGUSR2);
	else
		g_wait_signal(n - 1);
	__asm__ volatile("" ::: "memory");
}

static void case_signal(void)
{
	signal(SIGUSR1, g_handler);
	signal(SIGUSR2, g_handler);
	raise(SIGUSR1);
	if (!sigsetjmp(sjb, 1))
		g_wait_signal(3);
	printf("signal: handlers done, leaf %d\n", g_leaf(4));
}

/* swapcontext coroutines */
static ucontext_t uc_main, uc_co;
static char co_stack[1 << 16];

__attribute__((noinline)) int g_co_step(int x)
{
	return g_leaf(x) + 1;
}

__attribute__((noinline)) void g_coroutine(void)
{
	printf("co: step %d\n", g_co_step(1));
	swapcontext(&uc_co, &uc_main);
	printf("co: step %d\n", g_co_step(2));
}

static void case_context(void)
{
	getcontext(&uc_co);
	uc_co.uc_stack.ss_sp = co_stack;
	uc_co.uc_stack.ss_size = sizeof(co_stack);
	uc_co.uc_link = &uc_main;
	makecontext(&uc_co, g_coroutine, 0);
	swapcontext(&uc_main, &uc_co);
	printf("context: main between steps, leaf %d\n", g_leaf(5));
	swapcontext(&uc_main, &uc_co);
	printf("context: done\n");
}

/* ping-pong: main and a coroutine take turns, calling on both sides; the
 * coroutine ends into main through uc_link */
static ucontext_t pp_main, pp_co;
static char pp_stack[1 << 16];

__attribute__((noinline)) void g_pp_yield(void)
{
	swapcontext(&pp_co, &pp_main);
}

__attribute__((noinline)) void g_pp_resume(void)
{
	swapcontext(&pp_main, &pp_co);
}

__attribute__((noinline)) void g_pp_co(void)
{
	for (int i = 0; i < 2; i++) {
		g_leaf(i);
		g_pp_yield();
	}
}

__attribute__((noinline)) void case_pingpong(void)
{
	getcontext(&pp_co);
	pp_co.uc_stack.ss_sp = pp_stack;
	pp_co.uc_stack.ss_size = sizeof(pp_stack);
	pp_co.uc_link = &pp_main;
	makecontext(&pp_co, g_pp_co, 0);
	for (int i = 0; i < 3; i++) {
		g_pp_resume();
		g_leaf(10 + i);
	}
	printf("pingpong: done\n");
}

/* two coroutines whose stacks are neighbours in one allocation: frames of
 * one look stale (below the other's) when the other runs */
static ucontext_t uc_a, uc_b, uc_m2;

__attribute__((noinline)) void g_co_yield(ucontext_t *self, ucontext_t *next, int x)
{
	g_leaf(x);
	swapcontext(self, next);
	g_leaf(x + 1);
}

__attribute__((noinline)) void g_co_a(void)
{
	g_co_yield(&uc_a, &uc_b, 1);
	printf("coroutines: a done\n");
}

__attribute__((noinline)) void g_co_b(void)
{
	g_co_yield(&uc_b, &uc_a, 10);
	printf("coroutines: b done\n");
}

static void case_coroutines(void)
{
	char *block = malloc(2 << 16);

	getcontext(&uc_a);
	uc_a.uc_stack.ss_sp = block;
	uc_a.uc_stack.ss_size = 1 << 16;
	uc_a.uc_link = &uc_m2;
	makecontext(&uc_a, g_co_a, 0);
	getcontext(&uc_b);
	uc_b.uc_stack.ss_sp = block + (1 << 16);
	uc_b.uc_stack.ss_size = 1 << 16;
	uc_b.uc_link = &uc_m2;
	makecontext(&uc_b, g_co_b, 0);
	swapcontext(&uc_m2, &uc_a);
	printf("coroutines: main between\n");
	swapcontext(&uc_m2, &uc_b);
	printf("coroutines: main done\n");
	free(block);
}

/* recursion deeper than the shadow stack */
__attribute__((noinline)) int g_recurse(int n)
{
	return n ? g_recurse(n - 1) + 1 : 0;
}

/* backtrace() from under traced frames */
__attribute__((noinline)) int g_backtrace(void)
{
	void *b[64];
	int n = backtrace(b, 64);
	char **s = backtrace_symbols(b, n);
	int found = 0;

	for (int i = 0; s && i < n; i++)
		found |= strstr(s[i], "main") != NULL;
	free(s);
	return found && n > 3;
}

/* fork from inside a traced function; vfork + exec; pthread_exit deep */
__attribute__((noinline)) int g_forker(void)
{
	pid_t p = fork();
	int st;

	if (p == 0)
		_exit(g_leaf(10));
	waitpid(p, &st, 0);
	return WEXITSTATUS(st);
}

__attribute__((noinline)) int g_vforker(void)
{
	pid_t p = vfork();
	int st;

	if (p == 0) {
		execl("/bin/sh", "sh", "-c", "exit 6", (char *)NULL);
		_exit(1);
	}
	waitpid(p, &st, 0);
	return WEXITSTATUS(st);
}

__attribute__((noinline)) void g_thread_deep(int n)
{
	if (n == bottom)
		pthread_exit((void *)42);
	g_thread_deep(n - 1);
	__asm__ volatile("" ::: "memory");
}

static void *thread_main(void *arg)
{
	(void)arg;
	g_thread_deep(3);
	return NULL;
}

__attribute__((noinline)) void g_exit_deep(int n)
{
	if (n == bottom) {
		printf("exit: from deep inside\n");
		exit(0);
	}
	g_exit_deep(n - 1);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "all";
	int all = !strcmp(c, "all");
	pthread_t t;
	void *r;

	if (all || !strcmp(c, "longjmp"))
		case_longjmp();
	if (all || !strcmp(c, "signal"))
		case_signal();
	if (all || !strcmp(c, "context"))
		case_context();
	if (all || !strcmp(c, "coroutines"))
		case_coroutines();
	if (all || !strcmp(c, "pingpong"))
		case_pingpong();
	if (all || !strcmp(c, "recurse"))
		printf("recurse: %d\n", g_recurse(3000));
	if (all || !strcmp(c, "backtrace"))
		printf("backtrace: sees main %d\n", g_backtrace());
	if (all || !strcmp(c, "fork"))
		printf("fork: child said %d, vfork child said %d\n", g_forker(), g_vforker());
	if (all || !strcmp(c, "thread")) {
		pthread_create(&t, NULL, thread_main, NULL);
		pthread_join(t, &r);
		printf("thread: pthread_exit gave %ld\n", (long)r);
	}
	if (all || !strcmp(c, "exit"))
		g_exit_deep(5);
	return 0;
}
