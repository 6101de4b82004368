/* SPDX-License-Identifier: MIT */
/*
 * What the live commands (cli/cmd/start.c, stop.c, show.c ...) act on:
 * -P PID... or every traced process of the user, -B NAME an instance.
 * Bad usage exits (ut_usage_die), as the commands do.
 */
#ifndef UT_TARGETS_H
#define UT_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/control.h"

struct ut_targets {
	int32_t pids[256];
	size_t n;
};

/* -P @arg: a pid (dies if bad or too many). */
void ut_tgt_add(struct ut_targets *t, const char *arg);
/* The sessions of -P (each must exist), or of every live process (@include_dead: and dead). */
long ut_tgt_resolve(const char *rundir, const struct ut_targets *t, struct ut_live_sess **out,
		    bool include_dead);
/* -B NAME: the instance's number; dies if there is none. */
int ut_tgt_instance(const char *rundir, const char *name);
/* The exit status for a -errno: 2 (usage) for -EINVAL, else 1. */
int ut_tgt_exit_for(int err);
/* -P PID... and -B NAME; true if -h printed @help. */
bool ut_tgt_parse(int argc, char **argv, const char *help, struct ut_targets *t,
		  const char **inst);
/* stop/restart: tracing_on of the targets (and of the template, without -P). */
int ut_tgt_toggle(int argc, char **argv, const char *help, bool on);
/* A non-negative number argument (dies naming @what if bad). */
unsigned long ut_tgt_number(const char *arg, const char *what);
/* show and extract: -P/-B and -o/-O/--pipe (cli/cmd/show.c). */
int ut_show_extract(int argc, char **argv, bool extract);

#endif
