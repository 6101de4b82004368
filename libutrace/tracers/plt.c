// SPDX-License-Identifier: MIT
/*
 * A traced library call enters the tracer: utrace_plt_entry (arch) saved
 * the argument registers and passes the hook and where the caller's return
 * address lives.  The call is recorded as a call of the library function
 * (its address in the library that defines it), by the tracer the hooks
 * module's stub slot names, as a site's call would be: function_graph (and
 * the profiler) hook the return through the same shadow stack, so longjmp,
 * exceptions and pthread_exit past a library call are handled as past any
 * traced function.  The tracers' common cases never come here:
 * utrace_plt_entry does them itself (as utrace_func_caller and
 * utrace_graph_caller do a site's); what comes is the rest.
 */
#include "libutrace/internal.h"
#include "libutrace/plthook.h"

__thread uint32_t ut_quiet;

void ut_plt_enter(const struct ut_plt_fn *fn, uint64_t *slot)
{
	if (unlikely(ut_quiet))
		return;
	if (__atomic_load_n(fn->tracer, __ATOMIC_RELAXED) == (uint64_t)utrace_graph_caller)
		ut_graph_entry(fn->ip, slot);
	else
		ut_function_entry(fn->ip, *slot);
}
