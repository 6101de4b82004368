// SPDX-License-Identifier: MIT
/*
 * The reader side of the per-thread ring buffer (common/ring_buffer.c),
 * driven by a producer written here from the ABI's description
 * (include/utrace/abi.h): wrap-around, page padding, consumer mode, overwrite
 * mode with lost pages, LOST records and malformed data.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ring_buffer.h"
#include "reader/drain.h"
#include "ut_test.h"

#define SIZE ((size_t)4 * UT_PAGE_SIZE)

struct prod {
	uint8_t *map;
	struct ut_buf_hdr *hdr;
	uint8_t *data;
	uint64_t head, limit;
	bool overwrite;
	uint64_t ts;
};

static void prod_init(struct prod *p, bool overwrite)
{
	static uint8_t map[UT_BUF_HDR_SIZE + SIZE] __attribute__((aligned(4096)));

	memset(p, 0, sizeof(*p));
	memset(map, 0, sizeof(map));
	p->map = map;
	p->hdr = (struct ut_buf_hdr *)p->map;
	p->data = p->map + UT_BUF_HDR_SIZE;
	p->hdr->magic = UT_BUF_MAGIC;
	p->hdr->version = UT_ABI_VERSION;
	p->hdr->buf_size = SIZE;
	p->hdr->tid = 42;
	p->limit = 0;
	p->overwrite = overwrite;
	p->ts = 1000;
}

static void put(struct prod *p, uint64_t w0, uint64_t w1)
{
	uint64_t *w = (uint64_t *)(p->data + (p->head & (SIZE - 1)));

	w[0] = w0;
	w[1] = w1;
	p->head += UT_REC_SIZE;
}

/* One FUNCTION record, as libutrace writes it; false if refused (full). */
static bool produce(struct prod *p, uint64_t ip)
{
	if (p->head + (uint64_t)2 * UT_REC_SIZE > p->limit) {
		uint64_t off = p->head & (UT_PAGE_SIZE - 1), pos = p->head;

		if (off) {
			*(uint64_t *)(p->data + (pos & (SIZE - 1))) = 0;
			pos += UT_PAGE_SIZE - off;
		}
		if (!p->overwrite && pos + UT_PAGE_SIZE - p->hdr->tail > (uint64_t)SIZE) {
			p->hdr->dropped++;
			return false;
		}
		p->head = pos;
		p->limit = pos + UT_PAGE_SIZE;
		put(p, ut_rec_word0(UT_REC_TIME, 1, 0), p->ts);
	}
	p->ts += 3;
	put(p, ut_rec_word0(UT_REC_FUNCTION, 1, ip), (3ull << UT_REC_DELTA_SHIFT) | (ip + 1));
	p->hdr->written++;
	p->hdr->head = p->head;
	return true;
}

struct got {
	uint64_t ips[100000];
	size_t n;
	uint64_t last_ts;
	bool ordered;
};

static int collect(void *ctx, const struct ut_event *ev)
{
	struct got *g = ctx;

	if (ev->type != UT_EV_FUNCTION)
		return 0;
	if (g->n && ev->ts <= g->last_ts)
		g->ordered = false;
	g->last_ts = ev->ts;
	if (ev->parent_ip != ev->ip + 1 || ev->pid != 42 || ev->cpu != 1)
		g->ordered = false;
	g->ips[g->n++] = ev->ip;
	return 0;
}

static const struct ut_clockconv raw_clock = {.clock = UT_CLOCK_COUNTER};

static void drain_all(struct ut_rb_reader *r, struct got *g, uint64_t *lost)
{
	static struct ut_rb_decoder d;

	static uint8_t buf[SIZE];
	struct ut_rb_chunk c;

	CHECK(ut_rb_drain(r, &c, true, buf, sizeof(buf)) == 0);
	if (lost)
		*lost += c.lost;
	ut_rb_decode(&d, c.bytes, c.len, c.start, 42, 7, &raw_clock, collect, g);
}

