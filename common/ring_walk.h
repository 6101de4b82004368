/* SPDX-License-Identifier: MIT */
/*
 * The walk over a chunk of ring data (common/ring_buffer.h), as an inline
 * template for the loops that run once per record: the record writer's
 * index (ut_rb_index()) and its fused write (ut_tracedat_write_ring()).
 * Everything read is untrusted, as in ut_rb_walk().
 */
#ifndef UT_RING_WALK_H
#define UT_RING_WALK_H

#include "common/ring_buffer.h"

/*
 * The size of the record at @p (whose words are @w) if it is well formed
 * with @room bytes left in its page and @left in the chunk; 0 if it is not
 * (the rest of its page is then skipped).
 */
unsigned ut_rb_rec_size(const uint8_t *p, const uint64_t w[2], unsigned type, uint64_t room,
			uint64_t left);

/* A record type this reader decodes (include/utrace/abi.h: UT_REC_*). */
static inline bool ut_rb_rec_known(unsigned type)
{
	return (type >= UT_REC_FUNCTION && type <= UT_REC_EVENT) || type == UT_REC_GRAPH_RET ||
	       type == UT_REC_INLINED;
}

/* A call's record: a function's, a graph entry's or a graph exit's (of two forms). */
static inline bool ut_rb_rec_call(unsigned type)
{
	return type == UT_REC_FUNCTION || type == UT_REC_GRAPH_ENTRY || type == UT_REC_GRAPH_EXIT ||
	       type == UT_REC_GRAPH_RET;
}

/*
 * A run of calls' records, taken at once: @p is the first (well formed,
 * past the reader's starting point), @room the bytes that follow it in its
 * page and the chunk (itself included), *@ts the running time before it.
 * Returns the bytes it took, whole records of calls (0: none; @fn is
 * called for @p), with *@ts moved past them.
 */
typedef size_t (*ut_rb_runfn)(void *ctx, const uint8_t *p, size_t room, uint64_t *ts);

/*
 * ut_rb_walk(), inlined into its caller with its @fn (a constant there): the
 * record writer indexes or writes millions of records with no call per
 * record (ut_rb_index(), ut_tracedat_write_ring()).  With @run (a constant
 * too, or NULL), runs of calls' records go to it first, and the count
 * returned is of the records given to @fn.
 */
static inline __attribute__((always_inline)) long
ut_rb_walk_inline(struct ut_rb_decoder *d, const uint8_t *bytes, size_t len, uint64_t start,
		  ut_rb_recfn fn, ut_rb_runfn run, void *ctx)
{
	uint64_t pos = start, end = start + len, ts = d->ts;
	bool have_ts = d->have_ts && d->pos == start;
	long n = 0;

	/* offsets from @start, not positions: these may wrap past 2^64 (corrupt) */
	while (pos - start < len && len - (pos - start) >= UT_REC_SIZE) {
		uint64_t room = UT_PAGE_SIZE - (pos & (UT_PAGE_SIZE - 1)), w[2];
		const uint8_t *p = bytes + (pos - start);
		unsigned type, size;

		if (room == UT_PAGE_SIZE)
			have_ts = false; /* a page decodes on its own */
		if (room < UT_REC_SIZE || (pos & (UT_REC_SIZE - 1))) {
			pos += room;
			continue;
		}
		/* the chunk was written on another core: ask for it ahead */
		__builtin_prefetch(p + 512);
		memcpy(w, p, sizeof(w));
		type = (unsigned)(w[0] >> UT_REC_TYPE_SHIFT);
		if (type == UT_REC_TIME) {
			ts = w[1];
			have_ts = true;
			pos += UT_REC_SIZE;
			continue;
		}
		/* the end of the page, or garbage: go on with the next page */
		if ((type == UT_REC_FUNCTION || type == UT_REC_GRAPH_ENTRY ||
		     type == UT_REC_GRAPH_RET) && have_ts)
			size = UT_REC_SIZE; /* the common records: well formed if typed so */
		else
			size = w[0] && have_ts && ut_rb_rec_known(type)
				       ? ut_rb_rec_size(p, w, type, room, len - (pos - start))
				       : 0;
		if (!size) {
			pos += room;
			continue;
		}
		if (run && ut_rb_rec_call(type) && pos >= d->from) {
			uint64_t left = len - (pos - start);
			size_t k = run(ctx, p, (size_t)(left < room ? left : room), &ts);

			if (k) {
				pos += k;
				continue;
			}
		}
		if (type != UT_REC_LOST)
			ts += w[1] >> UT_REC_DELTA_SHIFT;
		if (pos >= d->from) { /* else before the reader's starting point: time only */
			if (fn(ctx, p, ts))
				break;
			n += type != UT_REC_LOST;
		}
		pos += size;
	}
	d->pos = end;
	d->ts = ts;
	d->have_ts = have_ts;
	return n;
}

#endif
