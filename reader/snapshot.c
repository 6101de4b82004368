// SPDX-License-Identifier: MIT
/*
 * Live snapshots (include/utrace/read.h): what the sessions' buffers hold
 * now, left as it was -- written to a trace.dat (extract), or printed in
 * the kernel's `trace` format (show, the mount's trace and per-thread
 * files) straight from the recorder's merge, without a file in between.
 *
 * The printed trace is the one its trace.dat would print, line for line:
 * the recorder's write-out hands this printer what it would write (events
 * merged by time, func-no-repeats folded, CPUs the file has no stream for
 * on CPU 0), and each event and the symbol table are cut to what the file
 * keeps of them (reader/filed.c); losses go, as in the file's pages, with
 * the next event on their CPU.  Two passes, as report makes over a file:
 * the header's counts, then the lines.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/control.h"
#include "common/names.h"
#include "common/output/output.h"
#include "reader/filed.h"
#include "reader/live.h"
#include "reader/printer.h"
#include "reader/recorder.h"
#include "reader/snapshot.h"
#include "reader/stream.h"
#include "utrace/read.h"

/*
 * The tracer the sessions run: names the trace's header, as current_tracer
 * does the kernel's.  A running process's tracer wins over a dead one's
 * (its old buffers print each event in its own format anyway).
 */
static const char *live_tracer(const char *rundir, const int32_t *pids, size_t npids,
			       bool *found, int *clock)
{
	struct ut_live_sess *v;
	long n = ut_live_list(rundir, &v);
	const char *name = "nop";
	bool alive = false;

	*found = false;
	for (long i = 0; v && i < n; i++) {
		size_t k = 0;

		while (pids && k < npids && pids[k] != v[i].pid)
			k++;
		if (pids && k == npids)
			continue;
		*found = true;
		*clock = (int)v[i].clock;
		if (v[i].tracer >= (uint32_t)UT_NR_TRACERS || (alive && !v[i].alive))
			continue;
		if (v[i].alive && !alive && v[i].tracer) /* the first running one that traces */
			name = "nop";
		if (v[i].tracer || !strcmp(name, "nop"))
			name = ut_tracer_names[v[i].tracer];
		alive |= v[i].alive && v[i].tracer;
	}
	if (n > 0)
		free(v);
	return name;
}

/*
 * A recorder in live mode over the sessions of @pids (NULL: all) in
 * @rundir, instance @inst's buffers, spooling next to @output.  NULL with
 * *@ret: -ESRCH (none of @pids has a session) or -errno.
 */
static struct ut_recorder *snapshot_recorder(const char *rundir, int inst, const int32_t *pids,
					     size_t npids, bool consume, const char *output,
					     uint64_t opts_bits, int *ret)
{
	struct ut_opts opts = {.bits = opts_bits};
	struct ut_recorder *r;
	bool found;
	int clock = UT_CLOCK_LOCAL;
	const char *tracer = live_tracer(rundir, pids, npids, &found, &clock);

	*ret = -ESRCH;
	if (pids && !found)
		return NULL;
	if (inst) { /* the instance's own tracer and clock */
		struct ut_cfg c;

		ut_live_get_config(rundir, inst, &c);
		tracer = c.tracer == UT_TRACER_FUNCTION ? "function" : "nop";
		clock = (int)c.clock;
		ut_cfg_free(&c);
	}
	r = ut_recorder_new(rundir, output, tracer, clock, &opts);
	if (!r) {
		*ret = errno ? -errno : -ENOMEM;
		return NULL;
	}
	ut_recorder_set_live(r, pids, npids, consume);
	ut_recorder_set_instance(r, inst);
	*ret = 0;
	return r;
}

int ut_live_snapshot(const char *rundir, int inst, const int32_t *pids, size_t npids, bool consume,
		     const char *output, uint64_t opts_bits)
{
	int ret;
	struct ut_recorder *r =
		snapshot_recorder(rundir, inst, pids, npids, consume, output, opts_bits, &ret);

	if (!r)
		return ret;
	ret = ut_recorder_finish(r);
	ut_recorder_free(r);
	return ret;
}

/* --- the printing sink ------------------------------------------------------ */

struct print_sink {
	struct ut_filed_sink fk; /* the events as the file gives them back */
	FILE *f;
	const char *const *words;
	int nwords;
	bool header, counting;
	struct ut_stream_filter flt;
	bool filtered;
	uint64_t last_ts;    /* the latest event kept */
	uint64_t lost_total; /* the first pass's */
	struct ut_trace_count count;
	struct ut_trace_print pr;
	struct ut_opts opts;
	char tracer[32];
};

static const char *task_comm(void *ctx, int32_t pid)
{
	return ut_filed_comm(ctx, pid);
}

static int32_t task_tgid(void *ctx, int32_t pid)
{
	return ut_filed_tgid(ctx, pid);
}

/* The formatters as the file's reader would set them up, and the header. */
static int print_begin(struct ut_filed_sink *fk, const struct ut_tracedat_meta *m)
{
	struct print_sink *k = (struct print_sink *)fk;
	int clock = ut_filed_clock(m->clock);
	struct ut_out_cfg cfg;

	if (k->counting)
		return 0;
	snprintf(k->tracer, sizeof(k->tracer), "%s", m->tracer ? m->tracer : "function");
	ut_trace_opts(&k->opts, &m->options, k->words, k->nwords);
	cfg = (struct ut_out_cfg){.tracer = k->tracer, .syms = fk->syms, .comm = task_comm,
				  .tgid = task_tgid, .ctx = fk, .nr_cpus = m->nr_cpus,
				  .clock_is_counter = ut_clock_is_counter(clock), .opts = &k->opts};
	return ut_trace_print_begin(&k->pr, k->f, &cfg, &k->count, k->lost_total, !k->filtered,
				    k->header);
}

