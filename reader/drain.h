/* SPDX-License-Identifier: MIT */
/*
 * Draining a ring: the one function that takes what a thread's buffer
 * published (producer/consumer buffers consumed in place, flight-recorder
 * buffers copied out past the writer) and hands it to a sink.  Two sinks:
 * the recorder's spool files (reader/recorder.c) and the chunk queue
 * (common/chunkq.h) of the trace_pipe stream (reader/live.c), whose
 * real-time drainer must keep up with the programs while another thread
 * formats at idle priority.
 */
#ifndef UT_DRAIN_H
#define UT_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/chunkq.h"
#include "common/ring_buffer.h"
#include "utrace/read.h"

/*
 * Where drained data goes.  Data is ring bytes from stream position @start
 * with @lost records missing before it.
 */
struct ut_drain_sink {
	/*
	 * Optional: take ring data in place (two segments: the ring wraps),
	 * publishing it at once (written out).  Returns the bytes taken (from
	 * the front; a sink that splits cuts at page boundaries), 0 if it has
	 * no room, or -errno.  Without it, producer/consumer data is copied
	 * into reserve()d room, consumed, and committed only if the consume
	 * held (common/tail_claim.h): what the runtime counted lost is never
	 * also handed on.
	 */
	long (*put)(struct ut_drain_sink *k, uint64_t start, uint64_t lost, const uint8_t *seg[2],
		    const size_t seglen[2]);
	/* Room to copy into: @min to @max bytes, *@got of them; NULL if none. */
	uint8_t *(*reserve)(struct ut_drain_sink *k, size_t min, size_t max, size_t *got);
	/* The reserved @buf now holds @len bytes (0 with @lost: losses only). 0 or -errno. */
	int (*commit)(struct ut_drain_sink *k, uint8_t *buf, uint64_t start, uint64_t lost,
		      size_t len);
};

/*
 * Move what @rb published into @k, consumed from the ring.  @consume: a
 * producer/consumer ring, given to the sink in place (whole pages only
 * unless @all: reading the page the program writes makes its cache lines
 * bounce); otherwise -- or when the ring turns out not to be one -- a
 * flight-recorder ring the writer may lap, copied out through ut_rb_drain(),
 * one ring's worth at most (a writer that laps every copy is not followed).
 * Returns the bytes taken, or -errno from the sink; what the sink has no
 * room for stays in the ring.
 */
long ut_drain(struct ut_rb_reader *rb, bool consume, bool all, struct ut_drain_sink *k);

/* Ring data in the queue: from stream position @start, @lost records missing before it. */
struct ut_drain_chunk {
	void *owner;          /* the caller's: whose ring */
	uint64_t start, lost;
	size_t len;
	unsigned flags;       /* the caller's */
	/* as aligned as in the ring: a stack record's addresses are read in place */
	_Alignas(16) uint8_t bytes[];
};

/* The chunk-queue sink: chunks of @owner in @q, split only at page boundaries. */
struct ut_drain_qsink {
	struct ut_drain_sink sink;
	struct ut_chunkq *q;
	void *owner;
};
void ut_drain_qsink_init(struct ut_drain_qsink *k, struct ut_chunkq *q, void *owner);

#endif