TEST(open_validates)
{
	struct prod p;
	struct ut_rb_reader r;

	prod_init(&p, false);
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, true) == 0);
	p.hdr->buf_size = SIZE + 1;
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, true) < 0);
	p.hdr->buf_size = SIZE * 2; /* larger than the mapping */
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, true) < 0);
	p.hdr->buf_size = SIZE;
	p.hdr->magic = 0;
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, true) < 0);
	CHECK(ut_rb_open(&r, p.map, 100, true) < 0);
}

/* Consumer mode: many wraps, drained in steps, nothing lost, pages padded. */
TEST(consumer_wraps)
{
	static struct got g = {.ordered = true};
	struct prod p;
	struct ut_rb_reader r;
	uint64_t next = 0;

	prod_init(&p, false);
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, true) == 0);
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 300; i++)
			CHECK(produce(&p, 0x1000 + next++));
		drain_all(&r, &g, NULL);
	}
	CHECK_EQ_INT(g.n, next);
	CHECK(g.ordered);
	for (size_t i = 0; i < g.n; i++)
		CHECK_EQ_INT(g.ips[i], 0x1000 + i);
	CHECK_EQ_INT(p.hdr->dropped, 0);
	CHECK(p.head > (uint64_t)10 * SIZE); /* really wrapped */
}

/* Consumer mode, full: the producer refuses and counts; the reader gets the rest. */
TEST(consumer_full_drops)
{
	static struct got g = {.ordered = true};
	struct prod p;
	struct ut_rb_reader r;
	int accepted = 0;

	prod_init(&p, false);
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, true) == 0);
	for (int i = 0; i < 2000; i++)
		accepted += produce(&p, 0x1000 + (uint64_t)i);
	CHECK(accepted < 2000);
	CHECK_EQ_INT(p.hdr->dropped, 2000 - accepted);
	drain_all(&r, &g, NULL);
	CHECK_EQ_INT(g.n, accepted);
	CHECK_EQ_INT(g.n + p.hdr->dropped, p.hdr->written + p.hdr->dropped);
}

/* Overwrite mode: the reader skips overwritten pages and flags the loss. */
TEST(overwrite_skips_and_counts)
{
	static struct got g = {.ordered = true};
	struct prod p;
	struct ut_rb_reader r;
	uint64_t lost = 0;

	prod_init(&p, true);
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, false) == 0);
	for (int i = 0; i < 5000; i++)
		CHECK(produce(&p, 0x1000 + (uint64_t)i));
	drain_all(&r, &g, &lost);
	CHECK(lost > 0);
	CHECK(g.ordered);
	CHECK(g.n > 0 && g.n < 5000);
	/* What survives is the newest, contiguous, ending with the last event. */
	CHECK_EQ_INT(g.ips[g.n - 1], 0x1000 + 4999);
	for (size_t i = 1; i < g.n; i++)
		CHECK_EQ_INT(g.ips[i], g.ips[i - 1] + 1);
	/* The loss the recorder reports is written - read: the oldest events. */
	CHECK_EQ_INT(p.hdr->written - g.n, g.ips[0] - 0x1000);
	/* and the chunk said so itself */
	CHECK_EQ_INT(lost, g.ips[0] - 0x1000);
}

/* Overwrite mode, drained now and then while the writer laps the reader:
 * records read + records reported lost == records written, exactly. */
TEST(overwrite_lost_accounting)
{
	static struct got g = {.ordered = true};
	static uint8_t buf[SIZE];
	static struct ut_rb_decoder d;
	struct ut_rb_reader r;
	struct prod p;
	uint64_t lost = 0;

	prod_init(&p, true);
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, false) == 0);
	for (int round = 0; round < 40; round++) {
		struct ut_rb_chunk c;

		for (int i = 0; i < 100 + (round % 7) * 250; i++)
			CHECK(produce(&p, 0x1000 + p.hdr->written));
		CHECK(ut_rb_drain(&r, &c, round == 39, buf, sizeof(buf)) == 0);
		lost += c.lost;
		ut_rb_decode(&d, c.bytes, c.len, c.start, 42, 7, &raw_clock, collect, &g);
	}
	CHECK_EQ_INT(g.n + lost, p.hdr->written);
}

