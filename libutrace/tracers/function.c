// SPDX-License-Identifier: MIT
/*
 * The function tracer: one 16-byte record (ip, cpu, time delta, parent_ip)
 * per call of a traced function.  The common case (the default
 * configuration, room in the page) is utrace_func_caller's fast path in
 * arch/x86_64/trampoline.S, which writes the same record without a call;
 * this is everything else (first event of a thread, a page crossing, a
 * delta too large for 16 bits, another clock, commands, instances, stack
 * traces), with every argument register saved by the trampoline.
 */
#include "libutrace/internal.h"

void ut_function_entry(uint64_t ip, uint64_t parent_ip) UT_HIDDEN;

/* Everything but the common case, which utrace_func_caller does itself. */
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
