// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/ring_buffer.h"
#include "common/ring_walk.h"

#define PAGE UT_PAGE_SIZE

int ut_rb_open(struct ut_rb_reader *r, void *map, size_t map_len, bool consume)
{
	const struct ut_buf_hdr *h = map;
	uint64_t size, records;

	memset(r, 0, sizeof(*r));
	if (map_len < UT_BUF_HDR_SIZE + (size_t)2 * PAGE)
		return -EINVAL;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != UT_BUF_MAGIC ||
	    h->version != UT_ABI_VERSION)
		return -EINVAL;
	size = h->buf_size;
	if (size < (uint64_t)2 * PAGE || (size & (size - 1)) || size > map_len - UT_BUF_HDR_SIZE)
		return -EINVAL;
	r->hdr = h;
	r->data = (const uint8_t *)map + UT_BUF_HDR_SIZE;
	r->size = size;
	r->consume = consume;
	/* A cleared buffer (tail moved by a reader) starts at the clearing point. */
	r->from = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
	if (r->from > __atomic_load_n(&h->head, __ATOMIC_ACQUIRE))
		return -EINVAL;
	r->tail = r->from & ~(uint64_t)(PAGE - 1);
	r->count.from = r->from;
	records = __atomic_load_n(&h->tail_records, __ATOMIC_ACQUIRE);
	r->base = r->from ? records : 0;
	r->base_known = !r->from || r->base;
	/* (tail and its count in two loads: if a claim came between, the first consume sees it) */
	r->claimed = (struct ut_tail){r->from, records};
	return 0;
}

/*
 * Move the header's pair to @end with @n more records counted (when the
 * reader counts them).  false, and reading goes on from the pair's new
 * place, if someone else moved it first.
 */
static bool claim(struct ut_rb_reader *r, uint64_t end, uint64_t n)
{
	struct ut_buf_hdr *h = (struct ut_buf_hdr *)(uintptr_t)r->hdr;
	struct ut_tail seen;

	for (;;) {
		struct ut_tail want = {end, r->claimed.records + (r->count_taken ? n : 0)};

		seen = ut_tail_cas(h, r->claimed, want);
		if (ut_tail_eq(seen, r->claimed)) {
			r->claimed = want;
			r->tail = end;
			return true;
		}
		if (seen.pos != r->claimed.pos)
			break;
		/* only the count differs (read in two pieces at open): ours is behind */
		r->claimed.records = seen.records;
	}
	r->claimed = seen;
	if (seen.pos > r->tail)
		r->tail = seen.pos;
	return false;
}

static void copy_out(const struct ut_rb_reader *r, uint8_t *dst, uint64_t from, size_t len)
{
	uint64_t off = from & (r->size - 1);
	size_t first = len < r->size - off ? len : (size_t)(r->size - off);

	memcpy(dst, r->data + off, first);
	if (first < len)
		memcpy(dst + first, r->data, len - first);
}

static int count_one(void *ctx, const struct ut_event *ev)
{
	(void)ctx;
	(void)ev;
	return 0;
}

/*
 * The records of ring bytes [@pos, @end), counted in place with decoder @d
 * (the ring may wrap: one segment at a time).
 */
static uint64_t count_in_place(const struct ut_rb_reader *r, struct ut_rb_decoder *d,
			       uint64_t pos, uint64_t end)
{
	static const struct ut_clockconv raw = {.clock = UT_CLOCK_COUNTER};
	uint64_t n = 0;

	while (pos < end) {
		uint64_t off = pos & (r->size - 1);
		size_t seg = (size_t)(end - pos < r->size - off ? end - pos : r->size - off);

		n += (uint64_t)ut_rb_decode(d, r->data + off, seg, pos, 0, 0, &raw, count_one, NULL);
		pos += seg;
	}
	return n;
}

/*
 * The start of the oldest page a writer at @head has not begun to overwrite:
 * (head's page) + PAGE - size, computed so that it does not wrap for a
 * (corrupt) head near 2^64, which would make the copy longer than the ring.
 */
