// SPDX-License-Identifier: MIT
/*
 * utrace reset: running processes back to nop, buffers cleared, dead
 * sessions removed (trace-cmd reset).
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
#include "common/orphans.h"
#include "utrace/read.h"

const char ut_help_reset[] =
	"usage: utrace reset [-P PID]... [-B NAME]\n\n"
	"Back to the defaults: tracer nop (every site a nop), filters cleared,\n"
	"buffers emptied; removes the sessions of processes that have exited (a\n"
	"process is gone by its pid and start time: one killed with SIGKILL goes at\n"
	"once, its agent not waited for), and, in the default run-time directory\n"
	"(no UTRACE_DIR), the directories of recordings whose recorder was killed\n"
	"once their processes are gone (until then\n"
	"'UTRACE_DIR=/dev/shm/utrace-UID/rec.XXXXXX utrace extract' recovers them).\n"
	"-B NAME removes instance NAME instead (every process stops tracing for it).\n";

int cmd_reset(int argc, char **argv)
{
	char rundir[PATH_MAX], err[256];
	struct ut_targets t = {0};
	struct ut_live_sess *v;
	struct ut_cfg c;
	const char *inst = NULL;
	int ret = 0;
	long n;

	if (ut_tgt_parse(argc, argv, ut_help_reset, &t, &inst))
		return 0;
	ut_cli_rundir(rundir, sizeof(rundir));
	if (inst) { /* the instance goes away */
		ret = ut_inst_remove(rundir, inst);
		if (ret)
			ut_err("instance %s: %s", inst, ut_live_strerror(ret));
		return ret ? 1 : 0;
	}
	ut_cfg_init(&c);
	n = ut_tgt_resolve(rundir, &t, &v, true);
	if (n < 0)
		return ut_tgt_exit_for((int)n);
	for (long i = 0; v && i < n; i++) {
		if (!v[i].alive) {
			ut_live_remove(v[i].dir);
			continue;
		}
		int r = ut_live_set_config(v[i].dir, &c, err, sizeof(err));

		if (r && r != -ESRCH) {
			ut_err("process %d: %s", v[i].pid, err);
			ret = 1;
		}
		ut_live_clear(v[i].dir, 0);
	}
	if (!t.n) {
		char root[64];

		ut_live_set_template(rundir, 0, &c);
		/*
		 * Recordings whose recorder was killed, and their processes gone:
		 * they live in the default run-time directory, so only a reset of
		 * that one removes them (UTRACE_DIR=X utrace reset touches X only).
		 */
		snprintf(root, sizeof(root), "/dev/shm/utrace-%u", (unsigned)getuid());
		if (!strcmp(rundir, root))
			ut_live_remove_orphans(root);
	}
	free(v);
	ut_live_prune_symbols(rundir);
	return ret;
}
