// SPDX-License-Identifier: MIT
/*
 * The merged event stream (reader/stream.c): time order over sources, ties
 * by CPU then thread id, the filters (CPU, thread, process, time), and losses told
 * in order: before the event they precede, LOST records at their time,
 * dropped with the events the filter drops.
 */
#include <stdint.h>

#include "reader/printer.h"
#include "reader/stream.h"
#include "ut_test.h"

/*
 * A source over a fixed array; lost[i]: records lost before ev[i] -- the
 * library's source over kept events (reader/printer.h), filled from a
 * pool the tests share (each uses a few, in turn).
 */
static struct ut_print_ev pool[512];
static size_t pool_used;

static struct ut_pev_src fake(const struct ut_event *ev, const uint64_t *lost, size_t n)
{
	struct ut_print_ev *v;
	struct ut_pev_src x;

	if (pool_used + n > sizeof(pool) / sizeof(pool[0]))
		pool_used = 0;
	v = &pool[pool_used];
	pool_used += n;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct ut_print_ev){.ev = ev[i], .lost = lost ? lost[i] : 0};
	ut_pev_src_init(&x, v, n);
	return x;
}

#define EV(t, tid, c) {.ts = (t), .pid = (tid), .tgid = 100, .cpu = (c), .type = UT_EV_FUNCTION}

static const struct ut_event a[] = {EV(10, 1, 0), EV(30, 1, 0), EV(50, 1, 1)};
static const struct ut_event b[] = {EV(20, 2, 1), EV(30, 2, 1), EV(60, 2, 0)};

/* Timestamps of everything the stream gives, into @ts (tids into @tid). */
static size_t drain(struct ut_stream *s, uint64_t *ts, int32_t *tid, uint64_t *lost)
{
	struct ut_stream_item it;
	size_t n = 0;

	while (ut_stream_next(s, &it) == 1) {
		ts[n] = it.ev ? it.ev->ts : 0;
		tid[n] = it.ev ? it.ev->pid : -1;
		lost[n] = it.lost;
		n++;
	}
	return n;
}

TEST(time_order_ties_by_tid)
{
	struct ut_pev_src fa = fake(a, NULL, 3), fb = fake(b, NULL, 3);
	struct ut_stream *s = ut_stream_new(NULL);
	uint64_t ts[8], lost[8];
	int32_t tid[8];

	CHECK(!ut_stream_add(s, &fb.src));
	CHECK(!ut_stream_add(s, &fa.src));
	CHECK_EQ_INT(drain(s, ts, tid, lost), 6);
	CHECK_EQ_INT(ts[0], 10);
	CHECK_EQ_INT(ts[1], 20);
	CHECK_EQ_INT(ts[2], 30);
	CHECK_EQ_INT(tid[2], 1); /* same time: the lower thread id first */
	CHECK_EQ_INT(ts[3], 30);
	CHECK_EQ_INT(tid[3], 2);
	CHECK_EQ_INT(ts[4], 50);
	CHECK_EQ_INT(ts[5], 60);
	ut_stream_free(s);
}

TEST(ties_by_cpu_then_tid)
{
	/* same time: CPU 0 before CPU 1 whatever the threads, then the lower thread */
	static const struct ut_event x[] = {EV(10, 1, 1), EV(20, 1, 1)};
	static const struct ut_event y[] = {EV(10, 2, 0), EV(20, 3, 1)};
	struct ut_pev_src fx = fake(x, NULL, 2), fy = fake(y, NULL, 2);
	struct ut_stream *s = ut_stream_new(NULL);
	uint64_t ts[8], lost[8];
	int32_t tid[8];

	ut_stream_add(s, &fx.src);
	ut_stream_add(s, &fy.src);
	CHECK_EQ_INT(drain(s, ts, tid, lost), 4);
	CHECK_EQ_INT(tid[0], 2); /* CPU 0 */
	CHECK_EQ_INT(tid[1], 1);
	CHECK_EQ_INT(tid[2], 1); /* both CPU 1: the lower thread */
	CHECK_EQ_INT(tid[3], 3);
	ut_stream_free(s);
}

TEST(filters)
{
	long one = 1, cpu1 = 1, other = 7;
	struct ut_idlist tids = {&one, 1}, cpus = {&cpu1, 1}, pids = {&other, 1};
	uint64_t ts[8], lost[8];
	int32_t tid[8];
	struct {
		struct ut_stream_filter f;
		size_t want;
		uint64_t first;
	} cases[] = {
		{{.tids = &tids}, 3, 10},
		{{.cpus = &cpus}, 3, 20},
		{{.pids = &pids}, 0, 0},
		{{.ts_min = 25, .ts_max = 50}, 3, 30},
		{{.tids = &tids, .cpus = &cpus}, 1, 50},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ut_pev_src fa = fake(a, NULL, 3), fb = fake(b, NULL, 3);
		struct ut_stream *s = ut_stream_new(&cases[i].f);
		size_t n;

		ut_stream_add(s, &fa.src);
		ut_stream_add(s, &fb.src);
		n = drain(s, ts, tid, lost);
		CHECK_EQ_INT(n, cases[i].want);
		if (n)
			CHECK_EQ_INT(ts[0], cases[i].first);
		ut_stream_free(s);
	}
}