static uint64_t oldest_intact(const struct ut_rb_reader *r, uint64_t head)
{
	uint64_t page = head & ~(uint64_t)(PAGE - 1);

	return page > r->size - PAGE ? page - (r->size - PAGE) : 0;
}

#define COPY_STEP (64u << 10) /* bytes copied between two looks at the writer */

/*
 * Copy ring bytes [@from, @from + @len) to @dst, the newest first, and
 * return where the intact part of the copy starts (@from if all of it).
 * A writer that laps the reader overwrites the oldest bytes first, so
 * copying from the head backwards keeps the newest pages whatever the
 * writer's speed: a ring written as fast as it is copied still gives most
 * of itself, where an oldest-first copy was all torn by its end.
 */
static uint64_t copy_newest_first(const struct ut_rb_reader *r, uint8_t *dst, uint64_t from,
				  size_t len)
{
	uint64_t lo = from + len;

	while (lo > from) {
		uint64_t n = lo - from < COPY_STEP ? lo - from : COPY_STEP;
		uint64_t head, safe;

		copy_out(r, dst + (lo - n - from), lo - n, (size_t)n);
		lo -= n;
		head = __atomic_load_n(&r->hdr->head, __ATOMIC_ACQUIRE);
		safe = oldest_intact(r, head);
		/* what lies past @safe was copied before the writer could get there */
		if (safe > lo)
			return safe;
	}
	return from;
}

int ut_rb_drain(struct ut_rb_reader *r, struct ut_rb_chunk *c, bool all, uint8_t *buf,
		size_t cap)
{
	/* `written` before `head`: it counts no record beyond head but one in flight. */
	uint64_t written = __atomic_load_n(&r->hdr->written, __ATOMIC_ACQUIRE);
	uint64_t head = __atomic_load_n(&r->hdr->head, __ATOMIC_ACQUIRE), start, oldest;
	static const struct ut_clockconv raw = {.clock = UT_CLOCK_COUNTER};
	uint64_t real_head, was;
	size_t len;
	long n;

	memset(c, 0, sizeof(*c));
	if (r->stop && head > r->stop)
		head = r->stop;
	if (head < r->tail)
		return -EINVAL; /* the writer went backwards: corrupt */
	real_head = head;
	if (!all) {
		head &= ~(uint64_t)(PAGE - 1);
		if (head <= r->tail)
			return 0;
	}
	start = was = r->tail;
	/* Pages older than this may be (or are being) overwritten. */
	oldest = oldest_intact(r, head);
	if (start < oldest) {
		c->lost = 1; /* flagged here, counted below */
		start = oldest;
	}
	len = (size_t)(head - start);
	if (!len) {
		r->tail = head;
		return 0;
	}
	if (len > cap)
		len = cap;
	c->bytes = buf;
	/* Did the writer lap us while we copied?  Drop what may be torn. */
	{
		uint64_t safe = copy_newest_first(r, c->bytes, start, len);
		uint64_t cut = safe - start < len ? safe - start : len;

		if (cut) {
			memmove(c->bytes, c->bytes + cut, len - cut);
			len -= cut;
			start += cut;
			c->lost = 1;
		}
	}
	c->start = start;
	c->len = len;
	r->tail = start + len;
	n = ut_rb_decode(&r->count, c->bytes, len, start, 0, 0, &raw, count_one, NULL);
	if (c->lost) {
		/*
		 * What was overwritten: produced, but neither read before, nor
		 * here, nor still unread after this chunk (left for later).
		 */
		/* goes on from this chunk's end: a page's TIME record may be in it */
		struct ut_rb_decoder d = r->count;
		uint64_t later = count_in_place(r, &d, r->tail, real_head);

		later += r->base + r->read + r->lost + (uint64_t)n;
		c->lost = written > later ? written - later : 0;
		r->lost += c->lost;
	}
	r->read += (uint64_t)n;
	if (r->consume) {
		uint64_t end = r->tail;

		r->tail = was; /* moved by the claim, or to whatever moved the pair */
		if (!claim(r, end, (uint64_t)n))
			memset(c, 0, sizeof(*c)); /* not ours after all: nothing to hand on */
	}
	return 0;
}

