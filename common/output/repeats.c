// SPDX-License-Identifier: MIT
/*
 * func-no-repeats in the formatter (common/repeats.h): what is printed from
 * the buffers (show, trace_pipe, a file recorded without the option) folds
 * as the kernel's function tracer would have when recording.
 */
#include "common/output/output.h"

bool ut_out_fold_repeat(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	struct ut_event rep;

	switch (ut_repeats_fold(&o->rep, ev, &rep)) {
	case UT_REPEATS_DROP:
		return true;
	case UT_REPEATS_FLUSH:
		/* a func_repeats event passes through ut_repeats_fold() untouched */
		ut_out_print_event(o, f, &rep, ev);
		return false;
	default:
		return false;
	}
}
