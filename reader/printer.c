// SPDX-License-Identifier: MIT
/*
 * The printer: a trace.dat's events, merged in time order over all CPUs,
 * printed in the kernel's `trace` format by the formatters of
 * common/output/.  A corrupt file prints what is readable, then returns an
 * error naming the offset.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/names.h"
#include "common/output/graph.h"
#include "common/output/output.h"
#include "reader/tracedat.h"
#include "reader/printer.h"
#include "reader/stream_file.h"
#include "utrace/read.h"

void ut_print_keep(struct ut_print_ev *p, const struct ut_event *ev, uint64_t lost)
{
	p->ev = *ev;
	p->lost = lost;
	p->consumed = false;
	p->str = NULL;
	p->callers = NULL;
	if (ev->str) {
		p->str = strdup(ev->str);
		p->ev.str = p->str ? p->str : "";
	}
	p->ev.callers = NULL;
	p->ev.nr_callers = 0;
	if (ev->nr_callers && ev->callers) {
		/* reader-owned and reused: keep a copy */
		p->callers = malloc(ev->nr_callers * sizeof(uint64_t));
		if (p->callers)
			memcpy(p->callers, ev->callers, ev->nr_callers * sizeof(uint64_t));
		p->ev.callers = p->callers;
		p->ev.nr_callers = p->callers ? ev->nr_callers : 0;
	}
}

void ut_print_release(struct ut_print_ev *p)
{
	free(p->str);
	free(p->callers);
	p->str = NULL;
	p->callers = NULL;
}

static bool is_graph(const struct ut_printer *pr, uint16_t type)
{
	if (!pr->graph)
		return false;
	return pr->all_graph || type == UT_EV_FUNCGRAPH_ENTRY || type == UT_EV_FUNCGRAPH_EXIT ||
	       (pr->graph_mode && type != UT_EV_FUNCTION);
}

void ut_print_event(const struct ut_printer *pr, FILE *f, struct ut_print_ev *p,
		    struct ut_print_ev *next, const struct ut_event *after)
{
	bool graph = is_graph(pr, p->ev.type);

	if (p->lost)
		ut_out_print_lost(graph ? pr->gout : pr->out, f, p->ev.cpu, p->lost);
	if (graph) {
		int r = ut_graph_print_event(pr->graph, f, &p->ev, next ? &next->ev : NULL);

		if (r == UT_GRAPH_CONSUMED && next)
			next->consumed = true;
		if (r != UT_GRAPH_UNHANDLED)
			return;
	}
	ut_out_print_event(pr->out, f, &p->ev, after);
}

struct report_ctx {
	struct ut_tracedat *td;
	FILE *f;              /* where the text goes */
};

static const char *comm_cb(void *ctx, int32_t pid)
{
	return ut_tracedat_comm(((struct report_ctx *)ctx)->td, pid);
}

static int32_t tgid_cb(void *ctx, int32_t pid)
{
	return ut_tracedat_tgid(((struct report_ctx *)ctx)->td, pid);
}

struct pass {
	uint64_t entries, lost;
	bool overrun;
};

/*
 * A window of events read ahead.  Printing an event may need the next event
 * of the whole trace (latency-format's delay mark) or the next one of its
 * CPU (function_graph: is this entry a leaf?), which in the merged stream
 * can be some way ahead.
 */
#define WINDOW 4096


struct window {
	struct ut_print_ev q[WINDOW];
	size_t head, n;
	bool eof;
	struct ut_file_src file; /* the file, through the stream's filter */
	struct ut_stream *st;
};

static struct ut_print_ev *wat(struct window *w, size_t i)
{
	return &w->q[(w->head + i) % WINDOW];
}

/* Read until the window holds @want events (or the file ends). */
static void fill(struct window *w, size_t want)
{
	while (w->n < want && w->n < WINDOW && !w->eof) {
		struct ut_print_ev *q = wat(w, w->n);
		struct ut_stream_item it;

		if (ut_stream_next(w->st, &it) != 1) {
			w->eof = true;
			break;
		}
		if (!it.ev)
			continue; /* a file's losses come with the event after them */
		ut_print_keep(q, it.ev, it.lost);
		w->n++;
	}
}

/* The next event on @cpu after window position 0, reading ahead as needed. */
static struct ut_print_ev *next_on_cpu(struct window *w, uint32_t cpu)
{
	for (size_t i = 1;; i++) {
		if (i >= w->n)
			fill(w, i + 1);
		if (i >= w->n)
			return NULL;
		if (wat(w, i)->ev.cpu == cpu)
			return wat(w, i);
	}
}

