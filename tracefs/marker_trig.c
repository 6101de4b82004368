// SPDX-License-Identifier: MIT
/*
 * The triggers of ftrace:print, the kernel's event of trace_marker
 * (events/ftrace/print/trigger, hist).  The kernel runs them in the task
 * that writes to trace_marker, as part of the write; here that writer is
 * the mount (tracefs/files.c writes the marker into the scope's buffers),
 * so the mount runs them, right after the marker is written, where the
 * other events' triggers run in the traced process (libutrace/evtrigger.c,
 * which runs ftrace:print's only for the program's own utrace_marker()).
 *
 * The triggers are the scope's configuration's "ftrace:print ..." lines,
 * written through the trigger file as any event's.  The fields are the
 * kernel's: ip (0: no kernel function wrote it) and buf (the text as
 * written, trailing newline included, as the kernel's triggers see it;
 * its slot holds the text's address, strings being slots to the triggers),
 * with common_pid the writing thread.  What each does:
 *
 *  - traceon/traceoff switch the scope's tracing_on (as its file does);
 *  - snapshot takes the scope's snapshot (as `echo 1 > snapshot`), with
 *    the marker that fired it in it, as the kernel's swap after the commit;
 *  - enable_event/disable_event enable or disable their target in the
 *    scope (a set_event word: the target is then recorded, not soft-enabled);
 *  - stacktrace counts, but records nothing: the writer is another
 *    process, whose stack the mount cannot read;
 *  - hist counts the hit in a table the mount keeps (the hist file merges
 *    it with the processes' tables of the same trigger); a hist with
 *    variables keeps them per entry, and its onmatch() generates a
 *    synthetic event whose triggers the mount runs the same way
 *    (tracefs/marker_vars.c).
 *
 * Counts (":N") and tables live here, per scope, event and trigger (its
 * identity, common/evtrigger.h), from the first hit until the trigger is
 * written or removed again.  Under the mount's lock (every file operation
 * holds it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/evtrigger.h"
#include "common/evtrigger_filter.h"
#include "common/procev_fields.h"
#include "common/histstr.h"
#include "common/histvar_run.h"
#include "common/synth.h"
#include "common/usdt.h"
#include "tracefs/tracefs.h"
#include "utrace/abi.h"
#include "utrace/read.h"

#define MARKER_EV "ftrace:print"

/* One trigger's state in one scope. */
struct mtrig {
	int32_t pid;            /* the scope: 0 the top level, else processes/PID/ */
	char ev[TFS_EV_MAX];    /* its event, "ftrace:print" or "synthetic:NAME" */
	char ident[256];        /* the trigger's identity */
	int64_t count;          /* what its ":N" has left; -1 unlimited */
	/* hist: entries (key order of arrival), what was hit and dropped */
	struct ut_hist_entry *ent;
	struct ut_hist_vars *vars; /* beside each entry: its variables (a trigger with some) */
	size_t nent;
	uint64_t hits, drops;
	/* the entries' strings (common/histstr.h): str_size bytes each, a string key's text */
	char *strs;
	uint32_t str_size;
};

static struct mtrig **trigs;
static size_t nr_trigs;

bool tfs_mtrig_event(const char *ev)
{
	return !strcmp(ev, MARKER_EV);
}

bool tfs_mtrig_format(struct ut_evfmt *f)
{
	const struct ut_procev *e = ut_procev_find("ftrace", "print");

	return e && ut_procev_evfmt(e, f);
}

/* The state of trigger @ident of event @ev in scope @pid; NULL before its first hit. */
static struct mtrig *find_state(int32_t pid, const char *ev, const char *ident)
{
	for (size_t i = 0; i < nr_trigs; i++)
		if (trigs[i]->pid == pid && !strcmp(trigs[i]->ev, ev) &&
		    !strcmp(trigs[i]->ident, ident))
			return trigs[i];
	return NULL;
}

/* The state of trigger @t of @ev in scope @pid: found, or made with @t's count.  NULL on ENOMEM. */
static struct mtrig *state_of(int32_t pid, const char *ev, const struct ut_evtrig *t)
{
	char ident[sizeof(trigs[0]->ident)];
	struct mtrig *m, **v;

