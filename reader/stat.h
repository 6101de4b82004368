/* SPDX-License-Identifier: MIT */
/*
 * The trace_stat printer: the function profiler's table (the kernel's
 * trace_stat/function format) built row by row, then printed sorted by time.
 */
#ifndef UT_STAT_H
#define UT_STAT_H

#include <stdint.h>
#include <stdio.h>

#include "common/demangle.h"

struct ut_stat_row {
	const char *name;     /* symbol name (owned by the symbol table) */
	uint64_t hits;
	long double time, sq; /* ns, ns^2 */
};

struct ut_stat_table {
	struct ut_stat_row *rows;
	size_t n, cap;
};

/* Add @hits calls taking @time ns (squares summed: @sq) to function @name's row. */
void ut_stat_add(struct ut_stat_table *t, const char *name, uint64_t hits, long double time,
		 long double sq);
/*
 * Print @t to @f sorted by time, s^2 as the kernel computes it; rows whose
 * average is below @thresh_ns are left out; names demangled by @dm (NULL:
 * as the symbol table holds them); @wide: the Function column as wide as
 * the longest name (C++ names are long), else the kernel's 30 characters.
 */
void ut_stat_print(FILE *f, struct ut_stat_table *t, uint64_t thresh_ns, struct ut_demangler *dm,
		   bool wide);
void ut_stat_free(struct ut_stat_table *t);

#endif
