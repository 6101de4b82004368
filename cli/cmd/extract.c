// SPDX-License-Identifier: MIT
/*
 * utrace extract: running (or dead) processes' buffers into a trace.dat.
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

const char ut_help_extract[] =
	"usage: utrace extract [-P PID]... [-B NAME] [-o FILE]\n\n"
	"Write the trace of running or dead traced processes to a trace.dat (FILE,\n"
	"default trace.dat), readable by 'utrace report' and 'trace-cmd report'.\n"
	"The buffers stay as they are; sessions of processes that have exited are\n"
	"removed once extracted.  This recovers the trace of a process that was\n"
	"killed (even by SIGKILL).  FILE appears only once complete: an\n"
	"interrupted extract leaves nothing (and an older FILE as it was).\n";

int cmd_extract(int argc, char **argv)
{
	return ut_show_extract(argc, argv, true);
}
