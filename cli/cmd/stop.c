// SPDX-License-Identifier: MIT
/*
 * utrace stop: tracing_on off in running processes (trace-cmd stop).
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

const char ut_help_stop[] =
	"usage: utrace stop [-P PID]... [-B NAME]\n\n"
	"tracing_on = 0: stop recording (sites stay as they are; 'utrace restart'\n"
	"resumes).  Without -P: every traced process of yours.\n";

int cmd_stop(int argc, char **argv)
{
	return ut_tgt_toggle(argc, argv, ut_help_stop, false);
}
