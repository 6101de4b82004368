// SPDX-License-Identifier: MIT
/* The tracing options shared by record, profile and start (cli/cfg_opts.h). */
#include "cli/cfg_opts.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/evtrigger.h"
#include "common/synth.h"
#include "cli/evfilter_opt.h"
#include "common/names.h"

/* A decimal number, all of @arg, in [@min, @max]: or exit 2 naming @what (and @range). */
static unsigned long number(const char *arg, const char *what, unsigned long min,
			    unsigned long max, const char *range)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || !*arg || *end || *arg == '-' || v < min || v > max)
		ut_usage_die("invalid %s '%s'%s", what, arg, range);
	return v;
}

static void words(char **list, const char *arg)
{
	if (ut_cfg_set_words(list, arg, true))
		ut_usage_die("out of memory");
}

/*
 * start -O: the options a process's configuration holds; any other is
 * refused, saying why (it would change nothing in the processes).
 */
static void live_setting(struct ut_cfg *c, const char *arg)
{
	static const char takes[] =
		"start takes [no]overwrite, [no]func_stack_trace, [no]sleep-time, [no]plt, "
		"[no]patch-prologue, [no]inlined, [no]event-fork";
	const char *name = strncmp(arg, "no", 2) != 0 ? arg : arg + 2;
	int id = ut_opt_lookup(name);
	const struct ut_opt_info *info = ut_opt_info(id);

	if (!strcmp(name, "drop"))
		ut_usage_die("-O %s: an option of record (a full buffer always drops here)", arg);
	if (id == UT_OPT_FUNC_STACK_TRACE)
		c->func_stack = name == arg;

	else if (id == UT_OPT_SLEEP_TIME)
		c->sleep_time = name == arg;
	else if (!info)
		ut_usage_die("-O %s: unknown option (%s)", arg, takes);
	else if (info->unsupported)
		ut_usage_die("-O %s: not supported: %s", arg, info->unsupported);
	else if (!info->record)
		ut_usage_die("-O %s: an output option: give it to show or report (%s)", arg, takes);
	else
		ut_usage_die("-O %s: not an option of the processes (%s)", arg, takes);
}

static void setting(struct ut_cfg *c, struct ut_opts *display, const char *arg)
{
	if (!strcmp(arg, "event-fork") || !strcmp(arg, "noevent-fork")) {
		c->event_fork = arg[0] == 'e'; /* --event-pid follows forks (libutrace/eventpid.c) */
		return;
	}
	if (!strcmp(arg, "patch-prologue") || !strcmp(arg, "nopatch-prologue")) {
		c->patch_prologue = arg[0] == 'p';
		return;
	}
	if (!strcmp(arg, "inlined") || !strcmp(arg, "noinlined")) {
		c->inlined = arg[0] == 'i'; /* inlined instances (libutrace/inlined.c) */
		return;
	}
	if (!strcmp(arg, "overwrite") || !strcmp(arg, "nooverwrite"))
		c->overwrite = arg[0] == 'o';
	else if (!strcmp(arg, "plt") || !strcmp(arg, "noplt"))
		c->plt = arg[0] == 'p'; /* library calls (libutrace/plthook.c) */
	else if (display && (!strcmp(arg, "drop") || !strcmp(arg, "nodrop")))
		c->lossless = arg[0] == 'n'; /* record: drop when full, or wait (lossless) */
	else if (display) {
		if (ut_opts_parse(display, "function", arg) &&
		    ut_opts_parse(display, "function_graph", arg))
			ut_usage_die("-O %s: %s (see 'utrace list -o')", arg, ut_opts_why(NULL, arg));
	} else {
		live_setting(c, arg);
	}
}

/*
 * --event-pid PID[,PID...] (set_event_pid) and --event-notrace-pid
 * (set_event_notrace_pid, @notrace): added to the list; may be given again.
 */
static void event_pids(struct ut_cfg *c, const char *arg, bool notrace)
{
	const char *opt = notrace ? "--event-notrace-pid" : "--event-pid";
	int32_t *v = notrace ? c->event_notrace_pids : c->event_pids;
	uint32_t *nr = notrace ? &c->nr_event_notrace_pids : &c->nr_event_pids;
	char buf[512], *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		ut_usage_die("%s '%s': too long", opt, arg);
	for (char *w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		int32_t pid = (int32_t)number(w, opt, 1, 0x3fffffff, " (a pid or tid)");
		uint32_t k = 0;

		while (k < *nr && v[k] != pid)
			k++;
		if (k < *nr)
			continue;
		if (*nr == UT_CFG_MAX_PIDS)
			ut_usage_die("%s: at most %d pids", opt, UT_CFG_MAX_PIDS);
		v[(*nr)++] = pid;
	}
}

/*
 * --trigger 'PROVIDER:NAME TRIGGER': an event trigger (events/SYS/EVT/trigger's
 * syntax), checked here; its event and fields are checked against the probes
 * by the command (cli/usdt_words.h).
 */
