/* SPDX-License-Identifier: MIT */
/*
 * What a trace.dat keeps of a trace (reader/filed.c): a printer that prints
 * straight from the buffers (reader/snapshot.c) gives the formatters what
 * the file's reader (reader/tracedat_read.c) would, so both print the same.
 */
#ifndef UT_READER_FILED_H
#define UT_READER_FILED_H

#include <stdint.h>

#include "common/event.h"
#include "common/symbols.h"

/* @ev as the file gives it back, with @tgid (the file's table: -1 for none). */
void ut_filed_event(const struct ut_event *ev, int32_t tgid, struct ut_event *out);
/* @st as the file's kallsyms section gives it back (a new table, or NULL). */
struct ut_symtab *ut_filed_symbols(const struct ut_symtab *st);
/* The clock a trace_clock line selects ("[name]"): its index, -1 if none. */
int ut_filed_clock(const char *line);

#endif
