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
 * traces the function, if the instance is on and its set_ftrace_pid wants
 * the thread.  An instance's own commands act on it, as the kernel's do on
 * their trace array: traceon/traceoff on its tracing_on, stacktrace into its
 * buffer; dump and cpudump stop the top level (the kernel dumps the global
 * buffer).  It runs inside the caller's recursion guard.
 */
#include <unistd.h>

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

/* dump, cpudump: stop tracing (as ftrace_dump does first) and count the request. */
static void dump(struct ut_cmd_entry *c)
{
	if (take(c)) {
		__atomic_store_n(&ut_rt.ctl->tracing_on, 0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&ut_rt.ctl->dumps, 1, __ATOMIC_RELAXED);
	}
}

/* Instance K's tracing_on: bit K of ctl->inst_off clear. */
static bool inst_on(uint32_t k)
{
	return !(__atomic_load_n(&ut_rt.ctl->inst_off, __ATOMIC_RELAXED) & (1u << k));
}

/* traceon/traceoff of instance K's set_ftrace_filter: its own switch. */
static void set_inst_on(struct ut_cmd_entry *c, bool want)
{
	uint32_t bit = 1u << c->inst;

	if (inst_on(c->inst) == want || !take(c))
		return;
	if (want)
		__atomic_and_fetch(&ut_rt.ctl->inst_off, ~bit, __ATOMIC_RELEASE);
	else
		__atomic_or_fetch(&ut_rt.ctl->inst_off, bit, __ATOMIC_RELEASE);
}

/* Instance K records now: it is on, and its set_ftrace_pid wants this thread. */
static bool inst_wanted(uint32_t k)
{
	const struct ut_instance *in = &ut_rt.inst[k];
	uint32_t n = in->nr_pids;

	if (!inst_on(k))
		return false;
	if (!n)
		return true;
	if (!ut_self.tid)
		ut_self.tid = (int32_t)gettid();
	for (uint32_t i = 0; i < n && i < UT_CFG_MAX_PIDS; i++)
		if (in->pids[i] == ut_self.tid || in->pids[i] == ut_rt.pid)
			return true;
	return false;
}

/* Thread's buffer of instance K. */
static struct ut_thread *inst_thread(uint32_t k)
{
	struct ut_thread *ti = &ut_inst_self[k];

	ti->inst = k;
	return ti;
}

/* A function event in each instance that traces the function (instances/NAME). */
static void record_instances(unsigned mask, uint64_t ip, uint64_t parent)
{
	for (uint32_t k = 1; k < UT_MAX_INST; k++) {
		struct ut_thread *ti;
		uint64_t *w, delta;

		if (!(mask & (1u << k)) || !inst_wanted(k))
			continue;
		ti = inst_thread(k);
		w = ut_rec_reserve_any(ti, UT_REC_SIZE, &delta);
		if (!w)
			continue;
		w[0] = ut_rec_word0(UT_REC_FUNCTION, ut_cpu(), ip);
		w[1] = (delta << UT_REC_DELTA_SHIFT) | (parent & UT_REC_ADDR_MASK);
		ut_rec_commit(ti, UT_REC_SIZE);
		if (ut_rt.inst[k].func_stack)
			ut_stack_record(ti, ip);
	}
}

/* A command of instance K's set_ftrace_filter fired. */
static void inst_command(struct ut_cmd_entry *c, uint64_t ip)
{
	switch (c->type) {
	case UT_FCMD_TRACEON:
		set_inst_on(c, true);
		break;
	case UT_FCMD_TRACEOFF:
		set_inst_on(c, false);
		break;
	case UT_FCMD_STACKTRACE:
		if (inst_wanted(c->inst) && take(c))
			ut_stack_record(inst_thread(c->inst), ip);
		break;
	default: /* dump, cpudump: the top level's, as in the kernel */
		dump(c);
		break;
	}
}

/* The function commands of @ip (top level's and instances'). */
static void run_commands(struct ut_thread *t, uint64_t ip)
{
	uint32_t n = __atomic_load_n(&ut_rt.nr_cmds, __ATOMIC_ACQUIRE);

	if (!ut_rt.cmds)
		return;
	for (uint32_t i = 0; i < n && i < UT_CMDS_MAX; i++) {
		struct ut_cmd_entry *c = &ut_rt.cmds->e[i];

		if (c->ip != ip)
			continue;
		if (c->inst) {
			inst_command(c, ip);
			continue;
		}
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
			dump(c);
			break;
		}
	}
}

/*
 * Commands first, then the function events: a command's stack trace comes
 * before the event of its call, in the instances as at the top level.
 */
bool ut_cmd_hit(struct ut_thread *t, uint64_t ip, uint64_t parent)
{
	const struct ut_site *s = ut_sites_find(ip);

	if (!s || !ut_rt.ctl)
		return true;
	if (s->graph & UT_GRAPH_CMD)
		run_commands(t, ip);
	if (s->graph & UT_GRAPH_INST)
		record_instances(s->inst, ip, parent);
	return !(s->graph & UT_GRAPH_UNTRACED);
}
