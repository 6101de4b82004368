// SPDX-License-Identifier: MIT
/* The merged event stream (reader/stream.h). */
#include "reader/stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"


struct ut_stream *ut_stream_new(const struct ut_stream_filter *f)
{
	struct ut_stream *s = calloc(1, sizeof(*s));

	/* a filter that keeps everything is none: the inline path stays open */
	if (s && f && ((f->cpus && f->cpus->n) || (f->tids && f->tids->n) ||
		       (f->pids && f->pids->n) || f->ts_min || f->ts_max)) {
		s->f = *f;
		s->filtered = true;
	}
	return s;
}

int ut_stream_add(struct ut_stream *s, struct ut_stream_src *src)
{
	if (s->n == s->cap && ut_grow(&s->src, &s->cap, sizeof(struct ut_stream_src *), 16))
		return -ENOMEM;
	src->order = s->n;
	s->src[s->n++] = src;
	s->heaped = false; /* a heap is made again with it */
	src->lost = 0;
	if (!src->refill(src))
		src->cur = src->end = NULL;
	return 0;
}

void ut_stream_free(struct ut_stream *s)
{
	if (s) {
		free(s->src);
		free(s->heap);
	}
	free(s);
}

static bool has(const struct ut_idlist *l, long v)
{
	if (!l || !l->n)
		return true;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return true;
	return false;
}

bool ut_stream_wanted(const struct ut_stream_filter *f, const struct ut_event *ev, bool lost_only)
{
	if (!f)
		return true;
	if (!has(f->cpus, ev->cpu) || !has(f->tids, ev->pid))
		return false;
	if (lost_only)
		return true;
	if (f->pids && f->pids->n && !has(f->pids, ev->tgid))
		return false;
	return ev->ts >= f->ts_min && (!f->ts_max || ev->ts <= f->ts_max);
}

/*
 * Earlier first; at the same time the lower CPU, then the lower thread id:
 * the order a trace.dat's reader gives (its CPUs merged, the lower first on
 * ties, each CPU's events as written), so a trace printed straight from the
 * buffers and one printed from the file it would make agree line for line.
 */
static bool before(const struct ut_event *x, const struct ut_event *y)
{
	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu;
	return x->pid < y->pid;
}

/*
 * The source holding the earliest record.  A linear scan: the sources are a
 * process's threads or one file, and each record at hand is a pointer read.
 */
static struct ut_stream_src *earliest(const struct ut_stream *s)
{
	struct ut_stream_src *best = NULL;

	if (s->n == 1) /* one thread, or a file: nothing to merge */
		return s->src[0]->cur ? s->src[0] : NULL;
	for (size_t i = 0; i < s->n; i++) {
		const struct ut_event *ev = s->src[i]->cur;

		if (ev && (!best || before(ev, best->cur)))
			best = s->src[i];
	}
	return best;
}

/*
 * Many sources (a process's thousands of threads, come and gone): a scan
 * per record would cost more than the rest of the read.  Above this many,
 * a binary heap keeps the sources that have records by their next one.
 */
#define HEAP_MIN 8

/* @x's next record goes before @y's: the scan's order (ties: the first source). */
static bool src_before(const struct ut_stream_src *x, const struct ut_stream_src *y)
{
	if (before(x->cur, y->cur))
		return true;
	return !before(y->cur, x->cur) && x->order < y->order;
}

static void sift_down(struct ut_stream *s, size_t i)
{
	struct ut_stream_src **h = s->heap, *x = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && src_before(h[c + 1], h[c]))
			c++;
		if (!src_before(h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* The heap of the sources that have records.  False: no memory (the scan does). */
static bool heap_build(struct ut_stream *s)
{
	if (s->heapcap < s->n) {
		struct ut_stream_src **h = realloc(s->heap, s->n * sizeof(struct ut_stream_src *));

		if (!h)
			return false;
		s->heap = h;
		s->heapcap = s->n;
	}
	s->nheap = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->src[i]->cur)
			s->heap[s->nheap++] = s->src[i];
	for (size_t i = s->nheap / 2; i-- > 0;)
		sift_down(s, i);
	s->heaped = true;
	return true;
}

/* The top advanced: back in its place, or out once it ended. */
static void heap_fix_top(struct ut_stream *s)
{
	if (!s->nheap)
		return;
	if (!s->heap[0]->cur)
		s->heap[0] = s->heap[--s->nheap];
	if (s->nheap)
		sift_down(s, 0);
}

static struct ut_stream_src *next_source(struct ut_stream *s)
{
	if (s->n <= HEAP_MIN || (!s->heaped && !heap_build(s)))
		return earliest(s);
	return s->nheap ? s->heap[0] : NULL;
}

/* Past the record handed out last: the source's next one, or its next batch. */
static void advance(struct ut_stream_src *src)
{
	if (++src->cur == src->end && !src->refill(src))
		src->cur = src->end = NULL;
}

int ut_stream_next_any(struct ut_stream *s, struct ut_stream_item *it)
{
	for (;;) {
		struct ut_stream_src *src;
		const struct ut_event *ev;

		if (s->taken) {
			advance(s->taken);
			if (s->heaped)
				heap_fix_top(s); /* it was the top */
			s->taken = NULL;
		}
		src = next_source(s);
		if (!src)
			return 0;
		s->taken = src;
		ev = src->cur;
		if (ev->type == 0) { /* a LOST record tells its own count */
			if (s->filtered && !ut_stream_wanted(&s->f, ev, true))
				continue;
			*it = (struct ut_stream_item){.lost = ev->ip, .cpu = ev->cpu, .src = src};
			return 1;
		}
		/* the losses before an event go with it, or with it are dropped */
		*it = (struct ut_stream_item){.ev = ev, .lost = src->lost, .cpu = ev->cpu, .src = src};
		src->lost = 0;
		if (!s->filtered || ut_stream_wanted(&s->f, ev, false))
			return 1;
	}
}
