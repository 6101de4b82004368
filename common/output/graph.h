/* SPDX-License-Identifier: MIT */
/*
 * The function_graph formatter: prints funcgraph_entry / funcgraph_exit
 * events (and the other events found in a function_graph buffer) the way the
 * kernel's `trace` and `trace_pipe` files do for current_tracer
 * function_graph (SPEC §13, the kernel's trace_functions_graph.c).
 *
 * It sits on top of a struct ut_out and reads that formatter's options
 * (funcgraph-*, context-info, latency-format, sym-offset/sym-addr for return
 * addresses), symbol table, comm lookup and CPU count each time it prints,
 * so option changes take effect at once.
 *
 * Usage for a `trace` file:
 *
 *	g = ut_graph_out_new(o);
 *	ut_graph_start(g);                    (every pass from the top)
 *	ut_graph_print_header(g, f, entries, written);
 *	for each event ev (merged in timestamp order):
 *		next = the event after ev on ev's CPU, or NULL;
 *		r = ut_graph_print_event(g, f, ev, next);
 *		if (r == UT_GRAPH_UNHANDLED)  ut_out_print_event(o, f, ev, ...);
 *		if (r == UT_GRAPH_CONSUMED)   skip @next (it was printed);
 *
 * and for `trace_pipe`: no header, ut_graph_start() once when the pipe is
 * opened, ut_out_print_lost() before the first event read after a loss.
 *
 * Per CPU the formatter remembers the last task printed (for the
 * task-switch block), the depth comments are indented at, and which
 * function was entered at each depth (so that a return whose entry was not
 * printed says which function it closes), exactly as the kernel's iterator
 * does; ut_graph_start() forgets all of it, as opening the file does.
 */
#ifndef UT_GRAPH_H
#define UT_GRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "common/event.h"
#include "common/output/output.h"

struct ut_graph_out;

/* ut_graph_print_event() results */
enum {
	/*
	 * Not printed: function and kernel stack events, which the kernel's
	 * graph printer leaves to the normal line printer (a full
	 * "comm-pid [cpu] flags ts: body" line, in every output mode).  The
	 * caller prints @ev with the ordinary formatter.
	 */
	UT_GRAPH_UNHANDLED = -1,
	/* Printed @ev. */
	UT_GRAPH_PRINTED = 0,
	/* Printed @ev and @next together (a leaf call): don't print @next. */
	UT_GRAPH_CONSUMED = 1,
};

/**
 * ut_graph_out_new() - create a function_graph formatter
 * @o: the formatter whose options, symbols, comm lookup and nr_cpus to use;
 *     must outlive the result
 *
 * Return: the formatter (already started), or NULL on allocation failure.
 */
struct ut_graph_out *ut_graph_out_new(struct ut_out *o);

/** ut_graph_out_free() - destroy a formatter (NULL is fine) */
void ut_graph_out_free(struct ut_graph_out *g);

/**
 * ut_graph_start() - begin a new pass over the buffer
 * @g: the formatter
 *
 * Forgets every CPU's last task, comment depth and open calls, as the
 * kernel does on each open of `trace` / `trace_pipe`.
 */
void ut_graph_start(struct ut_graph_out *g);

/**
 * ut_graph_print_header() - the `trace` header for function_graph
 * @g: the formatter
 * @f: where to
 * @entries: events in the buffer (latency-format prints nothing more than
 *           "# tracer:" and "#" for an empty buffer, and shows the counts in
 *           its banner)
 * @written: entries plus overwritten events (latency-format banner only)
 *
 * "# tracer: function_graph", "#", then (context-info=1) the two column
 * lines built from the enabled columns; latency-format=1 adds the latency
 * banner and the graph tracer's own 5-line flags help before them.
 */
void ut_graph_print_header(struct ut_graph_out *g, FILE *f, uint64_t entries, uint64_t written);

/**
 * ut_graph_print_event() - print one event of a function_graph buffer
 * @g: the formatter
 * @f: where to
 * @ev: the event
 * @next: the next event recorded on @ev's CPU, or NULL if none or unknown
 *
 * An entry whose @next is its return (a UT_EV_FUNCGRAPH_EXIT of the same
 * pid, CPU and function, the kernel's leaf test) prints as one leaf line
 * "func();" with the return's duration; otherwise an entry prints
 * "func() {".  A return prints "}" with its duration, followed by a
 * comment naming the function with funcgraph-tail or when its entry was not
 * printed, and by " (Overruns: N)" on a line of its own with
 * funcgraph-overrun.  Any other event except function and kernel stack
 * events prints as a C comment holding its text (trace_marker: just the
 * text), indented one level below the current call.  A task-switch block
 * precedes the line when the CPU's previous line came from another task.
 *
 * Graph entries may carry a return address in @ev->parent_ip (the kernel's
 * funcgraph-retaddr entry form); with funcgraph-retaddr=1 a non-zero one is
 * printed as "<-caller+0xOFF/0xSIZE".  Signal handlers are user space's
 * interrupts: utrace's signal_enter / signal_exit events print as the
 * kernel's interrupt marks, "==========>" and "<==========" in the
 * duration column (nothing for a handler that traced nothing: an enter
 * whose @next is its exit); funcgraph-irqs=0 hides them with the handler's
 * calls.  Unsupported: funcgraph-args (events carry no arguments).
 *
 * Return: UT_GRAPH_PRINTED, UT_GRAPH_CONSUMED (@next printed too: skip it)
 * or UT_GRAPH_UNHANDLED (nothing printed: print @ev the ordinary way).
 */
int ut_graph_print_event(struct ut_graph_out *g, FILE *f, const struct ut_event *ev,
			 const struct ut_event *next);

/**
 * ut_graph_print_duration() - a duration the way the graph tracer shows it
 * @f: where to
 * @ns: the duration in ns
 *
 * Microseconds with at most 7 digits (fraction truncated: "1.234",
 * "12345.67", "1234567"), then " us ", then spaces so that the number and
 * the padding take 8 columns.  The function profiler's Time, Avg and s^2
 * columns use the same text (the kernel's trace_print_graph_duration()).
 */
void ut_graph_print_duration(FILE *f, uint64_t ns);

#endif
