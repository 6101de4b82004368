/* SPDX-License-Identifier: MIT */
/*
 * The print step every reader shares (reader/printer.c): an event kept with
 * its own copies of what the decoder reuses, then printed -- the losses
 * before it first, then the line; a function_graph entry whose successor on
 * its CPU is its return prints as a leaf and marks that successor consumed,
 * so the loop skips it.  report (a trace.dat's window) and the trace_pipe
 * stream (reader/live.c, a sorted batch) find the successor their own way
 * and call this to print.
 */
#ifndef UT_PRINTER_H
#define UT_PRINTER_H

#include <stdbool.h>
#include <stdio.h>

#include "common/event.h"
#include "common/output/graph.h"
#include "common/output/output.h"

struct ut_print_ev {
	struct ut_event ev;
	uint64_t lost;      /* records lost just before it */
	bool consumed;      /* printed already, as the line before's leaf */
	char *str;          /* owned copies of ev.str and ev.callers */
	uint64_t *callers;
};

/* @p holds @ev (its text and stack copied) and the @lost before it. */
void ut_print_keep(struct ut_print_ev *p, const struct ut_event *ev, uint64_t lost);
void ut_print_release(struct ut_print_ev *p);

/*
 * Where lines go: @out prints function events; @graph (over @gout) prints
 * function_graph's -- every event when @all_graph (a function_graph
 * trace.dat), else graph entries/exits and, in @graph_mode, all but
 * function events (the live stream follows processes that switch tracers).
 */
struct ut_printer {
	struct ut_out *out, *gout;
	struct ut_graph_out *graph;
	bool all_graph, graph_mode;
};

/*
 * Print @p to @f; @next: the next event on its CPU (NULL: none known),
 * @after: the event after it for the line's delay mark.  Marks @next
 * consumed when @p's line printed it too.
 */
void ut_print_event(const struct ut_printer *pr, FILE *f, struct ut_print_ev *p,
		    struct ut_print_ev *next, const struct ut_event *after);

#endif
