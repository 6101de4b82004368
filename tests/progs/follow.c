// SPDX-License-Identifier: MIT
/*
 * follow MODE: runs single.<style> (found next to itself) once as a child,
 * started the way MODE says, waits for it, and prints its status.
 *   spawn        posix_spawn with environ
 *   spawn-env    posix_spawn with an environment of its own (PATH only: no
 *                LD_PRELOAD, no UTRACE_*)
 *   spawnp-env   posix_spawnp by name (PATH set to its directory), likewise
 *   system       system()
 *   vfork-env    vfork, then execve with an empty environment
 *   execle       fork, then execle with an empty environment
 *   env-i        fork, then execvp("env", "-i", single): env runs it with an
 *                empty environment
 *   orphan       posix_spawn with an empty environment, and no wait: the
 *                child may outlive this program (prints status 0)
 *   exec-cleared unsetenv("LD_PRELOAD") and every UTRACE_*, then execv
 *                (single replaces this program: no fl_after)
 * Calls fl_before once first and fl_after(status) once at the end.
 */
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progs.h"

DEFINE_SINK;

NOINLINE void fl_before(void)
{
	SINK(1);
}

NOINLINE void fl_after(int st)
{
	SINK(st);
}

static char dir[PATH_MAX], name[PATH_MAX], target[2 * PATH_MAX];

/* single.<style> next to this program: dir, name and full path. */
NOINLINE static int find_single(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash, *dot;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	dot = strchr(slash + 1, '.');
	if (!dot)
		return -1;
	*slash = '\0';
	snprintf(dir, sizeof(dir), "%s", exe);
	snprintf(name, sizeof(name), "single%s", dot);
	snprintf(target, sizeof(target), "%s/%s", dir, name);
	return 0;
}

NOINLINE static void clear_env(void)
{
	extern char **environ;

	unsetenv("LD_PRELOAD");
	for (int again = 1; again;) {
		again = 0;
		for (char **e = environ; *e; e++)
			if (!strncmp(*e, "UTRACE_", 7)) {
				char var[256];

				snprintf(var, sizeof(var), "%.*s", (int)strcspn(*e, "="), *e);
				unsetenv(var);
				again = 1;
				break;
			}
	}
}

NOINLINE static int run(const char *mode)
{
	extern char **environ;
	char path[PATH_MAX + 8];
	char *args[] = {target, NULL}, *byname[] = {name, NULL};
	char *envp[] = {path, NULL}, *none[] = {NULL};
	int st = -1;
	pid_t p = -1;

	snprintf(path, sizeof(path), "PATH=%s", dir);
	if (!strcmp(mode, "spawn")) {
		if (posix_spawn(&p, target, NULL, NULL, args, environ))
			return -1;
	} else if (!strcmp(mode, "spawn-env")) {
		if (posix_spawn(&p, target, NULL, NULL, args, envp))
			return -1;
	} else if (!strcmp(mode, "orphan")) {
		return posix_spawn(&p, target, NULL, NULL, args, none) ? -1 : 0;
	} else if (!strcmp(mode, "spawnp-env")) {
		setenv("PATH", dir, 1); /* posix_spawnp searches the caller's PATH */
		if (posix_spawnp(&p, name, NULL, NULL, byname, envp))
			return -1;
	} else if (!strcmp(mode, "system")) {
		return system(target);
	} else if (!strcmp(mode, "vfork-env")) {
		p = vfork();
		if (p == 0) {
			execve(target, args, none);
			_exit(127);
		}
	} else if (!strcmp(mode, "execle") || !strcmp(mode, "env-i")) {
		p = fork();
		if (p == 0 && !strcmp(mode, "execle"))
			execle(target, target, (char *)NULL, none);
		if (p == 0)
			execlp("env", "env", "-i", target, (char *)NULL);
		if (p == 0)
			_exit(127);
	} else if (!strcmp(mode, "exec-cleared")) {
		clear_env();
		execv(target, args);
		return -1;
	}
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return st;
}

int main(int argc, char **argv)
{
	int st;

	if (argc != 2 || find_single())
		return 2;
	fl_before();
	fflush(stdout);
	/* -pg programs' ITIMER_PROF survives exec: see exec.c */
	setitimer(ITIMER_PROF, &(struct itimerval){{0, 0}, {0, 0}}, NULL);
	st = run(argv[1]);
	fl_after(st);
	printf("%s: %d\n", argv[1], st);
	return st == 0 ? 0 : 1;
}
