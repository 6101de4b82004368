/* SPDX-License-Identifier: MIT */
/*
 * A first-in first-out queue of variable-size chunks, one producer thread
 * and one consumer thread, for streaming readers that copy ring data out as
 * fast as a program writes it (hundreds of MB/s) and format it later.
 *
 * Chunks are carved out of big blocks backed by transparent huge pages and
 * prefaulted, and blocks the consumer has emptied are reused: the producer
 * copies into memory that is already mapped instead of faulting a fresh 4 KiB
 * page every 4 KiB (in a VM a page fault costs microseconds, and that alone
 * made a copying thread slower than the program it followed).  The queue
 * never holds more than its cap: when it is full, allocation fails and the
 * producer leaves the data where it is (in a ring, to be counted as lost
 * there).
 */
#ifndef UT_CHUNKQ_H
#define UT_CHUNKQ_H

#include <stddef.h>

struct ut_chunkq;

/*
 * Blocks of @block_size bytes (rounded up to 2 MiB), at most @max_bytes in
 * all; with @ahead, a thread keeps that many spare blocks mapped ahead of
 * need (the producer never waits for the kernel to find memory).
 */
struct ut_chunkq *ut_chunkq_new(size_t block_size, size_t max_bytes, unsigned ahead);
/*
 * The same with the grower at SCHED_IDLE: it maps blocks with the CPU no one
 * else wants, at the risk of holding the process's mmap lock while starved
 * (a drop-and-count reader's choice; a lossless one's drainer must not wait).
 */
struct ut_chunkq *ut_chunkq_new_idle(size_t block_size, size_t max_bytes, unsigned ahead);
/*
 * Keep @ahead spare blocks from now on (at most what ut_chunkq_new got):
 * fewer while the programs are quiet, all of them while they may burst.
 * Spares beyond a lower count are unmapped.
 */
void ut_chunkq_set_ahead(struct ut_chunkq *q, unsigned ahead);
/* Map @n spare blocks now (at most the spares kept), in the calling thread. */
void ut_chunkq_prefill(struct ut_chunkq *q, unsigned n);
/* Frees the queue and whatever chunks it still holds. */
void ut_chunkq_free(struct ut_chunkq *q);

/*
 * Producer: room for a chunk of at least @min and at most @max bytes (16-byte
 * aligned), its size in *@len.  NULL if not even @min fits in a block, or the
 * queue is at its cap.  Fill it, then ut_chunkq_push() it (a reserved chunk
 * not pushed is taken back by the next reserve).
 */
void *ut_chunkq_reserve(struct ut_chunkq *q, size_t min, size_t max, size_t *len);
/* Producer: append the chunk last reserved, of @len bytes (at most what was reserved). */
void ut_chunkq_push(struct ut_chunkq *q, void *chunk, size_t len);

/* Consumer: the oldest chunk and its size, or NULL when empty. */
void *ut_chunkq_pop(struct ut_chunkq *q, size_t *len);
/* Bytes pushed and not popped yet: how far behind the consumer is (any thread). */
size_t ut_chunkq_queued(const struct ut_chunkq *q);
/* Consumer: done with a popped chunk (in any order). */
void ut_chunkq_release(struct ut_chunkq *q, void *chunk);

/* Bytes of blocks in use (chunks queued or being read), for the curious. */
size_t ut_chunkq_bytes(struct ut_chunkq *q);
/* Bytes mapped in all: blocks in use and spares. */
size_t ut_chunkq_mapped(struct ut_chunkq *q);

#endif
