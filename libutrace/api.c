// SPDX-License-Identifier: MIT
/* The in-program API (include/utrace/utrace.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libutrace/internal.h"
#include "utrace/utrace.h"

__attribute__((visibility("default"))) int utrace_set_tracing(int on)
{
	char err[256];
	int ret;

	if (!ut_rt.ready)
		return -ENODEV;
	pthread_mutex_lock(&ut_rt.lock);
	ut_rt.sites_off = !on;
	ret = ut_select_apply(err, sizeof(err));
	if (ret >= 0)
		ret = ut_patch_apply();
	if (ret >= 0)
		ret = ut_usdt_apply();
	pthread_mutex_unlock(&ut_rt.lock);
	return ret < 0 ? ret : 0;
}

/*
 * ftrace:print's triggers (libutrace/evtrigger.c) after a marker was
 * written, as the kernel runs them in the writer: ip is the caller (the
 * code that wrote it), buf the text's address (a string is its slot to
 * the triggers); a stack starts at the caller.
 */
static void marker_triggers(const char *text, uint64_t caller)
{
	uint64_t slots[2] = {caller, (uint64_t)(uintptr_t)text};

	if (ut_evtrig_arms_named("ftrace", "print"))
		ut_evtrig_hit_event("ftrace", "print", slots, 2, caller);
}

__attribute__((visibility("default"))) int utrace_marker(const char *text)
{
	struct ut_thread *t = &ut_self;
	size_t n = text ? strnlen(text, UT_REC_MARKER_MAX) : 0;
	unsigned size = 16 + (unsigned)((n + 1 + 15) & ~(size_t)15);
	uint64_t *w, delta;
	int ret = (int)n;

	if (!ut_rt.ready || !ut_tracing_on(t))
		return -EBADF;
	if (!ut_enter(t))
		return -EBUSY;
	w = ut_rec_reserve(t, size, &delta);
	if (w) {
		w[0] = ut_rec_word0(UT_REC_MARKER, ut_cpu(), n);
		w[1] = delta << UT_REC_DELTA_SHIFT;
		memset(w + 2, 0, size - 16);
		memcpy(w + 2, text ? text : "", n);
		ut_rec_commit(t, size);
	} else {
		ret = -ENOSPC;
	}
	ut_leave(t);
	if (ret >= 0)
		marker_triggers(text ? text : "", (uint64_t)(uintptr_t)__builtin_return_address(0));
	return ret;
}
