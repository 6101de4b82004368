// SPDX-License-Identifier: MIT
/*
 * func_stack_trace: a <stack trace> after each function event, the traced
 * function first, then its callers.  The stack is unwound with glibc's
 * backtrace() (libgcc's unwinder, .eh_frame: no frame pointers needed),
 * which may use vector registers, so the tracer calls it through
 * ut_arch_call_fpu_safe() (this file, on the tracing path, is built without
 * them like the tracers).  Not async-signal-safe: the unwinder takes the
 * loader's lock the first time it meets an object; documented.
 */
#include <execinfo.h>

#include "libutrace/internal.h"

struct stack_req {
	struct ut_thread *t;
	uint64_t site;   /* the traced function's site */
	uint64_t resume; /* where the traced code goes on: the frames up to it are utrace's */
};

static void capture(void *arg)
{
	struct stack_req *req = arg;
	struct ut_thread *t = req->t;
	void *frames[UT_REC_STACK_MAX + 16];
	uint64_t *w, delta, ret = req->resume;
	int n, first = -1, nr;
	unsigned size;

	n = backtrace(frames, (int)(sizeof(frames) / sizeof(frames[0])));
	/* Skip utrace's own frames: up to the return into the traced function. */
	for (int i = 0; i < n && first < 0; i++)
		if ((uint64_t)frames[i] == ret)
			first = i + 1;
	if (first < 0)
		first = n;
	nr = 1 + (n - first);
	if (nr > UT_REC_STACK_MAX)
		nr = UT_REC_STACK_MAX;
	size = 16 + ((8u * (unsigned)nr + 15) & ~15u);
	w = ut_rec_reserve_any(t, size, &delta);
	if (!w)
		return;
	w[0] = ut_rec_word0(UT_REC_STACK, ut_cpu(), (uint64_t)nr);
	w[1] = delta << UT_REC_DELTA_SHIFT;
	w[2] = req->site;
	for (int i = 1; i < nr; i++)
		w[2 + i] = (uint64_t)frames[first + i - 1];
	if (nr % 2)
		w[2 + nr] = 0; /* padding to 16 bytes */
	ut_rec_commit(t, size);
}

void ut_stack_record(struct ut_thread *t, uint64_t site)
{
	ut_stack_record_from(t, site, site + UT_ARCH_CALL_SIZE);
}

void ut_stack_record_from(struct ut_thread *t, uint64_t site, uint64_t resume)
{
	struct stack_req req = {.t = t, .site = site, .resume = resume};

	ut_arch_call_fpu_safe(capture, &req);
}
