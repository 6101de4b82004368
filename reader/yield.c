// SPDX-License-Identifier: MIT
/* The recorder's threads yielding the CPU to the program they trace (reader/yield.h). */
#include "reader/yield.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#define YIELD_NICE 19

void ut_yield_set(struct ut_yield *y, bool behind)
{
	if (y->behind == behind && __atomic_load_n(&y->gen, __ATOMIC_RELAXED))
		return;
	y->behind = behind;
	__atomic_add_fetch(&y->gen, 1, __ATOMIC_RELEASE);
}

/* The last CPU this process may use (the kernel's mask when the policy was first taken). */
static int last_cpu(cpu_set_t *all)
{
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, all))
			return c;
	return -1;
}

void ut_yield_apply(struct ut_yield *y, struct ut_yield_seen *seen, bool nice)
{
	static __thread cpu_set_t mask;      /* the thread's own before it yielded */
	static __thread bool saved;
	int gen = __atomic_load_n(&y->gen, __ATOMIC_ACQUIRE);
	pid_t tid = gettid();

	if (gen == seen->gen)
		return;
	seen->gen = gen;
	if (!saved)
		saved = !sched_getaffinity(0, sizeof(mask), &mask);
	if (y->behind && saved) {
		cpu_set_t one;
		int c = last_cpu(&mask);

		CPU_ZERO(&one);
		if (c >= 0 && CPU_COUNT(&mask) > 1) {
			CPU_SET(c, &one);
			sched_setaffinity(0, sizeof(one), &one);
		}
	} else if (saved) {
		sched_setaffinity(0, sizeof(mask), &mask);
	}
	if (nice)
		setpriority(PRIO_PROCESS, (id_t)tid, y->behind ? YIELD_NICE : 0);
}
