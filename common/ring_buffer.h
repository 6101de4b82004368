/* SPDX-License-Identifier: MIT */
/*
 * The reader side of the per-thread ring buffers (include/utrace/abi.h):
 * copying new data out of a live buffer, and decoding records into events.
 * Everything read from shared memory is validated: the writer is another
 * process and may be buggy, malicious or dead half-way through a write.
 */
#ifndef UT_RING_BUFFER_H
#define UT_RING_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/event.h"
#include "common/tail_claim.h"
#include "utrace/abi.h"

/* The clock conversion of one session (from its control block). */
struct ut_clockconv {
	uint32_t clock;   /* UT_CLOCK_* */
	uint64_t tsc0, mono0;
	uint32_t mult, shift;
};

/* A raw timestamp in the trace clock's unit (inline: the writer converts millions). */
static inline uint64_t ut_clock_to_trace(const struct ut_clockconv *c, uint64_t raw)
{
	switch (c->clock) {
	case UT_CLOCK_LOCAL:
		/* shift comes from the traced process's control block: untrusted */
		if (c->shift >= 128)
			return c->mono0;
		return c->mono0 + (uint64_t)(((unsigned __int128)(raw - c->tsc0) * c->mult) >> c->shift);
	case UT_CLOCK_UPTIME:
		return raw / 10000000; /* jiffies at HZ=100 */
	default:
		return raw; /* ns clocks, counter, x86-tsc */
	}
}

/*
 * Decoder state carried from one chunk to the next of the same stream: a
 * chunk may start in the middle of a page whose TIME record came in the
 * previous one.  Zero-initialise; a gap in positions resets it.
 */
struct ut_rb_decoder {
	uint64_t pos;  /* where the previous chunk ended */
	uint64_t ts;   /* the running timestamp */
	bool have_ts;
	uint64_t from; /* records before this position only set the time (a clear) */
};

struct ut_rb_reader {
	const struct ut_buf_hdr *hdr; /* mapped header */
	const uint8_t *data;          /* mapped data */
	uint64_t size;                /* validated data size */
	uint64_t tail;                /* next position to read */
	uint64_t from;                /* where reading really starts (the buffer's
				       * tail when opened); tail starts at its page,
				       * whose TIME record the decoder needs: give
				       * it to the decoders as ut_rb_decoder.from */
	uint64_t read;                /* records drained so far (overwrite mode) */
	uint64_t lost;                /* records reported overwritten so far */
	uint64_t base;                /* records before the starting point (a clear) */
	bool base_known;              /* false: started mid-stream, count unknown */
	bool consume;                 /* advance hdr->tail (producer/consumer mode) */
	uint64_t stop;                /* not 0: take nothing past this position (the
				       * head read before the slot's gen was checked:
				       * past it may be the slot's next thread's) */
	struct ut_rb_decoder count;   /* for counting the records drained */
	struct ut_tail claimed;       /* consume: the header's {tail, tail_records} as this
				       * reader last moved or saw them (common/tail_claim.h) */
	bool count_taken;             /* consume: tail_records counts what is taken (a
				       * reader that prints it: the runtime then counts
				       * as lost only what it did not take) */
};

/* Validate a mapped buffer of @map_len bytes and set up @r. Returns 0 or -EINVAL. */
int ut_rb_open(struct ut_rb_reader *r, void *map, size_t map_len, bool consume);

/*
 * A chunk of raw ring data: bytes of the logical stream from position @start
 * (page boundaries are at multiples of UT_PAGE_SIZE), with @lost records
 * known to be missing before it.
 */
struct ut_rb_chunk {
	uint64_t start;
	uint64_t lost;
	size_t len;
	uint8_t *bytes;    /* the caller's buffer */
};

/*
 * Copy what is new since the last call into @buf (at most @cap bytes, a
 * multiple of UT_PAGE_SIZE; the rest waits for the next call) and describe
 * it in @c (c->len == 0 if nothing).  In overwrite mode c->lost is the number of
 * records overwritten before this chunk (from the writer's `written` counter:
 * exact, or one too many if a record was being committed as we looked).
 * Unless @all, only whole pages are taken: reading the page the producer is
 * writing would bounce its cache lines between the two cores on every
 * record.  Overwritten data is skipped and flagged in c->lost.  Returns 0 or
 * -errno.
 */
int ut_rb_drain(struct ut_rb_reader *r, struct ut_rb_chunk *c, bool all, uint8_t *buf,
		size_t cap);

/*
 * Producer/consumer mode only (the producer never overwrites unread data):
 * the unread bytes in place, as up to two segments of the mapping (the ring
 * may wrap), without copying.  Call ut_rb_consume() once they are saved.
 * Returns the byte count (0 if nothing), or -EINVAL.
 */
long ut_rb_peek(struct ut_rb_reader *r, bool all, uint64_t *start, const uint8_t *seg[2],
		size_t seglen[2]);
/*
 * Consume @len bytes from tail (what was peeked, or copied out): a claim of
 * the header's pair (common/tail_claim.h), counting the records taken when
 * r->count_taken.  false: the pair moved under us -- a clear, the runtime
 * took the buffer back for a new thread (and counted what was unread as
 * lost), another consuming reader -- so what was copied is not ours to
 * keep; reading goes on from where the pair is now.
 */
bool ut_rb_consume(struct ut_rb_reader *r, size_t len);

