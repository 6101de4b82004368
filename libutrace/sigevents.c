// SPDX-License-Identifier: MIT
/*
 * signal:signal_generate for the signals the program sends through the C
 * library: kill(), raise(), tgkill(), sigqueue(), and pthread_kill() of
 * the calling thread, interposed while the event is enabled.  The event
 * goes into the sender's ring, as the kernel's does; one the program sends
 * itself is recorded before the call (its handler may run before the call
 * returns, as the kernel records the generation first), one to another
 * process after the call succeeded (a kill that fails generates nothing).
 *
 * The SIGCHLD the program's own exit() sends its parent is recorded too, in
 * the exiting thread, as the kernel's do_notify_parent() does it
 * (ut_sigev_exiting(), below).
 *
 * Not seen: other signals sent by the kernel (a fault, a timer) or by
 * other processes, kill() of a process group (pid 0 or
 * below), pthread_kill() of another thread (its tid is not known here),
 * and raw syscalls.  result is 1 (ignored) for a signal the program sends
 * itself whose action ignores it, else 0 (delivered): the kernel's other
 * results (already pending, queue overflow) are not told apart.
 *
 * signal:signal_deliver for the handlers the program installs with
 * sigaction() or signal() while the event is enabled: the kernel is given
 * delivered() instead, which records the event in the receiving thread and
 * calls the program's handler (by a tail call: the handler returns to the
 * kernel's signal frame as before, which function_graph's signal marks
 * rely on).  sigaction() reports the program's handler back.  sa_flags is
 * the program's with SA_RESTORER, which the C library adds and the kernel
 * shows.  Not seen: handlers installed before the event was enabled
 * (`start -e` on a running program), SIGTRAP and SIGBUS (utrace's own
 * handlers chain to the program's), signals whose action is the default
 * or ignore (no handler runs; the kernel records those too).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/procevents.h"
#include "libutrace/internal.h"
#include "libutrace/signals.h"

/* The kernel's si_code values for the senders. */
enum { CODE_USER = 0, CODE_QUEUE = -1, CODE_TKILL = -6 };

/* @pid's comm from /proc (async-signal-safe calls only: kill may be called from a handler). */
static void comm_of(pid_t pid, char comm[16])
{
	char path[40];
	int fd;
	ssize_t r;

	memset(comm, 0, 16);
	ut_num_name(path, "/proc/", (uint32_t)pid, "/comm");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	r = read(fd, comm, 15);
	close(fd);
	if (r > 0 && comm[r - 1] == '\n')
		comm[r - 1] = '\0';
}

/* Whether this process ignores @sig now (SIG_IGN, or SIG_DFL of a signal ignored by default). */
static bool ignored(int sig)
{
	struct sigaction act;

	if (sigaction(sig, NULL, &act))
		return false;
	if (act.sa_handler == SIG_IGN)
		return true;
	return act.sa_handler == SIG_DFL &&
	       (sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT);
}

/* The signal_generate event: @sig with si_code @code to @pid (@comm), in its group or not, @res. */
static void emit_generate(int sig, int code, const char comm[16], pid_t pid, bool group, int res)
{
	struct ut_pev e;
	int32_t v[3] = {sig, 0, code}, g = group, r = res;

	ut_pev_init(&e, UT_PEV_SIG_GENERATE);
	ut_pev_put(&e, 8, v, sizeof(v));
	ut_pev_put(&e, 20, comm, 16);
	ut_pev_put(&e, 36, &pid, 4);
	ut_pev_put(&e, 40, &g, 4);
	ut_pev_put(&e, 44, &r, 4);
	ut_pev_emit(&e);
}

/* signal_generate of @sig to @pid (a thread of ours when @self). */
static void generated(int sig, int code, pid_t pid, bool group, bool self)
{
	char comm[16];

	if (sig <= 0 || sig >= NSIG || !ut_procev_on(UT_PEV_SIG_GENERATE))
		return;
	if (self) {
		memset(comm, 0, sizeof(comm));
		prctl(PR_GET_NAME, comm, 0, 0, 0);
	} else {
		comm_of(pid, comm);
	}
	emit_generate(sig, code, comm, pid, group, self && ignored(sig));
}

/* Bit @sig of the mask on @status's line @key ("SigIgn:"): 0 or 1, 0 without the line. */
static int status_bit(const char *status, const char *key, int sig)
{
	const char *p = strstr(status, key);

	return p ? (int)(strtoull(p + strlen(key), NULL, 16) >> (sig - 1) & 1) : 0;
}

/*
 * signal_generate of the SIGCHLD this process's exit() sends its parent, as
 * the kernel's exit_notify() -> do_notify_parent() records it in the exiting
 * task: code CLD_EXITED, the parent's comm and pid, grp 1; nothing at all if
 * the parent ignores SIGCHLD (SIG_IGN: the kernel sends none); result 2 if
 * one is pending there already (a signal below SIGRTMIN is not queued
 * twice), 1 if the parent's action is the default (SIGCHLD's is to ignore)
 * and it does not block it, else 0.  The parent's state is what its
 * /proc/PPID/status shows (its main thread's mask: the kernel looks at the
 * thread that forked).  Not after _exit() or a death by a signal (no
 * destructor runs), as sched_process_exit.
 */
void ut_sigev_exiting(void)
{
	char path[40], status[4096], comm[16];
	pid_t ppid = getppid();
	int res = 0;
	ssize_t n;
	int fd;

	if (ppid <= 0 || !ut_procev_on(UT_PEV_SIG_GENERATE))
		return;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)ppid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, status, sizeof(status) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	status[n] = '\0';
	if (status_bit(status, "\nSigIgn:", SIGCHLD))
		return;
	if (status_bit(status, "\nShdPnd:", SIGCHLD))
		res = 2;
	else if (!status_bit(status, "\nSigCgt:", SIGCHLD) && !status_bit(status, "\nSigBlk:", SIGCHLD))
		res = 1;
	comm_of(ppid, comm);
	emit_generate(SIGCHLD, CLD_EXITED, comm, ppid, true, res);
}

