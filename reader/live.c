// SPDX-License-Identifier: MIT
/*
 * Live traces read as they come (include/utrace/read.h): trace_pipe's
 * consuming reader, and the profiler's tables of running processes.
 * Snapshots (show, extract, the mount's trace) are reader/snapshot.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utrace/read.h"
#include "reader/ctl_cache.h"
#include "reader/drain.h"
#include "reader/live.h"
#include "reader/printer.h"
#include "reader/stream.h"
#include "common/control.h"
#include "common/grow.h"
#include "common/names.h"
#include "common/output/graph.h"
#include "common/output/output.h"
#include "common/ring_buffer.h"
#include "common/usdt_events.h"
#include "common/symbols.h"

int ut_live_stat(const char *rundir, const int32_t *pids, size_t npids, FILE *f, bool graph_time,
		 unsigned names,
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
	ut_recorder_set_profile(rec, f, graph_time, names, thresh_ns);
	ut_recorder_profile_only(rec, tid);
	ret = ut_recorder_finish(rec);
	ut_recorder_free(rec);
	unlink(spool);
	return ret;
}

int ut_live_pipe_once(const char *rundir, int inst, const int32_t *pids, size_t npids, FILE *f,
		      const char *const *words, int nwords)
{
	struct ut_live_stream *st = ut_live_stream_new(rundir, inst, pids, npids, words, nwords);
	bool alive;
	long n;

	if (!st)
		return -ENOMEM;
	n = ut_live_stream_read(st, f, true, &alive);
	ut_live_stream_free(st);
	return n < 0 ? (int)n : 0;
}

/* --- trace_pipe: a consuming reader that formats events directly ------------ */

#define STREAM_BLOCK (4u << 20)       /* the queue's blocks */
#define STREAM_QUEUE_MAX (512u << 20) /* and its cap: beyond, the rings fill */
#define TEXT_MAX (4u << 20)           /* formatted, unread: then the formatter waits */
#define STREAM_AHEAD 12               /* blocks mapped ahead: 48 MiB, 40 ms of fib */
#define STREAM_AHEAD_IDLE 1           /* while no process traces, nor is set to */

/* Events kept for printing, in time order. */
struct evvec {
	struct ut_print_ev *v;
	size_t n, cap;
};

struct sthread {
	struct ssess *ss;        /* its process */
	void *map;
	size_t maplen;
	struct ut_rb_reader rb;
	struct ut_rb_decoder dec;
	uint64_t gen;            /* the slot's incarnation this thread is */
	struct sthread *next;    /* retired: the next on its session's list */
	unsigned merged_pass;    /* the formatter's: the last merge that took its events */
	int32_t tid;
	char comm[17];
	uint64_t lost;           /* to print before its next event */
	uint64_t stream_lost;    /* LOST records seen */
	uint64_t decoded;        /* records decoded (the reader's count) */
	bool final_done;         /* its process is gone and everything was told */
	uint64_t final_lost;     /* to print at the end of this read */
	uint32_t last_cpu;
	struct evvec ev;         /* decoded since the last print (the formatter's) */
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
	/*
	 * Threads whose slot went to a new thread (its gen changed): the
	 * drainer pushes them on retired_in (a stack; their last chunk is a
	 * CHUNK_RETIRED), the formatter takes them into retired and frees
	 * each once its events are printed.
	 */
	struct sthread *retired_in;
	struct sthread *retired;
	bool drained;            /* the drainer's: gone, all of it queued, ctl unmapped */
	/*
	 * Records the runtime gave up with a slot handed to a new thread
	 * (ctl.recycled_lost[]): the drainer adds what it claims, the
	 * formatter takes them into the LOST line before the next event of
	 * one of the process's threads (atomic).
	 */
	uint64_t recycled_untold;
	unsigned dead_passes;    /* the drainer's passes since it found it gone */
	bool released;           /* the formatter's: all of it printed; the drainer frees it */
};


#define STREAM_MAX_SESS 1024

#define CHUNK_FINAL 1u   /* a thread's last chunk: its process is gone, all was told */
#define CHUNK_RETIRED 2u /* a thread's last chunk: its slot went to a new thread */

/*
 * Three parts once ut_live_stream_start() ran, each on its own thread:
 *   - the drainer (drain_once()) copies new ring data into a queue as fast
 *     as the programs write it, and owns the sessions' reading state;
 *   - the formatter (format_queue()) decodes the queue, merges and prints
 *     it into a text buffer, at the priority of background work: the
 *     events are safe in the queue, and on a machine with few cores a
 *     formatter at normal priority kept the drainer off the CPU for longer
 *     than a ring takes to fill;
 *   - readers (ut_live_stream_read()) take the text.
 * A slow terminal costs memory, not events.  The session and thread arrays
 * only grow (pointers published with release), so the formatter may look
 * names up.
 */
struct ut_live_stream {
	char rundir[PATH_MAX];
	int32_t *pids;
	size_t npids;
	int inst;                /* instances/: whose buffers */
	struct ssess *sess[STREAM_MAX_SESS];
	size_t nr_sess;
	/*
	 * Sessions are freed once gone and printed (a long reader of short
	 * processes holds those alive, not one mapping per process it saw):
	 * the formatter holds sess_mu for its passes, the drainer frees
	 * released sessions when it can take it, and remembers their names
	 * (done, sorted) while the run-time dir lists them.
	 */
	pthread_mutex_t sess_mu;
	char **done_names;
	bool *done_seen;
	size_t nr_done, cap_done;
	unsigned merge_pass;
	struct ut_chunkq *q;     /* drainer -> formatter */
	/* the drainer */
	pthread_t drainer;
	unsigned drain_req;      /* passes over whole rings asked of the drainer */
	unsigned drain_done;     /* and done */
	long long last_scan;     /* CLOCK_MONOTONIC ns of the drainer's last scan */
	struct timespec dir_mtime; /* the run-time dir's when last listed */
	bool running;
	volatile bool stop;
	/*
	 * ut_live_stream_on_demand(): the drainer takes only while readers
	 * attend (a count: reads of one file may run at once); pass_mu is held
	 * over each of its passes, so that the last reader leaving can wait
	 * for the pass under way.
	 */
	bool on_demand;
	unsigned attending;
	pthread_mutex_t pass_mu;
	bool any_alive;
	bool rescan;             /* list it again anyway (a session half made) */
	bool refused;            /* a session or file was refused (ut_live_strerror) */
	bool graph_mode;         /* the sessions run function_graph now */
	bool tmpl_traces;        /* the template's tracer is not nop */
	unsigned ahead;          /* spare blocks asked of the queue */
	unsigned syms_gen;       /* the drainer's: + 1 when a session's objects change */
	unsigned syms_loaded;    /* the formatter's: the syms_gen its symbols are of */
	/* the formatter */
	bool fmt_running;
	struct ut_symtab *syms;
	/*
	 * The USDT probes of the sessions' objects (their events' names): the
	 * tables read before stay until the end, as events kept for printing
	 * point into them.
	 */
	struct ut_probetab **probes;
	size_t nr_probes;
	struct ut_opts opts;
	struct ut_out *out;      /* function-tracer events */
	struct ut_out *gout;     /* function_graph events, through graph */
	struct ut_graph_out *graph;
	struct ut_print_ev *ev;      /* this read's events merged, then the held-back rest */
	size_t nr_ev, cap_ev;
	size_t nr_new;               /* events in the threads' vectors, not merged yet */
	struct evvec merged;         /* the merge's output, swapped with ev */
	struct sthread *cur;     /* the thread being decoded */
	pthread_t formatter;
	FILE *tout;              /* the formatter's end (text_write()) */
	/* its text, under text_mu */
	pthread_mutex_t text_mu;
	pthread_cond_t text_cv;  /* text taken, text added, a pass done */
	char *text;
	size_t text_len, text_cap;
	long fmt_err;
	unsigned req_gen;        /* passes readers asked for (drain, format) */
	unsigned done_gen;       /* and done */
	bool req_flush;          /* and whether to flush what waits for a successor */
	bool done;               /* the processes are gone, all they wrote is text */
};

