/* SPDX-License-Identifier: MIT */
/*
 * The merged event stream: one k-way merge by timestamp over sources that
 * each give their events in time order (a thread's spooled ring, a
 * trace.dat), filtered by CPU, thread, process and time, with losses
 * reported in order, before the event they precede.  Used by the
 * recorder's write-out and report's printer; one merge for all.
 */
#ifndef UT_STREAM_H
#define UT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/event.h"
#include "utrace/read.h"

/*
 * A source.  peek(): the next record without taking it -- an event, or a
 * LOST record (type 0, ip = the records lost, in time order like events) --
 * adding to *@lost the records known lost before it; NULL at the end.
 * pop(): take what peek() returned.  The record stays valid until the next
 * peek() after pop().
 */
struct ut_stream_src {
	const struct ut_event *(*peek)(struct ut_stream_src *src, uint64_t *lost);
	void (*pop)(struct ut_stream_src *src);
};

/* What the stream gives: an event, losses, or both (the losses came first). */
struct ut_stream_item {
	const struct ut_event *ev; /* NULL: losses only */
	uint64_t lost;             /* records lost before ev (on @cpu) */
	uint32_t cpu;
	struct ut_stream_src *src; /* whose */
};

struct ut_stream;

/* A stream over no source yet, keeping what @f lets through (NULL: everything; copied). */
struct ut_stream *ut_stream_new(const struct ut_stream_filter *f);
/* Merge @src in (owned by the caller, who keeps it until the stream is freed).  0 or -ENOMEM. */
int ut_stream_add(struct ut_stream *s, struct ut_stream_src *src);
/*
 * The next item in time order (ties: the lower thread id first): 1, or 0
 * when every source ended.  Items the filter drops are skipped, their
 * losses with them.
 */
int ut_stream_next(struct ut_stream *s, struct ut_stream_item *it);
void ut_stream_free(struct ut_stream *s);

/* Does @f let @ev through? (NULL: yes.)  Losses only are judged by CPU and thread. */
bool ut_stream_wanted(const struct ut_stream_filter *f, const struct ut_event *ev, bool lost_only);

#endif
