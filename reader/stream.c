// SPDX-License-Identifier: MIT
/* The merged event stream (reader/stream.h). */
#include "reader/stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ut_stream {
	struct ut_stream_filter f;
	bool filtered;
	struct ut_stream_src **src;
	size_t n, cap;
};

struct ut_stream *ut_stream_new(const struct ut_stream_filter *f)
{
	struct ut_stream *s = calloc(1, sizeof(*s));

	if (s && f) {
		s->f = *f;
		s->filtered = true;
	}
	return s;
}

int ut_stream_add(struct ut_stream *s, struct ut_stream_src *src)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct ut_stream_src **v = realloc(s->src, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->src = v;
		s->cap = cap;
	}
	s->src[s->n++] = src;
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

/* Earlier first; at the same time the lower thread id (a stable order). */
static bool before(const struct ut_event *x, const struct ut_event *y)
{
	if (x->ts != y->ts)
		return x->ts < y->ts;
	return x->pid < y->pid;
}

/*
 * The source holding the earliest record.  A linear scan: the sources are a
 * process's threads or one file, and peek() is a pointer read when the
 * source has decoded events at hand.
 */
static struct ut_stream_src *earliest(struct ut_stream *s, const struct ut_event **out,
				      uint64_t *lost)
{
	struct ut_stream_src *best = NULL;

	*out = NULL;
	for (size_t i = 0; i < s->n; i++) {
		uint64_t l = 0;
		const struct ut_event *ev = s->src[i]->peek(s->src[i], &l);

		if (ev && (!*out || before(ev, *out))) {
			best = s->src[i];
			*out = ev;
			*lost = l;
		}
	}
	return best;
}

int ut_stream_next(struct ut_stream *s, struct ut_stream_item *it)
{
	for (;;) {
		const struct ut_event *ev;
		uint64_t lost = 0;
		struct ut_stream_src *src = earliest(s, &ev, &lost);
		bool lost_only;

		if (!src)
			return 0;
		src->pop(src);
		lost_only = ev->type == 0;
		if (s->filtered && !ut_stream_wanted(&s->f, ev, lost_only))
			continue;
		*it = (struct ut_stream_item){.ev = lost_only ? NULL : ev,
					      .lost = lost + (lost_only ? ev->ip : 0),
					      .cpu = ev->cpu,
					      .src = src};
		return 1;
	}
}
