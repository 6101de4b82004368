// SPDX-License-Identifier: MIT
/* The recorder's write-out while the program runs (reader/record_stream.h). */
#include "reader/record_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/chunkq.h"
#include "common/grow.h"
#include "common/pi_mutex.h"
#include "common/repeats.h"
#include "reader/yield.h"
#include "utrace/abi.h"

/*
 * The queue between the drainer and the writer: 16 blocks of 2 MiB, mapped
 * ahead (two before the program starts, the rest by the queue's grower as
 * it starts: a block mapped mid-run by the drainer took milliseconds here,
 * and the rings overflowed meanwhile) and reused.
 * What is queued when the program ends is what is left to write then.  When
 * the full queue refuses a thread's data, a lossless record leaves it in the
 * ring (the program waits); otherwise the thread spills to its spool
 * (reader/recorder.c), written at the end.
 */
#define RS_BLOCK (2u << 20)
#define RS_PREFILL 16
#define RS_PREFILL_NOW 2 /* of them mapped before the program starts */
#define RS_MARK 1u /* ut_drain_chunk.flags: a mark, not ring data */
#define RS_SPOOL_AHEAD ((size_t)32768) /* events decoded ahead per spilled thread */
#define RS_SPARE_PIECES 32 /* spool piece buffers kept for reuse */
#define RS_PUNCH ((uint64_t)8 << 20) /* spool read back, given back at most this at a time */

/*
 * A mark's entries: a thread, whether its ring was left empty, and the size
 * of its spool then (what the pass put there, if it spilled).
 */
struct rs_mark_ent {
	struct ut_rs_thread *t;
	uint64_t empty;
	uint64_t spooled;
};

/* A mark kept beside the queue (see ut_rstream.side). */
struct rs_side {
	struct rs_mark_ent *e;
	size_t n, cap;
	uint64_t now;
	bool whole;
};

/* A chunk kept until its events (whose strings point into it) are written. */
struct rs_held {
	struct ut_drain_chunk *c;   /* from the queue, or */
	void *mem;                  /* read from a spool (a piece: @piece), or copied (unhold()) */
	bool piece;
	struct ut_rs_thread *t;
	size_t end; /* the thread's event index just past the chunk's last */
	bool deferred; /* not read yet: no events indexed (solo()) */
};

struct ut_rstream {
	struct ut_tracedat_writer *w;
	int nr_cpus;
	bool folding;
	struct ut_repeats fold;
	struct ut_chunkq *q;
	pthread_t th;
	bool started;
	int stop;                   /* atomic: the drainer is done */
	int err;                    /* the first write error */
	struct ut_rs_thread **thr;  /* every thread seen, in order of appearance */
	size_t nthr, cap;
	struct ut_rs_thread **heap; /* the merge's (merge_upto) */
	size_t heapcap;
	struct rs_held *held;       /* FIFO of held chunks */
	size_t nheld, heldcap;
	uint64_t wm;                /* written up to this time */
	uint64_t lost, late;
	uint64_t unwritten;         /* events dropped after a write error */
	uint64_t spool_read;        /* atomic: spool bytes read back (ut_rstream_spool_read) */
	uint64_t spool_freed;       /* atomic: of them, given back (punch()) */
	uint64_t punch_step;        /* atomic: given back this much at a time (RS_PUNCH at most) */
	uint64_t marks;             /* marks applied (ut_rs_thread.mark: the last that saw it) */
	/*
	 * A mark the full queue refused: the newest only (a later one tells as
	 * much).  The queue can be full of chunks held for want of a mark; this
	 * one reaches the writer when it finds nothing more to pop.
	 */
	pthread_mutex_t side_mu;
	struct rs_side side;        /* the drainer's, under side_mu */
	struct rs_side taken;       /* the writer's: swapped with side, applied unlocked */
	bool side_set;
	/*
	 * Threads that spilled, the drainer's news for the writer (under
	 * side_mu): one whose data never came through the queue may be in no
	 * mark the writer applies before the end (marks the full queue refused
	 * replace each other), and its spool must be read all the same.
	 */
	struct ut_rs_thread **news;
	size_t nnews, capnews;
	int has_news;               /* atomic: nnews != 0 */
	long blocks;                /* the queue's size, RS_BLOCKs (a test makes it small) */
	long delay_us;              /* test hook: a slow writer */
	bool pace, storing;         /* chunks stored raw while behind (pace()) */
	bool detached;              /* the file's compressors no longer see @yield (detach()) */
	struct ut_drain_chunk *spare[RS_SPARE_PIECES]; /* spool piece buffers (piece_buf()) */
	size_t nspare;
	struct ut_yield yield;      /* the writer's and its compressors' CPU (reader/yield.h) */
	struct ut_yield_seen writer_seen, drainer_seen;
};

/*
 * Test hooks: a smaller queue (UTRACE_TEST_QUEUE_BLOCKS) and a slower writer
 * (UTRACE_TEST_WRITE_DELAY_US per chunk of ring data) make the queue fill.
 */
static long test_knob(const char *name, long dflt, long lo, long hi)
{
	const char *v = getenv(name);
	long n = v && *v ? strtol(v, NULL, 10) : dflt;

	return n < lo || n > hi ? dflt : n;
}

