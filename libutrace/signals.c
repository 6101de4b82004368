// SPDX-License-Identifier: MIT
/*
 * SIGTRAP and SIGBUS ownership.  The patcher needs a SIGTRAP handler for as
 * long as the process lives, the session files a SIGBUS handler (a write to
 * a buffer whose file system is full: libutrace/shmfault.c), and the
 * program may want its own (tests, debuggers' helper libraries, runtimes
 * that map files).  So sigaction() and signal() are wrapped: for these
 * signals they record the program's handler and report it back as if
 * installed, while ours stays in place and chains to it for every signal
 * that is not ours.
 *
 * Neither may be blocked: an int3 (an enabled USDT probe, a site while it
 * changes) or a fault on a session file raised in a thread that blocks the
 * signal makes the kernel reset the handler to the default and kill the
 * process, and servers commonly block every signal in their worker threads.
 * So sigprocmask() and pthread_sigmask() keep SIGTRAP and SIGBUS out of the
 * mask they set, and report them back as blocked while the program believes
 * they are (per-thread flags); sigaction() keeps them out of every
 * handler's sa_mask.  A SIGTRAP or SIGBUS sent to a thread that believes
 * it blocked (raise, pthread_kill) is held and raised again when the
 * thread unblocks it, as the kernel would have left it pending.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "common/procevents.h"
#include "libutrace/signals.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

/* The signals we own: SIGTRAP (patching), SIGBUS (session files that cannot get a page). */
enum { OWN_TRAP, OWN_BUS, NR_OWN };

static sigaction_fn real_sigaction;
static bool (*our_trap)(siginfo_t *si, ucontext_t *uc);
static bool (*our_bus)(void *addr);
static struct sigaction program_act[NR_OWN]; /* what the program believes is installed */
static bool installed[NR_OWN];

/*
 * What the program believes of SIGTRAP and SIGBUS in this thread's mask,
 * and which of them were sent meanwhile (bit per OWN_*).
 */
static __thread unsigned own_blocked, own_pending;

static int own_index(int sig)
{
	return sig == SIGTRAP ? OWN_TRAP : sig == SIGBUS ? OWN_BUS : -1;
}

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	int k = sig == SIGTRAP ? OWN_TRAP : OWN_BUS; /* (installed for these two only) */
	struct sigaction act = program_act[k];
	int saved = errno;
	bool ours = k == OWN_TRAP ? our_trap && our_trap(si, ucv)
				  : our_bus && si->si_code == BUS_ADRERR && our_bus(si->si_addr);

	errno = saved;
	if (ours)
		return;
	/*
	 * Sent to this thread (raise, tgkill, pthread_kill: SI_TKILL) while it
	 * believes it blocked: held, as the kernel would have, until the thread
	 * unblocks it (masked_call).  One sent to the process (kill) is
	 * delivered: the kernel could have given it to any thread, holding it
	 * in this one could lose it (a runtime thread never unblocks).
	 */
	if (si->si_code == SI_TKILL && (own_blocked & (1u << k))) {
		own_pending |= 1u << k;
		return;
	}
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
	/* Default action: die by the signal as the program would have. */
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	real_sigaction(sig, &dfl, NULL);
	raise(sig);
}

static sigaction_fn get_real(void)
{
	if (!real_sigaction)
		real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	return real_sigaction;
}

static int install(int sig, int k)
{
	struct sigaction act = {0};

	act.sa_sigaction = on_signal;
	act.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
	sigemptyset(&act.sa_mask);
	if (real_sigaction(sig, &act, &program_act[k]))
		return -errno;
	installed[k] = true;
	return 0;
}

int ut_signals_init(bool (*ours)(siginfo_t *si, ucontext_t *uc))
{
	struct sigaction act = {0};
	int ret;

	if (!get_real())
		return -ENOSYS;
	our_trap = ours;
	ret = install(SIGTRAP, OWN_TRAP);
	if (ret)
		return ret;
	/*
	 * libc gave the kernel its signal restorer with ours, as it does for
	 * every handler: the return address of every handler the kernel calls
	 * (tracers/signal_marks.c tells handlers by it).
	 */
	if (!real_sigaction(SIGTRAP, NULL, &act) && act.sa_restorer)
		ut_sig_restorer = (uint64_t)act.sa_restorer;
	return 0;
}


typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);

static const int own_sigs[NR_OWN] = {[OWN_TRAP] = SIGTRAP, [OWN_BUS] = SIGBUS};

/* @how/@set as the program gave them, our signals kept out; @old gets them back as believed. */
static int masked_call(sigmask_fn real, int how, const sigset_t *set, sigset_t *old)
{
	unsigned was = own_blocked, in = 0;
	sigset_t copy;
	int ret;

	for (int k = 0; set && k < NR_OWN; k++)
		in |= sigismember(set, own_sigs[k]) == 1 ? 1u << k : 0;
	if (in && how != SIG_UNBLOCK) {
		copy = *set;
		for (int k = 0; k < NR_OWN; k++)
			sigdelset(&copy, own_sigs[k]);
		set = &copy;
	}
	ret = real(how, set, old);
	for (int k = 0; ret == 0 && old && k < NR_OWN; k++)
		if (was & (1u << k))
			sigaddset(old, own_sigs[k]);
	if (ret == 0 && set) {
		if (how == SIG_SETMASK)
			own_blocked = in;
		else if (how == SIG_BLOCK)
			own_blocked |= in;
		else if (how == SIG_UNBLOCK)
			own_blocked &= ~in;
	}
	for (int k = 0; k < NR_OWN; k++) /* sent while believed blocked, and no longer */
		if (own_pending & ~own_blocked & (1u << k)) {
			own_pending &= ~(1u << k);
			raise(own_sigs[k]);
		}
	return ret;
}

__attribute__((visibility("default"))) int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	static sigmask_fn real;

	if (!real)
		real = (sigmask_fn)dlsym(RTLD_NEXT, "sigprocmask");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return masked_call(real, how, set, old);
}

__attribute__((visibility("default"))) int pthread_sigmask(int how, const sigset_t *set,
							   sigset_t *old)
{
	static sigmask_fn real;

	if (!real)
		real = (sigmask_fn)dlsym(RTLD_NEXT, "pthread_sigmask");
	return real ? masked_call(real, how, set, old) : ENOSYS;
}

int ut_signals_bus(bool (*ours)(void *addr))
{
	if (!get_real())
		return -ENOSYS;
	our_bus = ours;
	return installed[OWN_BUS] ? 0 : install(SIGBUS, OWN_BUS);
}

/* The wrappers: exported, they interpose libc's. */
__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
						     struct sigaction *old)
{
	int k = own_index(sig);

	if (!get_real()) {
		errno = ENOSYS;
		return -1;
	}
	if (k < 0 || !installed[k]) {
		struct sigaction copy;

		/* a handler runs with our signals deliverable (see the top of this file) */
		if (act && (sigismember(&act->sa_mask, SIGTRAP) || sigismember(&act->sa_mask, SIGBUS))) {
			copy = *act;
			sigdelset(&copy.sa_mask, SIGTRAP);
			sigdelset(&copy.sa_mask, SIGBUS);
			act = &copy;
		}
		return ut_sigev_sigaction(real_sigaction, sig, act, old);
	}
	if (old)
		*old = program_act[k];
	if (act)
		program_act[k] = *act;
	return 0;
}

__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act = {0}, old;

	if (own_index(sig) < 0 && !ut_procev_on(UT_PEV_SIG_DELIVER)) {
		sighandler_t (*real)(int, sighandler_t) =
			(sighandler_t(*)(int, sighandler_t))dlsym(RTLD_NEXT, "signal");

		return real ? real(sig, handler) : SIG_ERR;
	}
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	if (own_index(sig) < 0) /* as the C library's signal(): its own signal blocked meanwhile */
		sigaddset(&act.sa_mask, sig);
	if (sigaction(sig, &act, &old))
		return SIG_ERR;
	return old.sa_handler;
}