/* One read of the file: counts (for the header) or printing. */
static int read_events(struct report_ctx *ctx, struct ut_out *out, struct ut_graph_out *graph,
		       const struct ut_idlist *cpus, const struct ut_idlist *pids, struct pass *p,
		       bool print, char *err, size_t errlen)
{
	struct ut_stream_filter f = {.cpus = cpus, .tids = pids};
	const struct ut_printer pr = {.out = out, .gout = out, .graph = graph, .all_graph = true};
	struct window *w = calloc(1, sizeof(*w));
	int ret = 0;

	if (w) {
		ut_file_src_init(&w->file, ctx->td);
		w->st = ut_stream_new(&f);
	}
	if (!w || !w->st || ut_stream_add(w->st, &w->file.src)) {
		if (w)
			ut_stream_free(w->st);
		free(w);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (;;) {
		struct ut_print_ev *q, *next;

		fill(w, 2);
		if (!w->n)
			break;
		q = wat(w, 0);
		if (!print) {
			p->entries += !q->consumed;
			if (q->lost) {
				p->overrun = true;
				if (q->lost != UT_TRACEDAT_LOST_UNKNOWN)
					p->lost += q->lost;
			}
		} else if (!q->consumed) {
			next = graph ? next_on_cpu(w, q->ev.cpu) : NULL;
			ut_print_event(&pr, ctx->f, q, next, w->n > 1 ? &wat(w, 1)->ev : NULL);
		}
		ut_print_release(q);
		w->head = (w->head + 1) % WINDOW;
		w->n--;
	}
	ret = w->file.err ? -EIO : 0;
	/* The counting pass stays quiet: the printing pass reports it. */
	if (ret && print) {
		fflush(ctx->f);
		snprintf(err, errlen, "%s", w->file.errmsg);
	}
	ut_stream_free(w->st);
	free(w);
	return ret;
}

/**
 * ut_report - print a trace file in the kernel's trace format
 * @file: the trace.dat
 * @f: where to print
 * @words: -O option words applied over the file's own; @nwords of them
 * @cpus, @pids: only these CPUs / threads (NULL: all)
 * @header: print the header (trace); false for trace_pipe's bare lines
 *
 * @err: the message when it fails (@errlen bytes)
 *
 * Return: 0, or -errno with @err naming the file and what was wrong.
 */
int ut_report(const char *file, FILE *f, const char *const *words, int nwords,
	      const struct ut_idlist *cpus, const struct ut_idlist *pids, bool header,
	      char *err, size_t errlen)
{
	static const struct ut_idlist none;
	struct ut_out_cfg cfg = {0};
	struct report_ctx ctx = {.f = f};
	struct ut_opts opts;
	struct ut_out *out;
	struct ut_graph_out *graph = NULL;
	struct pass p = {0};
	char tracer[32];
	int ret, clock;

	if (!cpus)
		cpus = &none;
	if (!pids)
		pids = &none;
	ut_opts_init(&opts, 0);
	/* First pass: the header's entries/written counts. */
	ctx.td = ut_tracedat_open(file, err, errlen);
	if (!ctx.td)
		return -EIO;
	clock = ut_name_index(ut_clock_names, UT_CLOCK_NR, ut_tracedat_clock(ctx.td));
	snprintf(tracer, sizeof(tracer), "%s",
		 ut_tracedat_tracer(ctx.td) ? ut_tracedat_tracer(ctx.td) : "function");
	cfg.tracer = tracer;
	cfg.syms = ut_tracedat_symbols(ctx.td);
	cfg.comm = comm_cb;
	cfg.tgid = tgid_cb;
	cfg.ctx = &ctx;
	cfg.nr_cpus = ut_tracedat_nr_cpus(ctx.td);
	cfg.clock_is_counter = ut_clock_is_counter(clock);
	/* The options set when recording, then those given here. */
	ut_tracedat_options(ctx.td, &opts.bits);
	for (int i = 0; i < nwords; i++)
		if (ut_opts_parse(&opts, "function", words[i]))
			ut_opts_parse(&opts, "function_graph", words[i]);
	cfg.opts = &opts;
	if (header)
		read_events(&ctx, NULL, NULL, cpus, pids, &p, false, err, errlen);
	ut_tracedat_close_reader(ctx.td);

	ctx.td = ut_tracedat_open(file, err, errlen);
	if (!ctx.td)
		return -EIO;
	cfg.syms = ut_tracedat_symbols(ctx.td);
	out = ut_out_new(&cfg);
	if (out && !strcmp(tracer, "function_graph") && !(graph = ut_graph_out_new(out))) {
		ut_out_free(out);
		out = NULL;
	}
	if (!out) {
		ut_tracedat_close_reader(ctx.td);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ut_out_start(out, p.overrun);
	if (graph)
		ut_graph_start(graph);
	/* Losses no page could carry (at the very end) are in the file's total. */
	if (ut_tracedat_lost_total(ctx.td) > p.lost && !cpus->n && !pids->n)
		p.lost = ut_tracedat_lost_total(ctx.td);
	if (header && graph)
		ut_graph_print_header(graph, f, p.entries, p.entries + p.lost);
	else if (header)
		ut_out_print_header(out, f, p.entries, p.entries + p.lost);
	ret = read_events(&ctx, out, graph, cpus, pids, &p, true, err, errlen);
	ut_graph_out_free(graph);
	ut_out_free(out);
	ut_tracedat_close_reader(ctx.td);
	return ret;
}

