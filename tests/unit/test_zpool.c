// SPDX-License-Identifier: MIT
/*
 * The trace.dat writer's compression pool (reader/tracedat_zpool.c): chunks
 * come back in the order they were handed over whoever compressed them,
 * each decompresses to what was given, stored chunks too; after a failed
 * delivery none follows and the error comes back; with no threads each
 * chunk is delivered at once.
 */
#include <errno.h>
#include <stdint.h>
#include <zstd.h>

#include "reader/tracedat_zpool.h"
#include "ut_test.h"

#define PLAIN (64u << 10)
#define NCHUNKS 40

struct seen {
	int n;           /* deliveries so far */
	int fail_at;     /* delivery that fails, -1: none */
	int bad;         /* deliveries with wrong order, CPU or content */
};

/* Chunk @i's content: compressible, and different for every chunk. */
static void fill(unsigned char *p, int i)
{
	for (size_t k = 0; k < PLAIN; k++)
		p[k] = (unsigned char)((k / 64) * 7 + (size_t)i * 13 + (k % 5 == 0 ? k : 0));
}

static int out(void *ctx, int cpu, const unsigned char *chunk, size_t n)
{
	static unsigned char want[PLAIN], got[PLAIN];
	struct seen *s = ctx;
	int i = s->n++;
	size_t z = n >= 8 ? (size_t)chunk[0] | (size_t)chunk[1] << 8 | (size_t)chunk[2] << 16 | (size_t)chunk[3] << 24 : 0;

	if (i == s->fail_at)
		return -ENOSPC;
	fill(want, i);
	if (cpu != i % 3 || n < 8 || z != n - 8 ||
	    ZSTD_decompress(got, sizeof(got), chunk + 8, z) != PLAIN || memcmp(got, want, PLAIN) != 0)
		s->bad++;
	return 0;
}

static int feed(struct td_zpool *p, int upto)
{
	int ret = 0;

	for (int i = 0; i < upto; i++) {
		unsigned char *b = td_zpool_buf(p, PLAIN);

		CHECK(b);
		fill(b, i);
		ret = td_zpool_submit(p, i % 3, b, PLAIN, i % 4 == 1);
		if (ret)
			break;
	}
	return ret ? ret : td_zpool_drain(p);
}

TEST(in_order_with_threads)
{
	struct seen s = {.fail_at = -1};
	struct td_zpool *p = td_zpool_new(1, 2, out, &s);

	CHECK(p);
	CHECK_EQ_INT(feed(p, NCHUNKS), 0);
	CHECK_EQ_INT(s.n, NCHUNKS);
	CHECK_EQ_INT(s.bad, 0);
	td_zpool_free(p);
}

TEST(no_threads_delivers_at_once)
{
	struct seen s = {.fail_at = -1};
	struct td_zpool *p = td_zpool_new(1, 0, out, &s);
	unsigned char *b = td_zpool_buf(p, PLAIN);

	fill(b, 0);
	CHECK_EQ_INT(td_zpool_submit(p, 0, b, PLAIN, false), 0);
	CHECK_EQ_INT(s.n, 1);
	CHECK_EQ_INT(s.bad, 0);
	td_zpool_free(p);
}

TEST(failed_delivery_stops_the_rest)
{
	struct seen s = {.fail_at = 5};
	struct td_zpool *p = td_zpool_new(1, 1, out, &s);

	CHECK(p);
	CHECK_EQ_INT(feed(p, NCHUNKS), -ENOSPC);
	CHECK_EQ_INT(s.n, 6);
	CHECK_EQ_INT(s.bad, 0);
	CHECK_EQ_INT(td_zpool_drain(p), -ENOSPC);
	td_zpool_free(p);
}

int main(void)
{
	RUN(in_order_with_threads);
	RUN(no_threads_delivers_at_once);
	RUN(failed_delivery_stops_the_rest);
	TEST_EXIT();
}
