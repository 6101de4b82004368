// SPDX-License-Identifier: MIT
/*
 * utrace restart: tracing_on back on (trace-cmd restart).
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

const char ut_help_restart[] =
	"usage: utrace restart [-P PID]... [-B NAME]\n\ntracing_on = 1 again after 'utrace stop'\n"
	"(-B: of instance NAME).\n";

int cmd_restart(int argc, char **argv)
{
	return ut_tgt_toggle(argc, argv, ut_help_restart, true);
}
