// SPDX-License-Identifier: MIT
/* Emptying a ring into a chunk queue (reader/drain.h). */
#include "reader/drain.h"

#include <pthread.h>
#include <string.h>

#include "utrace/abi.h"

#define CHUNK_MAX (1u << 20) /* bytes per chunk at most */

/* Producer/consumer: the bytes in place, copied, then consumed.  -EINVAL: not after all. */
static long take_consuming(struct ut_rb_reader *rb, bool all, struct ut_chunkq *q, void *owner)
{
	const uint8_t *seg[2];
	size_t seglen[2], got, head;
	struct ut_drain_chunk *c;
	long n, total = 0;
	uint64_t start;

	while ((n = ut_rb_peek(rb, all, &start, seg, seglen)) > 0) {
		size_t len = (size_t)n < CHUNK_MAX ? (size_t)n : CHUNK_MAX;
		/* split only at page boundaries: a page opens with its TIME record */
		size_t first = UT_PAGE_SIZE - (start & (UT_PAGE_SIZE - 1));

		if (len < (size_t)n)
			len = first + (len - first) / UT_PAGE_SIZE * UT_PAGE_SIZE;
		c = ut_chunkq_reserve(q, sizeof(*c) + (first < len ? first : len), sizeof(*c) + len,
				      &got);
		if (!c)
			break; /* the queue is full: the ring holds the rest */
		got -= sizeof(*c);
		if (got < len)
			len = first + (got - first) / UT_PAGE_SIZE * UT_PAGE_SIZE;
		*c = (struct ut_drain_chunk){.owner = owner, .start = start, .len = len};
		head = len < seglen[0] ? len : seglen[0];
		memcpy(c->bytes, seg[0], head);
		memcpy(c->bytes + head, seg[1], len - head);
		ut_rb_consume(rb, len);
		ut_chunkq_push(q, c, sizeof(*c) + len);
		total += (long)len;
	}
	return n < 0 ? n : total;
}

size_t ut_drain_to_queue(struct ut_rb_reader *rb, bool consume, bool all, struct ut_chunkq *q,
			 void *owner)
{
	struct ut_drain_chunk *c;
	struct ut_rb_chunk rc;
	size_t got, total = 0;

	if (consume) {
		long n = take_consuming(rb, all, q, owner);

		if (n >= 0)
			return (size_t)n;
		/* -EINVAL: not producer/consumer after all (a mode change) */
	}
	for (;;) {
		c = ut_chunkq_reserve(q, sizeof(*c) + UT_PAGE_SIZE, sizeof(*c) + CHUNK_MAX, &got);
		if (!c)
			break;
		got = (got - sizeof(*c)) / UT_PAGE_SIZE * UT_PAGE_SIZE;
		if (ut_rb_drain(rb, &rc, all, c->bytes, got) || (!rc.len && !rc.lost))
			break; /* the reserved chunk is simply not pushed */
		*c = (struct ut_drain_chunk){.owner = owner, .start = rc.start, .lost = rc.lost,
					     .len = rc.len};
		ut_chunkq_push(q, c, sizeof(*c) + rc.len);
		total += rc.len;
		if (rc.len < got)
			break;
	}
	return total;
}

bool ut_drain_realtime(bool on)
{
	struct sched_param sp = {.sched_priority = on ? 1 : 0};

	return pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : SCHED_OTHER, &sp) == 0 && on;
}
