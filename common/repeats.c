// SPDX-License-Identifier: MIT
/* func-no-repeats: folding runs of identical calls (see repeats.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/repeats.h"

struct ut_repeat_thread {
	int32_t pid;
	bool valid;      /* a call was seen */
	bool hide_stack; /* the last call was folded: so is its stack trace */
	uint32_t count;  /* calls folded since the last one kept */
	uint64_t ip, parent_ip, last_ts;
};

/* The thread's state (made on first use); NULL on ENOMEM. */
static struct ut_repeat_thread *thread_of(struct ut_repeats *r, int32_t pid)
{
	struct ut_repeat_thread *t;
	size_t lo = 0, hi = r->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->t[mid].pid == pid)
			return &r->t[mid];
		if (r->t[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (r->nr == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;

		t = realloc(r->t, cap * sizeof(*t));
		if (!t)
			return NULL;
		r->t = t;
		r->cap = cap;
	}
	memmove(&r->t[lo + 1], &r->t[lo], (r->nr - lo) * sizeof(*r->t));
	r->nr++;
	t = &r->t[lo];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	return t;
}

int ut_repeats_fold(struct ut_repeats *r, const struct ut_event *ev, struct ut_event *rep)
{
	struct ut_repeat_thread *t;
	int ret = UT_REPEATS_PASS;

	if (ev->type != UT_EV_FUNCTION && ev->type != UT_EV_KERNEL_STACK &&
	    ev->type != UT_EV_USER_STACK)
		return UT_REPEATS_PASS;
	t = thread_of(r, ev->pid);
	if (!t)
		return UT_REPEATS_PASS;
	if (ev->type != UT_EV_FUNCTION) {
		ret = t->hide_stack ? UT_REPEATS_DROP : UT_REPEATS_PASS;
		t->hide_stack = false;
		return ret;
	}
	if (t->valid && t->ip == ev->ip && t->parent_ip == ev->parent_ip &&
	    t->count < UT_REPEATS_MAX) {
		t->count++;
		t->last_ts = ev->ts;
		t->hide_stack = true;
		return UT_REPEATS_DROP;
	}
	if (t->count) {
		*rep = *ev;
		rep->type = UT_EV_FUNC_REPEATS;
		rep->ip = t->ip;
		rep->parent_ip = t->parent_ip;
		rep->repeats = t->count;
		rep->last_ts = t->last_ts;
		rep->str = NULL;
		rep->nr_callers = 0;
		rep->callers = NULL;
		ret = UT_REPEATS_FLUSH;
	}
	t->valid = true;
	t->count = 0;
	t->hide_stack = false;
	t->ip = ev->ip;
	t->parent_ip = ev->parent_ip;
	return ret;
}

void ut_repeats_free(struct ut_repeats *r)
{
	free(r->t);
	r->t = NULL;
	r->nr = r->cap = 0;
}
