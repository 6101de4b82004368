// SPDX-License-Identifier: MIT
/*
 * The ucontext functions, wrapped so that function_graph's shadow stack
 * follows the stack that runs (libutrace/stacks.c): makecontext names a
 * coroutine's stack (arch trampoline.S passes its variadic arguments on),
 * swapcontext and setcontext switch to the target's shadow stack before
 * they switch stacks.  A context saved by swapcontext resumes inside this
 * wrapper, which makes the shadow stack that ran before current again,
 * whoever switched back and on whatever thread.
 *
 * Switches these wrappers do not see (a coroutine ending into its uc_link,
 * glibc's internal call) are noticed by the tracer at the next traced call
 * or return on the other stack.
 */
#include <dlfcn.h>
#include <errno.h>
#include <ucontext.h>

#include "libutrace/internal.h"

typedef int (*swap_fn)(ucontext_t *, const ucontext_t *);
typedef int (*set_fn)(const ucontext_t *);

void *ut_context_made(ucontext_t *ucp) UT_HIDDEN;

/* What trampoline.S's makecontext jumps to when there is no real one. */
static void no_makecontext(void)
{
}

void *ut_context_made(ucontext_t *ucp)
{
	static void *real;
	uint64_t lo = (uint64_t)ucp->uc_stack.ss_sp;

	if (!real)
		real = dlsym(RTLD_NEXT, "makecontext");
	if (ucp->uc_stack.ss_size)
		ut_stacks_register(lo, lo + ucp->uc_stack.ss_size);
	return real ? real : (void *)no_makecontext;
}

__attribute__((visibility("default"))) int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	static swap_fn real;
	struct ut_shadow *from;
	int r;

	if (!real)
		real = (swap_fn)dlsym(RTLD_NEXT, "swapcontext");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	from = ut_stacks_switch(ut_arch_context_sp(ucp));
	r = real(oucp, ucp);
	ut_stacks_resume(from); /* back on this stack */
	return r;
}

__attribute__((visibility("default"))) int setcontext(const ucontext_t *ucp)
{
	static set_fn real;
	struct ut_shadow *from;
	int r;

	if (!real)
		real = (set_fn)dlsym(RTLD_NEXT, "setcontext");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	from = ut_stacks_switch(ut_arch_context_sp(ucp));
	r = real(ucp); /* returns only if it failed */
	ut_stacks_resume(from);
	return r;
}
