/* SPDX-License-Identifier: MIT */
/*
 * The recorder's write-out, inside the library (reader/recorder.c): the
 * threads' drained events merged in time order (reader/stream.c), with
 * func-no-repeats folded and CPUs the file has no stream for put on CPU 0,
 * go to a sink -- the trace.dat writer (record, extract), or the printer
 * of a live snapshot (reader/snapshot.c: show, the mount's trace files),
 * which so sees exactly what the file would hold, without making one.
 */
#ifndef UT_READER_RECORDER_H
#define UT_READER_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/event.h"
#include "reader/tracedat.h"
#include "utrace/read.h"

struct ut_write_sink {
	/* The trace's metadata, before any event (valid until end()). */
	int (*begin)(struct ut_write_sink *k, const struct ut_tracedat_meta *m);
	/* The next event in time order; ev->cpu < m->nr_cpus. */
	int (*event)(struct ut_write_sink *k, const struct ut_event *ev);
	/* @nr events lost on @cpu just before its next event. */
	int (*lost)(struct ut_write_sink *k, unsigned cpu, uint64_t nr);
	/* After the last event: @m with the totals (m->lost). */
	int (*end)(struct ut_write_sink *k, const struct ut_tracedat_meta *m);
};

/* The last drain: everything the buffers hold now, into the spool. */
void ut_recorder_collect(struct ut_recorder *r);
/*
 * What was collected, merged and folded, into @k (again at every call: a
 * printer counts in a first pass).  0, or the first error of the merge or
 * of @k.
 */
int ut_recorder_replay(struct ut_recorder *r, struct ut_write_sink *k);
/* Tell the user what the last replay lost and what was not traced (ut_read_set_warn). */
void ut_recorder_warn_totals(struct ut_recorder *r);
/* Live mode: only thread @tid's buffers (a thread's file of the mount). */
void ut_recorder_set_thread(struct ut_recorder *r, int32_t tid);
/* A session file was refused (owner, mode, size: ut_live_strerror(-EPERM)). */
bool ut_recorder_refused(const struct ut_recorder *r);
/* Remove the spool (what finish() does after writing). */
void ut_recorder_cleanup(struct ut_recorder *r);

#endif
