/* SPDX-License-Identifier: MIT */
/*
 * func-no-repeats (SPEC §12), the kernel's function-tracer option: a run of
 * calls of one function from one place keeps its first call, and before the
 * thread's next different call a func_repeats event says how many calls
 * were folded and when the last one was.  The kernel folds when recording,
 * per CPU.  utrace's runtime records every call; the recorder folds as it
 * writes a trace file (so the file holds the kernel's func_repeats events,
 * which trace-cmd report prints), and the output formatter folds what it
 * prints from the buffers (trace_pipe, show), per thread: a thread has its
 * own buffer as a kernel CPU does.  As in the kernel, the stack trace of a
 * folded call (func_stack_trace) goes too, a run stops at 65535 repeats, and
 * repeats still pending when the trace ends are not written.
 */
#ifndef UT_REPEATS_H
#define UT_REPEATS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/event.h"

#define UT_REPEATS_MAX 65535u /* the kernel's count is a u16 */

struct ut_repeats {
	struct ut_repeat_thread *t; /* sorted by pid */
	size_t nr, cap;
};

enum {
	UT_REPEATS_PASS,  /* keep @ev */
	UT_REPEATS_DROP,  /* @ev is folded: leave it out */
	UT_REPEATS_FLUSH, /* put *@rep (func_repeats) first, then keep @ev */
};

/*
 * ut_repeats_fold() - fold @ev into its thread's run
 * @r: the state (zero-initialised at first)
 * @ev: the next event of the trace, in time order
 * @rep: receives the func_repeats event to put before @ev (UT_REPEATS_FLUSH):
 *       @ev's context and time, the run's ip, parent_ip, repeats, last_ts
 *
 * Return: UT_REPEATS_PASS, _DROP or _FLUSH.  Without memory it passes.
 */
int ut_repeats_fold(struct ut_repeats *r, const struct ut_event *ev, struct ut_event *rep);

/* Forget every thread's run and free the state. */
void ut_repeats_free(struct ut_repeats *r);

#endif
