// SPDX-License-Identifier: MIT
/*
 * utrace stat: the function profiler's tables of running processes.
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
#include "utrace/read.h"

const char ut_help_stat[] =
	"usage: utrace stat [-P PID]... [-O nograph-time] [-O nosym-demangle]\n\n"
	"Print the function profiler's tables (trace_stat/function: Function, Hit,\n"
	"Time, Avg, s^2) of running or dead processes that have the profiler on\n"
	"('utrace start --profile'): all threads merged, then one table per thread.\n";

int cmd_stat(int argc, char **argv)
{
	char rundir[PATH_MAX];
	struct ut_targets t = {0};
	bool graph_time = true, demangle = true;
	unsigned names;
	int opt, ret;

	optind = 1;
	while ((opt = getopt(argc, argv, "P:O:h")) != -1) {
		if (opt == 'P')
			ut_tgt_add(&t, optarg);
		else if (opt == 'O' && !strcmp(optarg, "nograph-time"))
			graph_time = false;
		else if (opt == 'O' && !strcmp(optarg, "graph-time"))
			graph_time = true;
		else if (opt == 'O' && !strcmp(optarg, "nosym-demangle"))
			demangle = false;
		else if (opt == 'O' && !strcmp(optarg, "sym-demangle"))
			demangle = true;
		else if (opt == 'h')
			return fputs(ut_help_stat, stdout) < 0;
		else if (opt == 'O')
			ut_usage_die("-O %s: stat takes -O [no]graph-time and -O [no]sym-demangle only (sleep-time is the "
				     "processes': start --profile -O nosleep-time)", optarg);
		else
			ut_usage_die("bad usage (see 'utrace help stat')");
	}
	if (optind < argc)
		ut_usage_die("unexpected argument '%s'", argv[optind]);
	ut_cli_rundir(rundir, sizeof(rundir));
	for (size_t i = 0; i < t.n; i++) {
		struct ut_live_sess s;

		int r = ut_live_find(rundir, t.pids[i], &s);

		if (r) {
			ut_err("process %d: %s", t.pids[i],
			       r == -EPERM ? ut_live_strerror(r) : "no utrace session");
			return 1;
		}
	}
	names = UT_STAT_WIDE | (demangle ? UT_STAT_DEMANGLE : 0);
	ret = ut_live_stat(rundir, t.n ? t.pids : NULL, t.n, stdout, graph_time, names, 0, -1);
	if (ret)
		ut_err("stat: %s", ut_live_strerror(ret));
	return ret ? 1 : 0;
}