/* The formatter's: the thread of @tid (a retired one if no other has it). */
static struct sthread *find_thread(const struct ut_live_stream *s, int32_t tid)
{
	for (size_t i = 0; i < s->nr_sess; i++)
		for (uint32_t j = 0; j < s->sess[i]->nr_thr; j++)
			if (s->sess[i]->thr[j] && s->sess[i]->thr[j]->tid == tid)
				return s->sess[i]->thr[j];
	for (size_t i = 0; i < s->nr_sess; i++)
		for (struct sthread *t = s->sess[i]->retired; t; t = t->next)
			if (t->tid == tid)
				return t;
	return NULL;
}

static const char *stream_comm(void *ctx, int32_t tid)
{
	const struct sthread *t = find_thread(ctx, tid);

	return t ? t->comm : NULL;
}

static int32_t stream_tgid(void *ctx, int32_t tid)
{
	const struct sthread *t = find_thread(ctx, tid);

	return t ? t->ss->pid : 0;
}

struct ut_live_stream *ut_live_stream_new(const char *rundir, int inst, const int32_t *pids,
					  size_t npids, const char *const *words, int nwords)
{
	struct ut_live_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->inst = inst;
	snprintf(s->rundir, sizeof(s->rundir), "%s", rundir);
	s->pids = npids ? calloc(npids, sizeof(*pids)) : NULL;
	/* drop-and-count: its grower takes idle CPU only, as the formatter does */
	s->q = ut_chunkq_new_idle(STREAM_BLOCK, STREAM_QUEUE_MAX, STREAM_AHEAD);
	if (s->q && !inst) { /* the drainer asks for more once something traces */
		s->ahead = STREAM_AHEAD_IDLE;
		ut_chunkq_set_ahead(s->q, s->ahead);
	}
	pthread_mutex_init(&s->text_mu, NULL);
	pthread_cond_init(&s->text_cv, NULL);
	pthread_mutex_init(&s->sess_mu, NULL);
	pthread_mutex_init(&s->pass_mu, NULL);
	if ((npids && !s->pids) || !s->q) {
		ut_live_stream_free(s);
		return NULL;
	}
	if (npids)
		memcpy(s->pids, pids, npids * sizeof(*pids));
	s->npids = npids;
	ut_opts_init(&s->opts, 0);
	for (int i = 0; i < nwords; i++)
		if (ut_opts_parse(&s->opts, "function", words[i]))
			ut_opts_parse(&s->opts, "function_graph", words[i]);
	return s;
}

/* Events kept for printing, released (their copies freed). */
static void evvec_free(struct evvec *v)
{
	for (size_t k = 0; k < v->n; k++)
		ut_print_release(&v->v[k]);
	free(v->v);
}

/* The formatter's output state (setup_output(), reload_symbols()). */
static void formatters_free(struct ut_live_stream *s)
{
	ut_graph_out_free(s->graph);
	ut_out_free(s->gout);
	ut_out_free(s->out);
	ut_symtab_free(s->syms);
	for (size_t i = 0; i < s->nr_probes; i++)
		ut_probetab_free(s->probes[i]);
	free(s->probes);
}

static void sthread_free(struct sthread *t)
{
	if (t->map)
		munmap(t->map, t->maplen);
	evvec_free(&t->ev);
	free(t);
}

static void sthread_list_free(struct sthread *t)
{
	while (t) {
		struct sthread *next = t->next;

		sthread_free(t);
		t = next;
	}
}

/* A session's threads unmapped, and the session. */
static void ssess_free(struct ssess *ss)
{
	for (uint32_t j = 0; j < ss->nr_thr; j++)
		if (ss->thr[j])
			sthread_free(ss->thr[j]);
	sthread_list_free(ss->retired_in);
	sthread_list_free(ss->retired);
	if (ss->ctl)
		ut_ctl_cache_put(ss->ctl);
	free(ss);
}

void ut_live_stream_free(struct ut_live_stream *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->text_mu);
	s->stop = true;
	pthread_cond_broadcast(&s->text_cv); /* a formatter waiting for room */
	pthread_mutex_unlock(&s->text_mu);
	/* the drainer first: a closed reader must not consume another event */
	if (s->running)
		pthread_join(s->drainer, NULL);
	if (s->fmt_running)
		pthread_join(s->formatter, NULL);
	if (s->tout)
		fclose(s->tout);
	free(s->text);
	pthread_cond_destroy(&s->text_cv);
	pthread_mutex_destroy(&s->text_mu);
	ut_chunkq_free(s->q);
	for (size_t i = 0; i < s->nr_sess; i++)
		ssess_free(s->sess[i]);
	for (size_t i = 0; i < s->nr_done; i++)
		free(s->done_names[i]);
	free(s->done_names);
	free(s->done_seen);
	pthread_mutex_destroy(&s->sess_mu);
	pthread_mutex_destroy(&s->pass_mu);
	evvec_free(&(struct evvec){.v = s->ev, .n = s->nr_ev});
	free(s->merged.v);
	formatters_free(s);
	free(s->pids);
	free(s);
}

