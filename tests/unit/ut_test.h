/* SPDX-License-Identifier: MIT */
/*
 * A tiny unit-test harness: each tests/unit/test_*.c is one program made of
 * TEST(name) functions listed in main() with RUN(name).  Each test runs in a
 * forked child so a crash fails one test, not the file.  Output is TAP-like
 * ("ok N - name" / "not ok N - name"); the exit status is the failure count.
 */
#ifndef UT_TEST_H
#define UT_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static int ut__fails, ut__n;

#define TEST(name) static void test_##name(void)

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			exit(1);                                                                 \
		}                                                                                \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                                       \
	do {                                                                                     \
		long long ut__a = (long long)(a), ut__b = (long long)(b);                        \
		if (ut__a != ut__b) {                                                            \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,       \
				__LINE__, #a, #b, ut__a, ut__b);                                 \
			exit(1);                                                                 \
		}                                                                                \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                                       \
	do {                                                                                     \
		const char *ut__a = (a), *ut__b = (b);                                           \
		if (!ut__a || !ut__b || strcmp(ut__a, ut__b) != 0) {                                  \
			fprintf(stderr, "%s:%d: %s == %s failed:\n  got:  \"%s\"\n  want: \"%s\"\n", \
				__FILE__, __LINE__, #a, #b, ut__a ? ut__a : "(null)",             \
				ut__b ? ut__b : "(null)");                                       \
			exit(1);                                                                 \
		}                                                                                \
	} while (0)

static inline void ut__run(const char *name, void (*fn)(void))
{
	int st = 0;
	pid_t p;

	fflush(stdout);
	p = fork();
	if (p == 0) {
		fn();
		exit(0);
	}
	waitpid(p, &st, 0);
	ut__n++;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		printf("ok %d - %s\n", ut__n, name);
	} else {
		ut__fails++;
		printf("not ok %d - %s\n", ut__n, name);
	}
}

#define RUN(name) ut__run(#name, test_##name)
#define TEST_EXIT() return ut__fails

#endif