static void trigger(struct ut_cfg *c, const char *arg, bool recording)
{
	const char *sp = strchr(arg, ' ');
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	if (!sp || !memchr(arg, ':', (size_t)(sp - arg)) || strchr(arg, '\n'))
		ut_usage_die("--trigger '%s': 'PROVIDER:NAME TRIGGER' expected (e.g. "
			     "'utest:pair traceoff:1')",
			     arg);
	if (ut_evtrig_parse(sp + 1, strlen(sp + 1), &t, &err))
		ut_usage_die("--trigger '%s': %s", arg, err.msg);
	if (t.remove)
		ut_usage_die("--trigger '%s': a trigger to add, not one to remove", arg);
	for (uint8_t i = 0; t.cmd == UT_ET_HIST && i < t.hv.nactions; i++)
		if (t.hv.act[i].action == UT_HA_SNAPSHOT)
			t.cmd = UT_ET_SNAPSHOT; /* .snapshot(): the same question */
	if (t.cmd == UT_ET_SNAPSHOT && recording)
		ut_usage_die("--trigger '%s': a recorded file has no snapshot (the mount's "
			     "snapshot file takes it: start --trigger)", arg);
	/* its filter and fields are checked against the event's format by the command */
	if (ut_cfg_add_trigger(c, arg))
		ut_usage_die("--trigger: out of memory");
}

/*
 * --synth 'NAME TYPE FIELD[; TYPE FIELD]..': a synthetic event, as the
 * synthetic_events file takes it (common/synth.h); its records come from
 * the onmatch() actions of --trigger hist triggers.
 */
static void synth(struct ut_cfg *c, const char *arg)
{
	struct ut_synth_def d, o;
	struct ut_synth_err err;
	bool rm;

	if (ut_synth_parse(arg, strlen(arg), &d, &rm, &err))
		ut_usage_die("--synth '%s': %s", arg, err.msg);
	if (rm)
		ut_usage_die("--synth '%s': a synthetic event to define, not one to remove", arg);
	if (ut_synth_find(c->synth, d.name, &o))
		ut_usage_die("--synth '%s': Event already exists", arg);
	if (ut_cfg_add_synth(c, arg))
		ut_usage_die("--synth: out of memory");
}

bool ut_cfg_opt_given(int opt, const char *arg, const char *name)
{
	return opt == 'O' && arg &&
	       (!strcmp(arg, name) || (!strncmp(arg, "no", 2) && !strcmp(arg + 2, name)));
}

bool ut_cfg_opt(struct ut_cfg *c, struct ut_opts *display, int opt, const char *arg)
{
	static const char *last_events; /* -f filters the events of the -e before it */
	char list[128];
	int i;

	switch (opt) {
	case 'p':
		i = ut_name_index(ut_tracer_names, UT_NR_TRACERS, arg);
		if (i < 0)
			ut_usage_die("unknown tracer '%s' (available: %s)", arg,
				     ut_tracer_list(list, sizeof(list)));
		c->tracer = (uint32_t)i;
		return true;
	case 'l':
		words(&c->filter, arg);
		return true;
	case 'n':
		words(&c->notrace, arg);
		return true;
	case 'g':
		words(&c->graph_function, arg);
		return true;
	case 'e':
		words(&c->events, arg);
		last_events = arg;
		return true;
	case 'f':
		ut_evf_opt_add(last_events, arg);
		return true;
	case UT_CFG_OPT_GNOTRACE:
		words(&c->graph_notrace, arg);
		return true;
	case UT_CFG_OPT_DEPTH:
		c->max_graph_depth = (uint32_t)number(arg, "--max-graph-depth", 0, UINT32_MAX, "");
		return true;
	case UT_CFG_OPT_THRESH:
		c->thresh_us = number(arg, "--thresh", 0, UINT32_MAX, " (microseconds)");
		return true;
	case UT_CFG_OPT_STACK:
		c->func_stack = true;
		return true;
	case UT_CFG_OPT_TRIGGER:
		trigger(c, arg, display != NULL);
		return true;
	case UT_CFG_OPT_EVENT_PID:
	case UT_CFG_OPT_EVENT_NOTRACE_PID:
		event_pids(c, arg, opt == UT_CFG_OPT_EVENT_NOTRACE_PID);
		return true;
	case UT_CFG_OPT_SYNTH:
		synth(c, arg);
		return true;
	case 'b':
		c->buf_kb = (uint32_t)number(arg, "buffer size", 1, 1ul << 20, " (KiB, 1..1048576)");
		return true;
	case UT_CFG_OPT_TOTAL: /* buffer_total_size_kb: every thread buffer of a process */
		c->total_kb = (uint32_t)number(arg, "--buffer-total", 0, UINT32_MAX,
					       " (KiB; 0: the default)");
		return true;
	case 'C':
		i = ut_name_index(ut_clock_names, UT_CLOCK_NR, arg);
		if (i < 0)
			ut_usage_die("unknown clock '%s'", arg);
		c->clock = (uint32_t)i;
		return true;
	case 'O':
		setting(c, display, arg);
		return true;
	default:
		return false;
	}
}

void ut_cfg_check(const struct ut_cfg *c)
{
	const char *tracer = ut_tracer_names[c->tracer];
	const char *graph = c->graph_function	 ? "-g"
			    : c->graph_notrace	 ? "--graph-notrace"
			    : c->max_graph_depth ? "--max-graph-depth"
			    : c->thresh_us	 ? "--thresh"
						 : NULL;

	if (c->func_stack && (c->tracer != UT_TRACER_FUNCTION || c->profile))
		ut_usage_die("--func-stack (func_stack_trace): the function tracer's option "
			     "(this runs %s)", c->profile ? "the profiler" : tracer);
	if (graph && c->tracer != UT_TRACER_FUNCTION_GRAPH && !c->profile)
		ut_usage_die("%s: a function_graph (or profiler) option (this runs %s)", graph,
			     tracer);
}
