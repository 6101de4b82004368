// SPDX-License-Identifier: MIT
/*
 * func-no-repeats (SPEC §12): consecutive calls of the same function from
 * the same place print as one line, then a func_repeats line
 * "FUNC <-PARENT (repeats: N, last_ts: T)" before the next different call
 * of that thread, stamped with that call's time, as the kernel's function
 * tracer writes its func_repeats event.  The kernel folds at record time,
 * per CPU; utrace records every call and folds here, per thread (a thread
 * has its own buffer as a kernel CPU does), so every reader -- report, the
 * mount's trace and trace_pipe, show -- prints the same.  As in the kernel,
 * the stack trace of a folded call (func_stack_trace) is not shown, a run
 * is cut at 65535 repeats, and the repeats still pending when the trace
 * ends are not printed (no later call wrote them).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/output/output.h"

#define REPEATS_MAX 65535u /* the kernel's U16_MAX */

struct ut_out_repeat {
	int32_t pid;
	bool valid;          /* a call was seen */
	bool hide_stack;     /* the last call was folded: so is its stack trace */
	uint32_t count;      /* calls folded since the last printed one */
	uint64_t ip, parent_ip, last_ts;
};

/* The thread's state (made on first use); NULL on ENOMEM. */
static struct ut_out_repeat *state(struct ut_out *o, int32_t pid)
{
	struct ut_out_repeat *r;
	size_t lo = 0, hi = o->nr_rep;

	/* sorted by pid: a binary search */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (o->rep[mid].pid == pid)
			return &o->rep[mid];
		if (o->rep[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (o->nr_rep == o->cap_rep) {
		size_t cap = o->cap_rep ? o->cap_rep * 2 : 16;

		r = realloc(o->rep, cap * sizeof(*r));
		if (!r)
			return NULL;
		o->rep = r;
		o->cap_rep = cap;
	}
	memmove(&o->rep[lo + 1], &o->rep[lo], (o->nr_rep - lo) * sizeof(*o->rep));
	o->nr_rep++;
	r = &o->rep[lo];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	return r;
}

/* The func_repeats line for @r, in the context of @ev (the call that ends the run). */
static void print_repeats(struct ut_out *o, FILE *f, const struct ut_event *ev,
			  const struct ut_out_repeat *r)
{
	struct ut_event rep = *ev;

	rep.type = UT_EV_FUNC_REPEATS;
	rep.ip = r->ip;
	rep.parent_ip = r->parent_ip;
	rep.repeats = r->count;
	rep.last_ts = r->last_ts;
	rep.str = NULL;
	rep.nr_callers = 0;
	rep.callers = NULL;
	ut_out_print_event(o, f, &rep, ev);
}

bool ut_out_fold_repeat(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	struct ut_out_repeat *r;

	if (ev->type != UT_EV_FUNCTION && ev->type != UT_EV_KERNEL_STACK &&
	    ev->type != UT_EV_USER_STACK)
		return false;
	r = state(o, ev->pid);
	if (!r)
		return false;
	if (ev->type != UT_EV_FUNCTION) {
		bool hide = r->hide_stack;

		r->hide_stack = false;
		return hide;
	}
	if (r->valid && r->ip == ev->ip && r->parent_ip == ev->parent_ip &&
	    r->count < REPEATS_MAX) {
		r->count++;
		r->last_ts = ev->ts;
		r->hide_stack = true;
		return true;
	}
	if (r->count)
		print_repeats(o, f, ev, r);
	r->valid = true;
	r->count = 0;
	r->hide_stack = false;
	r->ip = ev->ip;
	r->parent_ip = ev->parent_ip;
	return false;
}

void ut_out_repeats_free(struct ut_out *o)
{
	free(o->rep);
	o->rep = NULL;
	o->nr_rep = o->cap_rep = 0;
}
