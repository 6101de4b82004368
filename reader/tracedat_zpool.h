/* SPDX-License-Identifier: MIT */
/*
 * The compression pool of the trace.dat version 7 writer: chunks of CPU
 * pages are compressed on the machine's other cores while the writer goes on
 * encoding the next ones, and come back to the writer in the order they
 * were given, so the file is laid out as if each had been compressed at
 * once.
 *
 * Only the writer's thread calls these; the pool's own threads touch no
 * writer state, they only compress.  The writer helps when it would
 * otherwise wait: a job no thread has started yet, it compresses itself.
 */
#ifndef UTRACE_READER_TRACEDAT_ZPOOL_H
#define UTRACE_READER_TRACEDAT_ZPOOL_H

#include <stdbool.h>
#include <stddef.h>

struct td_zpool;

/*
 * Called, on the writer's thread, with each finished chunk in submission
 * order: @chunk (@n bytes, 0 when compressing failed for want of memory) for
 * @cpu.  Its return value, if not 0, is kept and returned by the call that
 * delivered the chunk.
 */
typedef int (*td_zpool_out_fn)(void *ctx, int cpu, const unsigned char *chunk, size_t n);

/* A pool compressing at zstd @level on up to @threads threads of its own (0: on the caller's). */
struct td_zpool *td_zpool_new(int level, int threads, td_zpool_out_fn out, void *ctx);

/* Threads worth starting on this machine: the cores but the writer's, at most two. */
int td_zpool_threads(void);

/* A buffer for @size bytes of plain pages (the pool's, recycled); NULL when out of memory. */
unsigned char *td_zpool_buf(struct td_zpool *p, size_t size);

/*
 * Hand over @plain (from td_zpool_buf(), @n bytes) for @cpu, compressed, or
 * @store: framed raw (td_zenc_store).  Chunks handed over earlier may be
 * delivered meanwhile.  Return: 0 or the first error of a delivery.
 */
int td_zpool_submit(struct td_zpool *p, int cpu, unsigned char *plain, size_t n, bool store);

/* Every chunk handed over, delivered.  Return: 0 or the first error of a delivery. */
int td_zpool_drain(struct td_zpool *p);

/* The pool's threads follow @y (reader/yield.h) from their next job on. */
struct ut_yield;
void td_zpool_set_yield(struct td_zpool *p, struct ut_yield *y);

/* Stop the threads and free; chunks not delivered are dropped. */
void td_zpool_free(struct td_zpool *p);

#endif
