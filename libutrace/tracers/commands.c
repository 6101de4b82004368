// SPDX-License-Identifier: MIT
/*
 * Function commands ("probes") of set_ftrace_filter: FUNC:traceon[:N],
 * traceoff[:N], stacktrace[:N], dump, cpudump.  Their functions' sites are
 * on whatever the tracer (select.c flags them UT_GRAPH_CMD); every tracer
 * entry calls ut_cmd_hit() for them first.  A counted command acts N times;
 * as in the kernel, traceon while on (or traceoff while off) does not count.
 *
 * dump and cpudump print the ring buffer on the console in the kernel; here
 * they stop tracing (as ftrace_dump does first) and count the request in
 * ctl->dumps: the trace is then read with `cat trace` or `utrace extract`.
 */
#include "common/filter.h"
#include "libutrace/internal.h"

/* Take one from a counted command; false if it has none left. */
static bool take(struct ut_cmd *c)
{
	long n = __atomic_load_n(&c->count, __ATOMIC_RELAXED);

	while (n) {
		if (n < 0)
			return true;
		if (__atomic_compare_exchange_n(&c->count, &n, n - 1, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	}
	return false;
}

static void set_on(struct ut_cmd *c, uint32_t want)
{
	uint32_t *on = &ut_rt.ctl->tracing_on;

	if (__atomic_load_n(on, __ATOMIC_RELAXED) != want && take(c))
		__atomic_store_n(on, want, __ATOMIC_RELEASE);
}

bool ut_cmd_hit(struct ut_thread *t, uint64_t ip)
{
	const struct ut_site *s = ut_sites_find(ip);
	uint32_t n = __atomic_load_n(&ut_rt.nr_cmds, __ATOMIC_ACQUIRE);

	if (!s || !(s->graph & UT_GRAPH_CMD) || !ut_rt.ctl)
		return true;
	for (uint32_t i = 0; i < n && i < UT_MAX_CMDS; i++) {
		struct ut_cmd *c = &ut_rt.cmds[i];

		if (c->ip != ip)
			continue;
		switch (c->type) {
		case UT_FCMD_TRACEON:
			set_on(c, 1);
			break;
		case UT_FCMD_TRACEOFF:
			set_on(c, 0);
			break;
		case UT_FCMD_STACKTRACE:
			if (ut_tracing_on(t) && take(c))
				ut_stack_record(t, ip);
			break;
		default: /* dump, cpudump */
			if (take(c)) {
				__atomic_store_n(&ut_rt.ctl->tracing_on, 0, __ATOMIC_RELEASE);
				__atomic_add_fetch(&ut_rt.ctl->dumps, 1, __ATOMIC_RELAXED);
			}
			break;
		}
	}
	return !(s->graph & UT_GRAPH_UNTRACED);
}
