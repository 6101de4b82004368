// SPDX-License-Identifier: MIT
/*
 * Building programs with sites: `utrace cflags [COMPILER]` prints the flags
 * for the compiler at hand, and `utrace cc|c++|gcc|g++|clang|clang++ ARGS`
 * runs that compiler with them (CC="utrace cc" make), as ccache does.  clang
 * needs -fpatchable-function-entry=5 only; gcc also gets -B DIR, whose `as`
 * is utrace fixing gcc 12's __patchable_function_entries on its way to the
 * assembler (cli/pfe_fixup.c).
 */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/pfe_fixup.h"

#define PFE_FLAG "-fpatchable-function-entry=5"

const char ut_help_cflags[] =
	"usage: utrace cflags [COMPILER]\n"
	"       utrace cc|c++|gcc|g++|clang|clang++ COMPILER-ARGS...\n"
	"\n"
	"cflags prints the flags that give COMPILER's functions sites (default: $CC,\n"
	"else cc); cc, c++, ... run that compiler with them, so that\n"
	"  make CC='utrace cc' CXX='utrace c++'\n"
	"  CXX='utrace c++' ./configure.py --bootstrap      (ninja)\n"
	"build a program utrace traces.  The recipes, per compiler:\n"
	"  clang, clang++   -fpatchable-function-entry=5\n"
	"  gcc, g++         -fpatchable-function-entry=5 -B" "<utrace's libexec>/\n"
	"                   (-B runs utrace as the assembler: g++ 12 puts every\n"
	"                   entry of an object in one section outside the COMDAT\n"
	"                   groups of template instances and inline constructors,\n"
	"                   which fails the link of real C++ programs with\n"
	"                   \"referenced in section `__patchable_function_entries'\n"
	"                   ... defined in discarded section\"; the fix-up puts each\n"
	"                   entry in its function's group)\n"
	"  any              -pg -mfentry (no -mrecord-mcount, which fails the same\n"
	"                   way): sites are found by their call to __fentry__; a\n"
	"                   traced program neither starts gprof nor writes gmon.out\n"
	"Objects built without the fix-up that fail the link: rebuild them with\n"
	"'utrace c++' (it says so when it sees that failure).  Objects without\n"
	"sites mixed with objects with them: only the latter's functions are\n"
	"traced ('utrace list -f PROG' lists them).\n";

/* The directory whose `as` is this program (Makefile: BUILD/libexec/as -> ../utrace). */
static int libexec_dir(char *buf, size_t len)
{
	char exe[PATH_MAX], as[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	slash[1] = '\0';
	snprintf(as, sizeof(as), "%slibexec/as", exe);
	if (access(as, X_OK))
		return -ENOENT;
	return snprintf(buf, len, "%slibexec/", exe) < (int)len ? 0 : -ENAMETOOLONG;
}

/* Run @argv with stdout into @out (its first @len - 1 bytes kept); its exit status or -1. */
static int run_capture(char *const argv[], char *out, size_t len)
{
	posix_spawn_file_actions_t fa;
	int fds[2], status = -1;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1 /* O_WRONLY */, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	while (pid > 0 && (n = read(fds[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		return WEXITSTATUS(status);
	return -1;
}

/* Is @cc clang (its --version says so), rather than gcc? */
static bool is_clang(const char *cc)
{
	char *argv[] = {(char *)cc, "--version", NULL};
	char out[512];

	if (run_capture(argv, out, sizeof(out)) != 0)
		return strstr(cc, "clang") != NULL;
	return strstr(out, "clang") != NULL;
}

/* The flags for @cc into @buf; 0, or -ENOENT when gcc's fix-up is missing. */
static int flags_for(const char *cc, char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (is_clang(cc)) {
		snprintf(buf, len, PFE_FLAG);
		return 0;
	}
	if (libexec_dir(dir, sizeof(dir)))
		return -ENOENT;
	snprintf(buf, len, PFE_FLAG " -B%s", dir);
	return 0;
}

static const char *default_cc(void)
{
	const char *cc = getenv("CC");

	return cc && *cc && !strchr(cc, ' ') ? cc : "cc";
}

int cmd_cflags(int argc, char **argv)
{
	const char *cc = argc > 1 ? argv[1] : default_cc();
	char flags[PATH_MAX + 64];

	if (argc > 2 || (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
		fputs(ut_help_cflags, argc > 2 ? stderr : stdout);
		return argc > 2 ? UT_EXIT_USAGE : 0;
	}
	if (flags_for(cc, flags, sizeof(flags))) {
		ut_err("%s is gcc and utrace's assembler fix-up (libexec/as beside utrace) is missing; "
		       "use -pg -mfentry (see 'utrace help cflags')", cc);
		return 1;
	}
	puts(flags);
	return 0;
}

/* A line of the compiler's stderr that is g++ 12's link failure. */
static bool is_pfe_link_error(const char *line)
{
	return strstr(line, "`__patchable_function_entries'") && strstr(line, "discarded section");
}

/* Run @argv, its stderr passed through and watched for the link failure; its status. */
static int run_watched(char *const argv[], bool *pfe_error)
{
	posix_spawn_file_actions_t fa;
	char *line = NULL;
	size_t cap = 0;
	int fds[2], status;
	FILE *err;
	pid_t pid;

	if (pipe(fds))
		return 1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	errno = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (errno) {
		ut_err("%s: %s", argv[0], strerror(errno));
		close(fds[0]);
		return 127;
	}
	err = fdopen(fds[0], "r");
	while (err && getline(&line, &cap, err) > 0) {
		fputs(line, stderr);
		*pfe_error |= is_pfe_link_error(line);
	}
	free(line);
	if (err)
		fclose(err);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* utrace cc|c++|gcc|g++|clang|clang++ ARGS: that compiler, with the flags first. */
int cmd_cc(int argc, char **argv)
{
	char flags[PATH_MAX + 64], *saveptr = NULL, **args;
	bool pfe_error = false;
	int n = 0, ret;

	if (flags_for(argv[0], flags, sizeof(flags))) {
		ut_err("%s is gcc and utrace's assembler fix-up (libexec/as beside utrace) is missing", argv[0]);
		return 1;
	}
	args = calloc((size_t)argc + 4, sizeof(*args));
	if (!args)
		return 1;
	args[n++] = argv[0];
	for (char *f = strtok_r(flags, " ", &saveptr); f; f = strtok_r(NULL, " ", &saveptr))
		args[n++] = f;
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	ret = run_watched(args, &pfe_error);
	if (ret && pfe_error)
		ut_err("this link failed on objects compiled by g++ with -fpatchable-function-entry "
		       "but without utrace's fix-up: rebuild them with 'utrace %s' (or CXXFLAGS=\"$(utrace "
		       "cflags %s)\"), or with -pg -mfentry; see 'utrace help cflags'",
		       argv[0], argv[0]);
	free(args);
	return ret;
}
