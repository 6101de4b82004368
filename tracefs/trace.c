// SPDX-License-Identifier: MIT
/*
 * trace, trace_pipe and processes/PID/per_thread/TID/{trace,trace_pipe} of
 * the tracefs mount.  The text comes from the live reader (include/utrace/read.h), in
 * the kernel's format with the scope's output options.
 *
 * trace_pipe consumes what it prints.  A scope's trace_pipe is the live
 * streaming reader, which consumes the buffers itself.  A thread's own
 * files read that thread's buffers only; its pipe prints their snapshot and
 * then moves their read positions (tail) up to the heads it saw before
 * reading, as `echo > trace` does: records written while the text is being
 * made may be printed twice; none is lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "utrace/read.h"
#include "tracefs/tracefs.h"
#include "common/clock.h"
#include "common/ring_buffer.h"
#include "utrace/abi.h"

#define MAX_WORDS 64

/* The scope's option words for the formatter. */
struct words {
	char w[MAX_WORDS][40];
	const char *p[MAX_WORDS];
	int n;
};

static void get_words(const struct tfs_scope *sc, struct words *w)
{
	tfs_opt_words(sc, w->w, w->p, MAX_WORDS, &w->n);
}

/* One thread's trace: its own buffers' snapshot. */
static int print_thread(const struct tfs_scope *sc, int32_t tid, FILE *f, const struct words *w,
			bool header)
{
	return ut_live_print_thread(tfs_rundir, sc->pid, tid, f, w->p, w->n, header);
}

int tfs_print_trace(struct tfs_req *r, FILE *f, struct ut_live_window *win)
{
	const struct tfs_scope *sc = r->sc;
	struct words w;
	int ret;

	get_words(sc, &w);
	if (r->tid)
		ret = print_thread(sc, r->tid, f, &w, true);
	else
		ret = ut_live_print_window(tfs_rundir, sc->inst, sc->pid ? &sc->pid : NULL,
					   sc->pid ? 1 : 0, false, f, w.p, w.n, true, win);
	return ret == -ESRCH ? -ENODEV : ret;
}

/* What snapshots took is not in trace, what they put back is (snapshot.c). */
int tfs_show_trace(struct tfs_req *r, FILE *f)
{
	return tfs_snapshot_show_trace(r, f);
}

/* ------------------------------------------------------------------ */
/* Buffer positions                                                    */
/* ------------------------------------------------------------------ */

struct bufpos {
	char path[PATH_MAX];
	uint64_t head, written;
};

struct positions {
	struct bufpos *v;
	size_t n;
	bool pending;     /* some buffer holds unread data */
	bool alive;       /* some session in scope still runs */
};

/*
 * Map the header page of a buffer file (NULL if it is not one).  A file
 * shorter than the page would fault (SIGBUS) on access: refused.
 */
static struct ut_buf_hdr *map_header(const char *path, bool rw)
{
	char err[256];
	size_t len;
	void *h;

	if (ut_sess_map_buf(path, rw, true, &h, &len, err, sizeof(err)))
		return NULL;
	return h;
}

/* Note where one buffer's producer is now. */
static void note_buffer(struct positions *p, const char *path)
{
	const struct ut_buf_hdr *h = map_header(path, false);
	struct bufpos *nv;
	uint64_t written, head, tail;

	if (!h)
		return;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != UT_BUF_MAGIC) {
		munmap((void *)h, UT_BUF_HDR_SIZE);
		return;
	}
	/* `written` first: it never counts a record beyond head */
	written = __atomic_load_n(&h->written, __ATOMIC_ACQUIRE);
	head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
	munmap((void *)h, UT_BUF_HDR_SIZE);
	if (head <= tail)
		return;
	p->pending = true;
	nv = realloc(p->v, (p->n + 1) * sizeof(*nv));
	if (!nv)
		return;
	p->v = nv;
	nv = &p->v[p->n++];
	snprintf(nv->path, sizeof(nv->path), "%s", path);
	nv->head = head;
	nv->written = written;
}

