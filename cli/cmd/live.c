// SPDX-License-Identifier: MIT
/*
 * The live commands, trace-cmd's start/stop/restart/show/extract/reset for
 * running processes, plus ps: they act on every traced process of the user
 * (and the template new processes start with), or with -P on some of them,
 * through each process's agent (common/control.c).
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cfg_opts.h"
#include "cli/cli.h"
#include "common/control.h"
#include "common/names.h"
#include "utrace/abi.h"
#include "common/output/output.h"

const char ut_help_start[] =
	"usage: utrace start [-P PID]... [OPTIONS]\n"
	"\n"
	"Start tracing running processes (their libutrace agent applies the change\n"
	"at once) and, without -P, every process of yours started from now on.\n"
	"Like trace-cmd start, the configuration starts from the defaults, the\n"
	"buffers are cleared and tracing_on is 1 again (also after 'utrace stop').\n"
	"Read the trace with 'utrace show' or 'utrace extract'.\n"
	"\n"
	"  -P PID           only this process (repeatable)\n"
	"  -B NAME          an instance (instances/NAME, made if new): its own\n"
	"                   function tracer, filters and buffers in every process\n"
	"                   (function or nop; -l, -n, -b, -C, --pid, --func-stack,\n"
	"                   -O overwrite)\n"
	"  -p TRACER        function_graph, function or nop (default: function)\n"
	"  -l / -n PATTERN  set_ftrace_filter / set_ftrace_notrace words; repeatable\n"
	"  -g PATTERN       set_graph_function;  --graph-notrace PATTERN\n"
	"  --max-graph-depth N, --thresh US, --func-stack, --profile\n"
	"  --pid TID        set_ftrace_pid: only these threads or processes\n"
	"  -b KB            buffer_size_kb for threads that start from now on\n"
	"  -C CLOCK         trace_clock\n"
	"  -O OPTION        [no]overwrite, [no]func_stack_trace, [no]sleep-time (the\n"
	"                   options a process holds; output options go to show)\n"
	"\n"
	"A pattern that matches no function exits with status 2 and changes nothing.\n";

const char ut_help_stop[] =
	"usage: utrace stop [-P PID]... [-B NAME]\n\n"
	"tracing_on = 0: stop recording (sites stay as they are; 'utrace restart'\n"
	"resumes).  Without -P: every traced process of yours.\n";

const char ut_help_restart[] =
	"usage: utrace restart [-P PID]... [-B NAME]\n\ntracing_on = 1 again after 'utrace stop'\n"
	"(-B: of instance NAME).\n";

const char ut_help_show[] =
	"usage: utrace show [-P PID]... [-B NAME] [-O OPTION]... [--pipe]\n\n"
	"Print the trace of running (or dead) traced processes in the kernel's\n"
	"`trace` format, all processes merged in time order, without consuming it.\n"
	"  -B NAME    instance NAME's trace instead of the top level's\n"
	"  -O OPTION  output option, as for report (e.g. func-no-repeats, sym-offset)\n"
	"  --pipe     trace_pipe: print events as they come, consuming them, no\n"
	"             header; until Ctrl-C (with -P: or until those processes exit)\n";

const char ut_help_extract[] =
	"usage: utrace extract [-P PID]... [-B NAME] [-o FILE]\n\n"
	"Write the trace of running or dead traced processes to a trace.dat (FILE,\n"
	"default trace.dat), readable by 'utrace report' and 'trace-cmd report'.\n"
	"The buffers stay as they are; sessions of processes that have exited are\n"
	"removed once extracted.  This recovers the trace of a process that was\n"
	"killed (even by SIGKILL).\n";

const char ut_help_reset[] =
	"usage: utrace reset [-P PID]... [-B NAME]\n\n"
	"Back to the defaults: tracer nop (every site a nop), filters cleared,\n"
	"buffers emptied; removes the sessions of processes that have exited.\n"
	"-B NAME removes instance NAME instead (every process stops tracing for it).\n";

const char ut_help_stat[] =
	"usage: utrace stat [-P PID]... [-O nograph-time] [-O nosym-demangle]\n\n"
	"Print the function profiler's tables (trace_stat/function: Function, Hit,\n"
	"Time, Avg, s^2) of running or dead processes that have the profiler on\n"
	"('utrace start --profile'): all threads merged, then one table per thread.\n";

const char ut_help_marker[] =
	"usage: utrace marker [-P PID] TEXT...\n\n"
	"trace_marker: write TEXT (the words joined by spaces) into the trace as\n"
	"the kernel's tracing_mark_write event of this shell's task -- into process\n"
	"PID's trace, or without -P into the user's (shown with every process).\n";

const char ut_help_ps[] =
	"usage: utrace ps [-v]\n\nList traced processes: pid, command, tracer, tracing_on,\n"
	"threads, and whether it still runs.  -v adds how long the process took to\n"
	"apply its last configuration change (patching included), in microseconds.\n";

struct targets {
	int32_t pids[256];
	size_t n;
};

static void add_pid(struct targets *t, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v <= 0 || v > 0x7fffffff)
		ut_usage_die("bad pid '%s'", arg);
	if (t->n == sizeof(t->pids) / sizeof(t->pids[0]))
		ut_usage_die("too many -P");
	t->pids[t->n++] = (int32_t)v;
}

/* The sessions of -P (each must exist), or of every live process. */
static long resolve(const char *rundir, const struct targets *t, struct ut_live_sess **out,
		    bool include_dead)
{
	struct ut_live_sess *v = NULL;
	long n = 0;

	*out = NULL;
	if (t->n) {
		v = calloc(t->n, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < t->n; i++) {
			int r = ut_live_find(rundir, t->pids[i], &v[n]);

			if (r == -EACCES) {
				ut_err("process %d: permission denied (another user's process)",
				       t->pids[i]);
				free(v);
				return r;
			}
			if (r == -EPERM) {
				ut_err("%s", ut_live_strerror(r));
				free(v);
				return r;
			}
			if (r) {
				ut_err("process %d: no utrace session (not running with libutrace?)",
				       t->pids[i]);
				free(v);
				return r;
			}
			n++;
		}
	} else {
		struct ut_live_sess *all;
		long m = ut_live_list(rundir, &all);

		if (m < 0) {
			ut_err("%s", ut_live_strerror((int)m));
			return m;
		}
		v = calloc((size_t)m + 1, sizeof(*v));
		for (long i = 0; v && i < m; i++)
			if ((all[i].alive || include_dead) && !all[i].markers)
				v[n++] = all[i];
		free(all);
		if (!v)
			return -ENOMEM;
	}
	*out = v;
	return n;
}

