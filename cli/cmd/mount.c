// SPDX-License-Identifier: MIT
/*
 * utrace mount DIR / utrace umount DIR: the kernel's tracefs for the traced
 * processes of the user, as a FUSE file system (tracefs/).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tracefs/tracefs.h"

const char ut_help_mount[] =
	"usage: utrace mount [-f] [-d] DIR\n"
	"\n"
	"Mount the kernel's tracing directory (tracefs) for your traced processes\n"
	"on DIR: available_tracers, current_tracer, tracing_on, trace, trace_pipe,\n"
	"set_ftrace_filter, options/... act on every process running with\n"
	"libutrace.so and on those started later; processes/PID/ has the same\n"
	"files for one process (also after it died).  Use it as you would\n"
	"/sys/kernel/tracing: `cd DIR; echo function > current_tracer; cat trace`.\n"
	"The run-time directory is $UTRACE_DIR (default /dev/shm/utrace-UID); it\n"
	"is refused if another user owns it or group or others may write it.\n"
	"The mount is ready when the command returns; it then serves in the\n"
	"background until 'utrace umount DIR' (or fusermount3 -u DIR).\n"
	"A dead mount on DIR (its daemon killed) is replaced; a live one is refused.\n"
	"See docs/tracefs.md for the files and how they differ from the kernel's.\n"
	"\n"
	"  -f   stay in the foreground\n"
	"  -d   FUSE debug output (implies -f)\n";

const char ut_help_umount[] = "usage: utrace umount DIR\n\n"
			      "Unmount a tracefs mounted by 'utrace mount' (fusermount3 -u DIR).\n";

int cmd_mount(int argc, char **argv)
{
	static const struct option longopts[] = {{"foreground", no_argument, NULL, 'f'},
						 {"debug", no_argument, NULL, 'd'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	bool foreground = false, debug = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "fdh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			foreground = true;
			break;
		case 'd':
			debug = foreground = true;
			break;
		case 'h':
			fputs(ut_help_mount, stdout);
			return 0;
		default:
			ut_usage_die("bad usage (see 'utrace help mount')");
		}
	}
	if (optind != argc - 1)
		ut_usage_die("mount where? (see 'utrace help mount')");
	if (access("/dev/fuse", R_OK | W_OK)) {
		ut_err("mount: /dev/fuse: %s (FUSE is needed)", strerror(errno));
		return 1;
	}
	/* its own library calls are not functions of the processes (tracefs/sitekinds.c) */
	if (ut_find_runtime(tfs_runtime, sizeof(tfs_runtime)))
		tfs_runtime[0] = '\0';
	return tfs_main(argv[optind], foreground, debug);
}

int cmd_umount(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(ut_help_umount, stdout);
		return 0;
	}
	if (argc != 2)
		ut_usage_die("umount what? (see 'utrace help umount')");
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ut_err("umount: fork: %s", strerror(errno));
		return 1;
	}
	if (!pid) {
		execlp("fusermount3", "fusermount3", "-u", "--", argv[1], (char *)NULL);
		ut_err("umount: fusermount3: %s", strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
