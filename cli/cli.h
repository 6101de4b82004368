/* SPDX-License-Identifier: MIT */
#ifndef UT_CLI_H
#define UT_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit status for bad usage (unknown command, option, tracer, clock...). */
#define UT_EXIT_USAGE 2

struct ut_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *help; /* the text of `utrace help NAME` */
};

extern const struct ut_command ut_commands[];
const struct ut_command *ut_command_find(const char *name);

/* Print "utrace: <msg>" to stderr. */
void ut_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "utrace: <msg>" and exit with UT_EXIT_USAGE. */
void ut_usage_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

int cmd_record(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_help(int argc, char **argv);

extern const char ut_help_record[], ut_help_report[], ut_help_list[], ut_help_help[],
	ut_help_profile[];

#endif
