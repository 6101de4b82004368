// SPDX-License-Identifier: MIT
/*
 * utrace start: trace running processes (and, without -P, new ones) with a
 * configuration, as trace-cmd start does.
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
#include "cli/cfg_opts.h"
#include "cli/plain.h"
#include "cli/ran.h"
#include "cli/usdt_words.h"
#include "cli/evfilter_opt.h"
#include "common/whynosite.h"
#include "utrace/abi.h"
#include "utrace/read.h"

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
	"  -e EVENT         USDT probes and process events (sched:*, signal:*,\n"
	"                   utrace:*) to enable (set_event: provider:name, globs,\n"
	"                   !EVENT); repeatable; alone, the tracer is nop\n"
	"  --trigger 'PROVIDER:NAME TRIGGER'\n"
	"                   an event trigger (events/../trigger): traceon, traceoff,\n"
	"                   stacktrace, enable_event:P:N, disable_event:P:N with :COUNT,\n"
	"                   or hist:keys=.. with variables and onmatch()/onmax()/\n"
	"                   onchange() actions; repeatable (the mount's events/P/N/hist\n"
	"                   shows the tables); snapshot[:COUNT]: the mount's snapshot\n"
	"                   file takes it; 'ftrace:print TRIGGER': on writes to the\n"
	"                   mount's processes/PID/trace_marker (no hist variables)\n"
	"  --synth 'NAME TYPE FIELD[; TYPE FIELD]..'\n"
	"                   a synthetic event (synthetic_events) for onmatch().trace();\n"
	"                   -e synthetic:NAME records it; within each process only\n"
	"  --event-pid PID[,PID..]\n"
	"                   events only from these pids (set_event_pid); with\n"
	"                   -O event-fork the processes they fork too\n"
	"  --event-notrace-pid PID[,PID..]\n"
	"                   no events from these pids (set_event_notrace_pid)\n"
	"  -f FILTER        after -e EVENT: its events only when FILTER holds (the\n"
	"                   kernel's event filter, judged in the processes)\n"
	"  -g PATTERN       set_graph_function;  --graph-notrace PATTERN\n"
	"  --max-graph-depth N, --thresh US, --func-stack, --profile\n"
	"  --pid TID        set_ftrace_pid: only these threads or processes\n"
	"  -b KB            buffer_size_kb for threads that start from now on\n"
	"  --buffer-total KB\n"
	"                   buffer_total_size_kb: a process's thread buffers together\n"
	"                   (default 65536): past it, a new thread reuses the buffer of\n"
	"                   the thread that exited first, its events counted as lost\n"
	"  -C CLOCK         trace_clock\n"
	"  -O OPTION        [no]overwrite, [no]func_stack_trace, [no]sleep-time, [no]plt,\n"
	"                   [no]patch-prologue, [no]inlined (the options a process\n"
	"                   holds; output options go to show); -O plt hooks the\n"
	"                   processes' library calls (PLT and GOT) while they run,\n"
	"                   -O noplt unhooks them; patch-prologue patches the\n"
	"                   functions without a site while the program's threads\n"
	"                   run (with -P, the default for a process whose program\n"
	"                   has no site, said in a note; nopatch-prologue: not);\n"
	"                   inlined makes the inlined copies sites likewise\n"
	"\n"
	"A pattern that matches no function exits with status 2 and changes nothing.\n";

/*
 * start -B NAME: the instance (made if new) gets @c in every process and the
 * template, and is on; its buffers start empty.  Instances run the function
 * tracer only.
 */
static int start_instance(const char *rundir, const char *name, const struct ut_targets *t,
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
			ut_live_clear(v[i].dir, k);
	if (n > 0)
		free(v);
	return 0;
}

