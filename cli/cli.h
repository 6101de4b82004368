/* SPDX-License-Identifier: MIT */
#ifndef UT_CLI_H
#define UT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "utrace/read.h"

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

/*
 * The run-time directory (common/control.h: ut_rundir), checked: if another
 * user can have written it, say so and exit 1 (it need not exist yet).
 */
char *ut_cli_rundir(char *buf, size_t len);


/* -O WORD: die unless it names a trace option; keep it in @words. */
#define UT_MAX_OPT_WORDS 64
struct ut_opts;
void ut_opt_word(struct ut_opts *opts, const char *w, const char **words, int *nwords);

int cmd_record(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_start(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_restart(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_mount(int argc, char **argv);
int cmd_umount(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_marker(int argc, char **argv);
int cmd_cflags(int argc, char **argv);
int cmd_cc(int argc, char **argv);

extern const char ut_help_record[], ut_help_report[], ut_help_list[], ut_help_help[],
	ut_help_profile[], ut_help_start[], ut_help_stop[], ut_help_restart[], ut_help_show[],
	ut_help_extract[], ut_help_reset[], ut_help_ps[], ut_help_stat[], ut_help_marker[];
extern const char ut_help_mount[], ut_help_umount[], ut_help_cflags[];

/* libutrace.so's path (UTRACE_LIB, else next to utrace): 0, or -ENOENT (cli/cmd/record.c). */
int ut_find_runtime(char *out, size_t len);

#endif