/*
 * The session's objects changed (a library loaded, the program's own logged
 * after the reader first saw the session): the formatter reloads the
 * symbols.  Asked as each chunk is queued, after the ring's head was read:
 * an object is logged before any event that may name it is published, so
 * no chunk's events go out with older symbols.  (Asked only every scan
 * before, a short process's events were printed as addresses under load:
 * tests/live/526.)
 */
static void modules_check(struct ut_live_stream *s, struct ssess *ss)
{
	uint64_t gen = __atomic_load_n(&ss->ctl->modules_gen, __ATOMIC_ACQUIRE);

	if (gen != ss->modules_gen) {
		ss->modules_gen = gen;
		__atomic_add_fetch(&s->syms_gen, 1, __ATOMIC_RELEASE);
	}
}

static bool wanted(const struct ut_live_stream *s, int32_t pid)
{
	for (size_t i = 0; i < s->npids; i++)
		if (s->pids[i] == pid)
			return true;
	return !s->npids;
}

/*
 * Whether the run-time dir may hold sessions not seen yet.  Listing it maps
 * every session's control block; the drainer asks every 5 ms, so list only
 * when the dir changed.  A timestamp that recent may hide a second change
 * in the same clock tick: list again until it is older.
 */
static bool rundir_changed(struct ut_live_stream *s)
{
	struct timespec now;
	struct stat st;

	if (stat(s->rundir, &st))
		return true;
	clock_gettime(CLOCK_REALTIME, &now);
	if (!s->rescan && st.st_mtim.tv_sec == s->dir_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == s->dir_mtime.tv_nsec &&
	    (now.tv_sec - st.st_mtim.tv_sec) * 1000000000ll + now.tv_nsec - st.st_mtim.tv_nsec >
		    100000000ll)
		return false;
	s->dir_mtime = st.st_mtim;
	s->rescan = false;
	return true;
}

/* Where session @name is, or would go, in the sorted list of those done. */
static size_t done_pos(const struct ut_live_stream *s, const char *name, bool *found)
{
	size_t lo = 0, hi = s->nr_done;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->done_names[mid], name);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Session @name was read to its end and freed: never taken up again. */
static void done_add(struct ut_live_stream *s, const char *name)
{
	bool found;
	size_t at = done_pos(s, name, &found);
	char *copy;

	if (found)
		return;
	if (s->nr_done == s->cap_done) {
		size_t cap = s->cap_done ? 2 * s->cap_done : 64;
		char **d = realloc(s->done_names, cap * sizeof(*d));
		bool *seen;

		if (d)
			s->done_names = d;
		seen = d ? realloc(s->done_seen, cap * sizeof(*seen)) : NULL;
		if (!seen)
			return; /* (read again if listed again: its rings are empty) */
		s->done_seen = seen;
		s->cap_done = cap;
	}
	copy = strdup(name);
	if (!copy)
		return;
	memmove(s->done_names + at + 1, s->done_names + at, (s->nr_done - at) * sizeof(*s->done_names));
	memmove(s->done_seen + at + 1, s->done_seen + at, (s->nr_done - at) * sizeof(bool));
	s->done_names[at] = copy;
	s->done_seen[at] = true;
	s->nr_done++;
}

/* Whether @name is done (and mark it seen in this listing). */
static bool done_listed(struct ut_live_stream *s, const char *name)
{
	bool found;
	size_t at = done_pos(s, name, &found);

	if (found)
		s->done_seen[at] = true;
	return found;
}

/* After a whole listing: names no longer in the run-time dir are forgotten. */
static void done_prune(struct ut_live_stream *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nr_done; i++) {
		if (!s->done_seen[i]) {
			free(s->done_names[i]);
			continue;
		}
		s->done_names[k] = s->done_names[i];
		s->done_seen[k++] = false;
	}
	s->nr_done = k;
}

/* The drainer's: sessions the formatter released are freed, if it is not in a pass. */
static void free_released(struct ut_live_stream *s)
{
	bool any = false;
	size_t k = 0;

	for (size_t i = 0; i < s->nr_sess && !any; i++)
		any = __atomic_load_n(&s->sess[i]->released, __ATOMIC_ACQUIRE);
	if (!any || pthread_mutex_trylock(&s->sess_mu))
		return;
	for (size_t i = 0; i < s->nr_sess; i++) {
		struct ssess *ss = s->sess[i];

		if (ss->released) {
			const char *base = strrchr(ss->dir, '/');

			done_add(s, base ? base + 1 : ss->dir);
			ssess_free(ss);
		} else {
			s->sess[k++] = ss;
		}
	}
	s->nr_sess = k;
	pthread_mutex_unlock(&s->sess_mu);
}

static void add_session(struct ut_live_stream *s, const char *dir)
{
	char err[256];
	struct ssess *ss;
	int ret;

	for (size_t k = 0; k < s->nr_sess; k++)
		if (!strcmp(s->sess[k]->dir, dir))
			return;
	if (s->nr_sess == STREAM_MAX_SESS || !(ss = calloc(1, sizeof(*ss))))
		return;
	snprintf(ss->dir, sizeof(ss->dir), "%s", dir);
	ret = ut_ctl_cache_get(ss->dir, &ss->ctl, err, sizeof(err));
	if (ret == -EPERM)
		__atomic_store_n(&s->refused, true, __ATOMIC_RELEASE);
	if (ret) { /* being created (or not a session): look again later */
		s->rescan = true;
		free(ss);
		return;
	}
	ss->pid = ss->ctl->pid;
	ss->clk = (struct ut_clockconv){.clock = ss->ctl->clock, .tsc0 = ss->ctl->tsc0,
					.mono0 = ss->ctl->mono0, .mult = ss->ctl->tsc_mult,
					.shift = ss->ctl->tsc_shift};
	if (s->inst) /* an instance's buffers are in its own clock */
		ss->clk.clock = ut_inst_clock(s->rundir, ss->dir, s->inst);
	ss->modules_gen = (uint64_t)-1;
	s->sess[s->nr_sess] = ss;
	__atomic_store_n(&s->nr_sess, s->nr_sess + 1, __ATOMIC_RELEASE);
}

