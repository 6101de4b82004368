// SPDX-License-Identifier: MIT
/*
 * Following the programs a recorded process starts.  Under `utrace record`
 * every process runs with LD_PRELOAD naming libutrace.so and UTRACE_DIR
 * naming the recording's run-time directory, whose "config" (saying
 * "follow 1") configures it; a program it execs is traced when that
 * environment reaches it.  fork, vfork, system() and the exec calls
 * that pass `environ` keep it, but a program may give its children an
 * environment of its own (execve, execle, posix_spawn with an envp, `env -i`,
 * a sandbox clearing the environment).  The exec family and posix_spawn are
 * interposed here to put back what such an environment lacks: libutrace.so
 * first in LD_PRELOAD, and each of the variables record hands over that the
 * process started with and it does not set itself (see handed_over; the
 * configuration is in the run-time directory, not in the environment).  Outside `utrace record` (a program preloading
 * libutrace.so by hand: no "follow" in its configuration) environments pass
 * unchanged.
 *
 * The new environment is built on the stack: a vfork child (posix_spawn's
 * is one) must not call malloc.  The real functions are looked up at
 * start-up for the same reason.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "libutrace/internal.h"

#define MAX_SAVED 32

/*
 * What a followed program needs besides LD_PRELOAD: the run-time directory
 * (its "config" says the rest), the recorder's TSC conversion, and the
 * user's wish for silence.
 */
static const char *const handed_over[] = {"UTRACE_DIR=", UT_CLOCK_ENV "=", "UTRACE_QUIET="};

static char *saved[MAX_SAVED]; /* "UTRACE_X=value", as the process started */
static size_t nr_saved;
static char self[PATH_MAX]; /* libutrace.so's path */

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static execve_fn real_execve;
static execvpe_fn real_execvpe;
static execveat_fn real_execveat;
static fexecve_fn real_fexecve;
static spawn_fn real_spawn, real_spawnp;

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void resolve(void)
{
	if (__atomic_load_n(&real_execve, __ATOMIC_ACQUIRE))
		return;
	real_execvpe = (execvpe_fn)next("execvpe");
	real_execveat = (execveat_fn)next("execveat");
	real_fexecve = (fexecve_fn)next("fexecve");
	real_spawn = (spawn_fn)next("posix_spawn");
	real_spawnp = (spawn_fn)next("posix_spawnp");
	__atomic_store_n(&real_execve, (execve_fn)next("execve"), __ATOMIC_RELEASE);
}

/* At start-up, before anything else: the real exec functions. */
void ut_follow_init(void)
{
	resolve();
}

/**
 * ut_follow_children - remember what children need to be traced too
 *
 * Called once the configuration is read; @follow: it says "follow 1"
 * (`utrace record`'s).
 */
void ut_follow_children(bool follow)
{
	Dl_info info;

	if (!follow || !dladdr((void *)ut_follow_init, &info) || !info.dli_fname ||
	    info.dli_fname[0] != '/' ||
	    snprintf(self, sizeof(self), "%s", info.dli_fname) >= (int)sizeof(self)) {
		self[0] = '\0';
		return;
	}
	for (char **e = environ; e && *e && nr_saved < MAX_SAVED; e++)
		for (size_t i = 0; i < sizeof(handed_over) / sizeof(handed_over[0]); i++)
			if (!strncmp(*e, handed_over[i], strlen(handed_over[i])) &&
			    (saved[nr_saved] = strdup(*e)))
				nr_saved++;
}

static const char *find(char *const envp[], const char *entry)
{
	size_t n = strcspn(entry, "=") + 1;

	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], entry, n))
			return envp[i];
	return NULL;
}

/* Does LD_PRELOAD's value @v (separated by colons or blanks) name us? */
static bool preloads_us(const char *v)
{
	size_t n = strlen(self);

	for (const char *p = strstr(v, self); p; p = strstr(p + 1, self))
		if ((p == v || strchr(": \t", p[-1])) && (!p[n] || strchr(": \t", p[n])))
			return true;
	return false;
}

static size_t count(char *const envp[])
{
	size_t n = 0;

	while (envp && envp[n])
		n++;
	return n;
}

/* Room for the fixed environment: the entries, ours, NULL. */
#define ENV_ROOM(envp) (count(envp) + nr_saved + 2)
/* Room for the LD_PRELOAD entry: ours and the old value. */
#define PRELOAD_ROOM(envp) (sizeof("LD_PRELOAD=:") + strlen(self) + preload_len(envp))

static size_t preload_len(char *const envp[])
{
	const char *old = find(envp, "LD_PRELOAD=");

	return old ? strlen(old) : 0;
}

/*
 * @envp with what a traced child needs, in @vec (ENV_ROOM entries) and
 * @pre (PRELOAD_ROOM bytes); @envp itself when it lacks nothing.
 */
