// C++ exceptions thrown through traced frames: caught several frames up,
// rethrown, and inside std::threads.  Output identical traced and untraced.
// With an argument, one small case whose graph the tests check line by line
// (catch, rethrow, cleanup); their functions are extern "C" so they print
// the same whether names are demangled or not.
#include <cstdio>
#include <cstring>
#include <pthread.h>
#include <semaphore.h>
#include <stdexcept>
#include <thread>
#include <unistd.h>

static volatile int one = 1; // arguments the compiler cannot specialise on

extern "C" {
__attribute__((noinline)) int e_leaf(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline)) void e_thrower(int x)
{
	if (x)
		throw x;
}

__attribute__((noinline)) int e_middle(int x)
{
	e_thrower(x);
	return 1;
}

// catch: the catching function and its caller close at their depth
__attribute__((noinline)) int e_catcher(int x)
{
	try {
		return e_middle(x);
	} catch (int v) {
		return e_leaf(v);
	}
}

// nested try blocks, the inner one rethrowing
__attribute__((noinline)) int e_rethrower(int x)
{
	try {
		return e_middle(x);
	} catch (...) {
		e_leaf(x);
		throw;
	}
}

__attribute__((noinline)) int e_outer(int x)
{
	try {
		return e_rethrower(x);
	} catch (int v) {
		return e_leaf(v);
	}
}

// a cleanup frame: a destructor runs on the way, calling a traced function
// that throws and catches an exception of its own while the first unwinds
__attribute__((noinline)) void e_cleanup(void)
{
	try {
		e_thrower(one);
	} catch (int) {
		__asm__ volatile("" ::: "memory");
	}
}
}

struct guard {
	__attribute__((always_inline)) inline ~guard() { e_cleanup(); }
};

extern "C" {
__attribute__((noinline)) int e_guarded(int x)
{
	guard g;

	return e_middle(x);
}

__attribute__((noinline)) int e_guard_catcher(int x)
{
	try {
		return e_guarded(x);
	} catch (int v) {
		return e_leaf(v);
	}
}
}

// forced unwinds: pthread_exit and pthread_cancel deep inside traced frames
// run the catch (...) blocks and destructors on the way, as untraced.  The
// recursion ends only by leaving: on purpose.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Winfinite-recursion"
#endif
static sem_t deep;

struct noisy {
	__attribute__((always_inline)) inline ~noisy() { std::printf("destructor ran\n"); }
};

extern "C" {
__attribute__((noinline)) void e_deep_exit(int n, int cancel)
{
	if (n == 0) {
		if (!cancel)
			pthread_exit(nullptr);
		sem_post(&deep);
		for (;;)
			pause();
	}
	e_deep_exit(n - 1, cancel);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void e_forced_mid(int cancel)
{
	noisy n;

	e_deep_exit(3, cancel);
}

__attribute__((noinline)) void *e_forced(void *arg)
{
	try {
		e_forced_mid(arg != nullptr);
	} catch (...) {
		std::printf("catch (...) ran (%s)\n", arg ? "cancel" : "exit");
		throw;
	}
	return nullptr;
}
}

static void forced(void)
{
	pthread_t t;
	void *r;

	sem_init(&deep, 0, 0);
	pthread_create(&t, nullptr, e_forced, nullptr);
	pthread_join(t, &r);
	pthread_create(&t, nullptr, e_forced, &deep);
	sem_wait(&deep);
	pthread_cancel(t);
	pthread_join(t, &r);
	std::printf("forced: cancelled %d\n", r == PTHREAD_CANCELED);
}

static int small_case(const char *c)
{
	if (!std::strcmp(c, "catch")) {
		e_catcher(0);
		std::printf("catch: %d\n", e_catcher(one));
	} else if (!std::strcmp(c, "rethrow")) {
		std::printf("rethrow: %d\n", e_outer(one));
	} else if (!std::strcmp(c, "cleanup")) {
		std::printf("cleanup: %d\n", e_guard_catcher(one));
	} else if (!std::strcmp(c, "forced")) {
		forced();
	} else {
		return 0;
	}
	std::printf("after: %d\n", e_leaf(one));
	return 1;
}

__attribute__((noinline)) int x_thrower(int x)
{
	if (x > 2)
		throw std::runtime_error("boom");
	return x;
}

__attribute__((noinline)) int x_mid2(int x)
{
	return x_thrower(x) + 1;
}

__attribute__((noinline)) int x_mid1(int x)
{
	try {
		return x_mid2(x) * 2;
	} catch (const std::logic_error &) {
		return -1;
	}
}

__attribute__((noinline)) int x_catcher(int x)
{
	try {
		return x_mid1(x);
	} catch (const std::runtime_error &e) {
		std::printf("caught %s at %d\n", e.what(), x);
		return -2;
	}
}

__attribute__((noinline)) int x_rethrow(int x)
{
	try {
		return x_mid1(x);
	} catch (...) {
		throw;
	}
}

int main(int argc, char **argv)
{
	int s = 0;

	if (argc > 1 && small_case(argv[1]))
		return 0;
	for (int i = 0; i < 5; i++)
		s += x_catcher(i);
	try {
		x_rethrow(5);
	} catch (const std::exception &e) {
		std::printf("rethrown %s\n", e.what());
	}
	std::thread t1([] { std::printf("thread 1: %d\n", x_catcher(7)); });
	t1.join();
	std::thread t2([] { std::printf("thread 2: %d\n", x_catcher(1)); });
	t2.join();
	std::printf("sum %d, after: %d\n", s, x_mid1(1));
	return 0;
}
