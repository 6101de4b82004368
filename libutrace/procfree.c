// SPDX-License-Identifier: MIT
/*
 * sched:sched_process_free in user space: the moment a parent reaps a
 * child (wait, waitpid, wait3, wait4, waitid, interposed), recorded in the
 * reaping thread's ring with the kernel's fields (comm, pid, prio).
 *
 * The kernel emits it when the task's last reference goes, shortly after
 * the reap, in whatever context drops it; a process sees neither, and the
 * reap is the last moment anyone in user space deals with the child, so it
 * is the honest equivalent: the child is gone for good once the wait
 * returns.  The child's comm and priority are what its zombie shows in
 * /proc/PID/stat, read between a first wait with WNOWAIT (which takes the
 * caller's own flags, so it returns when and for what the real call would)
 * and the real one.  Only while the event is enabled: otherwise each call
 * goes straight to the C library.  Not seen: children reaped by the C
 * library itself (system(), popen's pclose), by a SIGCHLD set to SIG_IGN
 * or SA_NOCLDWAIT (the kernel reaps them), threads (pthread_join: utrace
 * shows utrace:thread_exit instead), and children reaped with a raw
 * syscall.  If another thread reaps the peeked child in between, the
 * event is not recorded.
 *
 * The same calls give sched:sched_process_wait (waited(), below): the
 * kernel's comes at the start of every wait call (do_wait), in the waiting
 * thread, with its comm and prio and the pid waited for: 0 for any child,
 * the group's number for a process group (the caller's for waitpid(0)).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/procevents.h"
#include "libutrace/internal.h"

typedef pid_t (*wait4_fn)(pid_t, int *, int, struct rusage *);
typedef int (*waitid_fn)(idtype_t, id_t, siginfo_t *, int);

static wait4_fn real_wait4;
static waitid_fn real_waitid;

/* What the zombie of the child a wait will reap showed. */
struct reaped {
	pid_t pid;               /* 0: nothing peeked */
	int32_t prio;
	char comm[17];
};

/* The real calls, looked up at start-up (ut_procev_init): a SIGCHLD handler may reap first. */
bool ut_procfree_init(void)
{
	if (!real_wait4)
		real_wait4 = (wait4_fn)dlsym(RTLD_NEXT, "wait4");
	if (!real_waitid)
		real_waitid = (waitid_fn)dlsym(RTLD_NEXT, "waitid");
	return real_wait4 && real_waitid;
}

/* The zombie's comm and the kernel's prio (field 18 of /proc/PID/stat is prio - 100). */
static bool zombie(struct reaped *z)
{
	char path[40], buf[512], *open_p, *close_p, *p;
	ssize_t n;
	int fd, field = 3;
	long prio;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)z->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	open_p = strchr(buf, '(');
	close_p = strrchr(buf, ')');
	if (!open_p || !close_p || close_p < open_p || close_p - open_p - 1 > 16)
		return false;
	memcpy(z->comm, open_p + 1, (size_t)(close_p - open_p - 1));
	z->comm[close_p - open_p - 1] = '\0';
	for (p = close_p + 2; *p && field < 18; p++)
		if (*p == ' ')
			field++;
	prio = strtol(p, NULL, 10);
	z->prio = (int32_t)(prio + 100);
	return field == 18;
}

/*
 * Before a wait for @idt/@id with waitid's @opts: peek (WNOWAIT) at the
 * child it would reap, into @z.  -1 with errno if the peek itself failed
 * in a way the real call would report too (EINTR, ECHILD, EINVAL).
 */
static int peek(idtype_t idt, id_t id, int opts, struct reaped *z)
{
	siginfo_t si;

	z->pid = 0;
	if (!ut_rt.ready || ut_quiet || !ut_procev_on(UT_PEV_FREE) || !ut_procfree_init() ||
	    (opts & WNOWAIT) || !(opts & WEXITED))
		return 0;
	memset(&si, 0, sizeof(si));
	if (real_waitid(idt, id, &si, opts | WNOWAIT))
		return -1;
	if (si.si_pid > 0 &&
	    (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED)) {
		int err = errno;

		z->pid = si.si_pid;
		if (!zombie(z))
			z->pid = 0;
		errno = err;
	}
	return 0;
}

