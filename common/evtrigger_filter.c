// SPDX-License-Identifier: MIT
/*
 * A trigger's `if FILTER` (common/evtrigger_filter.h) without an
 * event-filter engine: every filter refused, none compiled.
 */
#include <errno.h>

#include "common/evtrigger_filter.h"

int ut_evtrig_filter_check(const char *filter, const struct ut_evfmt *fmt, const char **msg,
			   size_t *pos)
{
	(void)filter;
	(void)fmt;
	*msg = "filter not supported yet";
	*pos = 0;
	return -EINVAL;
}

struct ut_evtrig_filter *ut_evtrig_filter_compile(const char *filter, const struct ut_evfmt *fmt)
{
	(void)filter;
	(void)fmt;
	return NULL;
}

bool ut_evtrig_filter_match(const struct ut_evtrig_filter *f, const uint64_t *args,
			    unsigned nargs, const struct ut_evtrig_ctx *ctx)
{
	(void)args;
	(void)nargs;
	(void)ctx;
	return !f;
}

void ut_evtrig_filter_free(struct ut_evtrig_filter *f)
{
	(void)f;
}
