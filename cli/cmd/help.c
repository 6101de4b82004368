// SPDX-License-Identifier: MIT
/* utrace help [CMD] */
#include <stdio.h>

#include "cli/cli.h"

const char ut_help_help[] = "usage: utrace help [COMMAND]\n"
			    "\n"
			    "Without COMMAND, list the commands; with it, describe COMMAND.\n";

int cmd_help(int argc, char **argv)
{
	const struct ut_command *c;

	if (argc < 2) {
		printf("usage: utrace COMMAND [OPTIONS]\n\n"
		       "utrace is ftrace for user space: programs built with\n"
		       "-fpatchable-function-entry=5 (or -pg -mfentry; 'utrace cflags' says\n"
		       "which for your compiler) are traced through\n"
		       "sites that cost a nop while off.\n\nCommands:\n");
		for (c = ut_commands; c->name; c++)
			if (c->summary)
				printf("  %-8s  %s\n", c->name, c->summary);
		printf("\nRun 'utrace help COMMAND' for the options of one command.\n");
		return 0;
	}
	c = ut_command_find(argv[1]);
	if (!c)
		ut_usage_die("unknown command '%s' (see 'utrace help')", argv[1]);
	fputs(c->help, stdout);
	return 0;
}