/* -B NAME: the instance's number; dies if there is none. */
static int instance_of(const char *rundir, const char *name)
{
	int k = ut_inst_find(rundir, name);

	if (k < 0)
		ut_usage_die("no instance '%s' (make one with 'utrace start -B %s')", name, name);
	return k;
}

/* stop/restart -B: an instance's tracing_on, in every process and its template. */
static int toggle_instance(const char *rundir, const char *name, bool on)
{
	int k = instance_of(rundir, name), ret;

	ret = ut_inst_set_tracing_on(rundir, k, on);
	if (ret)
		ut_err("instance %s: %s", name, ut_live_strerror(ret));
	return ret ? 1 : 0;
}

static int exit_for(int err)
{
	return err == -EINVAL ? UT_EXIT_USAGE : 1;
}

/* -P PID... and -B NAME; true if -h printed the help. */
static bool parse_pb(int argc, char **argv, const char *help, struct targets *t, const char **inst)
{
	int opt;

	optind = 1;
	while ((opt = getopt(argc, argv, "P:B:h")) != -1) {
		if (opt == 'P') {
			add_pid(t, optarg);
		} else if (opt == 'B') {
			*inst = optarg;
		} else if (opt == 'h') {
			fputs(help, stdout);
			return true;
		} else {
			ut_usage_die("bad usage (see 'utrace help %s')", argv[0]);
		}
	}
	if (optind < argc)
		ut_usage_die("unexpected argument '%s'", argv[optind]);
	return false;
}

