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
	p->raw = NULL;
	if (ev->raw) {
		p->raw = malloc(ev->raw_len ? ev->raw_len : 1);
		if (p->raw)
			memcpy(p->raw, ev->raw, ev->raw_len);
		p->ev.raw = p->raw;
		p->ev.raw_len = p->raw ? ev->raw_len : 0;
	}
	if (ev->str) {
		p->str = strdup(ev->str);
		p->ev.str = p->str ? p->str : "";
	}
	p->ev.callers = NULL;
	p->ev.nr_callers = 0;
	if (ev->args) { /* reader-owned too */
		p->ev.nargs = ev->nargs < UT_EV_MAX_ARGS ? ev->nargs : UT_EV_MAX_ARGS;
		p->ev.argbytes = ev->argbytes > 8 * p->ev.nargs ? ev->argbytes : 8 * p->ev.nargs;
		if (p->ev.argbytes > sizeof(p->args))
			p->ev.argbytes = sizeof(p->args);
		memcpy(p->args, ev->args, p->ev.argbytes);
		p->ev.args = p->args;
	}
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
	free(p->raw);
	p->str = NULL;
	p->callers = NULL;
	p->raw = NULL;
}

static bool pev_refill(struct ut_stream_src *src)
{
	struct ut_pev_src *x = (struct ut_pev_src *)src;

	if (src->cur)
		x->pos++;
	if (x->pos >= x->n)
		return false;
	src->cur = &x->v[x->pos].ev;
	src->end = src->cur + 1;
	src->lost += x->v[x->pos].lost;
	return true;
}

