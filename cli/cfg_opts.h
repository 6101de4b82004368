/* SPDX-License-Identifier: MIT */
/*
 * The tracing options `record`, `profile` and `start` share, read into a
 * struct ut_cfg (common/config.h): -p -l -n -g -e -f --graph-notrace
 * --max-graph-depth --thresh --func-stack --trigger --event-pid --event-notrace-pid -b -C
 * -O.  One parser, so every
 * command spells them the same way and refuses the same junk with the same
 * message.  A command lists UT_CFG_SHORTOPTS and UT_CFG_LONGOPTS among its
 * own options and hands each option getopt returns to ut_cfg_opt() first.
 */
#ifndef UT_CLI_CFG_OPTS_H
#define UT_CLI_CFG_OPTS_H

#include <getopt.h>
#include <stdbool.h>

#include "common/config.h"
#include "common/output/output.h"

/* getopt values of the long-only options; a command's own start at UT_CFG_OPT_NEXT. */
enum {
	UT_CFG_OPT_GNOTRACE = 256,
	UT_CFG_OPT_DEPTH,
	UT_CFG_OPT_THRESH,
	UT_CFG_OPT_STACK,
	UT_CFG_OPT_TOTAL,
	UT_CFG_OPT_TRIGGER,
	UT_CFG_OPT_SYNTH,
	UT_CFG_OPT_EVENT_PID,
	UT_CFG_OPT_EVENT_NOTRACE_PID,
	UT_CFG_OPT_NEXT,
};

#define UT_CFG_SHORTOPTS "p:l:n:g:b:C:O:e:f:"
#define UT_CFG_LONGOPTS                                                          \
	{"graph-notrace", required_argument, NULL, UT_CFG_OPT_GNOTRACE},         \
	{"max-graph-depth", required_argument, NULL, UT_CFG_OPT_DEPTH},          \
	{"thresh", required_argument, NULL, UT_CFG_OPT_THRESH},                  \
	{"func-stack", no_argument, NULL, UT_CFG_OPT_STACK},                     \
	{"buffer-total", required_argument, NULL, UT_CFG_OPT_TOTAL},             \
	{"trigger", required_argument, NULL, UT_CFG_OPT_TRIGGER},                \
	{"synth", required_argument, NULL, UT_CFG_OPT_SYNTH},                    \
	{"event-pid", required_argument, NULL, UT_CFG_OPT_EVENT_PID},            \
	{"event-notrace-pid", required_argument, NULL, UT_CFG_OPT_EVENT_NOTRACE_PID}

/*
 * Apply getopt's @opt (with @arg) to @c.  -O takes overwrite/nooverwrite,
 * then: with @display (record), the report's options (funcgraph-proc,
 * func_stack_trace, sleep-time, ... for the tracer chosen so far or
 * function_graph) into @display; without (start), func_stack_trace and
 * [no]sleep-time into @c.  Returns false if @opt is not one of these
 * options; a bad value exits 2 with one line naming it.
 */
bool ut_cfg_opt(struct ut_cfg *c, struct ut_opts *display, int opt, const char *arg);

/* Whether getopt's @opt and @arg are -O NAME or -O noNAME (a default the user chose). */
bool ut_cfg_opt_given(int opt, const char *arg, const char *name);

/*
 * After the options: exit 2 with one line if one of them would do nothing
 * with the tracer chosen: --func-stack (the function tracer's), -g,
 * --graph-notrace, --max-graph-depth, --thresh (function_graph's, and the
 * profiler's when @c->profile).
 */
void ut_cfg_check(const struct ut_cfg *c);

#endif