/* The buffers of the scope's sessions (@tid: that thread's only) with unread data. */
static void collect(const struct tfs_scope *sc, int32_t tid, struct positions *p)
{
	struct ut_live_sess *v;
	long n = ut_live_list(tfs_rundir, &v);

	memset(p, 0, sizeof(*p));
	for (long i = 0; i < n; i++) {
		struct ut_ctl *ctl;
		uint32_t nr;

		if (sc->pid && v[i].pid != sc->pid)
			continue;
		p->alive |= v[i].alive;
		ctl = ut_live_map_ctl(v[i].dir);
		if (!ctl)
			continue;
		nr = __atomic_load_n(&ctl->nr_slots, __ATOMIC_ACQUIRE);
		if (nr > UT_MAX_THREADS)
			nr = UT_MAX_THREADS;
		for (uint32_t k = 0; k < nr; k++) {
			const struct ut_thread_slot *ts = &ctl->threads[k];
			char path[PATH_MAX];

			if (__atomic_load_n(&ts->state, __ATOMIC_ACQUIRE) == UT_SLOT_FREE ||
			    (tid && ts->tid != tid))
				continue;
			if (snprintf(path, sizeof(path), "%s/%s%u", v[i].dir,
				     ut_live_buf_prefix(sc->inst), k) <
			    (int)sizeof(path))
				note_buffer(p, path);
		}
		ut_live_unmap_ctl(ctl);
	}
	if (n > 0)
		free(v);
}

/*
 * Mark what was read as consumed: each noted buffer's tail moves up to the
 * head noted before reading (never backwards: a consuming reader may have
 * gone further).
 */
static void advance(const struct positions *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct bufpos *b = &p->v[i];
		struct ut_buf_hdr *h;
		struct ut_tail tail;

		h = map_header(b->path, true);
		if (!h)
			continue;
		/* (the pair in one piece: common/tail_claim.h) */
		tail = ut_tail_load(h);
		while (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == UT_BUF_MAGIC &&
		       tail.pos < b->head && b->head <= __atomic_load_n(&h->head, __ATOMIC_ACQUIRE)) {
			struct ut_tail seen =
				ut_tail_cas(h, tail, (struct ut_tail){b->head, b->written});

			if (ut_tail_eq(seen, tail))
				break;
			tail = seen;
		}
		munmap(h, UT_BUF_HDR_SIZE);
	}
}

int tfs_trunc_trace(struct tfs_req *r)
{
	struct ut_live_sess *v;
	long n;

	if (r->tid) {
		struct positions p;

		collect(r->sc, r->tid, &p);
		advance(&p);
		free(p.v);
		return 0;
	}
	tfs_snapshot_trunc_trace(r->sc);
	n = ut_live_list(tfs_rundir, &v);
	for (long i = 0; i < n; i++)
		if (!r->sc->pid || v[i].pid == r->sc->pid)
			ut_live_clear(v[i].dir, r->sc->inst);
	if (n > 0)
		free(v);
	return 0;
}

/*
 * per_thread/TID/trace_pipe: what the thread's buffers hold now, from the
 * process's snapshot, then marked consumed.
 */
static int pipe_take_thread(struct tfs_req *r, char **text, size_t *len)
{
	const struct tfs_scope *sc = r->sc;
	struct positions p;
	struct words w;
	FILE *f;
	int ret;

	collect(sc, r->tid, &p);
	if (!p.pending) {
		free(p.v);
		/* A process that is gone writes nothing more: end of file. */
		return sc->pid && !p.alive ? -ENODEV : 0;
	}
	get_words(sc, &w);
	f = open_memstream(text, len);
	if (!f) {
		free(p.v);
		return -ENOMEM;
	}
	ret = print_thread(sc, r->tid, f, &w, false);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (!ret)
		advance(&p);
	free(p.v);
	return ret == -ESRCH ? -ENODEV : ret;
}

/*
 * A scope's trace_pipe: the open file's streaming reader (include/utrace/read.h), made
 * at the first read, drains the buffers in the background while the file
 * is being read (tracefs/fs.c attends it), and consumes them; here its
 * queue is printed.
 */