/* The same with a copy buffer of one page: many chunks per drain, the unread
 * rest of the ring (wrapping) counted as still to come, never as lost. */
TEST(overwrite_lost_accounting_small_copies)
{
	static struct got g = {.ordered = true};
	static uint8_t buf[UT_PAGE_SIZE];
	static struct ut_rb_decoder d;
	struct ut_rb_reader r;
	struct prod p;
	uint64_t lost = 0;

	prod_init(&p, true);
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, false) == 0);
	for (int round = 0; round < 30; round++) {
		struct ut_rb_chunk c;

		for (int i = 0; i < 150 + (round % 5) * 300; i++)
			CHECK(produce(&p, 0x1000 + p.hdr->written));
		for (int k = 0; k < 2; k++) { /* drain only part: the writer laps us */
			CHECK(ut_rb_drain(&r, &c, false, buf, sizeof(buf)) == 0);
			lost += c.lost;
			ut_rb_decode(&d, c.bytes, c.len, c.start, 42, 7, &raw_clock, collect, &g);
		}
	}
	for (;;) {
		struct ut_rb_chunk c;

		CHECK(ut_rb_drain(&r, &c, true, buf, sizeof(buf)) == 0);
		if (!c.len && !c.lost)
			break;
		lost += c.lost;
		ut_rb_decode(&d, c.bytes, c.len, c.start, 42, 7, &raw_clock, collect, &g);
	}
	CHECK_EQ_INT(g.n + lost, p.hdr->written);
}

/* Garbage in a page: the decoder skips the rest of that page, never crashes. */
TEST(malformed_records)
{
	static struct got g = {.ordered = true};
	uint8_t buf[3 * UT_PAGE_SIZE];
	uint64_t w[2];

	memset(buf, 0, sizeof(buf));
	for (int i = 0; i < 3; i++) {
		w[0] = ut_rec_word0(UT_REC_TIME, 1, 0);
		w[1] = 10 + (uint64_t)i * 100;
		memcpy(buf + (size_t)i * UT_PAGE_SIZE, w, 16);
		w[0] = ut_rec_word0(UT_REC_FUNCTION, 1, 0x2000 + (uint64_t)i);
		w[1] = (1ull << UT_REC_DELTA_SHIFT) | (0x2001 + (uint64_t)i);
		memcpy(buf + (size_t)i * UT_PAGE_SIZE + 16, w, 16);
	}
	/* page 1: an unknown type after the first record, then a valid one */
	w[0] = (uint64_t)15 << UT_REC_TYPE_SHIFT;
	memcpy(buf + UT_PAGE_SIZE + 32, w, 16);
	w[0] = ut_rec_word0(UT_REC_FUNCTION, 1, 0x3000);
	memcpy(buf + UT_PAGE_SIZE + 48, w, 16);
	/* page 2 loses its TIME record: its records have no base, skipped */
	memset(buf + (size_t)2 * UT_PAGE_SIZE, 0xff, 8);
	ut_rb_decode(&(struct ut_rb_decoder){0}, buf, sizeof(buf), 0, 42, 7, &raw_clock, collect, &g);
	CHECK_EQ_INT(g.n, 2);
	CHECK_EQ_INT(g.ips[0], 0x2000);
	CHECK_EQ_INT(g.last_ts, 111);
	/* random bytes: no crash */
	srand(1);
	for (int round = 0; round < 200; round++) {
		static struct got g2;

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)rand();
		g2.n = 0;
		ut_rb_decode(&(struct ut_rb_decoder){0}, buf, sizeof(buf) - (size_t)(rand() % 100),
			     (uint64_t)(rand() % 4096), 42, 7, &raw_clock, collect, &g2);
	}
}

