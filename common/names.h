/* SPDX-License-Identifier: MIT */
/* Names of tracers and clocks, shared by the runtime and the tools. */
#ifndef UT_NAMES_H
#define UT_NAMES_H

#include <string.h>

#include "utrace/abi.h"

/* available_tracers order, as the kernel lists them. */
static const char *const ut_tracer_names[] = {
	[UT_TRACER_NOP] = "nop",
	[UT_TRACER_FUNCTION] = "function",
	[UT_TRACER_FUNCTION_GRAPH] = "function_graph",
};
#define UT_NR_TRACERS ((int)(sizeof(ut_tracer_names) / sizeof(ut_tracer_names[0])))

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
