/* SPDX-License-Identifier: MIT */
/*
 * The recorder's threads yielding the CPU to the program they trace.
 *
 * A lossless record whose writer is behind spills what it has not taken to
 * disk (reader/recorder.c) rather than make the program wait.  The program
 * then runs at its own pace only if it keeps a core (and a program with
 * fewer threads than CPUs keeps its own all the time: yield_cpu() in
 * reader/recorder.c says when): the recorder's threads
 * (the drainer, the writer, its compressors) go to one CPU, the last one
 * they may use, where the kernel's balancer leaves the program alone, and
 * the writer and compressors run at nice 19 beside the drainer.  At the
 * end they take what CPU they can again (a niceness an unprivileged thread
 * cannot take back stays).
 *
 * A policy is set by one thread (ut_yield_set) and applied by each thread
 * to itself at its next loop (ut_yield_apply), lock-free.
 */
#ifndef UT_READER_YIELD_H
#define UT_READER_YIELD_H

#include <stdbool.h>

struct ut_yield {
	int gen;      /* atomic: bumped by each ut_yield_set() */
	bool behind;  /* atomic: the policy of that generation */
};

/* What a thread applied last: zero-initialise. */
struct ut_yield_seen {
	int gen;
};

/*
 * The CPU the calling thread keeps to when it yields: the last one it may
 * run on; -1 if it may run on one only (it then stays where it is).
 * *@nr_cpus: how many it may run on.
 */
int ut_yield_cpu(int *nr_cpus);
/* From now on: @behind (yield the CPU) or not. */
void ut_yield_set(struct ut_yield *y, bool behind);
/* The calling thread in step with @y; @nice: whether it also lowers its priority. */
void ut_yield_apply(struct ut_yield *y, struct ut_yield_seen *seen, bool nice);

#endif