/* A LOST record reaches the callback with the count. */
static uint64_t lost_seen;
static int lost_cb(void *ctx, const struct ut_event *ev)
{
	(void)ctx;
	if (ev->type == 0)
		lost_seen += ev->ip;
	return 0;
}

TEST(lost_record)
{
	uint8_t buf[UT_PAGE_SIZE] = {0};
	uint64_t w[4] = {ut_rec_word0(UT_REC_TIME, 0, 0), 5, ut_rec_word0(UT_REC_LOST, 0, 0), 17};

	memcpy(buf, w, sizeof(w));
	ut_rb_decode(&(struct ut_rb_decoder){0}, buf, sizeof(buf), 0, 1, 1, &raw_clock, lost_cb, NULL);
	CHECK_EQ_INT(lost_seen, 17);
}

TEST(local_clock_conversion)
{
	/* 1 cycle = 0.5 ns, zero at 1e9 ns */
	struct ut_clockconv c = {.clock = UT_CLOCK_LOCAL, .mono0 = 1000000000, .mult = 1u << 9,
				 .shift = 10};

	CHECK_EQ_INT(ut_clock_to_trace(&c, 2000), 1000001000);
	/* no overflow on huge TSC values */
	CHECK(ut_clock_to_trace(&c, 1ull << 62) == 1000000000 + (1ull << 61));
}

/*
 * ut_rb_decode_call() (the record writer's fast path) reads a call's record
 * as ut_rb_decode_one() does, and declines every other record.
 */
TEST(decode_call_as_decode_one)
{
	struct ut_clockconv c = {.clock = UT_CLOCK_LOCAL, .mono0 = 1000000000, .mult = 3u << 9,
				 .shift = 10};
	uint64_t recs[7][4] = {
		{ut_rec_word0(UT_REC_FUNCTION, 3, 0x401010), (5ull << 48) | 0x7f0000001234},
		{ut_rec_word0(UT_REC_GRAPH_ENTRY, 1, 0x401100), (7ull << 48) | 6},
		{ut_rec_word0(UT_REC_GRAPH_EXIT, 2, 0x401100), (9ull << 48) | (4ull << 32) | 6, 700,
		 (uint64_t)-22},
		{ut_rec_word0(UT_REC_GRAPH_EXIT, 2, 0x401100), 0, 99999, 1}, /* duration > ts */
		/* GRAPH_RET: a return value zero-extended, sign-extended; delta > ts */
		{ut_rec_word0(UT_REC_GRAPH_RET, 2, 0x401100), (9ull << 48) | (0xfffffffeull << 16) | 6},
		{ut_rec_word0(UT_REC_GRAPH_RET, 2, 0x401100),
		 (9ull << 48) | (0xffffffeaull << 16) | 0x8000 | 0x7fff},
		{ut_rec_word0(UT_REC_GRAPH_RET, 0, 0x401100), (0xffffull << 48) | 3},
	};
	uint64_t ts = 5000;
	struct ut_event ev;
	struct ut_call call = {0};

	ut_rb_decode_one((const uint8_t *)recs[2], ts, 77, 70, &c, &ev);
	CHECK(ev.type == UT_EV_FUNCGRAPH_EXIT && ev.depth == 6 && ev.overrun == 4 &&
	      ev.retval == (uint64_t)-22 && ev.rettime == ev.ts &&
	      ev.calltime == ut_clock_to_trace(&c, ts - 700));
	ut_rb_decode_one((const uint8_t *)recs[0], ts, 77, 70, &c, &ev);
	CHECK(ev.type == UT_EV_FUNCTION && ev.parent_ip == 0x7f0000001234 && ev.cpu == 3 &&
	      ev.pid == 77 && ev.tgid == 70);
	ut_rb_decode_one((const uint8_t *)recs[4], ts, 77, 70, &c, &ev);
	CHECK(ev.type == UT_EV_FUNCGRAPH_EXIT && ev.ip == 0x401100 && ev.depth == 6 &&
	      ev.retval == 0xfffffffeull && !ev.overrun && ev.rettime == ev.ts &&
	      ev.calltime == ut_clock_to_trace(&c, ts - 9));
	ut_rb_decode_one((const uint8_t *)recs[5], ts, 77, 70, &c, &ev);
	CHECK(ev.depth == 0x7fff && ev.retval == (uint64_t)-22);
	ut_rb_decode_one((const uint8_t *)recs[6], ts, 77, 70, &c, &ev);
	CHECK(ev.calltime == ut_clock_to_trace(&c, 0) && ev.retval == 0);
	for (size_t i = 0; i < 7; i++) {
		ut_rb_decode_one((const uint8_t *)recs[i], ts, 77, 70, &c, &ev);
		CHECK(ut_rb_decode_call((const uint8_t *)recs[i], ts, ut_clock_to_trace(&c, ts), &c,
					&call));
		CHECK_EQ_INT(call.type, ev.type);
		CHECK(call.ts == ev.ts && call.ip == ev.ip && call.cpu == ev.cpu);
		if (ev.type == UT_EV_FUNCTION)
			CHECK(call.parent_ip == ev.parent_ip);
		else
			CHECK_EQ_INT(call.depth, ev.depth);
		if (ev.type == UT_EV_FUNCGRAPH_EXIT)
			CHECK(call.overrun == ev.overrun && call.calltime == ev.calltime &&
			      call.retval == ev.retval && ev.rettime == ev.ts);
	}
	recs[0][0] = ut_rec_word0(UT_REC_TIME, 0, 0);
	CHECK(!ut_rb_decode_call((const uint8_t *)recs[0], ts, ts, &c, &call));
	recs[0][0] = ut_rec_word0(UT_REC_SIGNAL, 0, 11);
	CHECK(!ut_rb_decode_call((const uint8_t *)recs[0], ts, ts, &c, &call));
}