struct ut_rstream *ut_rstream_new(struct ut_tracedat_writer *w, int nr_cpus, bool folding,
				  bool pace)
{
	struct ut_rstream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->w = w;
	ut_tracedat_yield(w, &s->yield);
	/* the writer, niced and kept to one CPU while behind, takes it too */
	ut_mutex_init_pi(&s->side_mu);
	s->nr_cpus = nr_cpus;
	s->folding = folding;
	s->storing = pace && test_knob("UTRACE_TEST_ZSTORE", 0, 0, 1);
	s->pace = pace && !s->storing; /* the hook: stored raw throughout */
	ut_tracedat_store(w, s->storing);
	s->blocks = test_knob("UTRACE_TEST_QUEUE_BLOCKS", RS_PREFILL, 1, RS_PREFILL);
	s->delay_us = test_knob("UTRACE_TEST_WRITE_DELAY_US", 0, 0, 1000000);
	s->q = ut_chunkq_new(RS_BLOCK, (size_t)s->blocks * RS_BLOCK, (unsigned)s->blocks);
	/*
	 * A few blocks now, before the program runs (a block mapped mid-run
	 * by the drainer took ms here); the queue's grower maps the rest
	 * while the program starts.  Mapping all 16 here cost the command up
	 * to 30 ms before exec: a huge page the machine never used is slow
	 * to populate (4.6 ms each here, in a VM), a recycled one 0.15 ms.
	 */
	if (s->q)
		ut_chunkq_prefill(s->q, (unsigned)(s->blocks < RS_PREFILL_NOW ? s->blocks
									: RS_PREFILL_NOW));
	if (!s->q) {
		free(s);
		return NULL;
	}
	return s;
}

void ut_rstream_sink(struct ut_rstream *s, struct ut_rs_thread *t, struct ut_drain_qsink *k)
{
	ut_drain_qsink_init(k, s->q, t);
}

/* The full queue refused a mark: it waits beside the queue, replacing an older one. */
static int mark_aside(struct ut_rstream *s, uint64_t now, struct ut_rs_thread *const *thr,
		      const bool *empty, size_t n, bool whole)
{
	int ret = 0;

	pthread_mutex_lock(&s->side_mu);
	if (n > s->side.cap) {
		struct rs_mark_ent *v = realloc(s->side.e, n * sizeof(*v));

		if (v) {
			s->side.e = v;
			s->side.cap = n;
		}
	}
	if (n <= s->side.cap) {
		for (size_t i = 0; i < n; i++)
			s->side.e[i] = (struct rs_mark_ent){
				.t = thr[i], .empty = empty[i],
				.spooled = __atomic_load_n(&thr[i]->spool_end, __ATOMIC_RELAXED)};
		s->side.n = n;
		s->side.now = now;
		s->side.whole = whole;
		s->side_set = true;
	} else {
		ret = -ENOMEM;
	}
	pthread_mutex_unlock(&s->side_mu);
	return ret;
}

int ut_rstream_mark(struct ut_rstream *s, uint64_t now, struct ut_rs_thread *const *thr,
		    const bool *empty, size_t n, bool whole)
{
	size_t need = sizeof(struct ut_drain_chunk) + n * sizeof(struct rs_mark_ent), got;
	struct ut_drain_chunk *c = ut_chunkq_reserve(s->q, need, need, &got);
	struct rs_mark_ent *e;

	if (!c)
		return mark_aside(s, now, thr, empty, n, whole);
	*c = (struct ut_drain_chunk){.start = now, .lost = whole, .len = n * sizeof(*e),
				     .flags = RS_MARK};
	e = (struct rs_mark_ent *)(void *)c->bytes;
	for (size_t i = 0; i < n; i++)
		e[i] = (struct rs_mark_ent){.t = thr[i], .empty = empty[i],
					    .spooled = __atomic_load_n(&thr[i]->spool_end,
								       __ATOMIC_RELAXED)};
	ut_chunkq_push(s->q, c, need);
	return 0;
}

int ut_rstream_spilled(struct ut_rstream *s, struct ut_rs_thread *t)
{
	int ret = 0;

	pthread_mutex_lock(&s->side_mu);
	if (s->nnews == s->capnews &&
	    ut_grow(&s->news, &s->capnews, sizeof(struct ut_rs_thread *), 16))
		ret = -ENOMEM;
	else
		s->news[s->nnews++] = t;
	__atomic_store_n(&s->has_news, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->side_mu);
	return ret;
}

/* --- the writer thread ---------------------------------------------------- */

static int remember(struct ut_rstream *s, struct ut_rs_thread *t)
{
	if (t->known)
		return 0;
	if (s->nthr == s->cap && ut_grow(&s->thr, &s->cap, sizeof(struct ut_rs_thread *), 16))
		return -ENOMEM;
	s->thr[s->nthr++] = t;
	t->known = true;
	return 0;
}

/* The time of @t's newest event taken (0: none waiting). */
static uint64_t newest(const struct ut_rs_thread *t)
{
	return t->nr ? t->ev[t->nr - 1].ts : 0;
}

/* Room on @t's queue for the records of @len more ring bytes.  False: no memory. */
static bool index_room(struct ut_rs_thread *t, size_t len)
{
	while (t->cap - t->nr < UT_RB_INDEX_MAX(len))
		if (ut_grow(&t->ev, &t->cap, sizeof(*t->ev), 4096))
			return false;
	return true;
}

/*
 * Index the records of @len ring bytes at stream position @start onto @t's
 * queue (room made for the most a chunk can hold).  False: no memory.
 */