/* tracing_on of the targets (and of the template, without -P). */
static int toggle(int argc, char **argv, const char *help, bool on)
{
	char rundir[PATH_MAX];
	struct targets t = {0};
	struct ut_live_sess *v;
	struct ut_cfg c;
	const char *inst = NULL;
	long n;
	int ret = 0;

	if (parse_pb(argc, argv, help, &t, &inst))
		return 0;
	ut_cli_rundir(rundir, sizeof(rundir));
	if (inst)
		return toggle_instance(rundir, inst, on);
	n = resolve(rundir, &t, &v, false);
	if (n < 0)
		return exit_for((int)n);
	for (long i = 0; i < n; i++) {
		int r = ut_live_set_tracing_on(v[i].dir, on);

		if (r) {
			ut_err("process %d: %s", v[i].pid, ut_live_strerror(r));
			ret = 1;
		}
	}
	if (!t.n) {
		int r = ut_live_get_config(rundir, &c);

		c.tracing_on = on;
		if (r != -EPERM) /* a template we may not trust is not edited */
			r = ut_live_set_template(rundir, &c);
		if (r == -EPERM) {
			ut_err("%s", ut_live_strerror(r));
			ret = 1;
		}
		ut_cfg_free(&c);
	}
	free(v);
	return ret;
}

int cmd_stop(int argc, char **argv)
{
	return toggle(argc, argv, ut_help_stop, false);
}

int cmd_restart(int argc, char **argv)
{
	return toggle(argc, argv, ut_help_restart, true);
}

static unsigned long number(const char *arg, const char *what)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (!*arg || *end || *arg == '-')
		ut_usage_die("bad %s '%s'", what, arg);
	return v;
}

/*
 * start -B NAME: the instance (made if new) gets @c in every process and the
 * template, and is on; its buffers start empty.  Instances run the function
 * tracer only.
 */
static int start_instance(const char *rundir, const char *name, const struct targets *t,
			  const struct ut_cfg *c)
{
	struct ut_live_sess *v;
	char err[256];
	int k, ret;
	long n;

	if (t->n)
		ut_usage_die("-B and -P: an instance acts on every process");
	if (c->tracer == UT_TRACER_FUNCTION_GRAPH)
		ut_usage_die("function_graph cannot run in an instance (function or nop)");
	if (c->graph_function || c->graph_notrace || c->profile || c->max_graph_depth ||
	    c->thresh_us)
		ut_usage_die("instances take -p, -l, -n, -b, -C, --pid, --func-stack and -O "
			     "overwrite/func_stack_trace only");
	k = ut_inst_find(rundir, name);
	if (k < 0)
		k = ut_inst_create(rundir, name);
	if (k < 0) {
		ut_err("instance %s: %s", name, ut_live_strerror(k));
		return k == -EINVAL ? UT_EXIT_USAGE : 1;
	}
	ret = ut_inst_set_all(rundir, k, c, err, sizeof(err));
	if (!ret)
		ret = ut_inst_set_tracing_on(rundir, k, true);
	if (ret) {
		ut_err("instance %s: %s", name, err[0] ? err : ut_live_strerror(ret));
		return 1;
	}
	n = ut_live_list(rundir, &v);
	for (long i = 0; v && i < n; i++)
		if (v[i].alive && !v[i].markers)
			ut_live_clear_inst(v[i].dir, k);
	if (n > 0)
		free(v);
	return 0;
}

