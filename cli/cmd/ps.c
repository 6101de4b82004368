// SPDX-License-Identifier: MIT
/*
 * utrace ps: the traced processes and their state.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/targets.h"
#include "common/control.h"
#include "common/names.h"
#include "utrace/read.h"

const char ut_help_ps[] =
	"usage: utrace ps [-v]\n\nList traced processes: pid, command, tracer, tracing_on,\n"
	"thread slots, the KiB its thread buffers hold (in /dev/shm; a slot and its\n"
	"buffer are reused by a new thread once their data is taken), and whether it\n"
	"still runs.  Exited processes are kept while their data may be wanted (see\n"
	"docs/shm-abi.md, Dead processes).  -v adds how long the process took to\n"
	"apply its last configuration change (patching included), in microseconds.\n";

int cmd_ps(int argc, char **argv)
{
	char rundir[PATH_MAX];
	struct ut_live_sess *v;
	bool verbose = false;
	long n;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return fputs(ut_help_ps, stdout) < 0;
	if (argc > 1 && !strcmp(argv[1], "-v"))
		verbose = true;
	else if (argc > 1)
		ut_usage_die("unexpected argument '%s'", argv[1]);
	ut_cli_rundir(rundir, sizeof(rundir));
	n = ut_live_list(rundir, &v);
	if (n < 0) {
		if (n == -EPERM) /* the refusal names its path */
			ut_err("%s", ut_live_strerror((int)n));
		else
			ut_err("%s: %s", rundir, strerror((int)-n));
		return 1;
	}
	printf("%7s  %-16s %-15s %-10s %7s %9s  %s\n", "PID", "COMMAND", "TRACER", "TRACING_ON",
	       "THREADS", "BUF_KB", verbose ? "STATE    APPLY_US" : "STATE");
	for (long i = 0; i < n; i++) {
		if (v[i].markers)
			continue;
		printf("%7d  %-16s %-15s %-10d %7u %9llu  %s", v[i].pid, v[i].comm,
		       v[i].tracer < (uint32_t)UT_NR_TRACERS ? ut_tracer_names[v[i].tracer] : "?",
		       v[i].tracing_on, v[i].nr_threads, (unsigned long long)v[i].buf_bytes / 1024,
		       v[i].alive ? "running" : "exited");
		if (verbose)
			printf("%s  %8.1f", v[i].alive ? "" : " ", (double)v[i].apply_ns / 1000);
		putchar('\n');
	}
	free(v);
	return 0;
}
