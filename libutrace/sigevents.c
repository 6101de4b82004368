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
 * Not seen: signals sent by the kernel (a fault, a timer, a child's
 * SIGCHLD) or by other processes, kill() of a process group (pid 0 or
 * below), pthread_kill() of another thread (its tid is not known here),
 * and raw syscalls.  result is 1 (ignored) for a signal the program sends
 * itself whose action ignores it, else 0 (delivered): the kernel's other
 * results (already pending, queue overflow) are not told apart.
 * signal:signal_deliver is listed (its format is the kernel's) but not yet
 * recorded by the runtime.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/procevents.h"
#include "libutrace/internal.h"

/* The kernel's si_code values for the senders. */
enum { CODE_USER = 0, CODE_QUEUE = -1, CODE_TKILL = -6 };

/* @pid's comm from /proc (async-signal-safe calls only: kill may be called from a handler). */
static void comm_of(pid_t pid, char comm[16])
{
	char path[40] = "/proc/";
	unsigned n = 6;
	char digits[12];
	int k = 0, fd;
	ssize_t r;

	memset(comm, 0, 16);
	for (unsigned v = (unsigned)pid; k == 0 || v; v /= 10)
		digits[k++] = (char)('0' + v % 10);
	while (k)
		path[n++] = digits[--k];
	memcpy(path + n, "/comm", 6);
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

/* signal_generate of @sig to @pid (a thread of ours when @self). */
static void generated(int sig, int code, pid_t pid, bool group, bool self)
{
	struct ut_pev e;
	char comm[16];
	int32_t v[3] = {sig, 0, code}, g = group, res;

	if (sig <= 0 || sig >= NSIG || !ut_procev_on(UT_PEV_SIG_GENERATE))
		return;
	if (self) {
		memset(comm, 0, sizeof(comm));
		prctl(PR_GET_NAME, comm, 0, 0, 0);
	} else {
		comm_of(pid, comm);
	}
	res = self && ignored(sig);
	ut_pev_init(&e, UT_PEV_SIG_GENERATE);
	ut_pev_put(&e, 8, v, sizeof(v));
	ut_pev_put(&e, 20, comm, 16);
	ut_pev_put(&e, 36, &pid, 4);
	ut_pev_put(&e, 40, &g, 4);
	ut_pev_put(&e, 44, &res, 4);
	ut_pev_emit(&e);
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
	static void *real;
	int (*f)(pid_t, int) = (int (*)(pid_t, int))real_of("kill", &real);

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	SEND(f(pid, sig), sig, CODE_USER, pid, true, pid == getpid());
}

__attribute__((visibility("default"))) int raise(int sig)
{
	static void *real;
	int (*f)(int) = (int (*)(int))real_of("raise", &real);

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	SEND(f(sig), sig, CODE_TKILL, (pid_t)gettid(), false, true);
}

__attribute__((visibility("default"))) int tgkill(pid_t tgid, pid_t tid, int sig)
{
	static void *real;
	int (*f)(pid_t, pid_t, int) = (int (*)(pid_t, pid_t, int))real_of("tgkill", &real);

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	SEND(f(tgid, tid, sig), sig, CODE_TKILL, tid, false, tgid == getpid());
}

__attribute__((visibility("default"))) int sigqueue(pid_t pid, int sig, const union sigval value)
{
	static void *real;
	int (*f)(pid_t, int, union sigval) =
		(int (*)(pid_t, int, union sigval))real_of("sigqueue", &real);

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	SEND(f(pid, sig, value), sig, CODE_QUEUE, pid, true, pid == getpid());
}

__attribute__((visibility("default"))) int pthread_kill(pthread_t th, int sig)
{
	static void *real;
	int (*f)(pthread_t, int) = (int (*)(pthread_t, int))real_of("pthread_kill", &real);

	if (!f)
		return ENOSYS;
	if (pthread_equal(th, pthread_self()) && sig)
		generated(sig, CODE_TKILL, (pid_t)gettid(), false, true);
	return f(th, sig);
}