int cmd_start(int argc, char **argv)
{
	enum { O_PROFILE = UT_CFG_OPT_NEXT, O_TID };
	static const struct option longopts[] = {
		UT_CFG_LONGOPTS,
		{"profile", no_argument, NULL, O_PROFILE},
		{"pid", required_argument, NULL, O_TID},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	char rundir[PATH_MAX], err[256];
	struct targets t = {0};
	struct ut_live_sess *v;
	struct ut_cfg c;
	const char *inst = NULL;
	int opt, ret = 0;
	long n;

	ut_cfg_init(&c);
	c.tracer = UT_TRACER_FUNCTION;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "P:B:" UT_CFG_SHORTOPTS "h", longopts, NULL)) != -1) {
		if (ut_cfg_opt(&c, NULL, opt, optarg))
			continue;
		switch (opt) {
		case 'P':
			add_pid(&t, optarg);
			break;
		case 'B':
			inst = optarg;
			break;
		case O_PROFILE:
			c.profile = true;
			break;
		case O_TID:
			if (c.nr_pids == UT_CFG_MAX_PIDS)
				ut_usage_die("too many --pid");
			c.pids[c.nr_pids++] = (int32_t)number(optarg, "pid");
			break;
		case 'h':
			fputs(ut_help_start, stdout);
			return 0;
		default:
			ut_usage_die("bad usage (see 'utrace help start')");
		}
	}
	if (optind < argc)
		ut_usage_die("unexpected argument '%s'", argv[optind]);
	ut_cli_rundir(rundir, sizeof(rundir));
	ut_cfg_check(&c);
	if (inst) {
		ret = start_instance(rundir, inst, &t, &c);
		ut_cfg_free(&c);
		return ret;
	}
	if (!t.n) {
		ret = ut_live_set_all(rundir, &c, err, sizeof(err));
		if (ret) {
			ut_err("%s", err[0] ? err : ut_live_strerror(ret));
			ut_cfg_free(&c);
			return exit_for(ret);
		}
	}
	n = resolve(rundir, &t, &v, false);
	if (n < 0) {
		ut_cfg_free(&c);
		return exit_for((int)n);
	}
	for (long k = 0; k < n; k++) {
		int r = t.n ? ut_live_set_config(v[k].dir, &c, err, sizeof(err)) : 0;

		if (r) {
			ut_err("process %d: %s", v[k].pid, err);
			ret = exit_for(r);
			continue;
		}
		ut_live_clear(v[k].dir);
		/* trace-cmd's start turns tracing on, also after a stop */
		r = ut_live_set_tracing_on(v[k].dir, true);
		if (r) {
			ut_err("process %d: %s", v[k].pid, strerror(-r));
			ret = 1;
		}
	}
	free(v);
	ut_cfg_free(&c);
	return ret;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* show --pipe: trace_pipe until the processes are gone or Ctrl-C. */