/*
 * ut_drain() of a ring its writer laps during every copy (each commit here
 * writes a whole ring more): it takes one ring's worth and returns, instead
 * of following the writer for as long as it writes (a `show` of a busy ring
 * printed more than the ring holds).
 */
struct lapping_sink {
	struct ut_drain_sink sink;
	struct prod *p;
	uint8_t buf[UT_PAGE_SIZE];
	size_t commits, bytes;
};

static uint8_t *lap_reserve(struct ut_drain_sink *k, size_t min, size_t max, size_t *got)
{
	struct lapping_sink *l = (struct lapping_sink *)k;

	(void)min;
	(void)max;
	*got = sizeof(l->buf);
	return l->buf;
}

static int lap_commit(struct ut_drain_sink *k, uint8_t *buf, uint64_t start, uint64_t lost,
		      size_t len)
{
	struct lapping_sink *l = (struct lapping_sink *)k;

	(void)buf;
	(void)start;
	(void)lost;
	l->bytes += len;
	if (++l->commits < 200) /* the writer goes on (and then stops: a bug ends) */
		for (size_t i = 0; i < SIZE / UT_REC_SIZE; i++)
			CHECK(produce(l->p, 0x1000 + l->p->hdr->written));
	return 0;
}

TEST(drain_lapped_takes_one_ring)
{
	static struct lapping_sink l = {.sink = {.reserve = lap_reserve, .commit = lap_commit}};
	struct ut_rb_reader r;
	struct prod p;
	long n;

	prod_init(&p, true);
	l.p = &p;
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, false) == 0);
	for (size_t i = 0; i < 3 * SIZE / UT_REC_SIZE; i++)
		CHECK(produce(&p, 0x1000 + p.hdr->written));
	n = ut_drain(&r, false, true, &l.sink);
	CHECK(n > 0);
	CHECK_EQ_INT(l.bytes, (size_t)n);
	CHECK(l.bytes <= SIZE);
	CHECK(l.commits <= SIZE / UT_PAGE_SIZE);
	CHECK(r.lost > 0);
}

