// SPDX-License-Identifier: MIT
/*
 * The function tracer: one 16-byte record (ip, cpu, time delta, parent_ip)
 * per call of a traced function.  Called from utrace_func_caller for every
 * enabled site, so every instruction counts: a TLS guard, one rdtsc, two
 * stores and a release store; everything unusual (first event of a thread,
 * a page crossing, a delta too large for 16 bits, another clock) is in
 * ut_rec_reserve_slow().  utrace_func_caller tries ut_function_fast() first,
 * which saves only the registers it uses; ut_function_entry() is the full
 * path, with every argument register saved by the trampoline.
 */
#include "libutrace/internal.h"

void ut_function_entry(uint64_t ip, uint64_t parent_ip) UT_HIDDEN;
int ut_function_fast(uint64_t ip, uint64_t parent_ip) UT_HIDDEN UT_ARCH_FAST_ENTRY;

/*
 * The common case, tried first by utrace_func_caller: no command, instance,
 * stack trace or set_ftrace_pid change, the TSC clock and room in the page.
 * Returns nonzero when the call is done (recorded, or tracing is off), 0
 * to go to ut_function_entry(), with nothing changed.  The guard is taken
 * before the ring is looked at: a signal's events cannot slip in between.
 */
int ut_function_fast(uint64_t ip, uint64_t parent_ip)
{
	struct ut_thread *t = &ut_self;
	const struct ut_ctl *ctl = ut_rt.ctl;
	uint64_t ts, pos, *w;

	if (unlikely(t->busy | ut_rt.nr_cmds | ut_rt.nr_inst))
		return 0;
	if (unlikely(!ctl || !ctl->tracing_on))
		return 1;
	t->busy = 1;
	barrier();
	ts = ut_arch_cycles();
	pos = t->head;
	if (unlikely(t->pid_gen != __atomic_load_n(&ut_rt.pid_gen, __ATOMIC_RELAXED) ||
		     ut_rt.cfg.func_stack || ut_rt.cfg.clock != UT_CLOCK_LOCAL ||
		     pos + UT_REC_SIZE > t->limit || ts - t->last_ts > UT_REC_DELTA_MAX)) {
		ut_leave(t);
		return 0;
	}
	w = (uint64_t *)(t->data + (pos & t->mask));
	w[0] = ut_rec_word0(UT_REC_FUNCTION, ut_cpu(), ip);
	w[1] = ((ts - t->last_ts) << UT_REC_DELTA_SHIFT) | (parent_ip & UT_REC_ADDR_MASK);
	t->new_ts = ts;
	ut_rec_commit(t, UT_REC_SIZE);
	ut_leave(t);
	return 1;
}

void ut_function_entry(uint64_t ip, uint64_t parent_ip)
{
	struct ut_thread *t = &ut_self;
	uint64_t *w, delta;

	if (!ut_enter(t))
		return;
	if (unlikely(ut_rt.nr_cmds | ut_rt.nr_inst) && !ut_cmd_hit(t, ip, parent_ip))
		goto out;
	if (likely(ut_tracing_on(t)) && likely(w = ut_rec_reserve(t, UT_REC_SIZE, &delta))) {
		w[0] = ut_rec_word0(UT_REC_FUNCTION, ut_cpu(), ip);
		w[1] = (delta << UT_REC_DELTA_SHIFT) | (parent_ip & UT_REC_ADDR_MASK);
		ut_rec_commit(t, UT_REC_SIZE);
		if (unlikely(ut_rt.cfg.func_stack))
			ut_stack_record(t, ip);
	}
out:
	ut_leave(t);
}
