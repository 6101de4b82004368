/* SPDX-License-Identifier: MIT */
/*
 * Emptying a ring into a chunk queue (common/chunkq.h), for a reader that
 * must keep up with the programs and does the slow part on another thread:
 * the trace_pipe stream (reader/live.c), which formats at idle priority.
 */
#ifndef UT_DRAIN_H
#define UT_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/chunkq.h"
#include "common/ring_buffer.h"
#include "utrace/read.h"

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

/* ut_drain_realtime(): include/utrace/read.h */

#endif
