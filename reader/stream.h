/* SPDX-License-Identifier: MIT */
/*
 * The merged event stream: one k-way merge by timestamp over sources that
 * each give their events in time order (a thread's spooled ring, a
 * trace.dat), filtered by CPU, thread, process and time, with losses
 * reported in order, before the event they precede.  Used by the
 * recorder's write-out, the printer (report, show, the mount's trace files),
 * trace_pipe and the public reader; one merge for all.
 */
#ifndef UT_STREAM_H
#define UT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/event.h"
#include "utrace/read.h"

/*
 * A source: records in time order -- events, and LOST records (type 0, ip =
 * the records lost, in time order like events) -- handed over in batches.
 * [@cur, @end): the records at hand, which the stream walks itself (no call
 * per record: the recorder merges millions); refill(): the next batch, at
 * least one record, false once the source ended.  @lost: records lost
 * before @cur that no LOST record tells (a flight-recorder ring lapped);
 * the source adds to it, the stream reports and zeroes it with the next
 * event.  A batch stays valid until refill() is called again, which the
 * stream does at its call after handing out the batch's last record.
 */
struct ut_stream_src {
	const struct ut_event *cur, *end;
	uint64_t lost;
	bool (*refill)(struct ut_stream_src *src);
	size_t order; /* the stream's: its place among the sources (ties go to the first) */
};

/* What the stream gives: an event, losses, or both (the losses came first). */
struct ut_stream_item {
	const struct ut_event *ev; /* NULL: losses only */
	uint64_t lost;             /* records lost before ev (on @cpu) */
	uint32_t cpu;
	struct ut_stream_src *src; /* whose */
};

struct ut_stream {
	struct ut_stream_filter f;
	bool filtered;
	struct ut_stream_src **src;
	size_t n, cap;
	struct ut_stream_src *taken; /* whose record went out last: advanced first */
	/* many sources: those not ended, as a binary heap on their next record */
	struct ut_stream_src **heap;
	size_t nheap, heapcap;
	bool heaped;                 /* the heap is up to date (taken is its top) */
};

/* A stream over no source yet, keeping what @f lets through (NULL: everything; copied). */
struct ut_stream *ut_stream_new(const struct ut_stream_filter *f);
/* Merge @src in (owned by the caller, who keeps it until the stream is freed).  0 or -ENOMEM. */
int ut_stream_add(struct ut_stream *s, struct ut_stream_src *src);
/*
 * The next item in time order (ties: the lower CPU, then the lower thread
 * id first): 1, or 0
 * when every source ended.  Items the filter drops are skipped, their
 * losses with them.
 */
int ut_stream_next_any(struct ut_stream *s, struct ut_stream_item *it);
static inline int ut_stream_next(struct ut_stream *s, struct ut_stream_item *it)
{
	struct ut_stream_src *src = s->taken;
	const struct ut_event *ev;

	if (s->n != 1 || s->filtered || !src)
		return ut_stream_next_any(s, it);
	/* One source, nothing filtered (a thread's write-out, a whole trace.dat):
	 * inline, as the recorder and report take every record through here. */
	ev = src->cur + 1;
	if (ev == src->end) {
		if (!src->refill(src)) {
			src->cur = src->end = NULL;
			s->taken = NULL;
			return 0;
		}
		ev = src->cur;
	}
	src->cur = ev;
	if (ev->type == 0) { /* a LOST record tells its own count */
		*it = (struct ut_stream_item){.lost = ev->ip, .cpu = ev->cpu, .src = src};
		return 1;
	}
	*it = (struct ut_stream_item){.ev = ev, .lost = src->lost, .cpu = ev->cpu, .src = src};
	src->lost = 0;
	return 1;
}
void ut_stream_free(struct ut_stream *s);

/* Does @f let @ev through? (NULL: yes.)  Losses only are judged by CPU and thread. */
bool ut_stream_wanted(const struct ut_stream_filter *f, const struct ut_event *ev, bool lost_only);

#endif
