/* SPDX-License-Identifier: MIT */
/*
 * Per-provider descriptions of USDT probes' arguments: names, and which
 * argument is a string (a pointer the event records the text of, as a
 * `__data_loc char[]` field).  A note says only each argument's size and
 * where it lives; a description says what it is.
 *
 * Files NAME.usdt in the description directories, lines of
 *
 *   PROVIDER:PROBE ARG...     ARG: NAME, NAME:string, or - (keeps argN)
 *
 * with # comments (docs/usdt-descriptions.md).  The directories: those
 * of $UTRACE_USDT_DIR (colon-separated) first, then share/utrace/usdt
 * beside the object this code runs in (the utrace binary, libutrace.so,
 * libutread.so: DIR/share/utrace/usdt and DIR/../share/utrace/usdt); the
 * first description of a probe wins.  The runtime and the tools find the
 * same files, so both agree on a probe's layout.
 */
#ifndef UT_USDT_DESC_H
#define UT_USDT_DESC_H

#include "common/usdt.h"

/*
 * Give the probes of @l their descriptions: each described argument its
 * name and string flag.  The descriptions are read once per process
 * (thread-safe); unreadable files are skipped.  Not async-signal-safe.
 */
void ut_usdt_describe(struct ut_usdt_list *l);

/*
 * Parse one description line into @names/@strings (UT_USDT_MAX_ARGS each;
 * names empty where "-").  Return: how many arguments, or -1 if the line
 * is not a description (blank, comment, malformed); *@ev gets
 * "provider:probe".
 */
int ut_usdt_desc_line(const char *line, char *ev, size_t evlen,
		      char names[][UT_USDT_NAME_MAX], unsigned char *strings);

#endif