long ut_rb_peek(struct ut_rb_reader *r, bool all, uint64_t *start, const uint8_t *seg[2],
		size_t seglen[2])
{
	uint64_t head = __atomic_load_n(&r->hdr->head, __ATOMIC_ACQUIRE), off;
	size_t len;

	if (r->stop && head > r->stop)
		head = r->stop;
	if (!r->consume || head < r->tail || head - r->tail > r->size)
		return -EINVAL; /* corrupt, or a mode where data may move under us */
	if (!all)
		head &= ~(uint64_t)(PAGE - 1);
	if (head <= r->tail)
		return 0;
	len = (size_t)(head - r->tail);
	off = r->tail & (r->size - 1);
	*start = r->tail;
	seg[0] = r->data + off;
	seglen[0] = len < r->size - off ? len : (size_t)(r->size - off);
	seg[1] = r->data;
	seglen[1] = len - seglen[0];
	return (long)len;
}

bool ut_rb_consume(struct ut_rb_reader *r, size_t len)
{
	uint64_t end = r->tail + len;

	/* counted in place: the producer does not write over what is unread */
	return claim(r, end, r->count_taken ? count_in_place(r, &r->count, r->tail, end) : 0);
}

/*
 * The size of the record at @p (whose words are @w) if it is well formed
 * with @room bytes left in its page and @left in the chunk; 0 if it is not
 * (the rest of its page is then skipped).  Everything in it is untrusted.
 */
unsigned ut_rb_rec_size(const uint8_t *p, const uint64_t w[2], unsigned type, uint64_t room,
			uint64_t left)
{
	unsigned size = type == UT_REC_GRAPH_EXIT ? UT_REC_EXIT_SIZE : UT_REC_SIZE;
	uint64_t n = w[0] & UT_REC_ADDR_MASK;

	if (type == UT_REC_STACK) {
		/*
		 * A stream position that is not a multiple of 16 (a corrupt
		 * head or tail) would misalign the array: malformed.
		 */
		if (n > UT_REC_STACK_MAX || ((uintptr_t)(p + 16) & (sizeof(uint64_t) - 1)))
			return 0;
		size = (unsigned)(16 + ((8 * n + 15) & ~15ull));
	} else if (type == UT_REC_MARKER) {
		if (n > UT_REC_MARKER_MAX)
			return 0;
		size = (unsigned)(16 + ((n + 1 + 15) & ~15ull));
	} else if (type == UT_REC_PROBE) {
		uint64_t sb = (w[1] >> 8) & 0xffff;

		n = w[1] & 0xff;
		if (n > UT_REC_PROBE_MAX_ARGS || sb > UT_REC_PROBE_MAX_STRBYTES ||
		    ((uintptr_t)(p + 16) & (sizeof(uint64_t) - 1)))
			return 0;
		size = (unsigned)(16 + ((8 * n + sb + 15) & ~15ull));
	} else if (type == UT_REC_EVENT) {
		n = (w[0] >> 16) & 0xffff;
		if (n > UT_REC_EVENT_MAX || ((uintptr_t)(p + 16) & (sizeof(uint64_t) - 1)))
			return 0;
		size = (unsigned)(16 + ((n + 15) & ~15ull));
	}
	if (size > room || size > left)
		return 0;
	if (type == UT_REC_MARKER && p[16 + n] != '\0') /* its text must be terminated */
		return 0;
	return size;
}

long ut_rb_walk(struct ut_rb_decoder *d, const uint8_t *bytes, size_t len, uint64_t start,
		ut_rb_recfn fn, void *ctx)
{
	return ut_rb_walk_inline(d, bytes, len, start, fn, NULL, ctx);
}

struct index_ctx {
	const struct ut_clockconv *clk;
	struct ut_rb_ref *at;
};

static inline __attribute__((always_inline)) int index_one(void *ctx, const uint8_t *rec,
							    uint64_t raw)
{
	struct index_ctx *k = ctx;

	*k->at++ = (struct ut_rb_ref){ut_clock_to_trace(k->clk, raw), raw, rec};
	return 0;
}

