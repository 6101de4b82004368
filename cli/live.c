// SPDX-License-Identifier: MIT
/* Live traces as trace.dat and as text (cli/live.h). */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/live.h"
#include "cli/record.h"
#include "common/control.h"
#include "common/names.h"
#include "common/output/graph.h"
#include "common/output/output.h"
#include "common/ring_buffer.h"
#include "common/symbols.h"

/* The tracer the sessions run (the newest wanted one): names the file's format. */
static const char *live_tracer(const char *rundir, const int32_t *pids, size_t npids,
			       bool *found, int *clock)
{
	struct ut_live_sess *v;
	long n = ut_live_list(rundir, &v);
	const char *name = "nop";

	*found = false;
	for (long i = 0; v && i < n; i++) {
		size_t k = 0;

		while (pids && k < npids && pids[k] != v[i].pid)
			k++;
		if (pids && k == npids)
			continue;
		*found = true;
		*clock = (int)v[i].clock;
		if (v[i].tracer < (uint32_t)UT_NR_TRACERS && (v[i].tracer || !strcmp(name, "nop")))
			name = ut_tracer_names[v[i].tracer];
	}
	if (n > 0)
		free(v);
	return name;
}

int ut_live_snapshot(const char *rundir, const int32_t *pids, size_t npids, bool consume,
		     const char *output, uint64_t opts_bits)
{
	return ut_live_snapshot_inst(rundir, 0, pids, npids, consume, output, opts_bits);
}

int ut_live_snapshot_inst(const char *rundir, int inst, const int32_t *pids, size_t npids,
			  bool consume, const char *output, uint64_t opts_bits)
{
	struct ut_opts opts = {.bits = opts_bits};
	struct ut_recorder *r;
	bool found;
	int clock = UT_CLOCK_LOCAL;
	const char *tracer = live_tracer(rundir, pids, npids, &found, &clock);
	int ret;

	if (pids && !found)
		return -ESRCH;
	if (inst) /* instances run the function tracer only */
		tracer = "function";
	r = ut_recorder_new(rundir, output, tracer, clock, &opts);
	if (!r)
		return -errno ? -errno : -ENOMEM;
	ut_recorder_set_live(r, pids, npids, consume);
	ut_recorder_set_instance(r, inst);
	ret = ut_recorder_finish(r);
	ut_recorder_free(r);
	return ret;
}

int ut_live_stat(const char *rundir, const int32_t *pids, size_t npids, FILE *f, bool graph_time,
		 uint64_t thresh_ns, int32_t tid)
{
	char spool[PATH_MAX];
	struct ut_recorder *rec;
	int ret;

	if (snprintf(spool, sizeof(spool), "%s/.stat.%d", rundir, (int)getpid()) >=
	    (int)sizeof(spool))
		return -ENAMETOOLONG;
	rec = ut_recorder_new(rundir, spool, "nop", UT_CLOCK_LOCAL, NULL);
	if (!rec)
		return -errno ? -errno : -ENOMEM;
	ut_recorder_set_live(rec, pids, npids, false);
	ut_recorder_set_profile(rec, f, graph_time, thresh_ns);
	ut_recorder_profile_only(rec, tid);
	ret = ut_recorder_finish(rec);
	ut_recorder_free(rec);
	unlink(spool);
	return ret;
}

int ut_live_print(const char *rundir, const int32_t *pids, size_t npids, bool consume,
		  FILE *f, const char *const *words, int nwords, bool header)
{
	return ut_live_print_inst(rundir, 0, pids, npids, consume, f, words, nwords, header);
}