	ut_evtrig_ident(t, ident, sizeof(ident));
	m = find_state(pid, ev, ident);
	if (m)
		return m;
	m = calloc(1, sizeof(*m));
	v = m ? realloc(trigs, (nr_trigs + 1) * sizeof(struct mtrig *)) : NULL;
	if (!v) {
		free(m);
		return NULL;
	}
	trigs = v;
	m->pid = pid;
	snprintf(m->ev, sizeof(m->ev), "%s", ev);
	memcpy(m->ident, ident, sizeof(ident));
	m->count = t->counted ? t->count : -1;
	trigs[nr_trigs++] = m;
	return m;
}

/* Take one from @m's count; false if it has none left. */
static bool take(struct mtrig *m)
{
	if (!m || !m->count)
		return false;
	if (m->count > 0)
		m->count--;
	return true;
}

/* Trigger state @m's tables emptied. */
static void empty(struct mtrig *m)
{
	free(m->ent);
	free(m->vars);
	free(m->strs);
	m->ent = NULL;
	m->vars = NULL;
	m->strs = NULL;
	m->nent = 0;
	m->hits = m->drops = 0;
}

void tfs_mtrig_forget(int32_t pid, const char *ev, const char *ident, bool tables_only)
{
	size_t k = 0;

	for (size_t i = 0; i < nr_trigs; i++) {
		struct mtrig *m = trigs[i];
		bool mine = (!pid || m->pid == pid) && !strcmp(m->ev, ev) && !strcmp(m->ident, ident);

		if (mine) {
			empty(m);
			if (!tables_only) {
				free(m);
				continue;
			}
		}
		trigs[k++] = m;
	}
	nr_trigs = k;
}

void tfs_mtrig_free(void)
{
	for (size_t i = 0; i < nr_trigs; i++) {
		empty(trigs[i]);
		free(trigs[i]);
	}
	free(trigs);
	trigs = NULL;
	nr_trigs = 0;
}

bool tfs_mtrig_count(int32_t pid, const char *ev, const char *ident, int64_t *count)
{
	const struct mtrig *m = find_state(pid, ev, ident);

	if (m)
		*count = m->count;
	return m != NULL;
}

/* Append @m's entries (and their strings, @size bytes each) to *@v / *@sv, @n so far. */
static size_t append(const struct mtrig *m, struct ut_hist_entry **v, char **sv, size_t n,
		     uint32_t size)
{
	struct ut_hist_entry *nv = realloc(*v, (n + m->nent) * sizeof(**v));
	char *ns;

	if (!nv)
		return n;
	*v = nv;
	if (size) {
		ns = realloc(*sv, (n + m->nent) * size);
		if (!ns)
			return n;
		*sv = ns;
		if (m->strs && m->str_size == size)
			memcpy(ns + n * size, m->strs, m->nent * size);
		else
			memset(ns + n * size, 0, m->nent * size);
	}
	memcpy(nv + n, m->ent, m->nent * sizeof(**v));
	return n + m->nent;
}

long tfs_mtrig_hist(int32_t pid, const char *ev, const char *ident, uint32_t str_size,
		    struct ut_hist_entry **out, char **strs, uint64_t *hits, uint64_t *drops)
{
	size_t n = 0;
	struct ut_hist_entry *v = NULL;
	char *sv = NULL;

	for (size_t i = 0; i < nr_trigs; i++) {
		const struct mtrig *m = trigs[i];

		if ((pid && m->pid != pid) || strcmp(m->ev, ev) != 0 || strcmp(m->ident, ident) != 0)
			continue;
		*hits += m->hits;
		*drops += m->drops;
		if (m->nent)
			n = append(m, &v, &sv, n, str_size);
	}
	*out = v;
	*strs = sv;
	return (long)n;
}

