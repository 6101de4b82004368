/* SPDX-License-Identifier: MIT */
/*
 * Reading running processes' traces, for the live commands (show, extract,
 * record -P) and the tracefs mount: the recorder in live mode over the
 * run-time directory, writing a trace.dat that the report code prints.
 */
#ifndef UT_LIVE_H
#define UT_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Write the trace of instance @inst (instances/; 0: the top level) of the
 * sessions of @pids (NULL: every session) in @rundir to @output.  @consume
 * takes what is read (trace_pipe); otherwise
 * the buffers are left as they were.  @opts_bits: the trace options stored
 * in the file.  Returns 0, -ESRCH if there is no session, or -errno.
 */
int ut_live_snapshot(const char *rundir, int inst, const int32_t *pids, size_t npids, bool consume,
		     const char *output, uint64_t opts_bits);

/*
 * The trace of those sessions printed to @f in the kernel's `trace` format
 * (@header) or as trace_pipe's bare lines.  @words: -O option words.
 */
int ut_live_print(const char *rundir, int inst, const int32_t *pids, size_t npids, bool consume,
		  FILE *f, const char *const *words, int nwords, bool header);

/*
 * The function profiler's tables of those sessions (trace_stat/function):
 * all threads merged then one table per thread (@tid -1), merged only (0),
 * or thread @tid's.  @graph_time: Time includes callees; @thresh_ns hides
 * rows whose average is below it.
 */
int ut_live_stat(const char *rundir, const int32_t *pids, size_t npids, FILE *f, bool graph_time,
		 bool demangle,
		 uint64_t thresh_ns, int32_t tid);

/*
 * A trace_pipe reader: each read consumes what the sessions' buffers got
 * since the previous one and prints it, merged in time order, without a
 * header and without going through a trace file.  Events whose successor
 * is not known yet (function_graph needs it to print leaves) wait for the
 * next read, unless @flush.  Created once per open; keeps each thread's
 * position, so it follows processes as they come and go.
 */
struct ut_live_stream;

struct ut_live_stream *ut_live_stream_new(const char *rundir, int inst, const int32_t *pids,
					  size_t npids, const char *const *words, int nwords);
/*
 * Print what is new to @f: the text formatted since the last read, or when
 * there is none, the first of what the buffers hold now (waiting for it to be
 * drained and formatted).  @flush: events waiting for a successor go out too.
 * *@alive: false once the wanted processes are gone and all they wrote was
 * printed.  Returns the bytes printed, or -errno.
 */
long ut_live_stream_read(struct ut_live_stream *s, FILE *f, bool flush, bool *alive);
/*
 * From now on, drain the buffers on a thread of the stream's own (every
 * 0.2 to 1 ms when idle) into a queue in memory, and format the queue on
 * another, at background priority: the programs never wait for the
 * formatting or the terminal.  Without it, each read drains and formats.
 */
int ut_live_stream_start(struct ut_live_stream *s);
void ut_live_stream_free(struct ut_live_stream *s);

#endif
