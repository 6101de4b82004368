/* SPDX-License-Identifier: MIT */
/*
 * The recorder: drains every session under a directory into spool files
 * while the traced programs run, then writes one trace.dat.
 */
#ifndef UT_RECORD_H
#define UT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ut_recorder;
struct ut_opts;

struct ut_recorder *ut_recorder_new(const char *session_dir, const char *output,
				    const char *tracer, int clock, const struct ut_opts *opts);
/* The TSC conversion to hand to the traced processes (UT_CLOCK_ENV's format). */
void ut_recorder_clock_env(struct ut_recorder *r, char *buf, size_t len);
/*
 * Profile mode: finish() prints the function profiler's tables (the kernel's
 * trace_stat/function format, all threads merged, then one table per thread
 * when there are several) to @out instead of writing a trace file.
 * @graph_time: Time includes callees (graph-time); @thresh_ns hides rows
 * whose average is below it (tracing_thresh); @demangle prints C++ names as
 * the source spells them (sym-demangle).
 */
void ut_recorder_set_profile(struct ut_recorder *r, FILE *out, bool graph_time, bool demangle,
			     uint64_t thresh_ns);

/*
 * Live mode: read the sessions of running (or dead) processes in place --
 * only those of @pids (NULL: all), keeping their clocks and never removing
 * them.  @consume: take what is read from producer/consumer buffers (record
 * -P, trace_pipe); otherwise a snapshot that leaves every buffer as it was.
 * @pids must stay valid while @r is used.
 */
void ut_recorder_set_live(struct ut_recorder *r, const int32_t *pids, size_t npids, bool consume);

/* Profile mode: only the merged table (@tid 0), or one thread's (@tid > 0). */
void ut_recorder_profile_only(struct ut_recorder *r, int32_t tid);

/* Live mode: the buffers of instance @inst (instances/) instead of the top level's. */
void ut_recorder_set_instance(struct ut_recorder *r, int inst);

/* One pass over every thread of every session. Returns bytes copied, or <0. */
long ut_recorder_drain(struct ut_recorder *r);
/* Last drain, merge, write the output file, remove the sessions. Returns 0 or -errno. */
int ut_recorder_finish(struct ut_recorder *r);
void ut_recorder_free(struct ut_recorder *r);

#endif