uint64_t tfs_mhit_field(const struct tfs_mhit *h, int slot)
{
	if (slot == UT_HIST_SLOT_PID)
		return (uint64_t)h->tid;
	return slot >= 0 && (unsigned)slot < h->nslots ? h->slot[slot] : 0;
}

void tfs_mhit_key(const struct ut_evtrig *t, const struct ut_evfmt *fmt,
		  const struct ut_hist_strs *l, const struct tfs_mhit *h, struct ut_hist_entry *key,
		  char *ks)
{
	for (unsigned i = 0; i < t->nkeys && i < UT_HIST_KEYS; i++) {
		uint64_t v = tfs_mhit_field(h, ut_hist_field_slot(fmt, t->keys[i].name));

		key->key[i] = l->key_size[i] ? ut_hist_str_key(ks + l->key_off[i], l->key_size[i], v)
					     : ut_hist_key_value(&t->keys[i], v);
	}
}

/* A new entry for @key (its keys' strings @ks) in @m, or NULL (full: a drop). */
static struct ut_hist_entry *new_entry(struct mtrig *m, const struct ut_evtrig *t,
				       const struct ut_hist_strs *l,
				       const struct ut_hist_entry *key, const char *ks)
{
	struct ut_hist_entry *nv;
	struct ut_hist_vars *vv;
	char *ns;

	if (m->nent >= t->size)
		return NULL;
	nv = realloc(m->ent, (m->nent + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	m->ent = nv;
	vv = t->hv.nvars ? realloc(m->vars, (m->nent + 1) * sizeof(*vv)) : NULL;
	if (t->hv.nvars && !vv)
		return NULL;
	if (vv) {
		m->vars = vv;
		memset(&vv[m->nent], 0, sizeof(*vv));
	}
	if (l->size) {
		ns = realloc(m->strs, (m->nent + 1) * l->size);
		if (!ns)
			return NULL;
		m->strs = ns;
		m->str_size = l->size;
		memset(ns + m->nent * l->size, 0, l->size);
		memcpy(ns + m->nent * l->size, ks, l->keys);
	}
	nv[m->nent] = *key;
	return &nv[m->nent++];
}

/* The entry of @key (its keys' strings @ks, @klen bytes) in @m, or NULL. */
static struct ut_hist_entry *find_entry(const struct mtrig *m, const struct ut_hist_entry *key,
					const char *ks, uint32_t klen)
{
	for (size_t i = 0; i < m->nent; i++)
		if (!memcmp(m->ent[i].key, key->key, sizeof(key->key)) &&
		    (!klen || (m->strs && m->str_size >= klen &&
			       !memcmp(m->strs + i * m->str_size, ks, klen))))
			return &m->ent[i];
	return NULL;
}

bool tfs_mtrig_read_var(int32_t pid, const char *ev, const struct ut_evtrig *o, unsigned idx,
			const struct ut_hist_entry *key, const char *ks, uint32_t klen,
			uint64_t *x, char *sbuf)
{
	char ident[sizeof(trigs[0]->ident)];
	struct ut_hist_strs l;
	struct ut_evfmt fmt;
	struct mtrig *m;
	struct ut_hist_entry *e;
	struct ut_hist_vars *v;

	ut_evtrig_ident(o, ident, sizeof(ident));
	m = find_state(pid, ev, ident);
	e = m && m->vars ? find_entry(m, key, ks, klen) : NULL;
	v = e ? &m->vars[e - m->ent] : NULL;
	if (!v || !ut_hist_var_take(v, idx, x)) /* read once, as the kernel's */
		return false;
	if (tfs_mtrig_evfmt(ev, &fmt) && (ut_hist_strs_layout(o, &fmt, &l), l.var_size[idx]) &&
	    m->strs && m->str_size == l.size) { /* a string: its text, copied out of the entry */
		ut_hist_str_copy(sbuf, UT_HIST_STR_MAX,
				 (uint64_t)(uintptr_t)(m->strs + (size_t)(e - m->ent) * m->str_size +
						       l.var_off[idx]));
		*x = (uint64_t)(uintptr_t)sbuf;
	}
	return true;
}

/* Variables @val of @t stored in entry @e of @m (a string's text into the entry's strings). */
static void store_vars(struct mtrig *m, const struct ut_evtrig *t, const struct ut_hist_strs *l,
		       const struct ut_hist_entry *e, const uint64_t *val)
{
	size_t k = (size_t)(e - m->ent);
	struct ut_hist_vars *v = m->vars ? &m->vars[k] : NULL;

	for (uint8_t i = 0; v && i < t->hv.nvars && i < UT_HIST_VARS; i++) {
		if (l->var_size[i] && m->strs && m->str_size == l->size)
			ut_hist_str_copy(m->strs + k * m->str_size + l->var_off[i], l->var_size[i],
					 val[i]);
		ut_hist_var_put(v, i, l->var_size[i] ? 0 : val[i]);
	}
}

/*
 * A hist trigger's hit counted in its table (a linear search: the tables
 * stay small).  With variables (tracefs/marker_vars.c): they are worked
 * out first (a $ref not set drops the hit, uncounted, as the kernel),
 * stored in the entry, then the onmatch() actions run.
 */
static void hist_hit(const struct tfs_mrun *run, struct mtrig *m, const struct ut_evtrig *t,
		     const struct ut_evfmt *fmt, const struct tfs_mhit *h)
{
	struct ut_hist_entry key = {.state = 2}, *e;
	struct ut_hist_strs l;
	char ks[UT_HIST_KEY_BYTES_MAX] = "";
	struct tfs_mvals *v = NULL;
	bool vars = t->hv.nvars || t->hv.nactions;

	ut_hist_strs_layout(t, fmt, &l);
	tfs_mhit_key(t, fmt, &l, h, &key, ks);
	if (vars) { /* (some KiB of strings: not on the FUSE thread's stack) */
		v = calloc(1, sizeof(*v));
		if (!v || !tfs_mvar_values(run, m->ev, t, fmt, h, &key, ks, l.keys, v)) {
			free(v);
			return;
		}
	}
	m->hits++;
	e = find_entry(m, &key, ks, l.keys);
	if (!e) {
		e = new_entry(m, t, &l, &key, ks);
		if (!e) {
			m->drops++;
			free(v);
			return;
		}
		snprintf(e->comm, sizeof(e->comm), "%s", h->comm);
	}
	e->hits++;
	for (unsigned i = 0; i < t->nvals && i < UT_HIST_VALS; i++)
		e->val[i] += tfs_mhit_field(h, ut_hist_field_slot(fmt, t->vals[i].name));
	if (v) {
		store_vars(m, t, &l, e, v->val);
		tfs_mvar_actions(run, t, fmt, h, v);
	}
	free(v);
}

/* The scope's tracing_on as its file reads it. */
static bool scope_on(struct tfs_scope *sc)
{
	struct ut_cfg c;
	bool on;

	if (sc->inst)
		return ut_inst_tracing_on(tfs_rundir, sc->inst) != 0;
	if (tfs_scope_config(sc, &c))
		return false;
	on = sc->pid ? c.tracing_on : tfs_top_tracing_on(c.tracing_on);
	ut_cfg_free(&c);
	return on;
}

/* enable_event/disable_event: the target's set_event word, if it changes something. */
static void switch_target(struct tfs_req *r, const struct ut_evtrig *t, struct mtrig *m)
{
	bool want = t->cmd == UT_ET_ENABLE, on = false;
	struct ut_cfg c;
	char word[2 * UT_EVTRIG_NAME_MAX + 3];

	if (!tfs_scope_config(r->sc, &c)) {
		on = ut_usdt_selected(c.events, t->sys, t->evt);
		ut_cfg_free(&c);
	}
	if (on == want || !take(m))
		return;
	snprintf(word, sizeof(word), "%s%s:%s", want ? "" : "!", t->sys, t->evt);
	tfs_store_set_event(r, word, strlen(word), true);
}

/* Trigger @t of event @ev acts on hit @h (its filter passed). */
static void act(const struct tfs_mrun *run, const char *ev, const struct ut_evtrig *t,
		const struct ut_evfmt *fmt, const struct tfs_mhit *h)
{
	struct tfs_req *r = run->r;
	struct mtrig *m = state_of(r->sc->pid, ev, t);

	switch (t->cmd) {
	case UT_ET_TRACEON:
	case UT_ET_TRACEOFF:
		if (scope_on(r->sc) != (t->cmd == UT_ET_TRACEON) && take(m))
			tfs_scope_set_tracing_on(r->sc, t->cmd == UT_ET_TRACEON);
		break;
	case UT_ET_SNAPSHOT:
		if (r->sc->snap && take(m))
			tfs_store_snapshot(r, "1", 1, false);
		break;
	case UT_ET_STACKTRACE:
		take(m);
		break;
	case UT_ET_ENABLE:
	case UT_ET_DISABLE:
		switch_target(r, t, m);
		break;
	case UT_ET_HIST:
		if (m && !t->pause)
			hist_hit(run, m, t, fmt, h);
		break;
	}
}

/* Whether hit @h passes trigger @t's filter (none: it does). */
static bool passes(const struct ut_evtrig *t, const struct ut_evfmt *fmt,
		   const struct tfs_mhit *h)
{
	struct ut_evtrig_filter *f;
	struct ut_evtrig_ctx ctx = {.pid = h->tid, .comm = h->comm};
	bool yes;

	if (!t->filter[0])
		return true;
	f = ut_evtrig_filter_compile(t->filter, fmt);
	if (!f)
		return false;
	yes = ut_evtrig_filter_match(f, h->slot, h->nslots, &ctx);
	ut_evtrig_filter_free(f);
	return yes;
}

bool tfs_mtrig_evfmt(const char *ev, struct ut_evfmt *fmt)
{
	struct ut_synth_def d;
	struct ut_cfg c;
	bool found;

	if (tfs_mtrig_event(ev))
		return tfs_mtrig_format(fmt);
	if (strncmp(ev, UT_SYNTH_SYSTEM ":", sizeof(UT_SYNTH_SYSTEM)) != 0 ||
	    tfs_scope_config(tfs_scope_get(0), &c))
		return false;
	/* synthetic events are the top level's (tracefs/synth_events.c) */
	found = ut_synth_find(c.synth, ev + sizeof(UT_SYNTH_SYSTEM), &d);
	ut_cfg_free(&c);
	if (found)
		ut_synth_evfmt(&d, fmt);
	return found;
}

void tfs_mtrig_run(const struct tfs_mrun *run, const char *ev, const struct tfs_mhit *h)
{
	const char *lines[UT_EVTRIGS_MAX], *p;
	size_t lens[UT_EVTRIGS_MAX], n, nr = 0;
	struct ut_evfmt fmt;

	if (run->r->sc->inst) /* an instance has no events/ */
		return;
	for (p = tfs_evtrig_next(run->triggers, ev, &n); p && nr < UT_EVTRIGS_MAX;
	     p = tfs_evtrig_next(p + n, ev, &n)) {
		lines[nr] = p;
		lens[nr++] = n;
	}
	if (!nr || !tfs_mtrig_evfmt(ev, &fmt))
		return;
	while (nr--) { /* newest first, as the kernel's list */
		struct ut_evtrig t;
		struct ut_evtrig_err err;

		if (!ut_evtrig_parse(lines[nr], lens[nr], &t, &err) && !t.remove &&
		    passes(&t, &fmt, h))
			act(run, ev, &t, &fmt, h);
	}
}

void tfs_mtrig_fire(struct tfs_req *r, const char *triggers, const char *sessdir, int32_t tid,
		    const char *comm, const char *text, uint64_t ts)
{
	struct tfs_mrun run = {.r = r, .triggers = triggers, .sessdir = sessdir};
	struct tfs_mhit h = {.slot = {0, (uint64_t)(uintptr_t)text},
			     .nslots = 2, /* ip, buf */
			     .tid = tid,
			     .comm = comm,
			     .ts = ts};

	tfs_mtrig_run(&run, MARKER_EV, &h);
}