size_t ut_rb_index(struct ut_rb_decoder *d, const uint8_t *bytes, size_t len, uint64_t start,
		   const struct ut_clockconv *clk, struct ut_rb_ref *out)
{
	struct index_ctx k = {clk, out};

	ut_rb_walk_inline(d, bytes, len, start, index_one, NULL, &k);
	return (size_t)(k.at - out);
}

void ut_rb_decode_one(const uint8_t *p, uint64_t ts, int32_t tid, int32_t tgid,
		      const struct ut_clockconv *clk, struct ut_event *ev)
{
	struct ut_call c = {0};
	uint64_t w[2];

	memcpy(w, p, sizeof(w));
	*ev = (struct ut_event){.pid = tid, .tgid = tgid,
				.cpu = (uint32_t)((w[0] >> UT_REC_CPU_SHIFT) & UT_REC_CPU_MASK),
				.ip = w[0] & UT_REC_ADDR_MASK, .ts = ut_clock_to_trace(clk, ts)};
	if (ut_rb_decode_call(p, ts, ev->ts, clk, &c)) { /* the calls: one decoder for both */
		ev->type = c.type;
		ev->parent_ip = c.parent_ip;
		ev->depth = c.depth;
		ev->overrun = c.overrun;
		ev->calltime = c.calltime;
		ev->retval = c.retval;
		if (c.type == UT_EV_FUNCGRAPH_EXIT)
			ev->rettime = ev->ts;
		return;
	}
	switch (w[0] >> UT_REC_TYPE_SHIFT) {
	case UT_REC_MARKER:
		ev->type = UT_EV_PRINT;
		ev->ip = 0;
		ev->str = (const char *)p + 16;
		break;
	case UT_REC_STACK:
		ev->type = UT_EV_KERNEL_STACK;
		ev->ip = 0;
		ev->nr_callers = (uint32_t)(w[0] & UT_REC_ADDR_MASK);
		/* points into the caller's bytes (8-aligned): valid while they are */
		ev->callers = (const uint64_t *)(const void *)(p + 16);
		break;
	case UT_REC_SIGNAL:
		ev->type = (w[1] >> 32) & 1 ? UT_EV_SIGNAL_EXIT : UT_EV_SIGNAL_ENTER;
		ev->sig = (int32_t)(w[0] & 0xff);
		ev->ip = 0;
		ev->depth = (uint32_t)w[1];
		break;
	case UT_REC_INLINED:
		ev->type = UT_EV_FUNCGRAPH_INLINED;
		ev->depth = (uint32_t)w[1];
		break;
	case UT_REC_PROBE:
		ev->type = UT_EV_PROBE;
		ev->nargs = (uint32_t)(w[1] & 0xff);
		ev->argbytes = (uint32_t)(8ull * ev->nargs + ((w[1] >> 8) & 0xffff));
		/* points into the caller's bytes (8-aligned): valid while they are */
		ev->args = (const uint64_t *)(const void *)(p + 16);
		break;
	case UT_REC_EVENT:
		ev->type = UT_EV_STATIC;
		ev->ip = 0;
		ev->evid = (uint16_t)(w[0] & 0xffff);
		ev->raw_len = (uint16_t)((w[0] >> 16) & 0xffff);
		/* points into the caller's bytes: valid while they are */
		ev->raw = p + 16;
		break;
	default: /* LOST: the count in ip */
		ev->type = 0;
		ev->ip = w[1];
		break;
	}
}

struct decode_ctx {
	int32_t tid, tgid;
	const struct ut_clockconv *clk;
	ut_rb_fn fn;
	void *ctx;
};

static int decode_rec(void *ctx, const uint8_t *rec, uint64_t ts)
{
	struct decode_ctx *k = ctx;
	struct ut_event ev;

	ut_rb_decode_one(rec, ts, k->tid, k->tgid, k->clk, &ev);
	return k->fn(k->ctx, &ev);
}

long ut_rb_decode(struct ut_rb_decoder *d, const uint8_t *bytes, size_t len, uint64_t start,
		  int32_t tid, int32_t tgid, const struct ut_clockconv *clk, ut_rb_fn fn,
		  void *ctx)
{
	struct decode_ctx k = {tid, tgid, clk, fn, ctx};

	return ut_rb_walk(d, bytes, len, start, decode_rec, &k);
}
