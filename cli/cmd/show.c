// SPDX-License-Identifier: MIT
/*
 * utrace show: running processes' trace printed, or followed (--pipe), as
 * trace-cmd show prints the trace file.  Shares its options with extract.
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
#include <signal.h>
#include <time.h>

#include "common/output/output.h"
#include "utrace/read.h"

const char ut_help_show[] =
	"usage: utrace show [-P PID]... [-B NAME] [-O OPTION]... [--pipe]\n\n"
	"Print the trace of running (or dead) traced processes in the kernel's\n"
	"`trace` format, all processes merged in time order, without consuming it.\n"
	"  -B NAME    instance NAME's trace instead of the top level's\n"
	"  -O OPTION  output option, as for report (e.g. func-no-repeats, sym-offset)\n"
	"  --pipe     trace_pipe: print events as they come, consuming them, no\n"
	"             header; until Ctrl-C (with -P: or until those processes exit)\n";

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* show --pipe: trace_pipe until the processes are gone or Ctrl-C. */
static int follow(const char *rundir, int inst, const struct ut_targets *t, const char *const *words,
		  int nwords)
{
	struct sigaction act = {.sa_handler = on_interrupt};
	struct ut_live_stream *st =
		ut_live_stream_new(rundir, inst, t->n ? t->pids : NULL, t->n, words, nwords);
	bool alive = true;
	long n = 0;

	if (!st)
		return -ENOMEM;
	ut_live_stream_start(st); /* the programs never wait for the terminal */
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	while (!interrupted && n >= 0) {
		struct timespec ts = {0, 10L * 1000 * 1000};

		n = ut_live_stream_read(st, stdout, false, &alive);
		fflush(stdout);
		if (t->n && !alive && n == 0)
			break; /* -P: its processes are gone (else: wait for new ones) */
		if (n == 0)
			nanosleep(&ts, NULL);
	}
	if (n >= 0)
		n = ut_live_stream_read(st, stdout, true, &alive);
	fflush(stdout);
	ut_live_stream_free(st);
	return n < 0 ? (int)n : 0;
}

/* Each -P process has a session of ours; else say why (false). */
static bool pids_found(const char *rundir, const struct ut_targets *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct ut_live_sess s;
		int r = ut_live_find(rundir, t->pids[i], &s);

		if (r) {
			ut_err("process %d: %s", t->pids[i],
			       r == -EACCES  ? "permission denied (another user's process)"
			       : r == -EPERM ? ut_live_strerror(r)
					     : "no utrace session");
			return false;
		}
	}
	return true;
}

/* Dead processes' sessions are done with once extracted. */
static void forget_dead(const char *rundir, const struct ut_targets *t)
{
	struct ut_live_sess *v;
	long n = ut_tgt_resolve(rundir, t, &v, true);

	for (long i = 0; i < n; i++)
		if (!v[i].alive)
			ut_live_remove(v[i].dir);
	if (n >= 0)
		free(v);
	ut_live_prune_symbols(rundir);
}

/* -P and -o/-O for show and extract. */
int ut_show_extract(int argc, char **argv, bool extract)
{
	static const struct option longopts[] = {{"pipe", no_argument, NULL, 'p'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	char rundir[PATH_MAX];
	const char *output = "trace.dat", *optwords[UT_MAX_OPT_WORDS], *inst = NULL;
	struct ut_targets t = {0};
	struct ut_opts opts;
	int opt, nwords = 0, ret, k;
	bool pipe = false;

	ut_opts_init(&opts, 0);
	optind = 1;
	while ((opt = getopt_long(argc, argv, extract ? "P:B:o:h" : "P:B:O:h", longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'P':
			ut_tgt_add(&t, optarg);
			break;
		case 'B':
			inst = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'O':
			ut_opt_word(&opts, optarg, optwords, &nwords);
			break;
		case 'p':
			if (extract)
				ut_usage_die("--pipe is for show");
			pipe = true;
			break;
		case 'h':
			fputs(extract ? ut_help_extract : ut_help_show, stdout);
			return 0;
		default:
			ut_usage_die("bad usage (see 'utrace help %s')", argv[0]);
		}
	}
	if (optind < argc)
		ut_usage_die("unexpected argument '%s'", argv[optind]);
	ut_cli_rundir(rundir, sizeof(rundir));
	if (!pids_found(rundir, &t))
		return 1;
	k = inst ? ut_tgt_instance(rundir, inst) : 0;
	if (pipe)
		ret = follow(rundir, k, &t, optwords, nwords);
	else if (extract)
		ret = ut_live_snapshot(rundir, k, t.n ? t.pids : NULL, t.n, false, output,
					    opts.bits);
	else
		ret = ut_live_print(rundir, k, t.n ? t.pids : NULL, t.n, pipe, stdout, optwords,
					 nwords, !pipe);
	if (ret == -ESRCH)
		ut_err("no traced process");
	else if (ret)
		ut_err("%s", ut_live_strerror(ret));
	if (!ret && extract)
		forget_dead(rundir, &t);
	return ret ? 1 : 0;
}

int cmd_show(int argc, char **argv)
{
	return ut_show_extract(argc, argv, false);
}
