// SPDX-License-Identifier: MIT
/*
 * Function commands ("probes") of set_ftrace_filter: FUNC:traceon[:N],
 * traceoff[:N], stacktrace[:N], dump, cpudump.  Their functions' sites are
 * on whatever the tracer (select.c flags them UT_GRAPH_CMD); every tracer
 * entry calls ut_cmd_hit() for them first.  A counted command acts N times;
 * as in the kernel, traceon while on (or traceoff while off) does not count.
 * The table is the session's shared "cmds" (include/utrace/abi.h): the
 * counts go down where readers see them.
 *
 * dump and cpudump print the ring buffer on the console in the kernel; here
 * they stop tracing (as ftrace_dump does first) and count the request in
 * ctl->dumps: the trace is then read with `cat trace` or `utrace extract`.
 *
 * The same slow hook writes the function events of instances/ (sites flagged
 * UT_GRAPH_INST): one record in the thread's buffer of each instance that
 * traces the function.  It runs inside the caller's recursion guard.
 */
#include "common/filter.h"
#include "libutrace/internal.h"

/* Take one from a counted command; false if it has none left. */
static bool take(struct ut_cmd_entry *c)
{
	int64_t n = __atomic_load_n(&c->count, __ATOMIC_RELAXED);

	while (n) {
		if (n < 0)
			return true;
		if (__atomic_compare_exchange_n(&c->count, &n, n - 1, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	}
	return false;
}

static void set_on(struct ut_cmd_entry *c, uint32_t want)
{
	uint32_t *on = &ut_rt.ctl->tracing_on;

	if (__atomic_load_n(on, __ATOMIC_RELAXED) != want && take(c))
		__atomic_store_n(on, want, __ATOMIC_RELEASE);
}

/* A function event in each instance that traces the function (instances/NAME). */
static void record_instances(unsigned mask, uint64_t ip, uint64_t parent)
{
	for (uint32_t k = 1; k < UT_MAX_INST; k++) {
		struct ut_thread *ti = &ut_inst_self[k];
		uint64_t *w, delta;

		if (!(mask & (1u << k)) || !ut_rt.inst[k].on)
			continue;
		ti->inst = k;
		w = ut_rec_reserve(ti, UT_REC_SIZE, &delta);
		if (!w)
			continue;
		w[0] = ut_rec_word0(UT_REC_FUNCTION, ut_cpu(), ip);
		w[1] = (delta << UT_REC_DELTA_SHIFT) | (parent & UT_REC_ADDR_MASK);
		ut_rec_commit(ti, UT_REC_SIZE);
	}
}

bool ut_cmd_hit(struct ut_thread *t, uint64_t ip, uint64_t parent)
{
	const struct ut_site *s = ut_sites_find(ip);
	uint32_t n = __atomic_load_n(&ut_rt.nr_cmds, __ATOMIC_ACQUIRE);

	if (!s || !ut_rt.ctl)
		return true;
	if (s->graph & UT_GRAPH_INST)
		record_instances(s->inst, ip, parent);
	if (!(s->graph & UT_GRAPH_CMD) || !ut_rt.cmds)
		return !(s->graph & UT_GRAPH_UNTRACED);
	for (uint32_t i = 0; i < n && i < UT_CMDS_MAX; i++) {
		struct ut_cmd_entry *c = &ut_rt.cmds->e[i];

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
