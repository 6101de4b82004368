// SPDX-License-Identifier: MIT
/*
 * utrace marker: write into trace_marker of a running process.
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
#include "utrace/abi.h"
#include "utrace/read.h"

const char ut_help_marker[] =
	"usage: utrace marker [-P PID] TEXT...\n\n"
	"trace_marker: write TEXT (the words joined by spaces) into the trace as\n"
	"the kernel's tracing_mark_write event of this shell's task -- into process\n"
	"PID's trace, or without -P into the user's (shown with every process).\n";

int cmd_marker(int argc, char **argv)
{
	char rundir[PATH_MAX], dir[PATH_MAX], text[UT_REC_MARKER_MAX + 1] = "", comm[17] = "";
	struct ut_targets t = {0};
	size_t len = 0;
	int opt, ret;
	FILE *f;

	optind = 1;
	while ((opt = getopt(argc, argv, "+P:h")) != -1) {
		if (opt == 'P')
			ut_tgt_add(&t, optarg);
		else if (opt == 'h')
			return fputs(ut_help_marker, stdout) < 0;
		else
			ut_usage_die("bad usage (see 'utrace help marker')");
	}
	if (optind >= argc)
		ut_usage_die("no text (see 'utrace help marker')");
	if (t.n > 1)
		ut_usage_die("one -P at most");
	for (int i = optind; i < argc; i++)
		len += (size_t)snprintf(text + len, len < sizeof(text) ? sizeof(text) - len : 0,
					"%s%s", i > optind ? " " : "", argv[i]);
	ut_cli_rundir(rundir, sizeof(rundir));
	if (t.n) {
		struct ut_live_sess s;

		ret = ut_live_find(rundir, t.pids[0], &s);
		if (!ret)
			snprintf(dir, sizeof(dir), "%s", s.dir);
	} else {
		ret = ut_live_marker_session(rundir, dir, sizeof(dir));
	}
	/* the writing task is the one that ran us, as for `echo > trace_marker` */
	f = fopen("/proc/self/comm", "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	if (!ret)
		ret = ut_live_marker(dir, 0, (int32_t)getpid(), comm, text);
	if (ret)
		ut_err("marker: %s", ut_live_strerror(ret));
	return ret ? 1 : 0;
}