static int pipe_take_stream(struct tfs_req *r, struct ut_live_stream **stream, char **text,
			    size_t *len)
{
	const struct tfs_scope *sc = r->sc;
	bool alive = true;
	struct words w;
	long n = 0;
	FILE *f;

	if (!*stream) {
		get_words(sc, &w);
		*stream = ut_live_stream_new(tfs_rundir, sc->inst, sc->pid ? &sc->pid : NULL,
					     sc->pid ? 1 : 0, w.p, w.n);
		if (!*stream)
			return -ENOMEM;
		ut_live_stream_on_demand(*stream);
		ut_live_stream_start(*stream);
	}
	f = open_memstream(text, len);
	if (!f)
		return -ENOMEM;
	n = ut_live_stream_read(*stream, f, false, &alive);
	/* the process is gone: what waited for a successor goes out too */
	if (n >= 0 && !alive)
		n = ut_live_stream_read(*stream, f, true, &alive);
	if (fclose(f) && n >= 0)
		n = -ENOMEM;
	if (n < 0)
		return (int)n;
	/* a process scope whose process is gone and read to the end: EOF */
	return !*len && sc->pid && !alive ? -ENODEV : 0;
}

int tfs_pipe_take(struct tfs_req *r, struct ut_live_stream **stream, char **text, size_t *len)
{
	int ret;

	*text = NULL;
	*len = 0;
	ret = r->tid ? pipe_take_thread(r, text, len) : pipe_take_stream(r, stream, text, len);
	if (ret) {
		free(*text);
		*text = NULL;
		*len = 0;
	}
	return ret;
}

static int cmp_tid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

