// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the ring-buffer reader (common/ring_buffer.c) on a
 * mapping written by a hostile or broken producer.
 *
 * The input starts with a parameter block (struct params, zero-padded if the
 * input is shorter) that chooses the data size, the mapping length, the
 * header fields (valid or damaged), the head/tail/written/dropped counters
 * (consistent with the data size, or arbitrary), the reader's mode, the
 * clock conversion and a few producer moves made between drains.  Then
 * comes an image of the header, whose fields the parameters override
 * (so fields they do not know about get fuzzed too), then the data pages.
 *
 * The mapping is a heap block of exactly the chosen length, so ASan catches
 * any read past it.  The buffer is opened, then drained with small and large
 * caps (or, in consumer mode, also peeked and consumed), and every chunk is
 * copied into an exact-size block and decoded with a callback that reads
 * every field of every event, the marker text and the stack entries
 * included, and checks that pointers stay inside the chunk.  Finally the raw
 * input is decoded directly from several start positions.  Nothing may
 * crash, read out of bounds, leak or hang.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ring_buffer.h"

#define PAGE ((size_t)UT_PAGE_SIZE)
#define BIG_CAP (32 * PAGE) /* larger than any ring here */

#define REQUIRE(cond)                                                                              \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The input: struct params, an image of struct ut_buf_hdr, the data. */
struct params {
	uint8_t mode;	/* bit 0: consumer mode; bit 1: tile the data; bits 2-3: caps;
			 * bits 4-6: header damage; bit 7: peek (consumer mode) */
	uint8_t pages;	/* data pages: 2 << (pages & 3); bits 2-3: counter encoding */
	uint8_t maplen; /* mapping length: exact, longer, shorter, tiny */
	uint8_t nsteps; /* producer moves between drain rounds (& 3) */
	uint8_t clock;	/* UT_CLOCK_* (and beyond) */
	uint8_t shift;	/* clock shift, unvalidated like ut_ctl.tsc_shift */
	uint8_t stop;	/* the callback asks to stop after this many events (0: never) */
	uint8_t pad;
	uint32_t mult;
	uint32_t dec_start;
	uint64_t head, tail, written, dropped;
	uint64_t tsc0, mono0;
	uint64_t step[3];
};

#define HDR_IMAGE (sizeof(struct params) + sizeof(struct ut_buf_hdr))

/* What the callback checks events against. */
struct sink {
	const uint8_t *lo, *hi; /* the decoded bytes */
	unsigned stop, n;
	uint64_t sum;
};

static volatile uint64_t sink_sum; /* keeps the reads from being optimised away */

static int touch(void *ctx, const struct ut_event *ev)
{
	struct sink *s = ctx;
	uint64_t h = ev->ts ^ (uint64_t)ev->pid ^ ((uint64_t)ev->tgid << 7) ^ ev->cpu ^ ev->type ^
		     ev->flags ^ ev->preempt ^ ev->ip ^ ev->parent_ip ^ ev->depth ^ ev->overrun ^
		     ev->calltime ^ ev->rettime ^ ev->retval ^ ev->nr_callers;
	const char *p;
	uint32_t i;

	REQUIRE(ev->cpu <= UT_REC_CPU_MASK);
	switch (ev->type) {
	case 0: /* LOST */
	case UT_EV_FUNCTION:
	case UT_EV_FUNCGRAPH_ENTRY:
	case UT_EV_FUNCGRAPH_EXIT:
	case UT_EV_FUNCGRAPH_INLINED:
		break;
	case UT_EV_SIGNAL_ENTER: /* a signal number in the record's low byte */
	case UT_EV_SIGNAL_EXIT:
		REQUIRE(ev->sig >= 0 && ev->sig <= 0xff);
		h ^= (uint64_t)ev->sig;
		break;
	case UT_EV_PRINT:
		REQUIRE(ev->str);
		REQUIRE((const uint8_t *)ev->str >= s->lo && (const uint8_t *)ev->str < s->hi);
		for (p = ev->str; *p; p++) {
			REQUIRE((const uint8_t *)p + 1 < s->hi);
			h += (unsigned char)*p;
		}
		break;
	case UT_EV_KERNEL_STACK:
		REQUIRE(ev->nr_callers <= UT_REC_STACK_MAX);
		REQUIRE(ev->callers || !ev->nr_callers);
		if (ev->nr_callers) {
			REQUIRE((const uint8_t *)ev->callers >= s->lo);
			REQUIRE((const uint8_t *)(ev->callers + ev->nr_callers) <= s->hi);
		}
		for (i = 0; i < ev->nr_callers; i++)
			h += ev->callers[i];
		break;
	case UT_EV_PROBE: /* a USDT probe's arguments, in the record */
		REQUIRE(ev->nargs <= UT_EV_MAX_ARGS);
		REQUIRE(ev->args || !ev->nargs);
		if (ev->nargs) {
			REQUIRE((const uint8_t *)ev->args >= s->lo);
			REQUIRE((const uint8_t *)(ev->args + ev->nargs) <= s->hi);
		}
		for (i = 0; i < ev->nargs; i++)
			h += ev->args[i];
		break;
	case UT_EV_STATIC: /* a process event's fields, in the record */
		REQUIRE(ev->raw_len <= UT_REC_EVENT_MAX);
		REQUIRE(ev->raw || !ev->raw_len);
		if (ev->raw_len) {
			REQUIRE(ev->raw >= s->lo && ev->raw + ev->raw_len <= s->hi);
		}
		for (i = 0; i < ev->raw_len; i++)
			h += ev->raw[i];
		h ^= ev->evid;
		break;
	default:
		REQUIRE(!"unknown event type");
	}
	s->sum += h;
	return s->stop && ++s->n >= s->stop;
}