void ut_pev_src_init(struct ut_pev_src *x, const struct ut_print_ev *v, size_t n)
{
	*x = (struct ut_pev_src){.src = {.refill = pev_refill}, .v = v, .n = n};
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

/*
 * A window of events read ahead.  Printing an event may need the next event
 * of the whole trace (latency-format's delay mark) or the next one of its
 * CPU (function_graph: is this entry a leaf?), which in the merged stream
 * can be some way ahead.
 */
#define WINDOW 4096

static struct ut_print_ev *wat(struct ut_trace_print *p, size_t i)
{
	return &p->q[(p->head + i) % WINDOW];
}

int ut_trace_print_begin(struct ut_trace_print *p, FILE *f, const struct ut_out_cfg *cfg,
			 const struct ut_trace_count *c, uint64_t lost_total, bool all, bool header)
{
	uint64_t lost = c->lost;

	bool graph_trace = !strcmp(cfg->tracer, "function_graph");
	struct ut_out_cfg gcfg = *cfg;

	*p = (struct ut_trace_print){.f = f};
	p->q = calloc(WINDOW, sizeof(*p->q));
	p->out = p->q ? ut_out_new(cfg) : NULL;
	/*
	 * Each event prints with the format it was written with, whatever the
	 * trace's tracer: a function trace may hold function_graph events (a
	 * process that ran that tracer before, a dead one's old buffers), which
	 * go to a function_graph formatter of their own.
	 */
	gcfg.tracer = "function_graph";
	p->gout = !p->out ? NULL : graph_trace ? p->out : ut_out_new(&gcfg);
	p->graph = p->gout ? ut_graph_out_new(p->gout) : NULL;
	if (!p->graph) {
		if (p->gout != p->out)
			ut_out_free(p->gout);
		ut_out_free(p->out);
		free(p->q);
		return -ENOMEM;
	}
	p->pr = (struct ut_printer){.out = p->out, .gout = p->gout, .graph = p->graph,
				    .all_graph = graph_trace};
	ut_out_start(p->out, c->overrun);
	if (p->gout != p->out)
		ut_out_start(p->gout, c->overrun);
	ut_graph_start(p->graph);
	/* Losses no page could carry (at the very end) are in the trace's total. */
	if (lost_total > lost && all)
		lost = lost_total;
	if (header && graph_trace)
		ut_graph_print_header(p->graph, f, c->entries, c->entries + lost);
	else if (header)
		ut_out_print_header(p->out, f, c->entries, c->entries + lost);
	return 0;
}

/* The next event on the CPU of the window's first, NULL if the window has none. */
static struct ut_print_ev *next_on_cpu(struct ut_trace_print *p)
{
	uint32_t cpu = wat(p, 0)->ev.cpu;

	for (size_t i = 1; i < p->n; i++)
		if (wat(p, i)->ev.cpu == cpu)
			return wat(p, i);
	return NULL;
}

/* Print the window's first event (unless a line before printed it) and drop it. */
static void print_first(struct ut_trace_print *p, struct ut_print_ev *next)
{
	struct ut_print_ev *q = wat(p, 0);

	if (!q->consumed)
		ut_print_event(&p->pr, p->f, q, next, p->n > 1 ? &wat(p, 1)->ev : NULL);
	ut_print_release(q);
	p->head = (p->head + 1) % WINDOW;
	p->n--;
}

void ut_trace_print_push(struct ut_trace_print *p, const struct ut_event *ev, uint64_t lost)
{
	ut_print_keep(wat(p, p->n), ev, lost);
	p->n++;
	/* print what is known: the next event on its CPU, or a full window */
	while (p->n > 1) {
		bool graph = is_graph(&p->pr, wat(p, 0)->ev.type);
		struct ut_print_ev *next = graph ? next_on_cpu(p) : NULL;

		if (graph && !next && p->n < WINDOW)
			break;
		print_first(p, next);
	}
}

void ut_trace_print_end(struct ut_trace_print *p)
{
	while (p->n)
		print_first(p, is_graph(&p->pr, wat(p, 0)->ev.type) ? next_on_cpu(p) : NULL);
	ut_graph_out_free(p->graph);
	if (p->gout != p->out)
		ut_out_free(p->gout);
	ut_out_free(p->out);
	free(p->q);
	p->q = NULL;
}

void ut_trace_opts(struct ut_opts *opts, const uint64_t *bits, const char *const *words,
		   int nwords)
{
	ut_opts_init(opts, 0);
	if (bits)
		opts->bits = *bits;
	for (int i = 0; i < nwords; i++)
		if (ut_opts_parse(opts, "function", words[i]))
			ut_opts_parse(opts, "function_graph", words[i]);
}

/* --- a trace.dat --------------------------------------------------------- */

static const char *comm_cb(void *ctx, int32_t pid)
{
	return ut_tracedat_comm(*(struct ut_tracedat **)ctx, pid);
}

static int32_t tgid_cb(void *ctx, int32_t pid)
{
	return ut_tracedat_tgid(*(struct ut_tracedat **)ctx, pid);
}

/*
 * One pass over the file's events through the stream's filter: counted
 * into @c, or printed by @p.  0, or -EIO with @err naming what was wrong.
 */
static int file_pass(struct ut_tracedat *td, const struct ut_stream_filter *flt,
		     struct ut_trace_count *c, struct ut_trace_print *p, char *err, size_t errlen)
{
	struct ut_stream *st = ut_stream_new(flt);
	struct ut_file_src file = {0};
	struct ut_stream_item it;
	int ret = 0;

	if (!st || ut_file_src_add(&file, td, st, true)) {
		ut_file_src_free(&file);
		ut_stream_free(st);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (ut_stream_next(st, &it) == 1) {
		if (!it.ev)
			continue; /* a file's losses come with the event after them */
		if (p)
			ut_trace_print_push(p, it.ev, it.lost);
		else
			ut_trace_count_add(c, it.lost);
	}
	if (file.err) {
		ret = -EIO;
		snprintf(err, errlen, "%s", file.errmsg);
	}
	ut_file_src_free(&file);
	ut_stream_free(st);
	return ret;
}

/* The formatters' configuration for the file @td (its tracer into @tracer). */
static void file_cfg(struct ut_tracedat **td, struct ut_out_cfg *cfg, struct ut_opts *opts,
		     char *tracer, size_t len, const char *const *words, int nwords)
{
	int clock = ut_name_index(ut_clock_names, UT_CLOCK_NR, ut_tracedat_clock(*td));
	uint64_t bits = 0;
	bool has;

	snprintf(tracer, len, "%s", ut_tracedat_tracer(*td) ? ut_tracedat_tracer(*td) : "function");
	/* The options set when recording, then those given here. */
	has = ut_tracedat_options(*td, &bits);
	ut_trace_opts(opts, has ? &bits : NULL, words, nwords);
	*cfg = (struct ut_out_cfg){.tracer = tracer, .syms = ut_tracedat_symbols(*td),
				   .comm = comm_cb, .tgid = tgid_cb, .ctx = td,
				   .nr_cpus = ut_tracedat_nr_cpus(*td),
				   .clock_is_counter = ut_clock_is_counter(clock), .opts = opts};
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
	const struct ut_stream_filter flt = {.cpus = cpus, .tids = pids};
	bool all = (!cpus || !cpus->n) && (!pids || !pids->n);
	struct ut_trace_count c = {0};
	struct ut_trace_print p;
	struct ut_out_cfg cfg;
	struct ut_tracedat *td;
	struct ut_opts opts;
	char tracer[32];
	int ret;

	/* First pass: the header's entries/written counts (quiet: the second reports). */
	td = ut_tracedat_open(file, err, errlen);
	if (!td)
		return -EIO;
	if (header)
		file_pass(td, &flt, &c, NULL, err, errlen);
	ut_tracedat_close_reader(td);

	td = ut_tracedat_open(file, err, errlen);
	if (!td)
		return -EIO;
	file_cfg(&td, &cfg, &opts, tracer, sizeof(tracer), words, nwords);
	if (ut_trace_print_begin(&p, f, &cfg, &c, ut_tracedat_lost_total(td), all, header)) {
		ut_tracedat_close_reader(td);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = file_pass(td, &flt, NULL, &p, err, errlen);
	ut_trace_print_end(&p);
	if (ret)
		fflush(f);
	ut_tracedat_close_reader(td);
	return ret;
}