/* ---- signal_deliver ---- */

#define SA_RESTORER_FLAG 0x04000000 /* the kernel's SA_RESTORER (x86) */

/* The handlers the program installed that the kernel calls through delivered(). */
static struct sigaction program[NSIG];

static void deliver_event(int sig, const siginfo_t *si, const struct sigaction *a)
{
	struct ut_pev e;
	int32_t v[3] = {sig, si ? si->si_errno : 0, si ? si->si_code : 0};
	uint64_t handler = (uint64_t)(uintptr_t)a->sa_handler;
	uint64_t flags = (uint64_t)(unsigned)a->sa_flags | SA_RESTORER_FLAG;
	int saved = errno;

	ut_pev_init(&e, UT_PEV_SIG_DELIVER);
	ut_pev_put(&e, 8, v, sizeof(v));
	ut_pev_put(&e, 24, &handler, 8);
	ut_pev_put(&e, 32, &flags, 8);
	ut_pev_emit(&e);
	errno = saved;
}

static void delivered(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *a = &program[sig];

	if (ut_procev_on(UT_PEV_SIG_DELIVER))
		deliver_event(sig, si, a);
	if (a->sa_flags & SA_SIGINFO) {
		a->sa_sigaction(sig, si, uc);
		return;
	}
	a->sa_handler(sig);
}

int ut_sigev_sigaction(int (*real)(int, const struct sigaction *, struct sigaction *), int sig,
		       const struct sigaction *act, struct sigaction *old)
{
	struct sigaction copy, was;
	bool wrap;
	int ret;

	if (sig <= 0 || sig >= NSIG)
		return real(sig, act, old);
	wrap = act && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN &&
	       ut_procev_on(UT_PEV_SIG_DELIVER);
	was = program[sig];
	if (wrap) {
		program[sig] = *act; /* before the kernel can call delivered() for it */
		copy = *act;
		copy.sa_sigaction = delivered;
		copy.sa_flags |= SA_SIGINFO;
		act = &copy;
	}
	ret = real(sig, act, old);
	if (ret && wrap)
		program[sig] = was;
	if (!ret && old && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction == delivered)
		*old = was; /* what the program installed, not ours */
	return ret;
}

static void *real_of(const char *name, void **cache)
{
	void *f = __atomic_load_n(cache, __ATOMIC_RELAXED);

	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, f, __ATOMIC_RELAXED);
	}
	return f;
}

static void *real_kill, *real_raise, *real_tgkill, *real_sigqueue, *real_pthread_kill;

/*
 * At start-up: the real functions, looked up once (dlsym is not
 * async-signal-safe, and a program may send its first signal from a
 * handler).
 */
void ut_sigev_init(void)
{
	real_of("kill", &real_kill);
	real_of("raise", &real_raise);
	real_of("tgkill", &real_tgkill);
	real_of("sigqueue", &real_sigqueue);
	real_of("pthread_kill", &real_pthread_kill);
}

/* A send to @pid (0 < pid): recorded first if to ourselves, else once it succeeded. */
#define SEND(call, sig, code, pid, group, self)                                          \
	do {                                                                                 \
		bool on_ = ut_procev_on(UT_PEV_SIG_GENERATE);                                \
		int ret_, saved_;                                                            \
		if (on_ && (self))                                                           \
			generated(sig, code, pid, group, true);                              \
		ret_ = (call);                                                               \
		saved_ = errno;                                                              \
		if (on_ && !(self) && !ret_ && (pid) > 0)                                    \
			generated(sig, code, pid, group, false);                             \
		errno = saved_;                                                              \
		return ret_;                                                                 \
	} while (0)

__attribute__((visibility("default"))) int kill(pid_t pid, int sig)
{
	int (*f)(pid_t, int) = (int (*)(pid_t, int))real_of("kill", &real_kill);

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	SEND(f(pid, sig), sig, CODE_USER, pid, true, pid == getpid());
}

__attribute__((visibility("default"))) int raise(int sig)
{
	int (*f)(int) = (int (*)(int))real_of("raise", &real_raise);

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	SEND(f(sig), sig, CODE_TKILL, (pid_t)gettid(), false, true);
}

__attribute__((visibility("default"))) int tgkill(pid_t tgid, pid_t tid, int sig)
{
	int (*f)(pid_t, pid_t, int) =
		(int (*)(pid_t, pid_t, int))real_of("tgkill", &real_tgkill);

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	SEND(f(tgid, tid, sig), sig, CODE_TKILL, tid, false, tgid == getpid());
}

__attribute__((visibility("default"))) int sigqueue(pid_t pid, int sig, const union sigval value)
{
	int (*f)(pid_t, int, union sigval) =
		(int (*)(pid_t, int, union sigval))real_of("sigqueue", &real_sigqueue);

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	SEND(f(pid, sig, value), sig, CODE_QUEUE, pid, true, pid == getpid());
}

__attribute__((visibility("default"))) int pthread_kill(pthread_t th, int sig)
{
	int (*f)(pthread_t, int) =
		(int (*)(pthread_t, int))real_of("pthread_kill", &real_pthread_kill);

	if (!f)
		return ENOSYS;
	if (pthread_equal(th, pthread_self()) && sig)
		generated(sig, CODE_TKILL, (pid_t)gettid(), false, true);
	return f(th, sig);
}