/* Decode @len bytes from an exact-size copy, as a consumer of the chunk would. */
static void decode_copy(struct ut_rb_decoder *d, const uint8_t *bytes, size_t len, uint64_t start,
			const struct ut_clockconv *clk, unsigned stop)
{
	struct sink s = {.stop = stop};
	uint8_t *copy;

	if (!len) {
		ut_rb_decode(d, bytes, 0, start, 1, 2, clk, touch, &s);
		return;
	}
	copy = malloc(len);
	if (!copy)
		return;
	memcpy(copy, bytes, len);
	s.lo = copy;
	s.hi = copy + len;
	ut_rb_decode(d, copy, len, start, 1, 2, clk, touch, &s);
	sink_sum += s.sum;
	free(copy);
}

static uint64_t take_u64(uint64_t v, unsigned shift, unsigned bits)
{
	return (v >> shift) & ((1ull << bits) - 1);
}

/*
 * The counters: raw values, or values a real producer could have left
 * (tail <= head, head - tail around the data size), possibly unaligned, or
 * close to 2^64.
 */
static void set_counters(struct ut_buf_hdr *h, const struct params *p, uint64_t size)
{
	unsigned enc = (p->pages >> 2) & 3;
	uint64_t tail, head;

	if (enc == 0) {
		h->head = p->head;
		h->tail = p->tail;
		h->written = p->written;
		h->dropped = p->dropped;
		return;
	}
	tail = p->tail % (16 * size);
	head = tail + p->head % (size + 2 * PAGE);
	if (enc == 1) {
		tail &= ~(uint64_t)(UT_REC_SIZE - 1);
		head &= ~(uint64_t)(UT_REC_SIZE - 1);
	} else if (enc == 3) {
		/* near the end of the position space, possibly wrapping past it */
		tail = -(tail + 1) & ~(uint64_t)(UT_REC_SIZE - 1);
		head = tail + (p->head % (size + 2 * PAGE) & ~(uint64_t)(UT_REC_SIZE - 1));
	}
	h->head = head;
	h->tail = tail;
	h->written = p->written % (8 * size);
	h->dropped = p->dropped % 1000;
}

/* A producer move between two drains: more records, or scribbles on the data. */
static void step(struct ut_buf_hdr *h, uint8_t *data, uint64_t size, uint64_t v)
{
	switch (v & 3) {
	case 0: /* records committed */
		h->head += take_u64(v, 2, 16) * UT_REC_SIZE;
		h->written += take_u64(v, 18, 12);
		break;
	case 1: /* an unaligned head, as a torn or buggy write would leave */
		h->head += take_u64(v, 2, 20);
		h->written += take_u64(v, 22, 8);
		break;
	case 2: /* the producer rewrites data under the reader */
		data[take_u64(v, 2, 30) % size] ^= (uint8_t)(v >> 32);
		h->head += take_u64(v, 40, 8) * UT_REC_SIZE;
		break;
	default: /* arbitrary counters */
		h->head = v >> 2;
		h->written = v >> 20;
		break;
	}
}

static void check_chunk(const struct ut_rb_chunk *c, const uint8_t *buf, size_t cap)
{
	REQUIRE(c->len <= cap);
	if (c->len)
		REQUIRE(c->bytes == buf);
}