long tfs_threads(const struct tfs_scope *sc, int32_t **tids)
{
	struct ut_live_sess s;
	struct ut_ctl *ctl;
	int32_t *v;
	uint32_t nr;
	long n = 0;

	*tids = NULL;
	if (tfs_scope_session(sc, &s))
		return -ENOENT;
	ctl = ut_live_map_ctl(s.dir);
	if (!ctl)
		return -ENOENT;
	nr = __atomic_load_n(&ctl->nr_slots, __ATOMIC_ACQUIRE);
	if (nr > UT_MAX_THREADS)
		nr = UT_MAX_THREADS;
	v = calloc(nr + 1, sizeof(*v));
	for (uint32_t k = 0; v && k < nr; k++) {
		int32_t tid = ctl->threads[k].tid;

		/* the process's own threads, not the writers of its trace_marker */
		if (tid > 0 && ctl->threads[k].reserved[0] != UT_SLOT_MARKER)
			v[n++] = tid;
	}
	ut_live_unmap_ctl(ctl);
	if (!v)
		return -ENOMEM;
	qsort(v, (size_t)n, sizeof(*v), cmp_tid);
	long k = 0;

	for (long i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*tids = v;
	return k;
}

/* ------------------------------------------------------------------ */
/* per_thread/TID/stats and buffer_size_kb                             */
/* ------------------------------------------------------------------ */

struct tstats {
	uint64_t entries, first_ts;
	bool have_first;
};

static int count_event(void *ctx, const struct ut_event *ev)
{
	struct tstats *st = ctx;

	if (!ev->type)
		return 0; /* a LOST record */
	if (!st->have_first) {
		st->first_ts = ev->ts;
		st->have_first = true;
	}
	st->entries++;
	return 0;
}

static void print_ts(FILE *f, const char *what, uint64_t ts, bool counter)
{
	if (counter)
		fprintf(f, "%s: %llu\n", what, (unsigned long long)ts);
	else
		fprintf(f, "%s: %5llu.%06llu\n", what, (unsigned long long)(ts / 1000000000),
			(unsigned long long)(ts % 1000000000 / 1000));
}

/*
 * The thread's newest buffer (a resize moves a thread to a new slot), mapped
 * read-only, with its session's clock.  0 or -errno.
 */
static int thread_buffer(const struct tfs_scope *sc, int32_t tid, void **map, size_t *maplen,
			 struct ut_clockconv *clk)
{
	struct ut_live_sess s;
	struct ut_ctl *ctl;
	char err[256];
	int slot = -1;
	uint32_t nr;

	if (tfs_scope_session(sc, &s))
		return -ENOENT;
	ctl = ut_live_map_ctl(s.dir);
	if (!ctl)
		return -ENOENT;
	nr = __atomic_load_n(&ctl->nr_slots, __ATOMIC_ACQUIRE);
	for (uint32_t k = 0; k < nr && k < UT_MAX_THREADS; k++)
		if (ctl->threads[k].tid == tid && ctl->threads[k].reserved[0] != UT_SLOT_MARKER &&
		    __atomic_load_n(&ctl->threads[k].state, __ATOMIC_ACQUIRE) == UT_SLOT_ACTIVE)
			slot = (int)k;
	*clk = (struct ut_clockconv){.clock = ctl->clock, .tsc0 = ctl->tsc0, .mono0 = ctl->mono0,
				     .mult = ctl->tsc_mult, .shift = ctl->tsc_shift};
	ut_live_unmap_ctl(ctl);
	if (slot < 0)
		return -ENODATA;
	return ut_sess_map_thread(s.dir, 0, (uint32_t)slot, false, map, maplen, err, sizeof(err));
}

int tfs_show_thread_stats(struct tfs_req *r, FILE *f)
{
	static uint8_t copy[1u << 20];
	struct ut_rb_reader rb;
	struct ut_rb_decoder dec = {0};
	struct ut_clockconv clk = {0};
	struct ut_rb_chunk c;
	struct tstats st = {0};
	size_t maplen = 0;
	void *map = NULL;
	uint64_t bytes = 0, dropped = 0, read = 0, overrun = 0, now;
	bool counter;
	int ret = thread_buffer(r->sc, r->tid, &map, &maplen, &clk);

	counter = clk.clock == UT_CLOCK_COUNTER || clk.clock == UT_CLOCK_UPTIME ||
		  clk.clock == UT_CLOCK_X86_TSC;
	if (!ret && map && map != MAP_FAILED && !ut_rb_open(&rb, map, maplen, false)) {
		dec.from = rb.from;
		/* every readable record, without consuming anything */
		while (!ut_rb_drain(&rb, &c, true, copy, sizeof(copy)) && (c.len || c.lost)) {
			ut_rb_decode(&dec, c.bytes, c.len, c.start, 0, 0, &clk, count_event, &st);
			if (c.len < sizeof(copy))
				break;
		}
		bytes = rb.hdr->head - rb.from;
		dropped = rb.hdr->dropped + rb.hdr->nested;
		read = rb.base;
		overrun = rb.lost;
	}
	fprintf(f, "entries: %llu\n", (unsigned long long)st.entries);
	fprintf(f, "overrun: %llu\n", (unsigned long long)overrun);
	fprintf(f, "commit overrun: 0\n");
	fprintf(f, "bytes: %llu\n", (unsigned long long)bytes);
	print_ts(f, "oldest event ts", st.have_first ? st.first_ts : 0, counter);
	if (clk.clock == UT_CLOCK_LOCAL || clk.clock == UT_CLOCK_X86_TSC) {
		now = ut_clock_to_trace(&clk, ut_tsc_now());
	} else {
		struct timespec ts;

		clock_gettime(clk.clock == UT_CLOCK_MONO_RAW ? CLOCK_MONOTONIC_RAW
			      : clk.clock == UT_CLOCK_BOOT   ? CLOCK_BOOTTIME
							     : CLOCK_MONOTONIC,
			      &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	print_ts(f, "now ts", now, counter);
	fprintf(f, "dropped events: %llu\n", (unsigned long long)dropped);
	fprintf(f, "read events: %llu\n", (unsigned long long)read);
	if (map && map != MAP_FAILED)
		munmap(map, maplen);
	return 0;
}

int tfs_show_thread_buffer_kb(struct tfs_req *r, FILE *f)
{
	struct ut_clockconv clk = {0};
	size_t maplen = 0;
	void *map = NULL;
	int ret = thread_buffer(r->sc, r->tid, &map, &maplen, &clk);

	if (ret == -ENODATA) { /* no buffer yet: the size it will get */
		struct ut_cfg c;

		if (tfs_scope_config(r->sc, &c))
			return -ENODEV;
		fprintf(f, "%u\n", c.buf_kb);
		ut_cfg_free(&c);
		return 0;
	}
	if (ret || !map || map == MAP_FAILED)
		return ret ? ret : -EIO;
	fprintf(f, "%u\n", ((const struct ut_buf_hdr *)map)->buf_size / 1024);
	munmap(map, maplen);
	return 0;
}