/* New sessions of the run-time dir, and the state of the known ones. */
static void scan_sessions(struct ut_live_stream *s)
{
	DIR *d = rundir_changed(s) ? opendir(s->rundir) : NULL;
	const struct dirent *de;

	/* sessions are named <pid>.<ns>: other users' pids are never mapped */
	while (d && (de = readdir(d))) {
		char dir[PATH_MAX], *end;
		long pid = strtol(de->d_name, &end, 10);

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end != '.' ||
		    !wanted(s, (int32_t)pid) || done_listed(s, de->d_name))
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s", s->rundir, de->d_name) < (int)sizeof(dir))
			add_session(s, dir);
	}
	if (d) {
		struct ut_cfg tmpl;

		closedir(d);
		done_prune(s);
		/* new processes will trace (template writes rename: the dir changes) */
		if (!ut_live_get_config(s->rundir, 0, &tmpl))
			s->tmpl_traces = tmpl.tracer != UT_TRACER_NOP;
		ut_cfg_free(&tmpl);
	}
	for (size_t k = 0; k < s->nr_sess; k++) {
		struct ssess *ss = s->sess[k];

		if (ss->drained)
			continue;
		modules_check(s, ss);
		ss->alive = __atomic_load_n(&ss->ctl->alive, __ATOMIC_ACQUIRE) &&
			    (kill(ss->pid, 0) == 0 || errno == EPERM);
	}
}

/* Thread @j of @ss, mapped and opened as a consuming reader; NULL if not (yet). */
static struct sthread *open_thread(struct ut_live_stream *s, struct ssess *ss, int inst,
				   uint32_t j)
{
	const struct ut_thread_slot *ts = &ss->ctl->threads[j];
	uint64_t gen = __atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE);
	struct sthread *t = calloc(1, sizeof(*t));
	char err[256];
	int ret;

	if (!t)
		return NULL;
	ret = ut_sess_map_thread(ss->dir, inst, j, true, &t->map, &t->maplen, err, sizeof(err));
	if (ret == -EPERM)
		__atomic_store_n(&s->refused, true, __ATOMIC_RELEASE);
	/* (reused while we opened it: looked at again next pass) */
	if (ret || ut_rb_open(&t->rb, t->map, t->maplen, true) ||
	    __atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE) != gen) {
		if (!ret)
			munmap(t->map, t->maplen);
		free(t);
		return NULL;
	}
	t->ss = ss;
	t->gen = gen;
	t->dec.from = t->rb.from;
	/* what it takes counts as taken at once: never also lost when the slot is reused */
	t->rb.count_taken = true;
	t->tid = t->rb.hdr->tid;
	memcpy(t->comm, ss->ctl->threads[j].comm, 16);
	return t;
}

static void open_threads(struct ut_live_stream *s, struct ssess *ss, int inst)
{
	uint32_t nr = __atomic_load_n(&ss->ctl->nr_slots, __ATOMIC_ACQUIRE);

	if (nr > UT_MAX_THREADS)
		nr = UT_MAX_THREADS;
	for (uint32_t j = 0; j < nr; j++) {
		const struct ut_thread_slot *ts = &ss->ctl->threads[j];
		struct sthread *t;

		if (ss->thr[j] || !ut_slot_readable(__atomic_load_n(&ts->state, __ATOMIC_ACQUIRE)))
			continue;
		t = open_thread(s, ss, inst, j);
		if (!t)
			continue;
		__atomic_store_n(&ss->thr[j], t, __ATOMIC_RELEASE);
		if (j >= ss->nr_thr)
			__atomic_store_n(&ss->nr_thr, j + 1, __ATOMIC_RELEASE);
	}
}

static int evvec_grow(struct evvec *v, size_t want)
{
	size_t cap = v->cap ? v->cap : 1024;
	struct ut_print_ev *n;

	if (want <= v->cap)
		return 0;
	while (cap < want)
		cap *= 2;
	n = realloc(v->v, cap * sizeof(*n));
	if (!n)
		return -1;
	v->v = n;
	v->cap = cap;
	return 0;
}

