// SPDX-License-Identifier: MIT
/*
 * utrace: the command-line front end.  One table maps each sub-command to
 * cli/cmd/<name>.c, as trace-cmd does.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/pfe_fixup.h"
#include "common/control.h"

const struct ut_command ut_commands[] = {
	{"record", cmd_record, "run a program and record its trace to a file", ut_help_record},
	{"profile", cmd_profile, "run a program under the function profiler, print trace_stat",
	 ut_help_profile},
	{"report", cmd_report, "print a recorded trace in the kernel's format", ut_help_report},
	{"start", cmd_start, "start tracing running processes (and new ones)", ut_help_start},
	{"stop", cmd_stop, "stop recording (tracing_on = 0)", ut_help_stop},
	{"restart", cmd_restart, "resume recording after stop", ut_help_restart},
	{"show", cmd_show, "print the trace of running processes", ut_help_show},
	{"extract", cmd_extract, "write running or dead processes' traces to trace.dat",
	 ut_help_extract},
	{"reset", cmd_reset, "every site back to a nop, buffers emptied", ut_help_reset},
	{"ps", cmd_ps, "list traced processes", ut_help_ps},
	{"mount", cmd_mount, "mount a tracefs for your traced processes (FUSE)", ut_help_mount},
	{"umount", cmd_umount, "unmount a tracefs mounted by 'utrace mount'", ut_help_umount},
	{"stat", cmd_stat, "print running processes' function profiler tables", ut_help_stat},
	{"marker", cmd_marker, "write a text into the trace (trace_marker)", ut_help_marker},
	{"list", cmd_list, "list tracers, options, or a program's traceable functions",
	 ut_help_list},
	{"cflags", cmd_cflags, "print the compiler flags that give a program sites", ut_help_cflags},
	{"cc", cmd_cc, "run cc with those flags (CC='utrace cc' make; also c++ gcc g++ clang clang++)",
	 ut_help_cflags},
	{"c++", cmd_cc, NULL, ut_help_cflags},
	{"gcc", cmd_cc, NULL, ut_help_cflags},
	{"g++", cmd_cc, NULL, ut_help_cflags},
	{"clang", cmd_cc, NULL, ut_help_cflags},
	{"clang++", cmd_cc, NULL, ut_help_cflags},
	{"help", cmd_help, "show help for a command", ut_help_help},
	{NULL, NULL, NULL, NULL},
};

const struct ut_command *ut_command_find(const char *name)
{
	for (const struct ut_command *c = ut_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void ut_err(const char *fmt, ...)
{
	va_list ap;

	fputs("utrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ut_usage_die(const char *fmt, ...)
{
	va_list ap;

	fputs("utrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(UT_EXIT_USAGE);
}

char *ut_cli_rundir(char *buf, size_t len)
{
	int fd = ut_live_root(ut_rundir(buf, len), false);

	if (fd >= 0)
		close(fd);
	else if (fd == -EPERM) {
		ut_err("%s", ut_live_strerror(fd));
		exit(1);
	}
	return buf;
}

/* The reader library's warnings, printed as the CLI prints its own. */
static void print_warning(const char *msg)
{
	ut_err("%s", msg);
}

/* At exit, however the command ended: pages of buffers cut short while read. */
static void say_bus_faults(void)
{
	unsigned long n = ut_read_bus_faults();

	if (n)
		ut_err("warning: %lu page%s of trace buffers cut short while being read (a "
		       "buffer file truncated under the reader): the events there are lost",
		       n, n == 1 ? "" : "s");
}

int main(int argc, char **argv)
{
	const struct ut_command *c;
	const char *base;

	base = strrchr(argv[0], '/');
	if (!strcmp(base ? base + 1 : argv[0], "as"))
		return ut_as_main(argc, argv); /* gcc -B: cli/pfe_fixup.c */
	ut_read_set_warn(print_warning);
	if (ut_read_guard_bus() == 0)
		atexit(say_bus_faults);
	if (argc < 2) {
		cmd_help(1, argv);
		return UT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv);
	if (!strcmp(argv[1], "--version")) {
		puts("utrace 0.1");
		return 0;
	}
	c = ut_command_find(argv[1]);
	if (!c)
		ut_usage_die("unknown command '%s' (see 'utrace help')", argv[1]);
	return c->run(argc - 1, argv + 1);
}