static int print_event(struct ut_filed_sink *fk, const struct ut_event *fe, uint64_t lost)
{
	struct print_sink *k = (struct print_sink *)fk;

	if (k->filtered && !ut_stream_wanted(&k->flt, fe, false))
		return 0; /* and its losses with it */
	if (fe->ts > k->last_ts)
		k->last_ts = fe->ts;
	if (k->counting)
		ut_trace_count_add(&k->count, lost);
	else
		ut_trace_print_push(&k->pr, fe, lost);
	return 0;
}

static int print_end(struct ut_filed_sink *fk, const struct ut_tracedat_meta *m)
{
	struct print_sink *k = (struct print_sink *)fk;

	if (k->counting)
		k->lost_total = m->lost;
	else
		ut_trace_print_end(&k->pr);
	return 0;
}

/*
 * Print @r's collected snapshot to @f: the header's counts (@header), then
 * the lines, each a replay of the merge.  0 or -errno.
 */
static int print_snapshot(struct ut_recorder *r, FILE *f, const char *const *words, int nwords,
			  const struct ut_idlist *tids, bool header, struct ut_live_window *win)
{
	struct print_sink k = {.fk = {.begin = print_begin, .event = print_event,
				      .end = print_end},
			       .f = f, .words = words, .nwords = nwords, .header = header,
			       .flt = {.tids = tids,
				       .ts_min = win ? win->ts_min : 0,
				       .ts_max = win ? win->ts_max : 0},
			       .filtered = (tids && tids->n) || (win && (win->ts_min || win->ts_max))};
	int ret = 0;

	ut_filed_sink_init(&k.fk);
	/* the warnings once the merge is known, before the text (as the file's writer did) */
	if (header) {
		k.counting = true;
		ret = ut_recorder_replay(r, &k.fk.sink);
		k.counting = false;
		if (!ret)
			ut_recorder_warn_totals(r);
	}
	if (!ret)
		ret = ut_recorder_replay(r, &k.fk.sink);
	if (!ret && !header)
		ut_recorder_warn_totals(r);
	if (win)
		win->last_ts = k.last_ts;
	ut_symtab_free(k.fk.syms);
	return ret;
}

/* A spool next to nothing: $TMPDIR/utrace-show.spool.XXXXXX. */
static void spool_base(char *buf, size_t len)
{
	const char *tmpdir = getenv("TMPDIR");

	snprintf(buf, len, "%s/utrace-show", tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp");
}

int ut_live_print_thread(const char *rundir, int32_t pid, int32_t tid, FILE *f,
			 const char *const *words, int nwords, bool header)
{
	long id = tid;
	struct ut_idlist tids = {.v = &id, .n = 1};
	char base[PATH_MAX];
	struct ut_recorder *r;
	struct ut_opts opts;
	int ret;

	spool_base(base, sizeof(base));
	/* the defaults to the write-out, not -O: the formatter folds the thread's calls */
	ut_trace_opts(&opts, NULL, NULL, 0);
	r = snapshot_recorder(rundir, 0, &pid, 1, false, base, opts.bits, &ret);
	if (!r)
		return ret;
	ut_recorder_set_thread(r, tid);
	ut_recorder_collect(r);
	ret = ut_recorder_refused(r) ? -EPERM
				     : print_snapshot(r, f, words, nwords, &tids, header, NULL);
	ut_recorder_cleanup(r);
	ut_recorder_free(r);
	return ret;
}

int ut_live_print(const char *rundir, int inst, const int32_t *pids, size_t npids, bool consume,
		  FILE *f, const char *const *words, int nwords, bool header)
{
	if (consume && !header) /* trace_pipe: straight from the buffers */
		return ut_live_pipe_once(rundir, inst, pids, npids, f, words, nwords);
	return ut_live_print_window(rundir, inst, pids, npids, consume, f, words, nwords, header,
				    NULL);
}

int ut_live_print_window(const char *rundir, int inst, const int32_t *pids, size_t npids,
			 bool consume, FILE *f, const char *const *words, int nwords, bool header,
			 struct ut_live_window *win)
{
	char base[PATH_MAX];
	struct ut_recorder *r;
	struct ut_opts opts;
	int ret;

	spool_base(base, sizeof(base));
	/* the options go to the write-out too: func-no-repeats folds there */
	ut_trace_opts(&opts, NULL, words, nwords);
	r = snapshot_recorder(rundir, inst, pids, npids, consume, base, opts.bits, &ret);
	if (!r)
		return ret;
	ut_recorder_collect(r);
	ret = ut_recorder_refused(r) ? -EPERM : print_snapshot(r, f, words, nwords, NULL, header, win);
	ut_recorder_cleanup(r);
	ut_recorder_free(r);
	return ret;
}

int ut_live_replay_filed(const char *rundir, const int32_t *pids, size_t npids,
			 struct ut_filed_sink *k)
{
	char base[PATH_MAX];
	struct ut_recorder *r;
	int ret;

	spool_base(base, sizeof(base));
	r = snapshot_recorder(rundir, 0, pids, npids, false, base, 0, &ret);
	if (!r)
		return ret;
	ut_recorder_collect(r);
	ut_filed_sink_init(k);
	ret = ut_recorder_replay(r, &k->sink);
	/* as the snapshot's writer: the warnings, then what was refused */
	ut_recorder_warn_totals(r);
	if (!ret && ut_recorder_refused(r))
		ret = -EPERM;
	ut_recorder_cleanup(r);
	ut_recorder_free(r);
	return ret;
}
