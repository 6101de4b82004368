/* SPDX-License-Identifier: MIT */
/* Names of tracers and clocks, shared by the runtime and the tools. */
#ifndef UT_NAMES_H
#define UT_NAMES_H

#include <stdio.h>
#include <string.h>

#include "utrace/abi.h"

/*
 * Tracer names by number (include/utrace/abi.h), which is the order the
 * kernel registers them in.  The kernel lists them newest first: this table
 * backwards (ut_tracer_list).
 */
static const char *const ut_tracer_names[] = {
	[UT_TRACER_NOP] = "nop",
	[UT_TRACER_FUNCTION] = "function",
	[UT_TRACER_FUNCTION_GRAPH] = "function_graph",
};
#define UT_NR_TRACERS ((int)(sizeof(ut_tracer_names) / sizeof(ut_tracer_names[0])))

/* available_tracers as the kernel shows it ("function_graph function nop"), in @buf. */
static inline const char *ut_tracer_list(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = UT_NR_TRACERS - 1; i >= 0 && n < len; i--)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", ut_tracer_names[i], i ? " " : "");
	return buf;
}

static const char *const ut_clock_names[UT_CLOCK_NR] = {
	[UT_CLOCK_LOCAL] = "local",   [UT_CLOCK_GLOBAL] = "global",     [UT_CLOCK_COUNTER] = "counter",
	[UT_CLOCK_UPTIME] = "uptime", [UT_CLOCK_PERF] = "perf",         [UT_CLOCK_MONO] = "mono",
	[UT_CLOCK_MONO_RAW] = "mono_raw", [UT_CLOCK_BOOT] = "boot",     [UT_CLOCK_X86_TSC] = "x86-tsc",
};

/* Index of @name in @table of @n entries, or -1. */
static inline int ut_name_index(const char *const *table, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (table[i] && !strcmp(table[i], name))
			return i;
	return -1;
}

/* Clocks whose timestamps are not nanoseconds: printed as plain integers. */
static inline int ut_clock_is_counter(int clock)
{
	return clock == UT_CLOCK_COUNTER || clock == UT_CLOCK_UPTIME || clock == UT_CLOCK_X86_TSC;
}

#endif
