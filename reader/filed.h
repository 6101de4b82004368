/* SPDX-License-Identifier: MIT */
/*
 * What a trace.dat keeps of a trace (reader/filed.c): a printer that prints
 * straight from the buffers (reader/snapshot.c) gives the formatters what
 * the file's reader (reader/tracedat_read.c) would, so both print the same.
 */
#ifndef UT_READER_FILED_H
#define UT_READER_FILED_H

#include <stddef.h>
#include <stdint.h>

#include "common/event.h"
#include "common/symbols.h"
#include "reader/recorder.h"

/* @ev as the file gives it back, with @tgid (the file's table: -1 for none). */
void ut_filed_event(const struct ut_event *ev, int32_t tgid, struct ut_event *out);
/* @st as the file's kallsyms section gives it back (a new table, or NULL). */
struct ut_symtab *ut_filed_symbols(const struct ut_symtab *st);
/* The clock a trace_clock line selects ("[name]"): its index, -1 if none. */
int ut_filed_clock(const char *line);

/*
 * A sink of the recorder's write-out (reader/recorder.h) that hands each
 * event on as the trace.dat would give it back: cut by ut_filed_event(),
 * the tgid from the file's table, the records lost on its CPU since its
 * last event with it (as a page's missed-events count; losses after a
 * CPU's last event are dropped, as the file's reader drops them), and the
 * symbols as ut_filed_symbols() gives them.  A live snapshot so reads as
 * its file would (reader/snapshot.c, the public reader), without a file.
 * Set the three calls and ut_filed_sink_init(); free @syms when done.
 */
struct ut_filed_task;

struct ut_filed_sink {
	struct ut_write_sink sink; /* what the write-out is given */
	/* The metadata, before the first event (@syms and the tables are set). */
	int (*begin)(struct ut_filed_sink *k, const struct ut_tracedat_meta *m);
	/* The next event as the file gives it back, @lost records lost just before it. */
	int (*event)(struct ut_filed_sink *k, const struct ut_event *ev, uint64_t lost);
	/* After the last event: @m with the totals (NULL: nothing to do). */
	int (*end)(struct ut_filed_sink *k, const struct ut_tracedat_meta *m);
	struct ut_symtab *syms; /* made by the first replay, kept for the next */
	const struct ut_probetab *probes; /* this replay's USDT probes (the meta's) */
	/* this replay's */
	struct ut_filed_task *tasks; /* comm and tgid tables, by pid */
	size_t nr_tasks;
	uint64_t *pending; /* per CPU: lost before its next event */
	int nr_cpus;
};

void ut_filed_sink_init(struct ut_filed_sink *k);
/* The file's comm of @pid (NULL: none it would keep), its tgid (-1: none). */
const char *ut_filed_comm(const struct ut_filed_sink *k, int32_t pid);
int32_t ut_filed_tgid(const struct ut_filed_sink *k, int32_t pid);

#endif