/* The options: the configuration into @c, -P into @t, -B into @inst.  true if -h printed help. */
static bool parse_start(int argc, char **argv, struct ut_cfg *c, struct ut_targets *t,
			const char **inst, bool *prologue_said)
{
	enum { O_PROFILE = UT_CFG_OPT_NEXT, O_TID };
	static const struct option longopts[] = {
		UT_CFG_LONGOPTS,
		{"profile", no_argument, NULL, O_PROFILE},
		{"pid", required_argument, NULL, O_TID},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	bool tracer_given = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "P:B:" UT_CFG_SHORTOPTS "h", longopts, NULL)) != -1) {
		tracer_given |= opt == 'p';
		*prologue_said |= ut_cfg_opt_given(opt, optarg, "patch-prologue");
		if (ut_cfg_opt(c, NULL, opt, optarg))
			continue;
		switch (opt) {
		case 'P':
			ut_tgt_add(t, optarg);
			break;
		case 'B':
			*inst = optarg;
			break;
		case O_PROFILE:
			c->profile = true;
			break;
		case O_TID:
			if (c->nr_pids == UT_CFG_MAX_PIDS)
				ut_usage_die("too many --pid");
			c->pids[c->nr_pids++] = (int32_t)ut_tgt_number(optarg, "pid");
			break;
		case 'h':
			fputs(ut_help_start, stdout);
			return true;
		default:
			ut_usage_die("bad usage (see 'utrace help start')");
		}
	}
	if (optind < argc)
		ut_usage_die("unexpected argument '%s'", argv[optind]);
	if (c->events && !tracer_given)
		c->tracer = UT_TRACER_NOP; /* events alone, as trace-cmd start -e */
	return false;
}

/*
 * Why @word matched nothing in the processes, from the objects they loaded
 * (and, when they patch prologues, @prologues, why those refused it).
 */
static void why(const char *rundir, const char *word, bool prologues)
{
	struct ut_objlist l;
	char *text;

	ut_ran_objects(rundir, &l);
	text = ut_why_untraced(word, l.v, l.n, prologues);
	ut_objlist_free(&l);
	if (text)
		fputs(text, stderr);
	free(text);
}

/* Each word of @words that matches nothing in @t: named, and why. */
static void why_words(const char *rundir, struct ut_ftable *t, unsigned flags, const char *words,
		      const char *file, bool prologues)
{
	size_t n = 0;

	for (const char *p = ut_cfg_word(words, &n); p; p = ut_cfg_word(p + n, &n)) {
		struct ut_fset *s = ut_fset_new(t, flags);
		char word[256];

		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		if (s && ut_fset_set(s, word, true, NULL, 0) == -EINVAL) {
			ut_err("%s: '%s' matches no traceable function", file, word);
			why(rundir, word, prologues);
		}
		ut_fset_free(s);
	}
}

/*
 * An error saying words matched nothing in the processes: why, from the
 * objects they loaded (common/whynosite.h), after the error line.  Every
 * process takes the words leniently, so which word failed is found here.
 */
static void explain(const char *rundir, const char *err, const struct ut_cfg *c)
{
	const char *q = strchr(err, '\''), *e = q ? strchr(q + 1, '\'') : NULL;
	struct ut_ftable *t;
	char word[256];

	if (!strstr(err, "match no traceable function") && !strstr(err, "matches no traceable"))
		return;
	if (e && e - q - 1 < (long)sizeof(word)) {
		snprintf(word, sizeof(word), "%.*s", (int)(e - q - 1), q + 1);
		why(rundir, word, c->patch_prologue);
		return;
	}
	t = ut_ran_functions(rundir);
	if (!t)
		return;
	why_words(rundir, t, UT_FSET_FILTER, c->filter, "set_ftrace_filter", c->patch_prologue);
	why_words(rundir, t, UT_FSET_NOTRACE, c->notrace, "set_ftrace_notrace", c->patch_prologue);
	why_words(rundir, t, UT_FSET_GRAPH, c->graph_function, "set_graph_function",
		  c->patch_prologue);
	why_words(rundir, t, UT_FSET_GRAPH_NOTRACE, c->graph_notrace, "set_graph_notrace",
		  c->patch_prologue);
	ut_ftable_free(t);
}

/* The inlined copies the new lists select but cannot trace: one note each. */
static void note_inlined(const char *rundir, const struct ut_cfg *c)
{
	const struct {
		unsigned flags;
		const char *words, *file;
	} lists[] = {{UT_FSET_FILTER, c->filter, "set_ftrace_filter"},
		     {UT_FSET_GRAPH, c->graph_function, "set_graph_function"}};
	struct ut_ftable *t = NULL;
	struct ut_objlist l = {0};

	for (size_t i = 0; i < 2; i++) {
		struct ut_fset *s;
		char bad[256], *note = NULL;

		if (!lists[i].words)
			continue;
		if (!t) {
			t = ut_ran_functions(rundir);
			ut_ran_objects(rundir, &l);
		}
		s = t ? ut_fset_new(t, lists[i].flags) : NULL;
		/* lenient, as the processes are: the words that match */
		if (s && ut_fset_set(s, lists[i].words, true, bad, sizeof(bad)) != -ENOMEM)
			note = ut_inlined_missed(t, s, l.v, l.n, lists[i].file, c->inlined);
		if (note)
			ut_err("note: %s", note);
		free(note);
		ut_fset_free(s);
	}
	ut_ftable_free(t);
	ut_objlist_free(&l);
}