static int follow(const char *rundir, int inst, const struct targets *t, const char *const *words,
		  int nwords)
{
	struct sigaction act = {.sa_handler = on_interrupt};
	struct ut_live_stream *st =
		ut_live_stream_new_inst(rundir, inst, t->n ? t->pids : NULL, t->n, words, nwords);
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

/* -P and -o/-O for show and extract. */
static int read_out(int argc, char **argv, bool extract)
{
	static const struct option longopts[] = {{"pipe", no_argument, NULL, 'p'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	char rundir[PATH_MAX];
	const char *output = "trace.dat", *optwords[UT_MAX_OPT_WORDS], *inst = NULL;
	struct targets t = {0};
	struct ut_opts opts;
	int opt, nwords = 0, ret, k;
	bool pipe = false;

	ut_opts_init(&opts, 0);
	optind = 1;
	while ((opt = getopt_long(argc, argv, extract ? "P:B:o:h" : "P:B:O:h", longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'P':
			add_pid(&t, optarg);
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
	for (size_t i = 0; i < t.n; i++) {
		struct ut_live_sess s;
		int r = ut_live_find(rundir, t.pids[i], &s);

		if (r) {
			ut_err("process %d: %s", t.pids[i],
			       r == -EACCES  ? "permission denied (another user's process)"
			       : r == -EPERM ? ut_live_strerror(r)
					     : "no utrace session");
			return 1;
		}
	}
	k = inst ? instance_of(rundir, inst) : 0;
	if (pipe)
		ret = follow(rundir, k, &t, optwords, nwords);
	else if (extract)
		ret = ut_live_snapshot_inst(rundir, k, t.n ? t.pids : NULL, t.n, false, output,
					    opts.bits);
	else
		ret = ut_live_print_inst(rundir, k, t.n ? t.pids : NULL, t.n, pipe, stdout, optwords,
					 nwords, !pipe);
	if (ret == -ESRCH)
		ut_err("no traced process");
	else if (ret)
		ut_err("%s", ut_live_strerror(ret));
	if (!ret && extract) {
		/* Dead processes' sessions are done with once extracted. */
		struct ut_live_sess *v;
		long n = resolve(rundir, &t, &v, true);

		for (long i = 0; i < n; i++)
			if (!v[i].alive)
				ut_live_remove(v[i].dir);
		if (n >= 0)
			free(v);
		ut_live_prune_symbols(rundir);
	}
	return ret ? 1 : 0;
}

int cmd_show(int argc, char **argv)
{
	return read_out(argc, argv, false);
}

int cmd_extract(int argc, char **argv)
{
	return read_out(argc, argv, true);
}

int cmd_reset(int argc, char **argv)
{
	char rundir[PATH_MAX], err[256];
	struct targets t = {0};
	struct ut_live_sess *v;
	struct ut_cfg c;
	const char *inst = NULL;
	int ret = 0;
	long n;

	if (parse_pb(argc, argv, ut_help_reset, &t, &inst))
		return 0;
	ut_cli_rundir(rundir, sizeof(rundir));
	if (inst) { /* the instance goes away */
		ret = ut_inst_remove(rundir, inst);
		if (ret)
			ut_err("instance %s: %s", inst, ut_live_strerror(ret));
		return ret ? 1 : 0;
	}
	ut_cfg_init(&c);
	n = resolve(rundir, &t, &v, true);
	if (n < 0)
		return exit_for((int)n);
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
		ut_live_clear(v[i].dir);
	}
	if (!t.n)
		ut_live_set_template(rundir, &c);
	free(v);
	ut_live_prune_symbols(rundir);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	char rundir[PATH_MAX];
	struct targets t = {0};
	bool graph_time = true, demangle = true;
	int opt, ret;

	optind = 1;
	while ((opt = getopt(argc, argv, "P:O:h")) != -1) {
		if (opt == 'P')
			add_pid(&t, optarg);
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
	ret = ut_live_stat(rundir, t.n ? t.pids : NULL, t.n, stdout, graph_time, demangle, 0, -1);
	if (ret)
		ut_err("stat: %s", ut_live_strerror(ret));
	return ret ? 1 : 0;
}

int cmd_marker(int argc, char **argv)
{
	char rundir[PATH_MAX], dir[PATH_MAX], text[UT_REC_MARKER_MAX + 1] = "", comm[17] = "";
	struct targets t = {0};
	size_t len = 0;
	int opt, ret;
	FILE *f;

	optind = 1;
	while ((opt = getopt(argc, argv, "+P:h")) != -1) {
		if (opt == 'P')
			add_pid(&t, optarg);
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
		ret = ut_live_marker(dir, (int32_t)getpid(), comm, text);
	if (ret)
		ut_err("marker: %s", ut_live_strerror(ret));
	return ret ? 1 : 0;
}

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
	printf("%7s  %-16s %-15s %-10s %7s  %s\n", "PID", "COMMAND", "TRACER", "TRACING_ON",
	       "THREADS", verbose ? "STATE    APPLY_US" : "STATE");
	for (long i = 0; i < n; i++) {
		if (v[i].markers)
			continue;
		printf("%7d  %-16s %-15s %-10d %7u  %s", v[i].pid, v[i].comm,
		       v[i].tracer < (uint32_t)UT_NR_TRACERS ? ut_tracer_names[v[i].tracer] : "?",
		       v[i].tracing_on, v[i].nr_threads, v[i].alive ? "running" : "exited");
		if (verbose)
			printf("%s  %8.1f", v[i].alive ? "" : " ", (double)v[i].apply_ns / 1000);
		putchar('\n');
	}
	free(v);
	return 0;
}
