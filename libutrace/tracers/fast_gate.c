// SPDX-License-Identifier: MIT
/*
 * The trampolines' fast-path gate (arch/x86_64/tramp_macros.inc FAST_GATE).
 *
 * The assembly fast paths run only in the common configuration: no function
 * command or instance, no graph depth limit, graph filter or threshold, no
 * func_stack_trace, the local clock (the TSC's), a session.  Testing each of those at every
 * entry costs a load and an `or` apiece on the hottest path there is; so the
 * configuration is folded here, when it changes, into one word the thread
 * compares with the generation at which set_ftrace_pid last found it wanted
 * (ut_thread.pid_gen, writer.c):
 *
 *     ut_rt.fast_gen == ut_rt.pid_gen                    the common case
 *     ut_rt.fast_gen == ut_rt.pid_gen ^ UT_FAST_CLOSED   anything else
 *
 * A thread takes the fast path only if its pid_gen equals fast_gen: it is
 * wanted at the current generation, and the configuration allows it.  A
 * closed gate is a value no thread holds (pid_gen would need 2^31 bumps to
 * reach it), so one compare does both checks.  fast_ret_gen is the same for
 * utrace_graph_return, whose frame was pushed already: only what changes how
 * it ends matters there (the clock, a threshold, the tracer no longer
 * function_graph without the profiler).
 *
 * One gate serves the function tracer's entry and function_graph's (and
 * the library-call hooks', which use the same macros): it is open only when
 * both could run, so a graph filter left set under the function tracer, or
 * func_stack_trace under function_graph, sends that tracer's calls to the
 * C paths, which do the same work more slowly.
 *
 * Called under ut_rt.lock after every change of its inputs, or with one
 * thread (a fork child).  ctl going away closes the gates first.
 */
#include "libutrace/internal.h"

/* Both gates from the current pid_gen: open or closed. */
static void set_gates(bool entry, bool ret)
{
	uint32_t gen = __atomic_load_n(&ut_rt.pid_gen, __ATOMIC_ACQUIRE);

	__atomic_store_n(&ut_rt.fast_gen, entry ? gen : gen ^ UT_FAST_CLOSED, __ATOMIC_RELEASE);
	__atomic_store_n(&ut_rt.fast_ret_gen, ret ? gen : gen ^ UT_FAST_CLOSED, __ATOMIC_RELEASE);
}

void ut_fast_gate_update(void)
{
	const struct ut_graph_cfg *g = &ut_rt.graph;
	const struct ut_cfg *c = &ut_rt.cfg;
	bool local_clock = c->clock == UT_CLOCK_LOCAL;
	bool session = ut_rt.ctl != NULL;

	set_gates(session && local_clock && !g->filtered && !g->max_depth && !g->thresh &&
			  !c->func_stack && !__atomic_load_n(&ut_rt.nr_cmds, __ATOMIC_ACQUIRE) &&
			  !__atomic_load_n(&ut_rt.nr_inst, __ATOMIC_ACQUIRE),
		  session && local_clock && !g->thresh &&
			  (c->tracer == UT_TRACER_FUNCTION_GRAPH || c->profile));
}

void ut_fast_gate_close(void)
{
	set_gates(false, false);
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* before what the caller takes away */
}
