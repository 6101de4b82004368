// SPDX-License-Identifier: MIT
/*
 * SIGTRAP ownership.  The patcher needs a SIGTRAP handler for as long as the
 * process lives, and the program may want one too (tests, debuggers' helper
 * libraries).  So sigaction() and signal() are wrapped: for SIGTRAP they
 * record the program's handler and report it back as if installed, while
 * ours stays in place and chains to it for every trap that is not ours.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "libutrace/signals.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static sigaction_fn real_sigaction;
static bool (*our_trap)(siginfo_t *si, ucontext_t *uc);
static struct sigaction program_act; /* what the program believes is installed */
static bool installed;

static void on_sigtrap(int sig, siginfo_t *si, void *ucv)
{
	struct sigaction act = program_act;
	int saved = errno;

	if (our_trap && our_trap(si, ucv)) {
		errno = saved;
		return;
	}
	errno = saved;
	if (act.sa_flags & SA_SIGINFO) {
		if (act.sa_sigaction)
			act.sa_sigaction(sig, si, ucv);
		return;
	}
	if (act.sa_handler == SIG_IGN)
		return;
	if (act.sa_handler != SIG_DFL) {
		act.sa_handler(sig);
		return;
	}
	/* Default action: die by SIGTRAP as the program would have. */
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	real_sigaction(SIGTRAP, &dfl, NULL);
	raise(SIGTRAP);
}

static sigaction_fn get_real(void)
{
	if (!real_sigaction)
		real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	return real_sigaction;
}

int ut_signals_init(bool (*ours)(siginfo_t *si, ucontext_t *uc))
{
	struct sigaction act = {0};

	if (!get_real())
		return -ENOSYS;
	our_trap = ours;
	act.sa_sigaction = on_sigtrap;
	act.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
	sigemptyset(&act.sa_mask);
	if (real_sigaction(SIGTRAP, &act, &program_act))
		return -errno;
	installed = true;
	/*
	 * libc gave the kernel its signal restorer with ours, as it does for
	 * every handler: the return address of every handler the kernel calls
	 * (tracers/signal_marks.c tells handlers by it).
	 */
	if (!real_sigaction(SIGTRAP, NULL, &act) && act.sa_restorer)
		ut_sig_restorer = (uint64_t)act.sa_restorer;
	return 0;
}

/* The wrappers: exported, they interpose libc's. */
__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
						     struct sigaction *old)
{
	if (!get_real()) {
		errno = ENOSYS;
		return -1;
	}
	if (sig != SIGTRAP || !installed)
		return real_sigaction(sig, act, old);
	if (old)
		*old = program_act;
	if (act)
		program_act = *act;
	return 0;
}

__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act = {0}, old;

	if (sig != SIGTRAP) {
		sighandler_t (*real)(int, sighandler_t) =
			(sighandler_t(*)(int, sighandler_t))dlsym(RTLD_NEXT, "signal");

		return real ? real(sig, handler) : SIG_ERR;
	}
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	if (sigaction(sig, &act, &old))
		return SIG_ERR;
	return old.sa_handler;
}