/*
 * Decode the records of a chunk, calling @fn for each (and for LOST records
 * with ev->type == 0 and the count in ev->ip).  A page whose first record is
 * not a TIME record, and the rest of a page after a malformed record, are
 * skipped.  Returns the number of FUNCTION records decoded.
 */
typedef int (*ut_rb_fn)(void *ctx, const struct ut_event *ev);

long ut_rb_decode(struct ut_rb_decoder *d, const uint8_t *bytes, size_t len, uint64_t start,
		  int32_t tid, int32_t tgid, const struct ut_clockconv *clk, ut_rb_fn fn,
		  void *ctx);

/*
 * The same walk without decoding: @fn gets each well-formed record (LOST
 * ones too) where it lies in @bytes, with the thread's running raw
 * timestamp at it, and decodes it later, if at all, with ut_rb_decode_one()
 * (a writer that indexes millions of records and merges them keeps 24
 * bytes per record rather than a struct ut_event).  Same return value.
 */
typedef int (*ut_rb_recfn)(void *ctx, const uint8_t *rec, uint64_t raw_ts);

long ut_rb_walk(struct ut_rb_decoder *d, const uint8_t *bytes, size_t len, uint64_t start,
		ut_rb_recfn fn, void *ctx);
/*
 * A record as the record writer keeps it until it is written: its time in
 * the trace clock (the merge's key), the ring's own time at it, and where
 * it lies in the caller's bytes (decoded only when written: 24 bytes a
 * record rather than a struct ut_event).
 */
struct ut_rb_ref {
	uint64_t ts;
	uint64_t raw;
	const uint8_t *rec;
};

/*
 * ut_rb_walk() into @out (room for len / UT_REC_SIZE refs), each record's
 * time converted with @clk.  Returns the number of refs (LOST records
 * included).
 */
size_t ut_rb_index(struct ut_rb_decoder *d, const uint8_t *bytes, size_t len, uint64_t start,
		   const struct ut_clockconv *clk, struct ut_rb_ref *out);
#define UT_RB_INDEX_MAX(len) ((len) / UT_REC_SIZE)

/* Decode a record that ut_rb_walk() gave (@ts: its raw_ts) into @ev. */
void ut_rb_decode_one(const uint8_t *rec, uint64_t ts, int32_t tid, int32_t tgid,
		      const struct ut_clockconv *clk, struct ut_event *ev);
/*
 * A GRAPH_RET's fields from its word 1 (include/utrace/abi.h): its depth,
 * its return value (32 bits, sign- or zero-extended), and its duration:
 * its delta, from the entry right before it (no more than @ts: a corrupt
 * record must not make a call time before 0).
 */
static inline uint32_t ut_rb_ret_depth(uint64_t w1)
{
	return (uint32_t)(w1 & 0x7fff);
}

static inline uint64_t ut_rb_ret_retval(uint64_t w1)
{
	uint32_t lo = (uint32_t)(w1 >> 16);

	return w1 & 0x8000 ? (uint64_t)(int64_t)(int32_t)lo : lo;
}

static inline uint64_t ut_rb_ret_duration(uint64_t w1, uint64_t ts)
{
	uint64_t d = w1 >> UT_REC_DELTA_SHIFT;

	return d < ts ? d : ts;
}

/*
 * The same for the records of calls only (FUNCTION, GRAPH_ENTRY, GRAPH_EXIT,
 * GRAPH_RET) into @c, with @trace_ts the record's time already converted
 * (ut_clock_to_trace(@clk, @ts)); false for any other record (@c then
 * holds nothing of use).  Inline: the record writer decodes millions, and
 * ut_rb_decode_one() decodes calls with it.
 */
static inline bool ut_rb_decode_call(const uint8_t *p, uint64_t ts, uint64_t trace_ts,
				     const struct ut_clockconv *clk, struct ut_call *c)
{
	uint64_t w[2], x[2];

	memcpy(w, p, sizeof(w));
	c->ts = trace_ts;
	c->cpu = (uint32_t)((w[0] >> UT_REC_CPU_SHIFT) & UT_REC_CPU_MASK);
	c->ip = w[0] & UT_REC_ADDR_MASK;
	switch (w[0] >> UT_REC_TYPE_SHIFT) {
	case UT_REC_FUNCTION:
		c->type = UT_EV_FUNCTION;
		c->parent_ip = w[1] & UT_REC_ADDR_MASK;
		return true;
	case UT_REC_GRAPH_ENTRY:
		c->type = UT_EV_FUNCGRAPH_ENTRY;
		c->depth = (uint32_t)w[1];
		return true;
	case UT_REC_GRAPH_EXIT:
		memcpy(x, p + 16, sizeof(x));
		c->type = UT_EV_FUNCGRAPH_EXIT;
		c->depth = (uint32_t)w[1];
		c->overrun = (uint32_t)((w[1] >> 32) & 0xffff);
		c->calltime = ut_clock_to_trace(clk, ts - (x[0] < ts ? x[0] : ts));
		c->retval = x[1];
		return true;
	case UT_REC_GRAPH_RET:
		c->type = UT_EV_FUNCGRAPH_EXIT;
		c->depth = ut_rb_ret_depth(w[1]);
		c->overrun = 0;
		c->calltime = ut_clock_to_trace(clk, ts - ut_rb_ret_duration(w[1], ts));
		c->retval = ut_rb_ret_retval(w[1]);
		return true;
	default:
		return false;
	}
}

#endif
