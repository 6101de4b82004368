// SPDX-License-Identifier: MIT
/* The recorder's threads yielding the CPU to the program they trace (reader/yield.h). */
#include "reader/yield.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#define YIELD_NICE 19

void ut_yield_set(struct ut_yield *y, bool behind)
{
	if (__atomic_load_n(&y->behind, __ATOMIC_RELAXED) == behind &&
	    __atomic_load_n(&y->gen, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&y->behind, behind, __ATOMIC_RELAXED);
	__atomic_add_fetch(&y->gen, 1, __ATOMIC_RELEASE);
}

/* The last CPU in @all (the thread's own mask when it first applied a policy). */
static int last_cpu(cpu_set_t *all)
{
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, all))
			return c;
	return -1;
}

int ut_yield_cpu(int *nr_cpus)
{
	cpu_set_t mask;

	if (sched_getaffinity(0, sizeof(mask), &mask)) {
		*nr_cpus = 1;
		return -1;
	}
	*nr_cpus = CPU_COUNT(&mask);
	return *nr_cpus > 1 ? last_cpu(&mask) : -1;
}

void ut_yield_apply(struct ut_yield *y, struct ut_yield_seen *seen, bool nice)
{
	static __thread cpu_set_t mask;      /* the thread's own before it yielded */
	static __thread bool saved;
	int gen = __atomic_load_n(&y->gen, __ATOMIC_ACQUIRE);
	bool behind = __atomic_load_n(&y->behind, __ATOMIC_RELAXED);

	if (gen == seen->gen) /* the common case: a load, no system call */
		return;
	seen->gen = gen;
	if (!saved)
		saved = !sched_getaffinity(0, sizeof(mask), &mask);
	if (behind && saved) {
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
		setpriority(PRIO_PROCESS, (id_t)gettid(), behind ? YIELD_NICE : 0);
}