static bool collect(struct ut_rstream *s, struct ut_rs_thread *t, const uint8_t *bytes,
		    size_t len, uint64_t start)
{
	size_t first = t->nr;

	if (!index_room(t, len))
		return false;
	t->nr += ut_rb_index(&t->dec, bytes, len, start, t->clk, t->ev + t->nr);
	/* behind what was written: each lands clamped on its CPU */
	for (size_t i = first; i < t->nr && t->ev[i].ts < s->wm; i++)
		s->late++;
	return true;
}

/*
 * Buffers for spool pieces, kept for the next: a fresh one is a fresh mapping
 * (malloc maps blocks this large), faulted and zeroed page by page, which
 * cost more than reading the spool into it.
 */
#define RS_PIECE_BYTES (sizeof(struct ut_drain_chunk) + UT_SPOOL_BIG)

static struct ut_drain_chunk *piece_buf(struct ut_rstream *s)
{
	if (s->nspare)
		return s->spare[--s->nspare];
	return aligned_alloc(16, RS_PIECE_BYTES);
}

/* Memory a held chunk had of its own: a piece's buffer back to the spares. */
static void drop_mem(struct ut_rstream *s, void *mem, bool piece)
{
	if (piece && s->nspare < RS_SPARE_PIECES)
		s->spare[s->nspare++] = mem;
	else
		free(mem);
}

/* Keep @h until its thread's events up to h.end are written. */
static void hold(struct ut_rstream *s, struct rs_held h)
{
	if (s->nheld == s->heldcap && ut_grow(&s->held, &s->heldcap, sizeof(*s->held), 64)) {
		/* strings of its events would dangle: give them up */
		s->err = s->err ? s->err : -ENOMEM;
		h.t->nr = h.t->pos;
		if (h.mem)
			drop_mem(s, h.mem, h.piece);
		else
			ut_chunkq_release(s->q, h.c);
		return;
	}
	s->held[s->nheld++] = h;
}

/*
 * Compressing costs the writer more than the traced calls cost the program
 * (function_graph: zstd alone ~100 ns a call here, the hook ~20): with no
 * core to spare it falls behind, and a lossless program waits for it.  With
 * @pace (record --compress-adaptive), while more than RS_BEHIND bytes wait
 * in the queue, chunks are stored raw, and compressed again once the queue
 * is down to RS_CAUGHT_UP: less wall time, a larger file.  (Test hook
 * UTRACE_TEST_ZSTORE=1 with pace: always raw.)
 */
#define RS_BEHIND ((size_t)4 << 20)
#define RS_CAUGHT_UP ((size_t)512 << 10)

static void pace(struct ut_rstream *s)
{
	size_t queued = ut_chunkq_queued(s->q);
	bool store = s->storing ? queued > RS_CAUGHT_UP : queued > RS_BEHIND;

	if (!s->pace || store == s->storing)
		return;
	s->storing = store;
	ut_tracedat_store(s->w, store);
}

/*
 * Deferred chunks.  A chunk is not indexed when it comes if its thread has
 * nothing else waiting: when the next mark finds that thread alone with
 * data (solo()), its chunks go from the ring's layout to the file in one
 * pass (write_deferred()); otherwise they are indexed then, oldest first,
 * and merged as any (index_deferred()).  The thread's decoder stays where
 * its first deferred chunk starts until then.
 */
static void index_deferred(struct ut_rstream *s, struct ut_rs_thread *t)
{
	for (size_t i = 0; i < s->nheld && t->deferred; i++) {
		struct rs_held *h = &s->held[i];

		if (h->t != t || !h->deferred)
			continue;
		if (!collect(s, t, h->c->bytes, h->c->len, h->c->start))
			s->err = s->err ? s->err : -ENOMEM;
		h->end = t->nr;
		h->deferred = false;
		t->deferred--;
	}
}

static void index_all_deferred(struct ut_rstream *s)
{
	for (size_t i = 0; i < s->nthr; i++)
		index_deferred(s, s->thr[i]);
}

static void write_rec(struct ut_rstream *s, struct ut_rs_thread *t, const struct ut_rb_ref *r);

struct rs_other {
	struct ut_rstream *s;
	struct ut_rs_thread *t;
};

/* A record of a deferred chunk that is not a call: write_rec() of it. */
static int write_other(void *ctx, const uint8_t *rec, uint64_t raw, uint64_t ts, int err)
{
	struct rs_other *k = ctx;

	if (err && !k->s->err)
		k->s->err = err;
	write_rec(k->s, k->t, &(struct ut_rb_ref){ts, raw, rec});
	return 0;
}

/* A record of a deferred chunk past the watermark: indexed, for the merge. */
static int index_later(void *ctx, const uint8_t *rec, uint64_t raw, uint64_t ts)
{
	struct rs_other *k = ctx;

	k->t->ev[k->t->nr++] = (struct ut_rb_ref){ts, raw, rec};
	return 0;
}

/*
 * @t's deferred chunks into the file, each in one pass, up to @wm; from
 * the first record after it on, they are indexed (merged later as any).
 */
static void write_deferred(struct ut_rstream *s, struct ut_rs_thread *t, uint64_t wm)
{
	struct rs_other k = {s, t};
	bool held = false;

	for (size_t i = 0; i < s->nheld && t->deferred; i++) {
		struct rs_held *h = &s->held[i];
		struct ut_tracedat_ring_run run = {.pid = t->tid, .clk = t->clk,
						   .late_before = s->wm, .limit = wm,
						   .other = write_other, .later = index_later,
						   .ctx = &k, .held = held};

		if (h->t != t || !h->deferred)
			continue;
		if (!index_room(t, h->c->len)) { /* for index_later() */
			s->err = s->err ? s->err : -ENOMEM;
			index_deferred(s, t); /* as the grow fails: no event is indexed */
			return;
		}
		ut_tracedat_write_ring(s->w, &run, &t->dec, h->c->bytes, h->c->len, h->c->start);
		t->read += run.calls + run.unwritten;
		s->unwritten += run.unwritten;
		s->late += run.late;
		if (run.err && !s->err)
			s->err = run.err;
		if (run.last_ts > s->wm)
			s->wm = run.last_ts;
		held = run.held;
		h->end = t->nr; /* released once what index_later() took is written */
		h->deferred = false;
		t->deferred--;
	}
}

