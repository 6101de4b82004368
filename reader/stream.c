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
	s->src[s->n++] = src;
	src->lost = 0;
	if (!src->refill(src))
		src->cur = src->end = NULL;
	return 0;
}

void ut_stream_free(struct ut_stream *s)
{
	if (s)
		free(s->src);
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
			s->taken = NULL;
		}
		src = earliest(s);
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
