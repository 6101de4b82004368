// SPDX-License-Identifier: MIT
/*
 * function_graph and stack unwinding.  A hooked frame's return address is
 * utrace_graph_return, whose unwind info says "no caller": an unwinder
 * walking through it would stop there.  So before a C++ exception (or a
 * forced unwind: pthread_exit, pthread_cancel) walks the stack, every
 * hooked return address of the thread is put back and its shadow stack is
 * emptied; the functions it leaves print entry-only, the program behaves as
 * if it was not traced.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <unwind.h>

#include "libutrace/internal.h"

static void unhook_keep(void);

void ut_graph_unhook_all(void)
{
	struct ut_shadow *sh = ut_self.shadow;

	if (!sh)
		return;
	unhook_keep();
	sh->top = sh->roots = sh->hidden = 0;
}

/* Hook again what ut_graph_unhook_all(false) put back (frames kept). */
static void rehook_all(void)
{
	struct ut_shadow *sh = ut_self.shadow;

	for (uint32_t i = 0; sh && i < sh->top; i++) {
		uint64_t *slot = (uint64_t *)sh->f[i].slot;

		if (*slot == sh->f[i].ret)
			*slot = (uint64_t)utrace_graph_return;
	}
}

static void unhook_keep(void)
{
	struct ut_shadow *sh = ut_self.shadow;

	for (uint32_t i = sh ? sh->top : 0; i-- > 0;) {
		uint64_t *slot = (uint64_t *)sh->f[i].slot;

		if (*slot == (uint64_t)utrace_graph_return)
			*slot = sh->f[i].ret;
	}
}

/*
 * backtrace() and _Unwind_Backtrace() only look: show them the real return
 * addresses, then hook the frames again, so the program sees its true stack
 * and the graph loses nothing.
 */
__attribute__((visibility("default"))) int backtrace(void **buf, int size)
{
	static int (*real)(void **, int);
	int n;

	if (!real)
		real = (int (*)(void **, int))dlsym(RTLD_NEXT, "backtrace");
	if (!real)
		return 0;
	unhook_keep();
	n = real(buf, size);
	rehook_all();
	return n;
}

__attribute__((visibility("default"))) _Unwind_Reason_Code
_Unwind_Backtrace(_Unwind_Trace_Fn fn, void *arg)
{
	static _Unwind_Reason_Code (*real)(_Unwind_Trace_Fn, void *);
	_Unwind_Reason_Code r;

	if (!real)
		real = (_Unwind_Reason_Code(*)(_Unwind_Trace_Fn, void *))dlsym(RTLD_NEXT,
										"_Unwind_Backtrace");
	if (!real)
		return _URC_FATAL_PHASE1_ERROR;
	unhook_keep();
	r = real(fn, arg);
	rehook_all();
	return r;
}

void ut_graph_lost_frame(uint64_t sp)
{
	char msg[160];
	int n = snprintf(msg, sizeof(msg),
			 "utrace: function_graph lost track of a return (stack pointer %#llx); "
			 "the program switched stacks in a way utrace cannot follow\n",
			 (unsigned long long)sp);

	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0)
		_exit(127);
	abort();
}

typedef _Unwind_Reason_Code (*raise_fn)(struct _Unwind_Exception *);
typedef _Unwind_Reason_Code (*forced_fn)(struct _Unwind_Exception *, _Unwind_Stop_Fn, void *);

__attribute__((visibility("default"))) _Unwind_Reason_Code
_Unwind_RaiseException(struct _Unwind_Exception *e)
{
	static raise_fn real;

	if (!real)
		real = (raise_fn)dlsym(RTLD_NEXT, "_Unwind_RaiseException");
	ut_graph_unhook_all();
	return real ? real(e) : _URC_FATAL_PHASE1_ERROR;
}

__attribute__((visibility("default"))) _Unwind_Reason_Code
_Unwind_ForcedUnwind(struct _Unwind_Exception *e, _Unwind_Stop_Fn stop, void *arg)
{
	static forced_fn real;

	if (!real)
		real = (forced_fn)dlsym(RTLD_NEXT, "_Unwind_ForcedUnwind");
	ut_graph_unhook_all();
	return real ? real(e, stop, arg) : _URC_FATAL_PHASE1_ERROR;
}