/*
 * @t alone has data to write: nothing else is waiting, indexed or not, in
 * any thread, nor in another's spool; no loss to tell before its records, no repeats
 * to fold.  A mark of a whole pass that saw no thread but @t then gives
 * the watermark at once: if @t's ring was left with data, its newest taken
 * (as on_mark() finds it), so all of it; if left empty, the pass's start.
 * (on_mark() would hold back the last UT_RSTREAM_SLACK before it, for a
 * stamp not yet committed in another thread's ring: there was none; a
 * thread that came after the pass started stamps later, and @t's own next
 * records are no older than those taken: a ring commits in order.)
 */
static bool solo(const struct ut_rstream *s, const struct ut_rs_thread *t)
{
	if (s->folding || s->err || t->lost || t->pos != t->nr || !t->deferred)
		return false;
	for (size_t i = 0; i < s->nthr; i++) {
		const struct ut_rs_thread *o = s->thr[i];

		if (o != t && (o->pos != o->nr || o->deferred ||
			       o->spool_off < __atomic_load_n(&o->spool_end, __ATOMIC_ACQUIRE)))
			return false;
	}
	return true;
}

/*
 * @t's ring data @c (from the queue, or read from its spool into @mem): held
 * until written.  Deferred (@may_defer) if @t has nothing else waiting: read
 * when written (solo()), or indexed then (index_deferred()); else its
 * events go onto its queue now.
 */
static void take(struct ut_rstream *s, struct ut_rs_thread *t, struct ut_drain_chunk *c,
		 void *mem, bool may_defer)
{
	if (may_defer && !s->folding && !s->err && !t->lost && t->pos == t->nr) {
		hold(s, (struct rs_held){.c = c, .mem = mem, .piece = mem != NULL, .t = t,
					 .deferred = true});
		t->deferred++;
		return;
	}
	index_deferred(s, t); /* the thread's earlier chunks first */
	if (!collect(s, t, c->bytes, c->len, c->start))
		s->err = s->err ? s->err : -ENOMEM;
	hold(s, (struct rs_held){.c = c, .mem = mem, .piece = mem != NULL, .t = t, .end = t->nr});
}

/* Ring data: its events onto its thread's queue; the chunk is held until they are written. */
static void on_data(struct ut_rstream *s, struct ut_drain_chunk *c)
{
	struct ut_rs_thread *t = c->owner;

	if (remember(s, t))
		s->err = s->err ? s->err : -ENOMEM;
	t->lost += c->lost;
	t->got_to = c->start + c->len;
	if (s->delay_us) {
		struct timespec ts = {s->delay_us / 1000000, s->delay_us % 1000000 * 1000};

		nanosleep(&ts, NULL);
	}
	take(s, t, c, NULL, true);
}

/*
 * What a thread's spool held before the writer's read position gives its
 * disk (and page cache) back, a step at a time (@all: all of it, at the
 * end): a spool holds what the writer has yet to read, not all the thread
 * wrote since it spilled.
 */
static void punch(struct ut_rstream *s, struct ut_rs_thread *t, uint64_t off, bool all)
{
	uint64_t to = off / UT_SPOOL_ALIGN * UT_SPOOL_ALIGN;
	uint64_t step = __atomic_load_n(&s->punch_step, __ATOMIC_RELAXED);

	if (!t->aligned || t->nopunch || to <= t->punched ||
	    (!all && to - t->punched < (step ? step : RS_PUNCH)))
		return;
	if (!fallocate(t->spool, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)t->punched,
		       (off_t)(to - t->punched))) {
		__atomic_add_fetch(&s->spool_freed, to - t->punched, __ATOMIC_RELEASE);
		t->punched = to;
	} else {
		t->nopunch = true; /* a file system without holes: the spool keeps it all */
	}
}

/*
 * The next piece of a spilled thread's spool, taken as a chunk from the
 * queue would be (@may_defer: see take()).  False at its end.
 */
static bool spool_piece(struct ut_rstream *s, struct ut_rs_thread *t, bool may_defer)
{
	struct ut_spool_hdr h;
	struct ut_drain_chunk *c;
	size_t hlen, dlen;

	if (pread(t->spool, &h, sizeof(h), (off_t)t->spool_off) != (ssize_t)sizeof(h) ||
	    h.len > (t->aligned ? UT_SPOOL_BIG : UT_SPOOL_CHUNK))
		return false;
	hlen = ut_spool_hdr_bytes(t->aligned);
	dlen = ut_spool_data_bytes(t->aligned, h.len);
	c = piece_buf(s);
	if (!c || pread(t->spool, c->bytes, h.len, (off_t)(t->spool_off + hlen)) != (ssize_t)h.len) {
		free(c);
		s->err = s->err ? s->err : -EIO;
		return false;
	}
	*c = (struct ut_drain_chunk){.owner = t, .start = h.start, .lost = h.lost, .len = h.len};
	t->lost += h.lost;
	take(s, t, c, c, may_defer);
	punch(s, t, t->spool_off + hlen + dlen, false);
	/*
	 * Read and taken: from now on the drainer may close the spool (a
	 * retired thread's, read to its end: the writer touches it no more)
	 * or send the thread's data to the queue again.
	 */
	__atomic_add_fetch(&s->spool_read, hlen + dlen, __ATOMIC_RELEASE);
	__atomic_store_n(&t->spool_off, t->spool_off + hlen + dlen, __ATOMIC_RELEASE);
	return true;
}

