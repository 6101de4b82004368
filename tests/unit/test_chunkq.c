// SPDX-License-Identifier: MIT
/* The chunk queue (common/chunkq.h): order, sizes, block reuse, the cap, threads, spares. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/chunkq.h"
#include "ut_test.h"

#define MiB ((size_t)1 << 20)

/* Chunks come out in order, with their sizes and contents. */
TEST(fifo_order_and_contents)
{
	struct ut_chunkq *q = ut_chunkq_new(2 * MiB, 64 * MiB, 0);
	size_t len;

	CHECK(q);
	CHECK(!ut_chunkq_pop(q, &len));
	for (unsigned i = 0; i < 1000; i++) {
		size_t want = 1 + (size_t)i * 37 % 5000, got;
		uint8_t *c = ut_chunkq_reserve(q, want, want, &got);

		CHECK(c);
		CHECK_EQ_INT(got, want);
		CHECK_EQ_INT((uintptr_t)c % 16, 0);
		memset(c, (int)(i & 0xff), want);
		ut_chunkq_push(q, c, want);
	}
	for (unsigned i = 0; i < 1000; i++) {
		size_t want = 1 + (size_t)i * 37 % 5000;
		uint8_t *c = ut_chunkq_pop(q, &len);

		CHECK(c);
		CHECK_EQ_INT(len, want);
		CHECK_EQ_INT(c[0], i & 0xff);
		CHECK_EQ_INT(c[len - 1], i & 0xff);
		ut_chunkq_release(q, c);
	}
	CHECK(!ut_chunkq_pop(q, &len));
	ut_chunkq_free(q);
}

/* reserve(min, max) gives what the block has left, at least min; pushing less is fine. */
TEST(reserve_min_max)
{
	struct ut_chunkq *q = ut_chunkq_new(2 * MiB, 64 * MiB, 0);
	size_t got, len;
	uint8_t *a, *b;

	a = ut_chunkq_reserve(q, 100, 10 * MiB, &got);
	CHECK(a);
	CHECK(got >= 100 && got < 2 * MiB); /* the whole block, less headers */
	ut_chunkq_push(q, a, 10);
	/* a reserved chunk not pushed is taken back by the next reserve */
	b = ut_chunkq_reserve(q, 50, 50, &got);
	CHECK(b);
	b = ut_chunkq_reserve(q, 60, 60, &got);
	CHECK(b);
	ut_chunkq_push(q, b, 60);
	CHECK(ut_chunkq_pop(q, &len) == a);
	CHECK_EQ_INT(len, 10);
	CHECK(ut_chunkq_pop(q, &len) == b);
	CHECK_EQ_INT(len, 60);
	/* more than a block never fits */
	CHECK(!ut_chunkq_reserve(q, 3 * MiB, 3 * MiB, &got));
	ut_chunkq_release(q, a);
	ut_chunkq_release(q, b);
	ut_chunkq_free(q);
}

/* The cap holds; released blocks are reused, so a steady flow stays within it. */
TEST(cap_and_reuse)
{
	struct ut_chunkq *q = ut_chunkq_new(2 * MiB, 8 * MiB, 0);
	size_t got, len, n = 0;
	void *c;

	while ((c = ut_chunkq_reserve(q, MiB, MiB, &got))) {
		ut_chunkq_push(q, c, MiB);
		n++;
	}
	CHECK_EQ_INT(n, 4); /* one 1 MiB chunk per 2 MiB block (headers), 4 blocks */
	CHECK(ut_chunkq_bytes(q) <= 8 * MiB);
	for (int round = 0; round < 100; round++) {
		c = ut_chunkq_pop(q, &len);
		CHECK(c);
		ut_chunkq_release(q, c);
		c = ut_chunkq_reserve(q, MiB, MiB, &got);
		CHECK(c);
		ut_chunkq_push(q, c, MiB);
		CHECK(ut_chunkq_bytes(q) <= 8 * MiB);
	}
	ut_chunkq_free(q);
}

struct flow {
	struct ut_chunkq *q;
	unsigned n;
};

static void *producer(void *arg)
{
	struct flow *f = arg;

	for (unsigned i = 0; i < f->n;) {
		size_t want = 16 + (size_t)i * 7919 % 60000, got;
		uint32_t *c = ut_chunkq_reserve(f->q, want, want, &got);

		if (!c) { /* full: the consumer catches up */
			sched_yield();
			continue;
		}
		c[0] = i;
		c[want / 4 - 1] = ~i;
		ut_chunkq_push(f->q, c, want);
		i++;
	}
	return NULL;
}

/* One producer thread, one consumer, a grower: everything arrives, in order, intact. */
TEST(threads_with_grower)
{
	struct flow f = {.q = ut_chunkq_new(2 * MiB, 16 * MiB, 2), .n = 20000};
	pthread_t th;
	size_t len;

	CHECK(f.q);
	CHECK(!pthread_create(&th, NULL, producer, &f));
	for (unsigned i = 0; i < f.n;) {
		uint32_t *c = ut_chunkq_pop(f.q, &len);

		if (!c) {
			sched_yield();
			continue;
		}
		CHECK_EQ_INT(len, 16 + (size_t)i * 7919 % 60000);
		CHECK_EQ_INT(c[0], i);
		CHECK_EQ_INT(c[len / 4 - 1], ~i);
		ut_chunkq_release(f.q, c);
		i++;
	}
	pthread_join(th, NULL);
	CHECK(ut_chunkq_bytes(f.q) <= 16 * MiB);
	ut_chunkq_free(f.q);
}

/* Polls until @q has @bytes mapped (the grower works in the background). */
static bool mapped_becomes(struct ut_chunkq *q, size_t bytes)
{
	for (int i = 0; i < 500; i++) {
		struct timespec ts = {0, 10L * 1000 * 1000};

		if (ut_chunkq_mapped(q) == bytes)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

/* Spares follow ut_chunkq_set_ahead: fewer at once, more by the grower, never above the first count. */
TEST(set_ahead)
{
	struct ut_chunkq *q = ut_chunkq_new(2 * MiB, 32 * MiB, 4);
	size_t len;
	void *c;

	CHECK(q);
	CHECK(mapped_becomes(q, 8 * MiB));
	ut_chunkq_set_ahead(q, 1);
	/* a block the grower was still mapping is let go when it is done */
	CHECK(mapped_becomes(q, 2 * MiB));
	ut_chunkq_set_ahead(q, 3);
	CHECK(mapped_becomes(q, 6 * MiB));
	ut_chunkq_set_ahead(q, 99);
	CHECK(mapped_becomes(q, 8 * MiB));
	/* quiet again: a block emptied by the consumer is not kept beyond the one spare */
	ut_chunkq_set_ahead(q, 1);
	c = ut_chunkq_reserve(q, 64, 64, &len);
	CHECK(c);
	ut_chunkq_push(q, c, len);
	c = ut_chunkq_reserve(q, 2 * MiB - 4096, 2 * MiB - 4096, &len); /* the next block */
	CHECK(c);
	ut_chunkq_push(q, c, len);
	c = ut_chunkq_pop(q, &len);
	CHECK(c);
	ut_chunkq_release(q, c);
	c = ut_chunkq_pop(q, &len);
	CHECK(c);
	ut_chunkq_release(q, c);
	CHECK(ut_chunkq_mapped(q) <= 6 * MiB); /* the current block and a spare or two */
	ut_chunkq_free(q);
}

int main(void)
{
	RUN(fifo_order_and_contents);
	RUN(reserve_min_max);
	RUN(cap_and_reuse);
	RUN(threads_with_grower);
	RUN(set_ahead);
	TEST_EXIT();
}