static char *const *fix_env(char *const envp[], char **vec, char *pre, size_t prelen)
{
	const char *old;
	size_t n = 0;
	bool changed = false;

	if (!self[0])
		return envp;
	old = find(envp, "LD_PRELOAD=");
	for (size_t i = 0; envp && envp[i]; i++)
		if (envp[i] != old)
			vec[n++] = envp[i];
	if (old && preloads_us(old + 11)) {
		vec[n++] = (char *)old;
	} else {
		snprintf(pre, prelen, "LD_PRELOAD=%s%s%s", self, old && old[11] ? ":" : "",
			 old ? old + 11 : "");
		vec[n++] = pre;
		changed = true;
	}
	for (size_t i = 0; i < nr_saved; i++)
		if (!find(envp, saved[i])) {
			vec[n++] = saved[i];
			changed = true;
		}
	vec[n] = NULL;
	return changed ? vec : envp;
}

/* Declares `fixed`: @envp as a traced child should get it. */
#define FIX_ENV(envp)                                                                              \
	char *vec_[ENV_ROOM(envp)];                                                                \
	char pre_[PRELOAD_ROOM(envp)];                                                             \
	char *const *fixed = fix_env(envp, vec_, pre_, sizeof(pre_))

__attribute__((visibility("default"))) int execve(const char *path, char *const argv[],
						  char *const envp[])
{
	resolve();
	FIX_ENV(envp);
	return real_execve(path, argv, fixed);
}

__attribute__((visibility("default"))) int execvpe(const char *file, char *const argv[],
						   char *const envp[])
{
	resolve();
	FIX_ENV(envp);
	return real_execvpe(file, argv, fixed);
}

__attribute__((visibility("default"))) int execveat(int dirfd, const char *path, char *const argv[],
						    char *const envp[], int flags)
{
	resolve();
	if (!real_execveat) { /* glibc before 2.34 */
		errno = ENOSYS;
		return -1;
	}
	FIX_ENV(envp);
	return real_execveat(dirfd, path, argv, fixed, flags);
}

__attribute__((visibility("default"))) int fexecve(int fd, char *const argv[], char *const envp[])
{
	resolve();
	FIX_ENV(envp);
	return real_fexecve(fd, argv, fixed);
}

/* glibc's execv and execvp reach execve inside libc, past the wrappers above. */
__attribute__((visibility("default"))) int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

__attribute__((visibility("default"))) int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl, execlp, execle: the arguments (and execle's envp after the NULL). */
static size_t count_args(va_list ap)
{
	size_t n = 1;

	while (va_arg(ap, char *))
		n++;
	return n;
}

#define COLLECT_ARGS(arg0, last)                                                                   \
	va_list ap_, cp_;                                                                          \
	va_start(ap_, last);                                                                       \
	va_copy(cp_, ap_);                                                                         \
	size_t n_ = count_args(cp_);                                                               \
	va_end(cp_);                                                                               \
	char *argv_[n_ + 1];                                                                       \
	argv_[0] = (char *)(arg0);                                                                 \
	for (size_t i_ = 1; i_ <= n_; i_++)                                                        \
		argv_[i_] = i_ < n_ ? va_arg(ap_, char *) : NULL;                                  \
	(void)va_arg(ap_, char *) /* the NULL */

__attribute__((visibility("default"))) int execl(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(arg, arg);
	va_end(ap_);
	return execve(path, argv_, environ);
}

__attribute__((visibility("default"))) int execlp(const char *file, const char *arg, ...)
{
	COLLECT_ARGS(arg, arg);
	va_end(ap_);
	return execvpe(file, argv_, environ);
}

__attribute__((visibility("default"))) int execle(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(arg, arg);
	char *const *envp = va_arg(ap_, char *const *);

	va_end(ap_);
	return execve(path, argv_, envp);
}

/* posix_spawn made a child: sched_process_fork (libutrace/procevents.c). */
static int spawned(int ret, const pid_t *pid)
{
	if (!ret && pid)
		ut_procev_forked(*pid);
	return ret;
}

__attribute__((visibility("default"))) int posix_spawn(pid_t *pid, const char *path,
						       const posix_spawn_file_actions_t *actions,
						       const posix_spawnattr_t *attr,
						       char *const argv[], char *const envp[])
{
	resolve();
	FIX_ENV(envp);
	return spawned(real_spawn(pid, path, actions, attr, argv, fixed), pid);
}

__attribute__((visibility("default"))) int posix_spawnp(pid_t *pid, const char *file,
							const posix_spawn_file_actions_t *actions,
							const posix_spawnattr_t *attr,
							char *const argv[], char *const envp[])
{
	resolve();
	FIX_ENV(envp);
	return spawned(real_spawnp(pid, file, actions, attr, argv, fixed), pid);
}
