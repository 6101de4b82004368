// SPDX-License-Identifier: MIT
/*
 * The public event reader (include/utrace/read.h: ut_reader_*): a trace.dat,
 * or a snapshot of running processes, read through the merged stream and
 * handed out as plain records with function names -- what tools built on
 * the library (examples/read_trace.c, exports, scripting) read.
 *
 * A live snapshot is read as its trace.dat would be, without one: the
 * recorder's write-out hands its events, as the file would give them back
 * (reader/filed.h), to a sink that keeps what a record tells of each in
 * memory by CPU (struct live_rec), and each CPU is a source of the same
 * merge a file's CPUs are.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/control.h"
#include "common/grow.h"
#include "common/symbols.h"
#include "reader/snapshot.h"
#include "reader/stream_file.h"
#include "reader/tracedat.h"

/*
 * A live snapshot's event: what a record tells of it, and the records lost
 * just before it on its CPU (a third of a struct ut_event's size).
 */
struct live_rec {
	uint64_t ts, ip, parent_ip, lost;
	int32_t pid, tgid;
	uint32_t depth;
	uint16_t type;
};

/* A CPU of a live snapshot: its events in order, a source of the stream. */
struct live_cpu {
	struct ut_stream_src src;
	struct ut_event ev; /* the one the stream holds */
	struct live_rec *v;
	size_t n, cap, next;
	uint32_t cpu;
};

/* The sink that collects a live snapshot (ut_reader_open_live). */
struct live_sink {
	struct ut_filed_sink fk;
	struct live_cpu *cpus;
	int nr_cpus;
	char tracer[32];
};

struct ut_reader {
	struct ut_tracedat *td;  /* a file's reader, or NULL */
	struct ut_file_src file;
	struct live_sink live;   /* or a live snapshot's events */
	const struct ut_symtab *syms;
	struct ut_stream *st;
};

struct ut_reader *ut_reader_open_file(const char *path, const struct ut_stream_filter *f,
				      char *err, size_t errlen)
{
	struct ut_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->td = ut_tracedat_open(path, err, errlen);
	if (!r->td) {
		free(r);
		return NULL;
	}
	r->syms = ut_tracedat_symbols(r->td);
	r->st = ut_stream_new(f);
	if (!r->st || ut_file_src_add(&r->file, r->td, r->st, true)) {
		snprintf(err, errlen, "out of memory");
		ut_reader_close(r);
		return NULL;
	}
	return r;
}

const char *ut_reader_tracer(struct ut_reader *r)
{
	if (!r->td)
		return r->live.tracer[0] ? r->live.tracer : NULL;
	return ut_tracedat_tracer(r->td);
}

static int live_begin(struct ut_filed_sink *fk, const struct ut_tracedat_meta *m)
{
	struct live_sink *k = (struct live_sink *)fk;

	/* the file's "tracer" line, as its reader gives it back */
	snprintf(k->tracer, sizeof(k->tracer), "%s", m->tracer ? m->tracer : "nop");
	k->cpus = calloc((size_t)m->nr_cpus, sizeof(*k->cpus));
	if (!k->cpus)
		return -ENOMEM;
	k->nr_cpus = m->nr_cpus;
	return 0;
}

static int live_event(struct ut_filed_sink *fk, const struct ut_event *ev, uint64_t lost)
{
	struct live_sink *k = (struct live_sink *)fk;
	struct live_cpu *c = &k->cpus[ev->cpu];

	if (c->n == c->cap && ut_grow(&c->v, &c->cap, sizeof(*c->v), 256))
		return -ENOMEM;
	c->v[c->n++] = (struct live_rec){.ts = ev->ts, .ip = ev->ip, .parent_ip = ev->parent_ip,
					 .lost = lost, .pid = ev->pid, .tgid = ev->tgid,
					 .depth = ev->depth, .type = ev->type};
	return 0;
}