/* Spool pieces a thread may hold deferred (unread) at a time: 1 MiB. */
#define RS_SPOOL_DEFERRED 16

/*
 * A spilled thread's spool, read back up to @limit (what a mark covers) --
 * once the thread's chunks from the queue, which are older, are all in --
 * at most RS_SPOOL_AHEAD events or RS_SPOOL_DEFERRED pieces ahead of what
 * is written.  True if it read any.
 */
static bool spool_catchup(struct ut_rstream *s, struct ut_rs_thread *t, uint64_t limit)
{
	uint64_t end = __atomic_load_n(&t->spool_end, __ATOMIC_ACQUIRE), off = t->spool_off;

	if (limit < end)
		end = limit;
	if (off >= end || t->spool_done || t->got_to < t->spill_from)
		return false;
	while (t->spool_off < end && t->nr - t->pos < RS_SPOOL_AHEAD &&
	       t->deferred < RS_SPOOL_DEFERRED)
		if (!spool_piece(s, t, true)) { /* the drainer wrote it whole: the file failed */
			t->spool_done = true;
			s->err = s->err ? s->err : -EIO;
			break;
		}
	return t->spool_off != off;
}

/* The spools of a mark's threads, up to where the mark saw them: true if any was read. */
static bool spools_catchup(struct ut_rstream *s, const struct rs_mark_ent *e, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= spool_catchup(s, e[i].t, e[i].spooled);
	return any;
}

/* The first of @t's queued events later than @wm (each thread's are in time order). */
static size_t upto(const struct ut_rs_thread *t, uint64_t wm)
{
	size_t lo = t->pos, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ev[mid].ts <= wm)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One event (or a fold of repeats) into the file, as the spooled write-out does. */
static void put(struct ut_rstream *s, const struct ut_event *ev)
{
	struct ut_event rep;
	int ret = 0;

	if (s->err) { /* the file stopped taking events: the program runs on untraced */
		s->unwritten++;
		return;
	}
	switch (s->folding ? ut_repeats_fold(&s->fold, ev, &rep) : UT_REPEATS_PASS) {
	case UT_REPEATS_DROP:
		return;
	case UT_REPEATS_FLUSH:
		ret = ut_tracedat_write(s->w, &rep);
		break;
	default:
		break;
	}
	if (!ret)
		ret = ut_tracedat_write(s->w, ev);
	if (ret && !s->err)
		s->err = ret;
}

/*
 * The merge's order: time, then the lower CPU, then the lower thread (the
 * order reader/stream.c gives, so a trace reads the same either way).
 */
static bool ref_before(const struct ut_rb_ref *x, const struct ut_rs_thread *a,
		       const struct ut_rs_thread *b)
{
	const struct ut_rb_ref *y = &b->ev[b->pos];
	uint64_t cx, cy;

	if (x->ts != y->ts)
		return x->ts < y->ts;
	memcpy(&cx, x->rec, sizeof(cx));
	memcpy(&cy, y->rec, sizeof(cy));
	cx = (cx >> UT_REC_CPU_SHIFT) & UT_REC_CPU_MASK;
	cy = (cy >> UT_REC_CPU_SHIFT) & UT_REC_CPU_MASK;
	if (cx != cy)
		return cx < cy;
	return a->tid < b->tid;
}

/* @a's next record before @b's next. */
static bool rec_before(const struct ut_rs_thread *a, const struct ut_rs_thread *b)
{
	return ref_before(&a->ev[a->pos], a, b);
}