int ut_live_print_inst(const char *rundir, int inst, const int32_t *pids, size_t npids,
		       bool consume, FILE *f, const char *const *words, int nwords, bool header)
{
	char tmp[PATH_MAX];
	const char *tmpdir;
	struct ut_opts opts;
	int fd, ret;

	if (consume && !header) { /* trace_pipe: straight from the buffers */
		struct ut_live_stream *st =
			ut_live_stream_new_inst(rundir, inst, pids, npids, words, nwords);
		bool alive;
		long n;

		if (!st)
			return -ENOMEM;
		n = ut_live_stream_read(st, f, true, &alive);
		ut_live_stream_free(st);
		return n < 0 ? (int)n : 0;
	}
	tmpdir = getenv("TMPDIR");
	snprintf(tmp, sizeof(tmp), "%s/utrace-show.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	close(fd);
	ut_opts_init(&opts, 0);
	ret = ut_live_snapshot_inst(rundir, inst, pids, npids, consume, tmp, opts.bits);
	if (!ret)
		ret = ut_report(tmp, f, words, nwords, NULL, NULL, header) ? -EIO : 0;
	unlink(tmp);
	return ret;
}

/* --- trace_pipe: a consuming reader that formats events directly ------------ */

#define STREAM_COPY (1u << 20)

struct sthread {
	void *map;
	size_t maplen;
	struct ut_rb_reader rb;
	struct ut_rb_decoder dec;
	int32_t tid;
	char comm[17];
	uint64_t lost;           /* to print before its next event */
	uint64_t stream_lost;    /* LOST records seen */
	uint64_t decoded;        /* records decoded (the reader's count) */
	bool final_done;         /* its process is gone and everything was told */
	uint64_t final_lost;     /* to print at the end of this read */
	uint32_t last_cpu;
};

struct ssess {
	char dir[PATH_MAX];
	struct ut_ctl *ctl;
	struct ut_clockconv clk;
	int32_t pid;
	uint64_t modules_gen;
	struct sthread *thr[UT_MAX_THREADS];
	uint32_t nr_thr;
	bool alive;
};

struct pending {
	struct ut_event ev;
	uint64_t lost;           /* events lost before this one on its thread */
	char *str;               /* owned copies of the event's text and stack */
	uint64_t *callers;
};

#define STREAM_MAX_SESS 1024

/* Raw ring data taken by the drainer, waiting to be decoded and printed. */
struct qchunk {
	struct qchunk *next;
	struct sthread *t;
	struct ssess *ss;
	uint64_t start, lost;
	size_t len;
	bool final;              /* the thread's process is gone: nothing follows */
	uint8_t bytes[];
};

/*
 * Two halves: the drainer (drain_once(), on its own thread once
 * ut_live_stream_start() ran) copies new ring data into a queue as fast as
 * the programs write it; the reader decodes and formats the queue at its
 * own pace, so a slow terminal costs memory, not events.  The drainer owns
 * the sessions' reading state; the session and thread arrays only grow
 * (pointers published with release), so the reader may look names up.
 */
struct ut_live_stream {
	char rundir[PATH_MAX];
	int32_t *pids;
	size_t npids;
	struct ssess *sess[STREAM_MAX_SESS];
	size_t nr_sess;
	pthread_mutex_t mu;      /* the queue */
	struct qchunk *qhead, **qtail;
	pthread_t drainer;
	bool running;
	volatile bool stop;
	bool any_alive;
	long long last_scan;     /* CLOCK_MONOTONIC ns of the drainer's last scan */
	struct ut_symtab *syms;
	bool syms_stale;
	struct ut_opts opts;
	struct ut_out *out;      /* function-tracer events */
	struct ut_out *gout;     /* function_graph events, through graph */
	struct ut_graph_out *graph;
	bool graph_mode;         /* the sessions run function_graph now */
	struct pending *ev;      /* this read's events, then the held-back rest */
	size_t nr_ev, cap_ev;
	struct sthread *cur;     /* the thread being decoded */
	struct ssess *cur_sess;
	uint8_t *copy;
	int inst;                /* instances/: whose buffers */
};

static struct sthread *find_thread(const struct ut_live_stream *s, int32_t tid)
{
	for (size_t i = 0; i < s->nr_sess; i++)
		for (uint32_t j = 0; j < s->sess[i]->nr_thr; j++)
			if (s->sess[i]->thr[j] && s->sess[i]->thr[j]->tid == tid)
				return s->sess[i]->thr[j];
	return NULL;
}

static const char *stream_comm(void *ctx, int32_t tid)
{
	const struct sthread *t = find_thread(ctx, tid);

	return t ? t->comm : NULL;
}

static int32_t stream_tgid(void *ctx, int32_t tid)
{
	const struct ut_live_stream *s = ctx;

	for (size_t i = 0; i < s->nr_sess; i++)
		for (uint32_t j = 0; j < s->sess[i]->nr_thr; j++)
			if (s->sess[i]->thr[j] && s->sess[i]->thr[j]->tid == tid)
				return s->sess[i]->pid;
	return 0;
}

struct ut_live_stream *ut_live_stream_new(const char *rundir, const int32_t *pids, size_t npids,
					  const char *const *words, int nwords)
{
	return ut_live_stream_new_inst(rundir, 0, pids, npids, words, nwords);
}

struct ut_live_stream *ut_live_stream_new_inst(const char *rundir, int inst, const int32_t *pids,
					       size_t npids, const char *const *words, int nwords)
{
	struct ut_live_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->inst = inst;
	snprintf(s->rundir, sizeof(s->rundir), "%s", rundir);
	s->pids = npids ? calloc(npids, sizeof(*pids)) : NULL;
	s->copy = malloc(STREAM_COPY);
	if ((npids && !s->pids) || !s->copy) {
		ut_live_stream_free(s);
		return NULL;
	}
	if (npids)
		memcpy(s->pids, pids, npids * sizeof(*pids));
	pthread_mutex_init(&s->mu, NULL);
	s->qtail = &s->qhead;
	s->npids = npids;
	ut_opts_init(&s->opts, 0);
	for (int i = 0; i < nwords; i++)
		if (ut_opts_parse(&s->opts, "function", words[i]))
			ut_opts_parse(&s->opts, "function_graph", words[i]);
	return s;
}

static void free_pending(struct pending *p)
{
	free(p->str);
	free(p->callers);
}

void ut_live_stream_free(struct ut_live_stream *s)
{
	if (!s)
		return;
	if (s->running) {
		s->stop = true;
		pthread_join(s->drainer, NULL);
	}
	while (s->qhead) {
		struct qchunk *c = s->qhead;

		s->qhead = c->next;
		free(c);
	}
	pthread_mutex_destroy(&s->mu);
	for (size_t i = 0; i < s->nr_sess; i++) {
		struct ssess *ss = s->sess[i];

		for (uint32_t j = 0; j < ss->nr_thr; j++) {
			if (!ss->thr[j])
				continue;
			munmap(ss->thr[j]->map, ss->thr[j]->maplen);
			free(ss->thr[j]);
		}
		ut_live_unmap_ctl(ss->ctl);
		free(ss);
	}
	for (size_t i = 0; i < s->nr_ev; i++)
		free_pending(&s->ev[i]);
	free(s->ev);
	ut_graph_out_free(s->graph);
	ut_out_free(s->gout);
	ut_out_free(s->out);
	ut_symtab_free(s->syms);
	free(s->pids);
	free(s->copy);
	free(s);
}

static bool wanted(const struct ut_live_stream *s, int32_t pid)
{
	for (size_t i = 0; i < s->npids; i++)
		if (s->pids[i] == pid)
			return true;
	return !s->npids;
}

/* New sessions of the run-time dir, and the state of the known ones. */
static void scan_sessions(struct ut_live_stream *s)
{
	struct ut_live_sess *v;
	long n = ut_live_list(s->rundir, &v);

	for (long i = 0; i < n; i++) {
		struct ssess *ss = NULL;

		for (size_t k = 0; k < s->nr_sess && !ss; k++)
			if (!strcmp(s->sess[k]->dir, v[i].dir))
				ss = s->sess[k];
		if (ss || !wanted(s, v[i].pid) || s->nr_sess == STREAM_MAX_SESS)
			continue;
		ss = calloc(1, sizeof(*ss));
		if (!ss)
			break;
		snprintf(ss->dir, sizeof(ss->dir), "%s", v[i].dir);
		ss->ctl = ut_live_map_ctl(ss->dir);
		if (!ss->ctl) {
			free(ss);
			continue;
		}
		ss->pid = ss->ctl->pid;
		ss->clk = (struct ut_clockconv){.clock = ss->ctl->clock, .tsc0 = ss->ctl->tsc0,
						.mono0 = ss->ctl->mono0, .mult = ss->ctl->tsc_mult,
						.shift = ss->ctl->tsc_shift};
		ss->modules_gen = (uint64_t)-1;
		s->sess[s->nr_sess] = ss;
		__atomic_store_n(&s->nr_sess, s->nr_sess + 1, __ATOMIC_RELEASE);
	}
	if (n > 0)
		free(v);
	for (size_t k = 0; k < s->nr_sess; k++) {
		struct ssess *ss = s->sess[k];
		uint64_t gen = __atomic_load_n(&ss->ctl->modules_gen, __ATOMIC_ACQUIRE);

		ss->alive = __atomic_load_n(&ss->ctl->alive, __ATOMIC_ACQUIRE) &&
			    (kill(ss->pid, 0) == 0 || errno == EPERM);
		if (gen != ss->modules_gen) {
			ss->modules_gen = gen;
			s->syms_stale = true;
		}
	}
}

static void open_threads(struct ssess *ss, int inst)
{
	uint32_t nr = __atomic_load_n(&ss->ctl->nr_slots, __ATOMIC_ACQUIRE);

	if (nr > UT_MAX_THREADS)
		nr = UT_MAX_THREADS;
	for (uint32_t j = 0; j < nr; j++) {
		const struct ut_thread_slot *ts = &ss->ctl->threads[j];
		char path[PATH_MAX + 32];
		struct sthread *t;
		struct stat st;
		int fd;

		if (ss->thr[j] || __atomic_load_n(&ts->state, __ATOMIC_ACQUIRE) != UT_SLOT_ACTIVE)
			continue;
		snprintf(path, sizeof(path), "%s/%s%u", ss->dir, ut_live_buf_prefix(inst), j);
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		t = calloc(1, sizeof(*t));
		if (t && !fstat(fd, &st) && st.st_size > 0) {
			t->maplen = (size_t)st.st_size;
			t->map = mmap(NULL, t->maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		}
		close(fd);
		if (!t || !t->map || t->map == MAP_FAILED ||
		    ut_rb_open(&t->rb, t->map, t->maplen, true)) {
			if (t && t->map && t->map != MAP_FAILED)
				munmap(t->map, t->maplen);
			free(t);
			continue;
		}
		t->dec.from = t->rb.from;
		t->tid = t->rb.hdr->tid;
		memcpy(t->comm, ts->comm, 16);
		__atomic_store_n(&ss->thr[j], t, __ATOMIC_RELEASE);
		if (j >= ss->nr_thr)
			__atomic_store_n(&ss->nr_thr, j + 1, __ATOMIC_RELEASE);
	}
}

static int collect_event(void *ctx, const struct ut_event *ev)
{
	struct ut_live_stream *s = ctx;
	struct pending *p;

	s->cur->last_cpu = ev->cpu;
	if (ev->type == 0) { /* a LOST record: the count in ip */
		s->cur->lost += ev->ip;
		s->cur->stream_lost += ev->ip;
		return 0;
	}
	s->cur->decoded++;
	if (s->nr_ev == s->cap_ev) {
		size_t cap = s->cap_ev ? 2 * s->cap_ev : 4096;
		struct pending *n = realloc(s->ev, cap * sizeof(*n));

		if (!n)
			return -1;
		s->ev = n;
		s->cap_ev = cap;
	}
	p = &s->ev[s->nr_ev++];
	memset(p, 0, sizeof(*p));
	p->ev = *ev;
	p->lost = s->cur->lost;
	s->cur->lost = 0;
	if (ev->str) {
		p->str = strdup(ev->str);
		p->ev.str = p->str ? p->str : "";
	}
	if (ev->nr_callers && ev->callers) {
		p->callers = malloc(ev->nr_callers * sizeof(uint64_t));
		if (p->callers)
			memcpy(p->callers, ev->callers, ev->nr_callers * sizeof(uint64_t));
		p->ev.callers = p->callers;
		p->ev.nr_callers = p->callers ? ev->nr_callers : 0;
	}
	return 0;
}

/*
 * The process is gone and its buffer drained: what it refused when the
 * buffer was full and could no longer tell in the stream is still lost.
 */
static void final_losses(struct sthread *t)
{
	const struct ut_buf_hdr *h = t->rb.hdr;
	uint64_t total = h->written + h->dropped + h->nested;
	uint64_t told = t->rb.base + t->decoded + t->rb.lost + t->stream_lost;

	if (t->rb.base_known && total > told)
		t->final_lost = total - told;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ev.ts != y->ev.ts)
		return x->ev.ts < y->ev.ts ? -1 : 1;
	if (x->ev.pid != y->ev.pid)
		return x->ev.pid < y->ev.pid ? -1 : 1;
	return 0;
}

/* The formatters, made at the first event (function and function_graph). */
static int setup_output(struct ut_live_stream *s)
{
	struct ut_out_cfg cfg = {0};

	cfg.syms = s->syms;
	cfg.comm = stream_comm;
	cfg.tgid = stream_tgid;
	cfg.ctx = s;
	cfg.nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	cfg.clock_is_counter = s->nr_sess && ut_clock_is_counter((int)s->sess[0]->ctl->clock);
	cfg.opts = &s->opts;
	cfg.tracer = "function";
	s->out = ut_out_new(&cfg);
	cfg.tracer = "function_graph";
	s->gout = ut_out_new(&cfg);
	s->graph = s->gout ? ut_graph_out_new(s->gout) : NULL;
	if (!s->out || !s->graph)
		return -ENOMEM;
	ut_out_start(s->out, 0);
	ut_out_start(s->gout, 0);
	ut_graph_start(s->graph);
	return 0;
}

static bool lost_at_end(const struct ut_live_stream *s)
{
	for (size_t i = 0; i < s->nr_sess; i++)
		for (uint32_t j = 0; j < s->sess[i]->nr_thr; j++)
			if (s->sess[i]->thr[j] && s->sess[i]->thr[j]->final_lost)
				return true;
	return false;
}

static void print_final_losses(struct ut_live_stream *s, FILE *f)
{
	for (size_t i = 0; i < s->nr_sess; i++)
		for (uint32_t j = 0; j < s->sess[i]->nr_thr; j++) {
			struct sthread *t = s->sess[i]->thr[j];

			if (t && t->final_lost) {
				ut_out_print_lost(s->graph_mode ? s->gout : s->out, f, t->last_cpu,
						  t->final_lost);
				t->final_lost = 0;
			}
		}
}

static void reload_symbols(struct ut_live_stream *s)
{
	const char **dirs = calloc(s->nr_sess + 1, sizeof(*dirs));

	if (!dirs)
		return;
	for (size_t i = 0; i < s->nr_sess; i++)
		dirs[i] = s->sess[i]->dir;
	ut_symtab_free(s->syms);
	s->syms = ut_live_symbols(dirs, s->nr_sess);
	free(dirs);
	s->syms_stale = false;
	if (s->out)
		s->out->cfg.syms = s->syms;
	if (s->gout)
		s->gout->cfg.syms = s->syms;
}

static void enqueue(struct ut_live_stream *s, struct qchunk *c)
{
	c->next = NULL;
	pthread_mutex_lock(&s->mu);
	*s->qtail = c;
	s->qtail = &c->next;
	pthread_mutex_unlock(&s->mu);
}

/*
 * Up to the last record published (a pipe reader wants it now), into the
 * queue.  Producer/consumer buffers are copied straight from the ring
 * without looking at the records (the drainer must keep up with programs
 * writing tens of millions of events a second); flight-recorder buffers,
 * whose writer may lap the reader, go through ut_rb_drain().
 */
static size_t drain_thread(struct ut_live_stream *s, struct ssess *ss, struct sthread *t)
{
	const uint8_t *seg[2];
	size_t seglen[2], total = 0;
	struct ut_rb_chunk c;
	struct qchunk *q;
	uint64_t start;
	long n;

	if (!__atomic_load_n(&ss->ctl->overwrite, __ATOMIC_RELAXED) && t->rb.tail >= t->rb.from) {
		while ((n = ut_rb_peek(&t->rb, true, &start, seg, seglen)) > 0) {
			q = malloc(sizeof(*q) + (size_t)n);
			if (!q)
				break;
			*q = (struct qchunk){.t = t, .ss = ss, .start = start, .len = (size_t)n};
			memcpy(q->bytes, seg[0], seglen[0]);
			memcpy(q->bytes + seglen[0], seg[1], seglen[1]);
			ut_rb_consume(&t->rb, (size_t)n);
			enqueue(s, q);
			total += (size_t)n;
		}
		if (n == 0)
			return total;
		/* -EINVAL: not producer/consumer after all (a mode change): drain */
	}
	while (!ut_rb_drain(&t->rb, &c, true, s->copy, STREAM_COPY) && (c.len || c.lost)) {
		q = malloc(sizeof(*q) + c.len);
		if (!q)
			break;
		*q = (struct qchunk){.t = t, .ss = ss, .start = c.start, .lost = c.lost,
				     .len = c.len};
		memcpy(q->bytes, c.bytes, c.len);
		enqueue(s, q);
		total += c.len;
		if (c.len < STREAM_COPY)
			break;
	}
	return total;
}

/*
 * The drainer's pass: new sessions and threads, then everything each thread
 * published, copied into the queue (and consumed from the ring).  Returns
 * the bytes taken.
 */
static size_t drain_once(struct ut_live_stream *s)
{
	bool alive = false, graph = false;
	size_t total = 0;
	struct timespec now;

	/* New processes every 5 ms: listing the run-time dir is not cheap. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!s->nr_sess || now.tv_sec * 1000000000ll + now.tv_nsec - s->last_scan >= 5000000) {
		scan_sessions(s);
		s->last_scan = now.tv_sec * 1000000000ll + now.tv_nsec;
	}
	for (size_t i = 0; i < s->nr_sess; i++) {
		struct ssess *ss = s->sess[i];

		alive |= ss->alive;
		graph |= ss->alive && ss->ctl->tracer == UT_TRACER_FUNCTION_GRAPH;
		open_threads(ss, s->inst);
		for (uint32_t j = 0; j < ss->nr_thr; j++) {
			struct sthread *t = ss->thr[j];
			struct qchunk *q;

			if (!t || t->final_done)
				continue;
			total += drain_thread(s, ss, t);
			if (!ss->alive) { /* all of it is in the queue: tell the reader */
				q = calloc(1, sizeof(*q));
				if (q) {
					*q = (struct qchunk){.t = t, .ss = ss, .final = true};
					t->final_done = true;
					enqueue(s, q);
				}
			}
		}
	}
	s->any_alive = alive;
	s->graph_mode = graph;
	return total;
}