/* The stream's refill(): the CPU's next event, as a file's CPU hands them, one a batch. */
static bool live_refill(struct ut_stream_src *src)
{
	struct live_cpu *c = (struct live_cpu *)src;
	const struct live_rec *x;

	if (c->next == c->n)
		return false;
	x = &c->v[c->next++];
	c->ev = (struct ut_event){.ts = x->ts, .pid = x->pid, .tgid = x->tgid, .cpu = c->cpu,
				  .type = x->type, .ip = x->ip, .parent_ip = x->parent_ip,
				  .depth = x->depth};
	src->lost += x->lost;
	src->cur = &c->ev;
	src->end = src->cur + 1;
	return true;
}

static void live_free(struct live_sink *k)
{
	for (int i = 0; k->cpus && i < k->nr_cpus; i++)
		free(k->cpus[i].v);
	free(k->cpus);
	ut_symtab_free(k->fk.syms);
}

struct ut_reader *ut_reader_open_live(const char *rundir, const int32_t *pids, size_t npids,
				      const struct ut_stream_filter *f, char *err, size_t errlen)
{
	struct ut_reader *r = calloc(1, sizeof(*r));
	int ret = r ? 0 : -ENOMEM;

	if (r) {
		/* a snapshot: the buffers are left as they were */
		r->live.fk = (struct ut_filed_sink){.begin = live_begin, .event = live_event};
		ret = ut_live_replay_filed(rundir, pids, npids, &r->live.fk);
		r->syms = r->live.fk.syms;
	}
	if (!ret && !(r->st = ut_stream_new(f)))
		ret = -ENOMEM;
	for (int i = 0; !ret && i < r->live.nr_cpus; i++) {
		struct live_cpu *c = &r->live.cpus[i];

		c->src.refill = live_refill;
		c->cpu = (uint32_t)i;
		ret = ut_stream_add(r->st, &c->src);
	}
	if (ret) {
		snprintf(err, errlen, "%s: %s", rundir,
			 ret == -ESRCH ? "no traced process" : ut_live_strerror(ret));
		ut_reader_close(r);
		return NULL;
	}
	return r;
}

static unsigned kind_of(uint16_t type)
{
	switch (type) {
	case UT_EV_FUNCTION:
	case UT_EV_FUNCGRAPH_ENTRY:
	case UT_EV_FUNCGRAPH_INLINED:
		return UT_RECORD_CALL;
	case UT_EV_FUNCGRAPH_EXIT:
		return UT_RECORD_RETURN;
	default:
		return UT_RECORD_OTHER;
	}
}

int ut_reader_next(struct ut_reader *r, struct ut_record *rec, char *err, size_t errlen)
{
	struct ut_stream_item it;
	const struct ut_sym *sym;

	if (ut_stream_next(r->st, &it) != 1) {
		if (!r->file.err)
			return 0;
		snprintf(err, errlen, "%s", r->file.errmsg);
		return -EIO;
	}
	*rec = (struct ut_record){.lost = it.lost, .cpu = it.cpu, .kind = UT_RECORD_LOST};
	if (!it.ev)
		return 1;
	rec->kind = kind_of(it.ev->type);
	rec->ts = it.ev->ts;
	rec->tid = it.ev->pid;
	rec->pid = it.ev->tgid;
	rec->ip = it.ev->ip;
	rec->parent_ip = it.ev->parent_ip;
	rec->depth = it.ev->depth;
	sym = rec->kind != UT_RECORD_OTHER ? ut_symtab_lookup(r->syms, rec->ip)
					   : NULL;
	rec->func = sym ? sym->name : NULL;
	return 1;
}

void ut_reader_close(struct ut_reader *r)
{
	if (!r)
		return;
	ut_stream_free(r->st);
	ut_file_src_free(&r->file);
	if (r->td)
		ut_tracedat_close_reader(r->td);
	live_free(&r->live);
	free(r);
}