/* The heap of threads with records left in the round, by their next record. */
static void sift_down(struct ut_rs_thread **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct ut_rs_thread *t;

		if (l < n && rec_before(h[l], h[m]))
			m = l;
		if (l + 1 < n && rec_before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* One record into the file: losses before it, then the event, decoded now. */
static void write_rec(struct ut_rstream *s, struct ut_rs_thread *t, const struct ut_rb_ref *r)
{
	struct ut_event ev;
	uint64_t lost = t->lost;

	ut_rb_decode_one(r->rec, r->raw, t->tid, t->tgid, t->clk, &ev);
	if (ev.cpu >= (uint32_t)s->nr_cpus)
		ev.cpu = 0; /* a CPU the file has no stream for (rseq unregistered) */
	if (!ev.type)
		lost += ev.ip; /* a LOST record */
	if (lost) {
		ut_tracedat_lost(s->w, ev.cpu, lost);
		s->lost += lost;
		t->lost_in_stream += lost;
		t->lost = 0;
	}
	if (!ev.type)
		return;
	t->read++;
	put(s, &ev);
}

/*
 * @t's records from its next up to @stop into the file: runs of calls in
 * one loop (ut_tracedat_write_refs()), while no loss is to be told before
 * them nor repeats folded; the rest one by one.
 */
static void write_run(struct ut_rstream *s, struct ut_rs_thread *t, size_t stop)
{
	while (t->pos < stop) {
		if (!s->folding && !t->lost && !s->err) {
			int err = 0;
			size_t k = ut_tracedat_write_refs(s->w, t->tid, t->clk, t->ev + t->pos,
							  stop - t->pos, &err);

			t->pos += k;
			t->read += k;
			if (err) {
				s->err = err;
				continue;
			}
			if (t->pos == stop)
				return;
		}
		write_rec(s, t, &t->ev[t->pos++]);
	}
}

/* Where @t's run ends: its first record (before t->end) that @next's first comes before. */
static size_t run_end(const struct ut_rs_thread *t, const struct ut_rs_thread *next)
{
	size_t k = t->pos;
	uint64_t until;

	if (!next)
		return t->end;
	until = next->ev[next->pos].ts;
	while (k < t->end && t->ev[k].ts < until) /* the common case: no tie */
		k++;
	while (k < t->end && t->ev[k].ts == until && ref_before(&t->ev[k], t, next))
		k++;
	return k;
}

/*
 * Merge every thread's records up to @wm into the file.  Threads take turns
 * at the scheduler's pace, so the next records come in runs from one
 * thread: the heap is consulted once a run, not once a record.
 */
static void merge_upto(struct ut_rstream *s, uint64_t wm)
{
	size_t n = 0;

	while (s->heapcap < s->nthr) /* doubles: as often as the threads outgrew it */
		if (ut_grow(&s->heap, &s->heapcap, sizeof(struct ut_rs_thread *), s->nthr)) {
			s->err = s->err ? s->err : -ENOMEM;
			return;
		}
	for (size_t i = 0; i < s->nthr; i++) {
		struct ut_rs_thread *t = s->thr[i];

		t->end = upto(t, wm);
		if (t->pos < t->end)
			s->heap[n++] = t;
	}
	for (size_t i = n / 2; i-- > 0;)
		sift_down(s->heap, n, i);
	while (n) {
		struct ut_rs_thread *t = s->heap[0], *next = NULL;
		size_t stop;

		if (n > 1) /* the run ends where the next thread's record comes first */
			next = n > 2 && rec_before(s->heap[2], s->heap[1]) ? s->heap[2] : s->heap[1];
		stop = run_end(t, next);
		/* a run has one record at least: @t's first comes first */
		write_run(s, t, stop > t->pos ? stop : t->pos + 1);
		if (t->pos == t->end)
			s->heap[0] = s->heap[--n];
		sift_down(s->heap, n, 0);
	}
}

/*
 * A retired thread's spool, read to its end (nothing more comes to it): its
 * disk back and its file closed, so a long run's open files and disk follow
 * the threads alive.  The writer closes it: the drainer writes no more to a
 * retired thread's spool, and closes only those the writer did not.
 */
static void close_spool(struct ut_rstream *s, struct ut_rs_thread *t)
{
	if (!__atomic_load_n(&t->spool_end, __ATOMIC_ACQUIRE) || t->closed || t->spool < 0)
		return;
	punch(s, t, t->spool_off, true);
	close(t->spool);
	t->closed = true;
	/* what holes did not give back, the file's end did */
	__atomic_add_fetch(&s->spool_freed, t->spool_end - t->punched, __ATOMIC_RELEASE);
}

/*
 * Retired threads with everything written leave the list: a program that
 * replaces its threads all day must not make every merge longer.
 */
static void forget_retired(struct ut_rstream *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nthr; i++) {
		struct ut_rs_thread *t = s->thr[i];

		if (__atomic_load_n(&t->retired, __ATOMIC_ACQUIRE) && t->pos == t->nr && !t->lost &&
		    !t->deferred &&
		    t->spool_off >= __atomic_load_n(&t->spool_end, __ATOMIC_ACQUIRE)) {
			close_spool(s, t);
			free(t->ev);
			t->ev = NULL;
			t->nr = t->pos = t->cap = 0;
			t->known = false;
			continue;
		}
		s->thr[k++] = t;
	}
	s->nthr = k;
}

/* Chunks whose events are all written go back to the queue; emptied threads restart at 0. */
static void release_written(struct ut_rstream *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nheld; i++) {
		if (s->held[i].deferred || s->held[i].end > s->held[i].t->pos)
			s->held[k++] = s->held[i];
		else if (s->held[i].mem)
			drop_mem(s, s->held[i].mem, s->held[i].piece);
		else
			ut_chunkq_release(s->q, s->held[i].c);
	}
	s->nheld = k;
	forget_retired(s);
	for (size_t i = 0; i < s->nthr; i++) {
		struct ut_rs_thread *t = s->thr[i];
		size_t left = t->nr - t->pos;

		if (left && t->pos < left + 4096)
			continue; /* moved only when more was written than is left: amortised */
		if (left)
			memmove(t->ev, t->ev + t->pos, left * sizeof(*t->ev));
		for (size_t j = 0; j < s->nheld; j++)
			if (s->held[j].t == t && !s->held[j].deferred)
				s->held[j].end -= t->pos;
		t->nr = left;
		t->pos = 0;
	}
}

/* Write everything up to @wm. */
static void emit(struct ut_rstream *s, uint64_t wm)
{
	merge_upto(s, wm);
	release_written(s);
	if (wm > s->wm)
		s->wm = wm;
}

/*
 * Threads a whole pass did not see have retired: nothing more comes from
 * them, but what they spilled may not all be read yet.  It is read now, and
 * until it all is, a thread's newest event read bounds the watermark.
 */