/* @c into the processes of @t (the template has it already without -P), buffers cleared, on. */
static int apply(const char *rundir, const struct ut_targets *t, const struct ut_cfg *c,
		 bool prologue_said)
{
	struct ut_live_sess *v;
	char err[256];
	long n = ut_tgt_resolve(rundir, t, &v, false);
	int ret = 0;

	if (n < 0)
		return ut_tgt_exit_for((int)n);
	for (long k = 0; k < n; k++) {
		struct ut_cfg buf;
		const struct ut_cfg *pc = t->n ? ut_plain_for_process(v[k].pid, c, prologue_said, &buf) : c;
		int r = t->n ? ut_live_set_config(v[k].dir, pc, err, sizeof(err)) : 0;

		if (r) {
			ut_err("process %d: %s", v[k].pid, err);
			explain(rundir, err, pc);
			ret = ut_tgt_exit_for(r);
			continue;
		}
		ut_live_clear(v[k].dir, 0);
		/* trace-cmd's start turns tracing on, also after a stop */
		r = ut_live_set_tracing_on(v[k].dir, true);
		if (r) {
			ut_err("process %d: %s", v[k].pid, strerror(-r));
			ret = 1;
		}
	}
	free(v);
	return ret;
}

/*
 * -e words: one naming no probe of a provider the processes have exits 2
 * and changes nothing; a provider none has may come with a dlopen: said.
 */
static void check_events(const char *rundir, struct ut_cfg *c)
{
	enum ut_usdt_word k;
	struct ut_objlist l;
	char word[256], word2[256] = "", why[512];
	int r;

	if (!c->events && !c->triggers)
		return;
	if (ut_usdt_check_synth(c->triggers, c->synth, why, sizeof(why)))
		ut_usage_die("--trigger %s", why);
	ut_ran_objects(rundir, &l);
	r = ut_usdt_check_triggers(&l, c->triggers, word, sizeof(word));
	k = c->events ? ut_usdt_check_words(&l, c->events, word2, sizeof(word2)) : UT_USDT_WORD_OK;
	if (c->events && k != UT_USDT_WORD_UNKNOWN)
		ut_evf_opt_compile(c, &l);
	ut_objlist_free(&l);
	if (r == -2)
		ut_usage_die("--trigger %s", word);
	if (r < 0)
		ut_usage_die("--trigger: %s of the traced processes", word);
	if (r > 0)
		ut_err("warning: --trigger: %s of the traced processes; it applies if one "
		       "dlopen()s a library that has it",
		       word);
	snprintf(word, sizeof(word), "%s", word2);
	if (k == UT_USDT_WORD_UNKNOWN)
		ut_usage_die("set_event: '%s' names no USDT probe of the traced processes", word);
	if (k == UT_USDT_WORD_ELSEWHERE)
		ut_err("warning: set_event: '%s': no traced process has that provider; it applies "
		       "if one dlopen()s a library that has it",
		       word);
}

int cmd_start(int argc, char **argv)
{
	char rundir[PATH_MAX], err[256];
	struct ut_targets t = {0};
	struct ut_cfg c;
	const char *inst = NULL;
	bool prologue_said = false;
	int ret = 0;

	ut_cfg_init(&c);
	c.tracer = UT_TRACER_FUNCTION;
	if (parse_start(argc, argv, &c, &t, &inst, &prologue_said)) {
		ut_cfg_free(&c);
		return 0;
	}
	ut_cli_rundir(rundir, sizeof(rundir));
	ut_cfg_check(&c);
	if (inst && c.events)
		ut_usage_die("-e: instances record no events yet (the top level does)");
	check_events(rundir, &c);
	if (inst)
		ret = start_instance(rundir, inst, &t, &c);
	else if (!t.n && (ret = ut_live_set_all(rundir, &c, err, sizeof(err)))) {
		ut_err("%s", err[0] ? err : ut_live_strerror(ret));
		explain(rundir, err, &c);
		ret = ut_tgt_exit_for(ret);
	} else {
		ret = apply(rundir, &t, &c, prologue_said);
	}
	if (!ret && !inst)
		note_inlined(rundir, &c);
	ut_cfg_free(&c);
	return ret;
}