TEST(losses_in_order)
{
	/* thread 1: 5 lost before its 2nd event; thread 2: a LOST record of 9 at t=25 */
	static const uint64_t la[] = {0, 5, 0};
	static const struct ut_event bl[] = {EV(20, 2, 1), {.ts = 25, .pid = 2, .cpu = 1, .ip = 9},
					     EV(60, 2, 0)};
	struct ut_pev_src fa = fake(a, la, 3), fb = fake(bl, NULL, 3);
	struct ut_stream *s = ut_stream_new(NULL);
	uint64_t ts[8], lost[8];
	int32_t tid[8];

	ut_stream_add(s, &fa.src);
	ut_stream_add(s, &fb.src);
	CHECK_EQ_INT(drain(s, ts, tid, lost), 6);
	CHECK_EQ_INT(ts[1], 20);
	CHECK_EQ_INT(lost[1], 0);
	CHECK_EQ_INT(tid[2], -1); /* the LOST record: losses only, at its time */
	CHECK_EQ_INT(lost[2], 9);
	CHECK_EQ_INT(ts[3], 30);  /* thread 1's 2nd event, its 5 losses first */
	CHECK_EQ_INT(lost[3], 5);
	CHECK_EQ_INT(lost[4], 0);
	ut_stream_free(s);
}

TEST(filtered_losses_dropped)
{
	static const uint64_t la[] = {0, 5, 0};
	long two = 2;
	struct ut_idlist tids = {&two, 1};
	struct ut_stream_filter f = {.tids = &tids};
	struct ut_pev_src fa = fake(a, la, 3), fb = fake(b, NULL, 3);
	struct ut_stream *s = ut_stream_new(&f);
	uint64_t ts[8], lost[8];
	int32_t tid[8];

	ut_stream_add(s, &fa.src);
	ut_stream_add(s, &fb.src);
	CHECK_EQ_INT(drain(s, ts, tid, lost), 3);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ_INT(tid[i], 2);
		CHECK_EQ_INT(lost[i], 0);
	}
	ut_stream_free(s);
}

TEST(no_sources)
{
	struct ut_stream *s = ut_stream_new(NULL);
	struct ut_stream_item it;

	CHECK_EQ_INT(ut_stream_next(s, &it), 0);
	ut_stream_free(s);
}

/*
 * Many sources (past the heap's threshold): the same order as a scan gives
 * -- by time, ties by CPU then thread id, exact ties to the source added
 * first -- with sources ending early and losses kept with their events.
 */
TEST(many_sources_heap)
{
	enum { NS = 40, PER = 5 };
	static struct ut_event ev[NS][PER];
	static uint64_t lost[NS][PER];
	struct ut_pev_src src[NS];
	struct ut_stream *s = ut_stream_new(NULL);
	struct ut_stream_item it;
	uint64_t prev_ts = 0, total_lost = 0;
	uint32_t prev_cpu = 0;
	int32_t prev_tid = 0;
	size_t n = 0;

	for (int i = 0; i < NS; i++) {
		int len = 1 + i % PER; /* some end early */

		for (int k = 0; k < len; k++) {
			/* times collide across sources; CPUs and threads break the ties */
			ev[i][k] = (struct ut_event)EV((uint64_t)(k * 7 + i % 5), 1000 - i, (uint32_t)(i % 3));
			lost[i][k] = k == 0 ? (uint64_t)i : 0;
		}
		src[i] = fake(ev[i], lost[i], (size_t)len);
		CHECK(!ut_stream_add(s, &src[i].src));
	}
	while (ut_stream_next(s, &it) == 1) {
		CHECK(it.ev != NULL);
		if (n) {
			bool ordered = it.ev->ts > prev_ts ||
				       (it.ev->ts == prev_ts &&
					(it.ev->cpu > prev_cpu ||
					 (it.ev->cpu == prev_cpu && it.ev->pid >= prev_tid)));

			CHECK(ordered);
		}
		prev_ts = it.ev->ts;
		prev_cpu = it.ev->cpu;
		prev_tid = it.ev->pid;
		total_lost += it.lost;
		n++;
	}
	/* every event once: 40 sources of 1..5 events; every loss told */
	CHECK_EQ_INT(n, (size_t)(NS / PER) * (1 + 2 + 3 + 4 + 5));
	CHECK_EQ_INT(total_lost, (uint64_t)(NS - 1) * NS / 2);
	ut_stream_free(s);
}

int main(void)
{
	RUN(time_order_ties_by_tid);
	RUN(ties_by_cpu_then_tid);
	RUN(filters);
	RUN(losses_in_order);
	RUN(filtered_losses_dropped);
	RUN(no_sources);
	RUN(many_sources_heap);
	TEST_EXIT();
}