/*
 * A consuming reader's copy and the runtime taking the buffer back
 * (libutrace/slots.c: take_unread) race: the reader copies, then consumes.
 * The pair {tail, tail_records} moves in one claim, so a copy made before
 * the runtime's claim is dropped rather than handed on: the runtime
 * counted it lost (common/tail_claim.h).
 */
struct claiming_sink {
	struct ut_drain_sink sink;
	struct prod *p;
	bool claim;          /* the runtime claims as the reader copies */
	uint8_t buf[SIZE];
	size_t commits, bytes;
};

static uint8_t *claim_reserve(struct ut_drain_sink *k, size_t min, size_t max, size_t *got)
{
	struct claiming_sink *c = (struct claiming_sink *)k;

	(void)min;
	if (c->claim)
		ut_tail_claim(c->p->hdr, (struct ut_tail){c->p->hdr->head, c->p->hdr->written});
	*got = max < sizeof(c->buf) ? max : sizeof(c->buf);
	return c->buf;
}

static int claim_commit(struct ut_drain_sink *k, uint8_t *buf, uint64_t start, uint64_t lost,
			size_t len)
{
	struct claiming_sink *c = (struct claiming_sink *)k;

	(void)buf;
	(void)start;
	(void)lost;
	c->commits++;
	c->bytes += len;
	return 0;
}

TEST(consume_loses_to_a_claim)
{
	static struct claiming_sink c = {.sink = {.reserve = claim_reserve, .commit = claim_commit}};
	struct ut_rb_reader r;
	struct prod p;
	/* a page: its TIME record, calls, room left for the end mark (produce()) */
	const uint64_t per_page = UT_PAGE_SIZE / UT_REC_SIZE - 2;

	/* counted as taken: whole pages only, the rest is what a claim would count lost */
	prod_init(&p, false);
	c.p = &p;
	c.claim = false;
	for (int i = 0; i < 600; i++)
		CHECK(produce(&p, 0x1000 + (uint64_t)i));
	CHECK(ut_rb_open(&r, p.map, UT_BUF_HDR_SIZE + SIZE, true) == 0);
	r.count_taken = true;
	CHECK(ut_drain(&r, true, false, &c.sink) == (long)UT_PAGE_SIZE * 2);
	CHECK_EQ_INT(p.hdr->tail, 2 * UT_PAGE_SIZE);
	CHECK_EQ_INT(p.hdr->tail_records, 2 * per_page);
	CHECK_EQ_INT(c.commits, 1);

	/* the runtime claims the rest while the reader copies it: not handed on */
	c.claim = true;
	CHECK(ut_drain(&r, true, true, &c.sink) == 0);
	CHECK_EQ_INT(c.commits, 1);
	CHECK_EQ_INT(p.hdr->tail, p.hdr->head); /* not moved back by the reader */
	CHECK_EQ_INT(p.hdr->tail_records, 600);
	CHECK_EQ_INT(r.tail, p.hdr->head);

	/* and what comes after is the reader's again */
	c.claim = false;
	for (int i = 0; i < 10; i++)
		CHECK(produce(&p, 0x2000 + (uint64_t)i));
	CHECK(ut_drain(&r, true, true, &c.sink) > 0);
	CHECK_EQ_INT(c.commits, 2);
	CHECK_EQ_INT(p.hdr->tail, p.hdr->head);
	CHECK_EQ_INT(p.hdr->tail_records, 610);
}

int main(void)
{
	RUN(open_validates);
	RUN(consumer_wraps);
	RUN(consumer_full_drops);
	RUN(overwrite_skips_and_counts);
	RUN(overwrite_lost_accounting);
	RUN(overwrite_lost_accounting_small_copies);
	RUN(malformed_records);
	RUN(lost_record);
	RUN(local_clock_conversion);
	RUN(decode_call_as_decode_one);
	RUN(drain_lapped_takes_one_ring);
	RUN(consume_loses_to_a_claim);
	TEST_EXIT();
}
