// SPDX-License-Identifier: MIT
/*
 * A trigger's `if FILTER` (common/evtrigger_filter.h) on the event-filter
 * engine (common/evfilter.h).  A hit's record for the filter is the
 * kernel's: the common fields (common_pid at 4), then the argument slots
 * from offset 8.  A string argument is matched as the number its slot
 * holds: triggers see the slots, not the strings (the hit is not
 * recorded yet when they run, and reading a string costs a system call).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/evfilter.h"
#include "common/evtrigger_filter.h"

struct ut_evtrig_filter {
	struct ut_evf *prog;
};

/*
 * @fmt's fields, strings as their slots' numbers; NULL (the event is not
 * known yet): arg1..arg12, 8-byte numbers.
 */
static size_t fields_of(const struct ut_evfmt *fmt, struct ut_evf_field *out)
{
	struct ut_evfmt any = {.nargs = UT_USDT_MAX_ARGS};
	size_t n;

	if (!fmt) {
		for (unsigned i = 0; i < UT_USDT_MAX_ARGS; i++) {
			any.size[i] = 8;
			any.is_signed[i] = 1;
		}
		fmt = &any;
	}
	n = ut_evfmt_fields(fmt, out);

	for (size_t i = 0; i < n; i++)
		if (out[i].kind != UT_EVF_NUM) {
			out[i].kind = UT_EVF_NUM;
			out[i].size = 8;
			out[i].is_signed = 0;
		}
	return n;
}

int ut_evtrig_filter_check(const char *filter, const struct ut_evfmt *fmt, const char **msg,
			   size_t *pos)
{
	struct ut_evf_field f[UT_USDT_MAX_ARGS];
	struct ut_evf_error e = {0};
	struct ut_evf *prog = NULL;
	int ret = ut_evf_parse(filter, f, fields_of(fmt, f), &prog, &e);

	ut_evf_free(prog);
	if (!ret)
		return 0;
	*msg = ut_evf_errtext(e.code);
	*pos = e.pos > 0 ? (size_t)e.pos : 0;
	return ret == -ENOMEM ? -ENOMEM : -EINVAL;
}

struct ut_evtrig_filter *ut_evtrig_filter_compile(const char *filter, const struct ut_evfmt *fmt)
{
	struct ut_evf_field f[UT_USDT_MAX_ARGS];
	struct ut_evf_error e = {0};
	struct ut_evtrig_filter *t = calloc(1, sizeof(*t));

	if (t && ut_evf_parse(filter, f, fields_of(fmt, f), &t->prog, &e)) {
		free(t);
		t = NULL;
	}
	return t;
}

bool ut_evtrig_filter_match(const struct ut_evtrig_filter *f, const uint64_t *args,
			    unsigned nargs, const struct ut_evtrig_ctx *ctx)
{
	uint64_t rec[1 + UT_USDT_MAX_ARGS] = {0};
	struct ut_evf_ctx c = {.cpu = ctx->cpu, .comm = ctx->comm};
	int32_t pid = ctx->pid;

	if (!f)
		return true;
	if (nargs > UT_USDT_MAX_ARGS)
		nargs = UT_USDT_MAX_ARGS;
	memcpy((uint8_t *)rec + 4, &pid, sizeof(pid));
	for (unsigned i = 0; i < nargs; i++)
		rec[1 + i] = args[i];
	return ut_evf_match(f->prog, rec, 8 + 8 * (size_t)nargs, &c);
}

void ut_evtrig_filter_free(struct ut_evtrig_filter *f)
{
	if (f)
		ut_evf_free(f->prog);
	free(f);
}