static int collect_event(void *ctx, const struct ut_event *ev)
{
	struct ut_live_stream *s = ctx;
	struct ut_print_ev *p;

	s->cur->last_cpu = ev->cpu;
	if (ev->type == 0) { /* a LOST record: the count in ip */
		s->cur->lost += ev->ip;
		s->cur->stream_lost += ev->ip;
		return 0;
	}
	s->cur->decoded++;
	if (evvec_grow(&s->cur->ev, s->cur->ev.n + 1))
		return -1;
	p = &s->cur->ev.v[s->cur->ev.n++];
	s->nr_new++;
	/*
	 * And the process's recycled slots' losses, told before its next event
	 * (a plain load first: the locked exchange only when there are some).
	 */
	if (__atomic_load_n(&s->cur->ss->recycled_untold, __ATOMIC_RELAXED))
		s->cur->lost += __atomic_exchange_n(&s->cur->ss->recycled_untold, 0,
						    __ATOMIC_ACQ_REL);
	ut_print_keep(p, ev, s->cur->lost);
	if (ev->type == UT_EV_PROBE && s->nr_probes) {
		/* named as a trace.dat would name it (common/usdt_events.h) */
		p->ev.probe = ut_probetab_find(s->probes[s->nr_probes - 1], ev->ip);
		if (p->ev.probe && p->ev.probe->nargs != ev->nargs)
			p->ev.probe = NULL;
	}
	s->cur->lost = 0;
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

/* The formatters, made at the first event (function and function_graph). */
static int setup_output(struct ut_live_stream *s)
{
	struct ut_out_cfg cfg = {0};

	cfg.syms = s->syms;
	cfg.comm = stream_comm;
	cfg.tgid = stream_tgid;
	cfg.ctx = s;
	cfg.nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	cfg.clock_is_counter = s->nr_sess && ut_clock_is_counter((int)s->sess[0]->clk.clock);
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

/* The sessions' probes read again; the tables before stay (events point into them). */
static void reload_probes(struct ut_live_stream *s, const char **dirs, size_t nr)
{
	struct ut_probetab **v = realloc(s->probes, (s->nr_probes + 1) * sizeof(struct ut_probetab *));

	if (!v)
		return;
	s->probes = v;
	v[s->nr_probes] = ut_live_probes(dirs, nr);
	s->nr_probes += v[s->nr_probes] != NULL;
}

/*
 * The symbols again when a session's objects changed (a new process among
 * them).  Before each print: a process that came and went between two
 * passes has its events printed in the same pass as it was found.
 */
static void reload_symbols(struct ut_live_stream *s)
{
	unsigned gen = __atomic_load_n(&s->syms_gen, __ATOMIC_ACQUIRE);
	size_t nr = __atomic_load_n(&s->nr_sess, __ATOMIC_ACQUIRE);
	const char **dirs;

	if (gen == s->syms_loaded)
		return;
	dirs = calloc(nr + 1, sizeof(*dirs));
	if (!dirs)
		return;
	for (size_t i = 0; i < nr; i++)
		dirs[i] = s->sess[i]->dir;
	ut_symtab_free(s->syms);
	s->syms = ut_live_symbols(dirs, nr);
	reload_probes(s, dirs, nr);
	free(dirs);
	s->syms_loaded = gen;
	if (s->out)
		s->out->cfg.syms = s->syms;
	if (s->gout)
		s->gout->cfg.syms = s->syms;
}

/*
 * Slot @j's thread gave its slot to a new thread (its gen changed): all it
 * wrote was taken (the runtime reuses a slot only then, or counts what it
 * gave up), so its last chunk says so and it moves to the session's
 * retired threads; the slot is opened again for the new one.  False: the
 * queue is full, again next pass.
 */
static bool retire_thread(struct ut_live_stream *s, struct ssess *ss, uint32_t j)
{
	struct sthread *t = ss->thr[j];
	struct ut_drain_chunk *q;
	size_t got;

	q = ut_chunkq_reserve(s->q, sizeof(*q), sizeof(*q), &got);
	if (!q)
		return false;
	*q = (struct ut_drain_chunk){.owner = t, .flags = CHUNK_RETIRED};
	t->final_done = true;
	/* on the list before it leaves the table: the formatter finds it in one */
	t->next = __atomic_load_n(&ss->retired_in, __ATOMIC_ACQUIRE);
	while (!__atomic_compare_exchange_n(&ss->retired_in, &t->next, t, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE))
		;
	__atomic_store_n(&ss->thr[j], NULL, __ATOMIC_RELEASE);
	ut_chunkq_push(s->q, q, sizeof(*q));
	return true;
}

/*
 * Slot @j's thread to drain, or NULL.  Its head now, then the slot's gen
 * (the runtime stores a new gen before the new thread's first record): data
 * up to that head is this thread's, and an exited thread's drain stops
 * there (past it may come the slot's next thread).  A new gen: retired.
 */
static struct sthread *current_thread(struct ut_live_stream *s, struct ssess *ss, uint32_t j)
{
	const struct ut_thread_slot *ts = &ss->ctl->threads[j];
	struct sthread *t = ss->thr[j];
	uint64_t head;

	if (!t || t->final_done)
		return NULL;
	head = __atomic_load_n(&t->rb.hdr->head, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE) != t->gen) {
		retire_thread(s, ss, j);
		return NULL;
	}
	t->rb.stop = __atomic_load_n(&ts->state, __ATOMIC_ACQUIRE) == UT_SLOT_ACTIVE ? 0 : head;
	return t;
}

/*
 * Records the runtime gave up, unread, when it handed a slot to a new thread
 * (past buffer_total_size_kb): counted in the control block, not in any
 * ring.  Like the kernel's overrun, they are told as lost before the next
 * event the process's threads write (the slot's next thread's, as a rule).
 */
static void recycled_note(struct ssess *ss, int inst)
{
	uint64_t lost, told;

	if (inst < 0 || inst >= UT_CTL_INST)
		return;
	/* claimed in the control block: another consuming reader does not tell them again */
	told = __atomic_load_n(&ss->ctl->recycled_told[inst], __ATOMIC_ACQUIRE);
	do {
		lost = __atomic_load_n(&ss->ctl->recycled_lost[inst], __ATOMIC_ACQUIRE);
		if (lost == told)
			return;
		/* lost < told: a clear zeroed the count; told follows it down */
	} while (!__atomic_compare_exchange_n(&ss->ctl->recycled_told[inst], &told, lost, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	if (lost > told)
		__atomic_add_fetch(&ss->recycled_untold, lost - told, __ATOMIC_RELEASE);
}

/* The queue's sink, with modules_check() before each chunk goes in. */
struct live_sink {
	struct ut_drain_sink sink;
	struct ut_drain_qsink q;
	struct ut_live_stream *s;
	struct ssess *ss;
};

static uint8_t *live_reserve(struct ut_drain_sink *k, size_t min, size_t max, size_t *got)
{
	struct live_sink *l = (struct live_sink *)k;

	return l->q.sink.reserve(&l->q.sink, min, max, got);
}

static int live_commit(struct ut_drain_sink *k, uint8_t *buf, uint64_t start, uint64_t lost,
		       size_t len)
{
	struct live_sink *l = (struct live_sink *)k;

	modules_check(l->s, l->ss);
	return l->q.sink.commit(&l->q.sink, buf, start, lost, len);
}

static void live_sink_init(struct live_sink *l, struct ut_live_stream *s, struct ssess *ss,
			   struct sthread *t)
{
	l->sink = (struct ut_drain_sink){.reserve = live_reserve, .commit = live_commit};
	ut_drain_qsink_init(&l->q, s->q, t);
	l->s = s;
	l->ss = ss;
}

#define GIVE_UP_PASSES 1000 /* a dead process's buffer that cannot be opened: ~1 s */

/*
 * A process that is gone and whose threads' data is all queued: its
 * control block is unmapped and the formatter told it may release it.
 */
static void mark_drained(struct ssess *ss)
{
	uint32_t nr = __atomic_load_n(&ss->ctl->nr_slots, __ATOMIC_ACQUIRE);

	if (ss->alive)
		return;
	if (nr > UT_MAX_THREADS)
		nr = UT_MAX_THREADS;
	ss->dead_passes++;
	for (uint32_t j = 0; j < nr; j++) {
		const struct sthread *t = ss->thr[j];

		if (t ? !t->final_done
		      : ut_slot_readable(__atomic_load_n(&ss->ctl->threads[j].state,
							 __ATOMIC_ACQUIRE)) &&
				ss->dead_passes < GIVE_UP_PASSES)
			return;
	}
	ut_ctl_cache_put(ss->ctl);
	ss->ctl = NULL;
	__atomic_store_n(&ss->drained, true, __ATOMIC_RELEASE);
}

/*
 * The drainer's pass: new sessions and threads, then what each thread
 * published (whole pages unless @all), copied into the queue and consumed
 * from the ring.  Returns the bytes taken.
 */
static size_t drain_once(struct ut_live_stream *s, bool all)
{
	bool alive = false, graph = false, traces = s->tmpl_traces;
	size_t total = 0, got;
	struct timespec now;

	/* New processes every 5 ms. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!s->nr_sess || now.tv_sec * 1000000000ll + now.tv_nsec - s->last_scan >= 5000000) {
		free_released(s);
		scan_sessions(s);
		s->last_scan = now.tv_sec * 1000000000ll + now.tv_nsec;
	}
	for (size_t i = 0; i < s->nr_sess; i++) {
		struct ssess *ss = s->sess[i];

		if (ss->drained)
			continue;
		alive |= ss->alive;
		graph |= ss->alive && ss->ctl->tracer == UT_TRACER_FUNCTION_GRAPH;
		traces |= ss->alive && ss->ctl->tracer != UT_TRACER_NOP;
		open_threads(s, ss, s->inst);
		recycled_note(ss, s->inst);
		for (uint32_t j = 0; j < ss->nr_thr; j++) {
			struct sthread *t = current_thread(s, ss, j);
			struct ut_drain_chunk *q;
			struct live_sink k;
			long n;

			if (!t)
				continue;
			live_sink_init(&k, s, ss, t);
			n = ut_drain(&t->rb,
				     !__atomic_load_n(&ss->ctl->overwrite, __ATOMIC_RELAXED) &&
					     t->rb.tail >= t->rb.from,
				     all || !ss->alive, &k.sink);
			total += n > 0 ? (size_t)n : 0;
			if (ss->alive || t->rb.tail < __atomic_load_n(&t->rb.hdr->head, __ATOMIC_ACQUIRE))
				continue; /* more to come, or more than the queue took */
			/* all of it is in the queue: tell the reader */
			q = ut_chunkq_reserve(s->q, sizeof(*q), sizeof(*q), &got);
			if (q) {
				*q = (struct ut_drain_chunk){.owner = t, .flags = CHUNK_FINAL};
				t->final_done = true;
				ut_chunkq_push(s->q, q, sizeof(*q));
			}
		}
		mark_drained(ss);
	}
	/* memory: 48 MiB of blocks mapped ahead only while bursts may come */
	if (!s->inst && s->ahead != (traces ? STREAM_AHEAD : STREAM_AHEAD_IDLE)) {
		s->ahead = traces ? STREAM_AHEAD : STREAM_AHEAD_IDLE;
		ut_chunkq_set_ahead(s->q, s->ahead);
	}
	__atomic_store_n(&s->graph_mode, graph, __ATOMIC_RELAXED);
	/* after the chunks: a formatter that sees them gone has their data */
	__atomic_store_n(&s->any_alive, alive, __ATOMIC_RELEASE);
	return total;
}

/* A pass that took this much is behind: the next one starts at once. */
#define DRAIN_BEHIND (256u << 10)

/*
 * Whole pages as long as there are some; then the pages being written, and
 * a nap: none while data flows, or 50 us when real-time (woken on time; fib
 * fills 50 KB meanwhile, a 2 MiB ring holds 2 ms of it); 200 us once a pass
 * found nothing, up to 1 ms once the programs have been quiet for a while.
 * The formatter may ask for the pages being written at once (a reader waits).
 */
static void *drainer_main(void *arg)
{
	struct ut_live_stream *s = arg;
	bool is_rt = ut_drain_realtime(true);
	unsigned idle = 0;

	/*
	 * A refused stream reads as EPERM from then on: it consumes nothing
	 * more either (once the refused file is sound again, its events would
	 * go to no reader).
	 */
	while (!s->stop && !__atomic_load_n(&s->refused, __ATOMIC_ACQUIRE)) {
		struct timespec ts = {0, 200L * 1000};
		unsigned req = __atomic_load_n(&s->drain_req, __ATOMIC_ACQUIRE);
		size_t got;

		pthread_mutex_lock(&s->pass_mu);
		if (s->on_demand && !__atomic_load_n(&s->attending, __ATOMIC_ACQUIRE)) {
			/* nobody reads: nothing taken (a late request is answered) */
			__atomic_store_n(&s->drain_done, req, __ATOMIC_RELEASE);
			pthread_mutex_unlock(&s->pass_mu);
			nanosleep(&ts, NULL);
			continue;
		}
		got = drain_once(s, false);
		if (req != s->drain_done) { /* a reader waits: the pages being written too */
			got |= drain_once(s, true);
			__atomic_store_n(&s->drain_done, req, __ATOMIC_RELEASE);
		}
		if (got) { /* data flows: no nap unless woken on time (see above) */
			pthread_mutex_unlock(&s->pass_mu);
			if (is_rt && got < DRAIN_BEHIND) {
				ts.tv_nsec = 50L * 1000;
				nanosleep(&ts, NULL);
			}
			continue;
		}
		got = drain_once(s, true);
		pthread_mutex_unlock(&s->pass_mu);
		if (got)
			idle = 0;
		else if (idle < 100)
			idle++;
		else
			ts.tv_nsec = 1000L * 1000;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

void ut_live_stream_on_demand(struct ut_live_stream *s)
{
	s->on_demand = true;
}

void ut_live_stream_attend(struct ut_live_stream *s, bool reading)
{
	if (reading) {
		__atomic_add_fetch(&s->attending, 1, __ATOMIC_ACQ_REL);
		return;
	}
	if (__atomic_sub_fetch(&s->attending, 1, __ATOMIC_ACQ_REL))
		return;
	/* the last reader left: the pass under way ends before it returns */
	pthread_mutex_lock(&s->pass_mu);
	pthread_mutex_unlock(&s->pass_mu);
}

static long format_queue(struct ut_live_stream *s, FILE *f, bool flush);

/* Wait until the drainer took everything published so far. */
static void sync_drainer(struct ut_live_stream *s)
{
	unsigned req = __atomic_add_fetch(&s->drain_req, 1, __ATOMIC_ACQ_REL);

	while ((int)(__atomic_load_n(&s->drain_done, __ATOMIC_ACQUIRE) - req) < 0 && !s->stop) {
		struct timespec ts = {0, 100L * 1000};

		nanosleep(&ts, NULL);
	}
}

/*
 * The formatter's FILE writes here; past TEXT_MAX unread bytes it waits
 * for a reader (the events wait in the queue meanwhile).
 */
static ssize_t text_write(void *cookie, const char *buf, size_t len)
{
	struct ut_live_stream *s = cookie;
	ssize_t ret = (ssize_t)len;

	pthread_mutex_lock(&s->text_mu);
	while (s->text_len >= TEXT_MAX && !s->stop)
		pthread_cond_wait(&s->text_cv, &s->text_mu);
	if (s->stop) { /* nobody reads any more: end the formatter's pass */
		pthread_mutex_unlock(&s->text_mu);
		return -1;
	}
	if (s->text_len + len > s->text_cap) {
		size_t cap = s->text_cap ? s->text_cap : 1 << 16;
		char *n;

		while (cap < s->text_len + len)
			cap *= 2;
		n = realloc(s->text, cap);
		if (n) {
			s->text = n;
			s->text_cap = cap;
		}
	}
	if (s->text_len + len <= s->text_cap) {
		memcpy(s->text + s->text_len, buf, len);
		s->text_len += len;
	} else {
		ret = -1;
	}
	pthread_cond_broadcast(&s->text_cv);
	pthread_mutex_unlock(&s->text_mu);
	return ret;
}

static void *formatter_main(void *arg)
{
	struct ut_live_stream *s = arg;
	struct sched_param idle = {0};

	pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		unsigned gen;
		bool alive, flush;
		long n;

		pthread_mutex_lock(&s->text_mu);
		gen = s->req_gen;
		flush = s->req_flush;
		s->req_flush = false;
		pthread_mutex_unlock(&s->text_mu);
		if (gen != s->done_gen) /* a reader waits: the buffers as they are now */
			sync_drainer(s);
		alive = __atomic_load_n(&s->any_alive, __ATOMIC_ACQUIRE);
		/* with the processes gone, what waited for a successor goes out */
		n = format_queue(s, s->tout, flush || !alive);
		if (fflush(s->tout) && n >= 0)
			n = -ENOMEM;
		pthread_mutex_lock(&s->text_mu);
		if (n < 0)
			s->fmt_err = n;
		s->done_gen = gen;
		s->done = !alive && !s->nr_ev;
		pthread_cond_broadcast(&s->text_cv);
		if (!n && gen == s->req_gen && !s->stop) { /* idle: a reader's request, or 5 ms */
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 5L * 1000 * 1000;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&s->text_cv, &s->text_mu, &until);
		}
		pthread_mutex_unlock(&s->text_mu);
		if (n < 0)
			break;
	}
	return NULL;
}

int ut_live_stream_start(struct ut_live_stream *s)
{
	sigset_t all, old;
	int ret;

	if (s->running)
		return 0;
	drain_once(s, true); /* the sessions' state is known before the first read */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* signals are for the main thread */
	ret = pthread_create(&s->drainer, NULL, drainer_main, s);
	s->running = ret == 0;
	if (!ret) {
		s->tout = fopencookie(s, "w", (cookie_io_functions_t){.write = text_write});
		ret = s->tout ? pthread_create(&s->formatter, NULL, formatter_main, s) : ENOMEM;
		s->fmt_running = ret == 0;
		if (s->tout)
			setvbuf(s->tout, NULL, _IOFBF, 1 << 16);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
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
		struct ut_drain_chunk *c;
		struct sthread *t;
		size_t len;

		if (s->nr_ev + s->nr_new >= max)
			return true;
		c = ut_chunkq_pop(s->q, &len);
		if (!c)
			return false;
		t = c->owner;
		s->cur = t;
		if (c->flags & (CHUNK_FINAL | CHUNK_RETIRED)) {
			if (c->flags & CHUNK_FINAL) { /* (a retired one's were counted by the runtime) */
				final_losses(t);
				/* a gone process: what its recycled slots lost, not told yet */
				t->final_lost += __atomic_exchange_n(&t->ss->recycled_untold, 0,
								     __ATOMIC_ACQ_REL);
			}
			/*
			 * All of it was told, and the drainer is done with it:
			 * the ring goes (a reader of many dead threads holds
			 * their names, not their buffers).
			 */
			munmap(t->map, t->maplen);
			t->map = NULL;
		} else {
			/* (what it took was counted in tail_records as it was consumed) */
			t->lost += c->lost;
			ut_rb_decode(&t->dec, c->bytes, c->len, c->start, t->tid, t->ss->pid,
				     &t->ss->clk, collect_event, s);
		}
		ut_chunkq_release(s->q, c);
	}
}

static long print_batch(struct ut_live_stream *s, FILE *f, bool flush);

#define STREAM_BATCH 16384

/* Whether an event of thread @tid (0: any) of process @pid waits in the held-back rest. */
static bool held(const struct ut_live_stream *s, int32_t pid, int32_t tid)
{
	for (size_t k = 0; k < s->nr_ev; k++)
		if (s->ev[k].ev.tgid == pid && (!tid || s->ev[k].ev.pid == tid))
			return true;
	return false;
}

/* The formatter's: retired threads whose events are all printed are freed. */
static void free_retired(struct ut_live_stream *s)
{
	for (size_t i = 0; i < s->nr_sess; i++) {
		struct ssess *ss = s->sess[i];
		struct sthread **pp = &ss->retired;

		while (*pp) {
			struct sthread *t = *pp;

			if (t->map || t->ev.n || held(s, ss->pid, t->tid)) {
				pp = &t->next;
				continue;
			}
			*pp = t->next;
			sthread_free(t);
		}
	}
}

/*
 * The formatter's: a session the drainer is done with (gone, all queued)
 * whose events are all printed is released, for the drainer to free.
 */
static void release_sessions(struct ut_live_stream *s)
{
	for (size_t i = 0; i < s->nr_sess; i++) {
		struct ssess *ss = s->sess[i];
		bool busy = ss->released || !__atomic_load_n(&ss->drained, __ATOMIC_ACQUIRE) ||
			    ss->retired_in || ss->retired || held(s, ss->pid, 0);

		for (uint32_t j = 0; j < ss->nr_thr && !busy; j++) {
			const struct sthread *t = ss->thr[j];

			busy = t && (t->map || t->ev.n || t->final_lost);
		}
		if (!busy)
			__atomic_store_n(&ss->released, true, __ATOMIC_RELEASE);
	}
}

/* Decode and print what the queue holds; graph entries without a successor wait unless @flush. */
static long format_queue(struct ut_live_stream *s, FILE *f, bool flush)
{
	long printed = 0, n = 0;
	bool more;

	pthread_mutex_lock(&s->sess_mu); /* the drainer frees no session meanwhile */
	do {
		/*
		 * Before the decode, which names probe events (the drainer asked
		 * for the objects of every chunk before it queued it: live_put;
		 * a first pass decoding a probe event already in the buffers
		 * named it probe_ADDR), and after it, for objects logged while it
		 * ran (the print names functions).
		 */
		reload_symbols(s);
		more = decode_queue(s, STREAM_BATCH);
		reload_symbols(s);
		/* a full batch prints whole (a graph entry at its end cannot wait) */
		n = print_batch(s, f, flush || more);
		if (n < 0)
			break;
		printed += n;
	} while (more && !__atomic_load_n(&s->stop, __ATOMIC_RELAXED));
	free_retired(s);
	release_sessions(s);
	pthread_mutex_unlock(&s->sess_mu);
	return n < 0 ? n : printed;
}

long ut_live_stream_read(struct ut_live_stream *s, FILE *f, bool flush, bool *alive)
{
	bool wait = false, finished;
	unsigned gen = 0;
	long total = 0;

	if (__atomic_load_n(&s->refused, __ATOMIC_ACQUIRE))
		return -EPERM;
	if (!s->fmt_running) { /* no threads: all of it here and now */
		drain_once(s, true);
		*alive = s->any_alive;
		return format_queue(s, f, flush);
	}
	pthread_mutex_lock(&s->text_mu);
	if (flush || !s->text_len) {
		/* nothing formatted yet: what the buffers hold now, formatted */
		gen = ++s->req_gen;
		s->req_flush |= flush;
		wait = true;
		pthread_cond_broadcast(&s->text_cv);
	}
	for (;;) {
		char *text = s->text;
		size_t len = s->text_len;
		long err = s->fmt_err;

		/* some text, or the pass asked for done (however big the backlog) */
		finished = !wait || (int)(s->done_gen - gen) >= 0 || err || s->stop || len;
		*alive = !s->done;
		s->text = NULL;
		s->text_len = s->text_cap = 0;
		pthread_cond_broadcast(&s->text_cv); /* room for the formatter */
		pthread_mutex_unlock(&s->text_mu);
		if (len && fwrite(text, 1, len, f) != len)
			err = err ? err : -EIO;
		free(text);
		total += (long)len;
		if (err)
			return err;
		if (finished)
			return total;
		pthread_mutex_lock(&s->text_mu);
		if (!s->text_len && (int)(s->done_gen - gen) < 0 && !s->fmt_err && !s->stop)
			pthread_cond_wait(&s->text_cv, &s->text_mu);
	}
}

/* @t has new events for this merge and was not taken yet: into @ths. */
static int take_thread(struct ut_live_stream *s, struct sthread *t, struct sthread ***ths,
		       size_t *n, size_t *cap)
{
	if (!t || !t->ev.n || t->merged_pass == s->merge_pass)
		return 0;
	if (*n == *cap && ut_grow(ths, cap, sizeof(struct sthread *), 64))
		return -ENOMEM;
	t->merged_pass = s->merge_pass;
	(*ths)[(*n)++] = t;
	return 0;
}

/*
 * The threads with new events: the table's first, then the retired ones
 * (the drainer puts a thread on the retired list before it takes it out of
 * the table, so it is met once or twice -- the pass mark -- never missed).
 */
static int threads_to_merge(struct ut_live_stream *s, struct sthread ***ths, size_t *n)
{
	size_t cap = 0;
	int ret = 0;

	s->merge_pass++;
	*ths = NULL;
	*n = 0;
	for (size_t i = 0; i < s->nr_sess && !ret; i++)
		for (uint32_t j = 0; j < s->sess[i]->nr_thr && !ret; j++)
			ret = take_thread(s, __atomic_load_n(&s->sess[i]->thr[j], __ATOMIC_ACQUIRE),
					  ths, n, &cap);
	for (size_t i = 0; i < s->nr_sess && !ret; i++) {
		struct ssess *ss = s->sess[i];
		struct sthread *in = __atomic_exchange_n(&ss->retired_in, NULL, __ATOMIC_ACQ_REL);

		while (in) {
			struct sthread *next = in->next;

			in->next = ss->retired;
			ss->retired = in;
			in = next;
		}
		for (struct sthread *t = ss->retired; t && !ret; t = t->next)
			ret = take_thread(s, t, ths, n, &cap);
	}
	return ret;
}

/*
 * The held-back events and every thread's new ones into one array in time
 * order, by the library's one merge (reader/stream.c): each source is
 * already in order, a thread's events as it wrote them.
 */
static int merge_batch(struct ut_live_stream *s)
{
	struct ut_pev_src *src = NULL; /* a thread's new events, or the held-back rest */
	struct sthread **ths;
	struct ut_stream *st;
	struct ut_stream_item it;
	size_t n;
	int ret = threads_to_merge(s, &ths, &n);

	if (!ret)
		src = calloc(n + 1, sizeof(*src));
	st = ut_stream_new(NULL);
	if (ret || !src || !st || evvec_grow(&s->merged, s->nr_ev + s->nr_new)) {
		free(ths);
		free(src);
		ut_stream_free(st);
		return -ENOMEM;
	}
	ut_pev_src_init(&src[0], s->ev, s->nr_ev);
	for (size_t i = 0; i < n; i++)
		ut_pev_src_init(&src[i + 1], ths[i]->ev.v, ths[i]->ev.n);
	for (size_t i = 0; i <= n && !ret; i++)
		ret = ut_stream_add(st, &src[i].src);
	s->merged.n = 0;
	/* the events move: their owned copies go with them */
	while (!ret && ut_stream_next(st, &it) == 1)
		if (it.ev) /* (always: the batches hold events, their losses inside) */
			s->merged.v[s->merged.n++] = *(const struct ut_print_ev *)it.ev;
	ut_stream_free(st);
	free(src);
	for (size_t i = 0; i < n && !ret; i++)
		ths[i]->ev.n = 0;
	free(ths);
	if (ret)
		return ret;
	s->nr_new = 0;
	/* swap: the merged array becomes this batch */
	{
		struct ut_print_ev *v = s->ev;
		size_t cap = s->cap_ev;

		s->ev = s->merged.v;
		s->cap_ev = s->merged.cap;
		s->nr_ev = s->merged.n;
		s->merged = (struct evvec){.v = v, .cap = cap};
	}
	return 0;
}

/* Merge and print what the threads decoded (graph entries without a successor wait). */
static long print_batch(struct ut_live_stream *s, FILE *f, bool flush)
{
	struct ut_printer pr;
	size_t printed = 0, held;

	if (!s->nr_ev && !s->nr_new && !lost_at_end(s))
		return 0;
	if (!s->out && setup_output(s))
		return -ENOMEM;
	if (merge_batch(s))
		return -ENOMEM;
	pr = (struct ut_printer){.out = s->out, .gout = s->gout, .graph = s->graph,
				 .graph_mode = s->graph_mode};
	/*
	 * function_graph prints a leaf when an entry's next event on its CPU is
	 * its return (and nothing for a signal handler that traced nothing):
	 * an event whose successor has not arrived waits.
	 */
	held = s->nr_ev;
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct ut_print_ev *p = &s->ev[i], *np = NULL;

		if (p->consumed)
			continue;
		for (size_t k = i + 1; k < s->nr_ev && !np; k++)
			if (s->ev[k].ev.cpu == p->ev.cpu)
				np = &s->ev[k];
		if (!np && !flush &&
		    (p->ev.type == UT_EV_FUNCGRAPH_ENTRY || p->ev.type == UT_EV_SIGNAL_ENTER)) {
			held = i;
			break;
		}
		ut_print_event(&pr, f, p, np, np ? &np->ev : NULL);
		printed++;
	}
	if (held == s->nr_ev)
		print_final_losses(s, f);
	for (size_t i = 0; i < held; i++)
		ut_print_release(&s->ev[i]);
	memmove(s->ev, s->ev + held, (s->nr_ev - held) * sizeof(*s->ev));
	s->nr_ev -= held;
	return (long)printed;
}