/* After the real wait returned @got: the event, if it reaped the child peeked at. */
static void reaped(const struct reaped *z, pid_t got)
{
	struct ut_pev e;
	int err = errno;

	if (!z->pid || got != z->pid)
		return;
	ut_pev_init(&e, UT_PEV_FREE);
	ut_pev_str(&e, 8, z->comm);
	ut_pev_put(&e, 12, &z->pid, 4);
	ut_pev_put(&e, 16, &z->prio, 4);
	ut_pev_emit(&e);
	errno = err;
}

/* A pidfd's process (its fdinfo's "Pid:"), as the kernel's wait names it; 0 if unknown. */
static pid_t pidfd_pid(int fd)
{
	char path[48], buf[512], *p;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return 0;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nPid:");
	return p ? (pid_t)strtol(p + 5, NULL, 10) : 0;
}

/* sched_process_wait: a wait for @idt/@id (waitid's terms) starts in this thread. */
static void waited(idtype_t idt, id_t id)
{
	struct ut_pev e;
	char comm[16];
	int32_t pid = 0, prio;
	int err = errno;

	if (!ut_rt.ready || ut_quiet || !ut_procev_on(UT_PEV_WAIT))
		return;
	if (idt == P_PID)
		pid = (int32_t)id;
	else if (idt == P_PGID)
		pid = id ? (int32_t)id : (int32_t)getpgrp();
	else if (idt == P_PIDFD)
		pid = (int32_t)pidfd_pid((int)id);
	ut_procev_comm(comm);
	prio = ut_procev_prio();
	ut_pev_init(&e, UT_PEV_WAIT);
	ut_pev_str(&e, 8, comm);
	ut_pev_put(&e, 12, &pid, 4);
	ut_pev_put(&e, 16, &prio, 4);
	ut_pev_emit(&e);
	errno = err;
}

/* waitpid's pid as waitid's id type and id. */
static idtype_t id_of(pid_t pid, id_t *id)
{
	*id = pid > 0 ? (id_t)pid : pid < -1 ? (id_t)-pid : 0;
	return pid > 0 ? P_PID : pid == -1 ? P_ALL : P_PGID; /* P_PGID 0: the caller's group */
}

__attribute__((visibility("default"))) pid_t wait4(pid_t pid, int *status, int opts,
						   struct rusage *ru)
{
	struct reaped z;
	id_t id;
	idtype_t idt = id_of(pid, &id);
	int st = 0;
	pid_t got;

	if (!ut_procfree_init()) {
		errno = ENOSYS;
		return -1;
	}
	waited(idt, id);
	/* waitpid's options are waitid's but for WEXITED, implied (WUNTRACED is WSTOPPED) */
	if (peek(idt, id, opts | WEXITED, &z))
		return -1;
	got = real_wait4(pid, &st, opts, ru);
	if (got > 0 && (WIFEXITED(st) || WIFSIGNALED(st)))
		reaped(&z, got);
	if (status && got > 0)
		*status = st;
	return got;
}

__attribute__((visibility("default"))) pid_t waitpid(pid_t pid, int *status, int opts)
{
	return wait4(pid, status, opts, NULL);
}

__attribute__((visibility("default"))) pid_t wait(int *status)
{
	return wait4(-1, status, 0, NULL);
}

__attribute__((visibility("default"))) pid_t wait3(int *status, int opts, struct rusage *ru)
{
	return wait4(-1, status, opts, ru);
}

__attribute__((visibility("default"))) int waitid(idtype_t idt, id_t id, siginfo_t *si, int opts)
{
	struct reaped z;
	int ret;

	if (!ut_procfree_init()) {
		errno = ENOSYS;
		return -1;
	}
	waited(idt, id);
	if (peek(idt, id, opts, &z))
		return -1;
	ret = real_waitid(idt, id, si, opts);
	if (!ret && si && (si->si_code == CLD_EXITED || si->si_code == CLD_KILLED ||
			   si->si_code == CLD_DUMPED))
		reaped(&z, si->si_pid);
	return ret;
}
