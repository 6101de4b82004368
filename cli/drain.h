/* SPDX-License-Identifier: MIT */
/*
 * Emptying a ring into a chunk queue (common/chunkq.h), for a reader that
 * must keep up with the programs and does the slow part on another thread:
 * the trace_pipe stream (cli/live.c), which formats at idle priority.
 */
#ifndef UT_DRAIN_H
#define UT_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/chunkq.h"
#include "common/ring_buffer.h"

/* Ring data in the queue: from stream position @start, @lost records missing before it. */
struct ut_drain_chunk {
	void *owner;          /* the caller's: whose ring */
	uint64_t start, lost;
	size_t len;
	unsigned flags;       /* the caller's */
	uint8_t bytes[];
};

/*
 * Move what @rb published into @q as chunks of @owner, consumed from the
 * ring.  @consume: a producer/consumer ring (copied as it is, whole pages
 * only unless @all: reading the page the program writes makes its cache
 * lines bounce); otherwise a flight-recorder ring the writer may lap, which
 * goes through ut_rb_drain().  Chunks split only at page boundaries.
 * Returns the bytes taken; what the queue has no room for stays in the ring.
 */
size_t ut_drain_to_queue(struct ut_rb_reader *rb, bool consume, bool all, struct ut_chunkq *q,
			 void *owner);

/*
 * Make the calling thread -- one that empties rings while programs write
 * them -- real-time (SCHED_FIFO, the lowest priority) where allowed: root,
 * or RLIMIT_RTPRIO; @on false makes it a normal thread again.  A normal
 * thread woken on a CPU a traced program keeps busy may wait out the
 * program's whole time slice: 200 us naps were measured oversleeping by
 * 1-15 ms, against 2 ms at most in SCHED_FIFO, and a 2 MiB ring holds 2 ms
 * of fib.  Returns whether it is real-time: a real-time drainer must nap
 * between passes, never spin, and leave it for any long computation.
 */
bool ut_drain_realtime(bool on);

#endif