static uint64_t retired_bound(struct ut_rstream *s, uint64_t wm)
{
	for (size_t i = 0; i < s->nthr; i++) {
		struct ut_rs_thread *t = s->thr[i];

		if (t->mark == s->marks)
			continue;
		spool_catchup(s, t, UINT64_MAX);
		index_deferred(s, t);
		if (t->spool_off < __atomic_load_n(&t->spool_end, __ATOMIC_ACQUIRE) && newest(t) < wm)
			wm = newest(t);
	}
	return wm;
}

/*
 * A mark of a pass that started at @now: every event up to the watermark it
 * allows is known now; write them.  Applied late (after data of later
 * passes, a mark set aside), it is still true: what is left in a ring is no
 * older than the newest event taken from it.
 */
static void on_mark(struct ut_rstream *s, const struct rs_mark_ent *e, size_t n, uint64_t now,
		    bool whole)
{
	uint64_t wm = UINT64_MAX, idle = now > UT_RSTREAM_SLACK ? now - UT_RSTREAM_SLACK : 0;

	s->marks++;
	for (size_t i = 0; i < n; i++) { /* a thread with nothing queued yet may spill */
		if (remember(s, e[i].t))
			s->err = s->err ? s->err : -ENOMEM;
		e[i].t->mark = s->marks;
	}
	spools_catchup(s, e, n);
	if (whole && n == 1 && solo(s, e[0].t)) {
		struct ut_rs_thread *t = e[0].t;

		/*
		 * Left with data (in the ring, or in the spool up to where the
		 * pass left it): no watermark below what was taken; else the
		 * pass's start.  A spool is read and written up to there.
		 */
		do
			write_deferred(s, t, e[0].empty && t->spool_off >= e[0].spooled ? now
											 : UINT64_MAX);
		while (release_written(s), spool_catchup(s, t, e[0].spooled));
		return;
	}
	index_all_deferred(s);
	if (!whole || !n)
		return; /* the pass did not see every thread, or saw none */
	/*
	 * What spilled threads wrote to their spools up to the pass is read
	 * (while nothing newer waits in the queue): each read moves the
	 * watermark as far as the newest event read.
	 */
	do {
		index_all_deferred(s);
		wm = UINT64_MAX;
		for (size_t i = 0; i < n; i++) {
			const struct ut_rs_thread *t = e[i].t;
			/*
			 * Data left in the ring, or in the spool, is no older
			 * than what was taken from it.
			 */
			uint64_t bound = e[i].empty && t->spool_off >= e[i].spooled ? idle : newest(t);

			if (bound < wm)
				wm = bound;
		}
		wm = retired_bound(s, wm);
		if (wm <= s->wm)
			break;
		emit(s, wm);
	} while (!ut_chunkq_queued(s->q) && spools_catchup(s, e, n));
}

/*
 * The end, for threads that spilled: their spools are read a piece at a
 * time (what came through the queue is older), merged in rounds up to the
 * least of their newest events, so memory stays a few pieces per thread.
 */
static void spill_merge(struct ut_rstream *s)
{
	for (;;) {
		uint64_t wm = UINT64_MAX;
		bool more = false;

		for (size_t i = 0; i < s->nthr; i++) {
			struct ut_rs_thread *t = s->thr[i];
			uint64_t end = __atomic_load_n(&t->spool_end, __ATOMIC_ACQUIRE);

			while (t->nr - t->pos < RS_SPOOL_AHEAD && !t->spool_done && t->spool_off < end)
				if (!spool_piece(s, t, false)) { /* written whole: the file failed */
					t->spool_done = true;
					s->err = s->err ? s->err : -EIO;
				}
			if (!t->spool_done && t->spool_off < end) {
				more = true;
				if (newest(t) < wm)
					wm = newest(t);
			}
		}
		if (!more)
			return;
		emit(s, wm);
	}
}