static void check_seg(const struct ut_rb_reader *r, const uint8_t *seg, size_t len)
{
	if (!len)
		return;
	REQUIRE(seg >= r->data && seg + len <= r->data + r->size);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	static uint8_t buf[BIG_CAP] __attribute__((aligned(16)));
	struct ut_rb_decoder stream = {0}, fresh;
	struct params p = {0};
	struct ut_clockconv clk;
	struct ut_buf_hdr *h;
	struct ut_rb_reader r;
	struct ut_rb_chunk c;
	const uint8_t *hdr_in, *data_in;
	size_t hdr_len, data_len, map_len, small_cap, off;
	uint64_t size, starts[4];
	unsigned round, i;
	uint8_t *map;

	memcpy(&p, in, n < sizeof(p) ? n : sizeof(p));
	hdr_in = n > sizeof(p) ? in + sizeof(p) : NULL;
	hdr_len = n > sizeof(p) ? n - sizeof(p) : 0;
	if (hdr_len > sizeof(*h))
		hdr_len = sizeof(*h);
	data_in = n > HDR_IMAGE ? in + HDR_IMAGE : NULL;
	data_len = n > HDR_IMAGE ? n - HDR_IMAGE : 0;
	clk = (struct ut_clockconv){.clock = p.clock % (UT_CLOCK_NR + 2),
				    .tsc0 = p.tsc0,
				    .mono0 = p.mono0,
				    .mult = p.mult,
				    .shift = p.shift};

	size = (uint64_t)PAGE << (1 + (p.pages & 3));
	switch (p.maplen & 3) {
	case 0:
	case 1: /* exact */
		map_len = UT_BUF_HDR_SIZE + size;
		break;
	case 2: /* longer than needed: the reader uses buf_size */
		map_len = UT_BUF_HDR_SIZE + size + (size_t)(p.maplen >> 2) * 64;
		break;
	default: /* shorter than the header says, or not even a header */
		map_len = UT_BUF_HDR_SIZE + size - 1 - (size_t)(p.maplen >> 3) * 256;
		if (p.maplen & 4)
			map_len = (size_t)(p.maplen >> 3) * 200;
		break;
	}
	map = calloc(1, map_len ? map_len : 1);
	if (!map)
		return 0;
	h = (struct ut_buf_hdr *)map;
	if (map_len >= UT_BUF_HDR_SIZE + 2 * PAGE) {
		uint8_t *data = map + UT_BUF_HDR_SIZE;
		size_t room = map_len - UT_BUF_HDR_SIZE;

		if (data_len)
			memcpy(data, data_in, data_len < room ? data_len : room);
		if ((p.mode & 2) && data_len)
			for (off = data_len; off < room; off += data_len)
				memcpy(data + off, data_in,
				       room - off < data_len ? room - off : data_len);
		if (hdr_len)
			memcpy(h, hdr_in, hdr_len);
		h->magic = UT_BUF_MAGIC;
		h->version = UT_ABI_VERSION;
		h->buf_size = (uint32_t)size;
		h->tid = 1;
		switch ((p.mode >> 4) & 7) {
		case 4:
			h->magic ^= 1;
			break;
		case 5:
			h->version++;
			break;
		case 6: /* not a power of two, or too small */
			h->buf_size = p.mult & 1 ? (uint32_t)size + PAGE : PAGE;
			break;
		case 7: /* larger than the mapping holds */
			h->buf_size = (uint32_t)size << 1;
			break;
		}
		set_counters(h, &p, size);
	}

	if (ut_rb_open(&r, map, map_len, p.mode & 1) == 0) {
		REQUIRE(r.size >= 2 * PAGE && r.size <= map_len - UT_BUF_HDR_SIZE);
		small_cap = PAGE * (1 + ((p.mode >> 2) & 3));
		stream.from = r.from; /* as the reader says: it may start mid-page */
		for (round = 0; round <= (p.nsteps & 3u); round++) {
			if (round)
				step(h, map + UT_BUF_HDR_SIZE, r.size, p.step[round - 1]);
			if ((p.mode & 0x81) == 0x81) {
				/* consumer mode, zero copy: peek, save part, consume */
				const uint8_t *seg[2];
				size_t seglen[2];
				uint64_t start;
				long got;

				for (i = 0; i < 4; i++) {
					got = ut_rb_peek(&r, i & 1, &start, seg, seglen);
					if (got <= 0)
						break;
					REQUIRE((uint64_t)got <= r.size);
					REQUIRE(seglen[0] + seglen[1] == (size_t)got);
					check_seg(&r, seg[0], seglen[0]);
					check_seg(&r, seg[1], seglen[1]);
					/* as the recorder spools them: one stream, two pieces */
					decode_copy(&stream, seg[0], seglen[0], start, &clk,
						    p.stop);
					decode_copy(&stream, seg[1], seglen[1], start + seglen[0],
						    &clk, p.stop);
					ut_rb_consume(&r, (size_t)got < small_cap ? (size_t)got
										  : small_cap);
				}
				continue;
			}
			for (i = 0; i < 6; i++) {
				size_t cap = i & 1 ? BIG_CAP : small_cap;

				if (ut_rb_drain(&r, &c, i >= 2 || round > 0, buf, cap))
					break;
				check_chunk(&c, buf, cap);
				if (!c.len && !c.lost)
					break;
				decode_copy(&stream, c.bytes, c.len, c.start, &clk, p.stop);
				fresh = (struct ut_rb_decoder){.from = r.from};
				decode_copy(&fresh, c.bytes, c.len, c.start, &clk, 0);
			}
		}
	}

	/* The raw input as a chunk, from a few stream positions. */
	starts[0] = 0;
	starts[1] = p.dec_start & ~(uint64_t)(UT_REC_SIZE - 1);
	starts[2] = p.dec_start;
	starts[3] = p.head;
	for (i = 0; i < 4; i++) {
		fresh = (struct ut_rb_decoder){0};
		decode_copy(&fresh, in, n, starts[i], &clk, i == 3 ? p.stop : 0);
	}
	free(map);
	return 0;
}
