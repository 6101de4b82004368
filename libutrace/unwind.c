// SPDX-License-Identifier: MIT
/*
 * function_graph and stack unwinding.  A hooked frame's return address is
 * utrace_graph_return, whose unwind info says "no caller": an unwinder
 * walking through it would stop there.  So whatever walks the stack is
 * shown the real return addresses of the running stack's frames first:
 *
 * - backtrace() and _Unwind_Backtrace() only look: the frames are hooked
 *   again right after;
 * - a C++ exception (_Unwind_RaiseException, _Unwind_Resume_or_Rethrow for
 *   a rethrow, _Unwind_Resume after a cleanup such as a destructor) and a
 *   forced unwind (pthread_exit, pthread_cancel) leave them unhooked while
 *   the stack unwinds, and the frames stay on the shadow stack.  When the
 *   exception is caught (__cxa_begin_catch, called by the catch block), the
 *   frames below the catching frame's stack pointer are dropped (they print
 *   entry-only) and the frames that survive -- the catching function and its
 *   callers -- are hooked again, so they print their exits at the right
 *   depth.  A cleanup calling traced functions before the unwinding resumes
 *   drops the frames below it the way a longjmp's are dropped.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <unwind.h>

#include "libutrace/internal.h"

/* Put the real return addresses back in the running stack's hooked slots. */
static void unhook_keep(void)
{
	struct ut_shadow *sh = ut_self.shadow;

	for (uint32_t i = sh ? sh->top : 0; i-- > 0;) {
		uint64_t *slot = (uint64_t *)sh->f[i].slot;

		if (*slot == (uint64_t)utrace_graph_return)
			*slot = sh->f[i].ret;
	}
}

/* Hook again what unhook_keep() put back (a tail call's chain in order). */
static void rehook_all(void)
{
	struct ut_shadow *sh = ut_self.shadow;

	for (uint32_t i = 0; sh && i < sh->top; i++) {
		uint64_t *slot = (uint64_t *)sh->f[i].slot;

		if (*slot == sh->f[i].ret)
			*slot = (uint64_t)utrace_graph_return;
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
typedef void (*resume_fn)(struct _Unwind_Exception *);
typedef void *(*catch_fn)(void *);

static void *real_fn(void **cache, const char *name)
{
	if (!*cache)
		*cache = dlsym(RTLD_NEXT, name);
	return *cache;
}

/* A throw or std::rethrow_exception; it returns only when nothing catches. */
__attribute__((visibility("default"))) _Unwind_Reason_Code
_Unwind_RaiseException(struct _Unwind_Exception *e)
{
	static void *real;
	raise_fn fn = (raise_fn)real_fn(&real, "_Unwind_RaiseException");
	_Unwind_Reason_Code r;

	unhook_keep();
	r = fn ? fn(e) : _URC_FATAL_PHASE1_ERROR;
	rehook_all();
	return r;
}

/* `throw;` (and a forced unwind caught by catch (...) going on). */
__attribute__((visibility("default"))) _Unwind_Reason_Code
_Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	static void *real;
	raise_fn fn = (raise_fn)real_fn(&real, "_Unwind_Resume_or_Rethrow");
	_Unwind_Reason_Code r;

	unhook_keep();
	r = fn ? fn(e) : _URC_FATAL_PHASE1_ERROR;
	rehook_all();
	return r;
}

/*
 * The end of a cleanup (a destructor's landing pad): unwinding goes on.
 * Unhooked again: a catch inside the cleanup hooked the frames above.
 */
__attribute__((visibility("default"))) void _Unwind_Resume(struct _Unwind_Exception *e)
{
	static void *real;
	resume_fn fn = (resume_fn)real_fn(&real, "_Unwind_Resume");

	unhook_keep();
	if (!fn)
		abort();
	fn(e);
	abort();
}

__attribute__((visibility("default"))) _Unwind_Reason_Code
_Unwind_ForcedUnwind(struct _Unwind_Exception *e, _Unwind_Stop_Fn stop, void *arg)
{
	static void *real;
	forced_fn fn = (forced_fn)real_fn(&real, "_Unwind_ForcedUnwind");
	_Unwind_Reason_Code r;

	unhook_keep();
	r = fn ? fn(e, stop, arg) : _URC_FATAL_PHASE1_ERROR;
	rehook_all();
	return r;
}

/*
 * The personality of utrace_graph_return's unwind info (trampoline.S): an
 * unwinder that met a hooked return address (glibc's forced unwind for
 * pthread_exit and pthread_cancel, an unwinder linked into the program)
 * gets the real ones from here on, as the wrappers above would have done.
 */
_Unwind_Reason_Code ut_graph_personality(int version, _Unwind_Action actions,
					 _Unwind_Exception_Class cls,
					 struct _Unwind_Exception *e,
					 struct _Unwind_Context *ctx) UT_HIDDEN;

_Unwind_Reason_Code ut_graph_personality(int version, _Unwind_Action actions,
					 _Unwind_Exception_Class cls,
					 struct _Unwind_Exception *e,
					 struct _Unwind_Context *ctx)
{
	unhook_keep();
	return _URC_CONTINUE_UNWIND;
}

/*
 * The exception is caught by the function calling us: frames below its
 * stack pointer were unwound; it and its callers go on, hooked again.
 */
static __attribute__((noinline)) void caught(uint64_t sp)
{
	struct ut_thread *t = &ut_self;

	if (!t->shadow || !ut_enter(t))
		return; /* inside the tracer (a signal): the frames just stay unhooked */
	ut_graph_drop_below(t->shadow, sp);
	rehook_all();
	ut_leave(t);
}

// NOLINTNEXTLINE(bugprone-reserved-identifier): libstdc++'s name, interposed on purpose
__attribute__((visibility("default"))) void *__cxa_begin_catch(void *exc)
{
	static void *real;
	catch_fn fn = (catch_fn)real_fn(&real, "__cxa_begin_catch");

	caught(ut_arch_caller_sp());
	if (!fn)
		abort();
	return fn(exc);
}