/* Threads that spilled since last asked, into the writer's list. */
static void take_news(struct ut_rstream *s)
{
	if (!__atomic_load_n(&s->has_news, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&s->side_mu);
	for (size_t i = 0; i < s->nnews; i++)
		if (remember(s, s->news[i]))
			s->err = s->err ? s->err : -ENOMEM;
	s->nnews = 0;
	__atomic_store_n(&s->has_news, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&s->side_mu);
}

/* The mark set aside, if any, applied (the queue had nothing more). */
static bool mark_taken(struct ut_rstream *s)
{
	struct rs_side t;
	bool set;

	pthread_mutex_lock(&s->side_mu);
	set = s->side_set;
	if (set) { /* swapped, not applied here: writing must not hold up the drainer */
		t = s->taken;
		s->taken = s->side;
		s->side = t;
		s->side_set = false;
	}
	pthread_mutex_unlock(&s->side_mu);
	if (set)
		on_mark(s, s->taken.e, s->taken.n, s->taken.now, s->taken.whole);
	return set;
}

/*
 * The queue is full of chunks held for want of a watermark, and the data
 * that would move the watermark -- a thread whose ring the drainer could
 * not empty into the full queue -- waits in its ring, its writer waiting
 * for room: a deadlock.  (A wait's one-second cap used to break it by
 * dropping that thread's events.)  So the held chunks are copied out and
 * given back to the queue: the drainer takes the late thread's data next
 * pass, and the watermark moves.  Rare: only when the queue filled.
 */
static void unhold(struct ut_rstream *s)
{
	index_all_deferred(s); /* the copies are of indexed chunks */
	for (size_t i = 0; i < s->nheld; i++) /* each thread's records from its first unwritten */
		s->held[i].t->scan = s->held[i].t->pos;
	for (size_t i = 0; i < s->nheld; i++) {
		struct rs_held *h = &s->held[i];
		struct ut_drain_chunk *c = h->c;
		uint8_t *mem;

		if (h->mem || !c) {
			h->t->scan = h->end;
			continue;
		}
		mem = malloc(c->len ? c->len : 1);
		if (!mem)
			return; /* kept in the queue: tried again at the next full queue */
		memcpy(mem, c->bytes, c->len);
		for (size_t k = h->t->scan; k < h->end; k++)
			h->t->ev[k].rec = mem + (h->t->ev[k].rec - c->bytes);
		h->t->scan = h->end;
		h->mem = mem;
		h->c = NULL;
		ut_chunkq_release(s->q, c);
	}
}

static void *writer_main(void *arg)
{
	struct ut_rstream *s = arg;
	struct sched_param sp = {.sched_priority = 0};

	/* Started from the real-time drainer: a normal thread, which the drainer preempts. */
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);

	for (;;) {
		struct ut_drain_chunk *c;
		size_t len;

		ut_yield_apply(&s->yield, &s->writer_seen, true);
		take_news(s);
		c = ut_chunkq_pop(s->q, &len);
		if (!c && __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
			c = ut_chunkq_pop(s->q, &len); /* pushed before the stop */
		if (!c) {
			struct timespec ts = {0, 500000L};

			uint64_t wm = s->wm;

			if (__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
				break;
			if (!mark_taken(s))
				nanosleep(&ts, NULL);
			else if (s->wm == wm) /* the queue was full and nothing could be written */
				unhold(s);
			continue;
		}
		if (c->flags & RS_MARK) {
			on_mark(s, (const void *)c->bytes, c->len / sizeof(struct rs_mark_ent), c->start,
				c->lost);
			ut_chunkq_release(s->q, c);
		} else {
			pace(s);
			on_data(s, c);
		}
	}
	ut_yield_apply(&s->yield, &s->writer_seen, true);
	take_news(s);
	mark_taken(s); /* the newest mark, if the full queue refused it */
	index_all_deferred(s);
	spill_merge(s);
	/* the spools read: their disk back, for the file's end (a full disk) */
	for (size_t i = 0; i < s->nthr; i++)
		if (!s->thr[i]->closed)
			punch(s, s->thr[i], s->thr[i]->spool_off, true);
	emit(s, UINT64_MAX);
	return NULL;
}

int ut_rstream_start(struct ut_rstream *s)
{
	int ret = pthread_create(&s->th, NULL, writer_main, s);

	s->started = ret == 0;
	return -ret;
}

/*
 * The file's compressors no longer follow our CPU policy (they outlive the
 * stream: the file is closed after it).  Once, while the file is open: at
 * the finish, or when a stream that never finished is freed.
 */
static void detach(struct ut_rstream *s)
{
	if (s->detached)
		return;
	ut_tracedat_yield(s->w, NULL);
	s->detached = true;
}

int ut_rstream_finish(struct ut_rstream *s)
{
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	if (s->started)
		pthread_join(s->th, NULL);
	else
		writer_main(s);
	s->started = false;
	detach(s);
	return s->err; /* repeats pending at the end are not written, as in the kernel */
}

void ut_rstream_yield_cpu(struct ut_rstream *s, bool behind)
{
	ut_yield_set(&s->yield, behind);
	ut_yield_apply(&s->yield, &s->drainer_seen, false); /* the caller is the drainer */
}

uint64_t ut_rstream_spool_read(const struct ut_rstream *s)
{
	return __atomic_load_n(&s->spool_read, __ATOMIC_ACQUIRE);
}

uint64_t ut_rstream_spool_freed(const struct ut_rstream *s)
{
	return __atomic_load_n(&s->spool_freed, __ATOMIC_ACQUIRE);
}

void ut_rstream_spool_bound(struct ut_rstream *s, uint64_t bytes)
{
	uint64_t step = bytes / 8 / UT_SPOOL_ALIGN * UT_SPOOL_ALIGN;

	step = step < UT_SPOOL_ALIGN ? UT_SPOOL_ALIGN : step > RS_PUNCH ? RS_PUNCH : step;
	__atomic_store_n(&s->punch_step, step, __ATOMIC_RELAXED);
}

uint64_t ut_rstream_lost(const struct ut_rstream *s)
{
	return s->lost;
}

uint64_t ut_rstream_late(const struct ut_rstream *s)
{
	return s->late;
}

uint64_t ut_rstream_unwritten(const struct ut_rstream *s)
{
	return s->unwritten;
}

void ut_rstream_free(struct ut_rstream *s)
{
	if (!s)
		return;
	if (s->started)
		ut_rstream_finish(s);
	detach(s);
	for (size_t i = 0; i < s->nthr; i++) {
		free(s->thr[i]->ev);
		s->thr[i]->ev = NULL;
	}
	for (size_t i = 0; i < s->nheld; i++) {
		if (s->held[i].mem)
			drop_mem(s, s->held[i].mem, s->held[i].piece);
		else
			ut_chunkq_release(s->q, s->held[i].c);
	}
	while (s->nspare)
		free(s->spare[--s->nspare]);
	ut_repeats_free(&s->fold);
	ut_chunkq_free(s->q);
	pthread_mutex_destroy(&s->side_mu);
	free(s->side.e);
	free(s->taken.e);
	free(s->news);
	free(s->thr);
	free(s->heap);
	free(s->held);
	free(s);
}