static void *drainer_main(void *arg)
{
	struct ut_live_stream *s = arg;

	while (!s->stop) {
		struct timespec ts = {0, 200L * 1000};

		if (!drain_once(s))
			nanosleep(&ts, NULL);
	}
	return NULL;
}

int ut_live_stream_start(struct ut_live_stream *s)
{
	sigset_t all, old;
	int ret;

	if (s->running)
		return 0;
	/*
	 * Queued chunks are big and short-lived: keep them on the heap, where
	 * freed memory is reused, not in fresh mmaps that fault page by page.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	drain_once(s); /* the sessions' state is known before the first read */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* signals are for the main thread */
	ret = pthread_create(&s->drainer, NULL, drainer_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	s->running = ret == 0;
	return -ret;
}

/* Decode what the drainer queued into s->ev. */
/*
 * Decode queued chunks into s->ev until it holds about @max events (a
 * batch: memory stays bounded however far behind the printing is).
 * Returns whether chunks are left.
 */
static bool decode_queue(struct ut_live_stream *s, size_t max)
{
	for (;;) {
		struct qchunk *c;
		struct sthread *t;

		if (s->nr_ev >= max)
			return true;
		pthread_mutex_lock(&s->mu);
		c = s->qhead;
		if (c) {
			s->qhead = c->next;
			if (!s->qhead)
				s->qtail = &s->qhead;
		}
		pthread_mutex_unlock(&s->mu);
		if (!c)
			return false;
		t = c->t;
		s->cur = t;
		s->cur_sess = c->ss;
		if (c->final) {
			final_losses(t);
		} else {
			t->lost += c->lost;
			ut_rb_decode(&t->dec, c->bytes, c->len, c->start, t->tid, c->ss->pid,
				     &c->ss->clk, collect_event, s);
			/* what this reader took is gone for every reader (`trace` too) */
			__atomic_store_n(&((struct ut_buf_hdr *)t->rb.hdr)->tail_records,
					 t->rb.base + t->decoded + t->stream_lost + t->rb.lost,
					 __ATOMIC_RELEASE);
		}
		free(c);
	}
}

static long print_batch(struct ut_live_stream *s, FILE *f, bool flush);

#define STREAM_BATCH 65536

long ut_live_stream_read(struct ut_live_stream *s, FILE *f, bool flush, bool *alive)
{
	long printed = 0, n;
	bool more;

	if (!s->running)
		drain_once(s);
	*alive = s->any_alive;
	if (s->syms_stale)
		reload_symbols(s);
	do {
		more = decode_queue(s, STREAM_BATCH);
		/* a full batch prints whole (a graph entry at its end cannot wait) */
		n = print_batch(s, f, flush || more);
		if (n < 0)
			return n;
		printed += n;
	} while (more);
	return printed;
}

/* Sort and print what s->ev holds (graph entries without a successor wait). */
static long print_batch(struct ut_live_stream *s, FILE *f, bool flush)
{
	size_t printed = 0, held;

	if (!s->nr_ev && !lost_at_end(s))
		return 0;
	if (!s->out && setup_output(s))
		return -ENOMEM;
	qsort(s->ev, s->nr_ev, sizeof(*s->ev), cmp_pending);
	/*
	 * function_graph prints a leaf when an entry's next event on its CPU is
	 * its return: an event whose successor has not arrived waits.
	 */
	held = s->nr_ev;
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct pending *p = &s->ev[i];
		const struct ut_event *next = NULL;
		bool is_graph;

		if (p->ev.type == 0xffff)
			continue; /* consumed as the previous line's leaf */
		for (size_t k = i + 1; k < s->nr_ev && !next; k++)
			if (s->ev[k].ev.cpu == p->ev.cpu)
				next = &s->ev[k].ev;
		if (!next && !flush && p->ev.type == UT_EV_FUNCGRAPH_ENTRY) {
			held = i;
			break;
		}
		is_graph = p->ev.type == UT_EV_FUNCGRAPH_ENTRY || p->ev.type == UT_EV_FUNCGRAPH_EXIT ||
			   (s->graph_mode && p->ev.type != UT_EV_FUNCTION);
		if (p->lost)
			ut_out_print_lost(is_graph ? s->gout : s->out, f, p->ev.cpu, p->lost);
		if (is_graph) {
			int r = ut_graph_print_event(s->graph, f, &p->ev, next);

			if (r == UT_GRAPH_CONSUMED && next)
				((struct ut_event *)next)->type = 0xffff;
			if (r != UT_GRAPH_UNHANDLED) {
				printed++;
				continue;
			}
		}
		ut_out_print_event(s->out, f, &p->ev, next);
		printed++;
	}
	if (held == s->nr_ev)
		print_final_losses(s, f);
	for (size_t i = 0; i < held; i++)
		free_pending(&s->ev[i]);
	memmove(s->ev, s->ev + held, (s->nr_ev - held) * sizeof(*s->ev));
	s->nr_ev -= held;
	return (long)printed;
}
