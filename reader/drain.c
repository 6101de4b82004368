// SPDX-License-Identifier: MIT
/* Draining a ring into a sink (reader/drain.h). */
#include "reader/drain.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "utrace/abi.h"

#define CHUNK_MAX (1u << 20) /* bytes per copy (and per queue chunk) at most */
#define DRAIN_TORN_RETRIES 8 /* copies of a lapped ring that came back all torn */

/*
 * A sink that copies (the chunk queue): @n peeked bytes copied, then
 * consumed, then published -- or dropped, if the pair moved between (the
 * runtime took the buffer back and counted those records lost; a clear
 * discarded them): nothing is both printed and counted lost.  Chunks are
 * cut only at page boundaries (a page opens with its TIME record).  Returns
 * the bytes taken, 0 if the sink is full or the copy was not ours (then
 * *@dropped), or -errno.
 */
static long copy_one(struct ut_rb_reader *rb, struct ut_drain_sink *k, uint64_t start,
		     const uint8_t *seg[2], const size_t seglen[2], size_t n, bool *dropped)
{
	size_t len = n < CHUNK_MAX ? n : CHUNK_MAX, got, head;
	size_t first = UT_PAGE_SIZE - (start & (UT_PAGE_SIZE - 1));
	uint8_t *buf;
	int err;

	if (len < n)
		len = first + (len - first) / UT_PAGE_SIZE * UT_PAGE_SIZE;
	buf = k->reserve(k, first < len ? first : len, len, &got);
	if (!buf)
		return 0; /* full: the ring holds the rest */
	if (got < len)
		len = first + (got - first) / UT_PAGE_SIZE * UT_PAGE_SIZE;
	head = len < seglen[0] ? len : seglen[0];
	memcpy(buf, seg[0], head);
	memcpy(buf + head, seg[1], len - head);
	if (!ut_rb_consume(rb, len)) {
		*dropped = true; /* not ours: the reservation is simply not committed */
		return 0;
	}
	err = k->commit(k, buf, start, 0, len);
	return err ? err : (long)len;
}

/*
 * Producer/consumer: what is unread, to the sink.  A sink with put()
 * publishes as it takes (the spool: written to a file from the ring in
 * place), then it is consumed (out already: if the pair moved meanwhile --
 * a clear, or the runtime taking the buffer back, which a lossless
 * reader's buffers never are -- it stays out); the others copy_one().
 * -EINVAL: not producer/consumer after all.
 */
static long take_consuming(struct ut_rb_reader *rb, bool all, struct ut_drain_sink *k,
			   int *sink_err)
{
	const uint8_t *seg[2];
	size_t seglen[2];
	long n, total = 0;
	uint64_t start;

	while ((n = ut_rb_peek(rb, all, &start, seg, seglen)) > 0) {
		bool dropped = false;
		long took = k->put ? k->put(k, start, 0, seg, seglen)
				   : copy_one(rb, k, start, seg, seglen, (size_t)n, &dropped);

		if (dropped)
			continue;
		if (took <= 0) {
			*sink_err = (int)took;
			break; /* full (the ring holds the rest), or failed */
		}
		if (k->put)
			ut_rb_consume(rb, (size_t)took);
		total += took;
	}
	return n < 0 ? n : total;
}

long ut_drain(struct ut_rb_reader *rb, bool consume, bool all, struct ut_drain_sink *k)
{
	struct ut_rb_chunk rc;
	int err = 0;
	long total = 0;

	if (consume) {
		long n = take_consuming(rb, all, k, &err);

		if (err < 0)
			return err;
		if (n >= 0)
			return n;
		/* -EINVAL: not producer/consumer after all (a mode change) */
	}
	for (int torn = 0;;) {
		/*
		 * One ring's worth per call at most: a writer that laps every
		 * copy would otherwise be followed for as long as it writes, and
		 * a snapshot (show) would print more than the ring holds.
		 */
		size_t got, left = (size_t)rb->size - (size_t)total;
		uint8_t *buf;

		if (left < UT_PAGE_SIZE)
			break;
		buf = k->reserve(k, UT_PAGE_SIZE, left < CHUNK_MAX ? left : CHUNK_MAX, &got);
		if (!buf)
			break;
		if (got > left)
			got = left; /* a sink with a fixed buffer */
		got = got / UT_PAGE_SIZE * UT_PAGE_SIZE;
		if (ut_rb_drain(rb, &rc, all, buf, got) || (!rc.len && !rc.lost))
			break; /* what was reserved is simply not committed */
		err = k->commit(k, buf, rc.start, rc.lost, rc.len);
		if (err)
			return err;
		total += (long)rc.len;
		/*
		 * All of it overwritten while we copied (we were preempted), or
		 * all but a little (a writer faster than the copy: here a core
		 * reads lines another core just wrote at 200-300 MB/s, and a
		 * writer fills 2 GB/s): the newest again, after a LOST record.
		 */
		if (rc.lost && rc.len < rb->size / 4 && ++torn < DRAIN_TORN_RETRIES)
			continue;
		if (rc.len < got)
			break;
	}
	return total;
}

/* --- the chunk-queue sink ----------------------------------------------- */

static uint8_t *q_reserve(struct ut_drain_sink *sink, size_t min, size_t max, size_t *got)
{
	struct ut_drain_qsink *k = (struct ut_drain_qsink *)sink;
	struct ut_drain_chunk *c;

	c = ut_chunkq_reserve(k->q, sizeof(*c) + min, sizeof(*c) + max, got);
	if (!c)
		return NULL;
	*got -= sizeof(*c);
	return c->bytes;
}

static int q_commit(struct ut_drain_sink *sink, uint8_t *buf, uint64_t start, uint64_t lost,
		    size_t len)
{
	struct ut_drain_qsink *k = (struct ut_drain_qsink *)sink;
	struct ut_drain_chunk *c =
		(struct ut_drain_chunk *)(void *)(buf - offsetof(struct ut_drain_chunk, bytes));

	*c = (struct ut_drain_chunk){.owner = k->owner, .start = start, .lost = lost, .len = len};
	ut_chunkq_push(k->q, c, sizeof(*c) + len);
	return 0;
}

void ut_drain_qsink_init(struct ut_drain_qsink *k, struct ut_chunkq *q, void *owner)
{
	*k = (struct ut_drain_qsink){.sink = {.reserve = q_reserve, .commit = q_commit},
				     .q = q,
				     .owner = owner};
}

bool ut_drain_realtime(bool on)
{
	struct sched_param sp = {.sched_priority = on ? 1 : 0};

	return pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : SCHED_OTHER, &sp) == 0 && on;
}
