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
#include "reader/stream.h"
#include "reader/tracedat.h"

struct ut_print_ev {
	struct ut_event ev;
	uint64_t lost;      /* records lost just before it */
	bool consumed;      /* printed already, as the line before's leaf */
	char *str;          /* owned copies of ev.str and ev.callers */
	uint64_t *callers;
	uint64_t args[UT_EV_MAX_ARGBYTES / 8]; /* a copy of ev.args (USDT probes), strings too */
	uint8_t *raw;       /* an owned copy of ev.raw (process events) */
};

/* @p holds @ev (its text and stack copied) and the @lost before it. */
void ut_print_keep(struct ut_print_ev *p, const struct ut_event *ev, uint64_t lost);
void ut_print_release(struct ut_print_ev *p);

/*
 * @n kept events in time order as a source of the merged stream
 * (reader/stream.h): one a batch, each with its losses.  The stream hands
 * out &v[i].ev, which its holder may take back as the ut_print_ev.
 */
struct ut_pev_src {
	struct ut_stream_src src; /* first */
	const struct ut_print_ev *v;
	size_t n, pos;
};

void ut_pev_src_init(struct ut_pev_src *x, const struct ut_print_ev *v, size_t n);

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

/*
 * A whole trace printed in the kernel's `trace` format, pushed event by
 * event in time order (a trace.dat's stream, a live snapshot's merge) and
 * flushed at the end.  It keeps a window of the events pushed last: an
 * event prints once the next one on its CPU is known (function_graph's
 * leaves) or the window is full, with the one after it for latency
 * format's delay mark.  The header's counts come from a first pass
 * (struct ut_trace_count), as the kernel's come from its buffers.
 */
struct ut_trace_count {
	uint64_t entries, lost; /* events, and the losses told before them */
	bool overrun;           /* some CPU lost events */
};

/* One event kept by the filters, with the @lost told before it. */
static inline void ut_trace_count_add(struct ut_trace_count *c, uint64_t lost)
{
	c->entries++;
	if (lost) {
		c->overrun = true;
		if (lost != UT_TRACEDAT_LOST_UNKNOWN)
			c->lost += lost;
	}
}

struct ut_trace_print {
	FILE *f;
	struct ut_out *out, *gout; /* the trace's tracer's; function_graph's (may be out) */
	struct ut_graph_out *graph;
	struct ut_printer pr;
	struct ut_print_ev *q;  /* the window, a ring */
	size_t head, n;
};

/*
 * Make the formatters for @cfg (cfg->tracer says which) and print the
 * header (@header; false: trace_pipe's bare lines) with @c's counts, or
 * @lost_total when larger and nothing was filtered out (@all): losses no
 * event followed.  0 or -ENOMEM.
 */
int ut_trace_print_begin(struct ut_trace_print *p, FILE *f, const struct ut_out_cfg *cfg,
			 const struct ut_trace_count *c, uint64_t lost_total, bool all, bool header);
/* The next event in time order, and the losses told just before it. */
void ut_trace_print_push(struct ut_trace_print *p, const struct ut_event *ev, uint64_t lost);
/* Print what the window still holds, and free the formatters. */
void ut_trace_print_end(struct ut_trace_print *p);

/*
 * The options a trace prints with: its own (@bits; NULL: the defaults),
 * then the -O @words over them.
 */
void ut_trace_opts(struct ut_opts *opts, const uint64_t *bits, const char *const *words,
		   int nwords);

#endif
