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
 *    it with the processes' tables of the same trigger).
 *
 * Counts (":N") and tables live here, per scope and trigger (its identity,
 * common/evtrigger.h), from the first hit until the trigger is written or
 * removed again.  Under the mount's lock (every file operation holds it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/evtrigger.h"
#include "common/evtrigger_filter.h"
#include "common/procev_fields.h"
#include "common/histstr.h"
#include "common/usdt.h"
#include "tracefs/tracefs.h"
#include "utrace/abi.h"
#include "utrace/read.h"

#define MARKER_EV "ftrace:print"

/* One trigger's state in one scope. */
struct mtrig {
	int32_t pid;            /* the scope: 0 the top level, else processes/PID/ */
	char ident[192];        /* the trigger's identity */
	int64_t count;          /* what its ":N" has left; -1 unlimited */
	/* hist: entries (key order of arrival), what was hit and dropped */
	struct ut_hist_entry *ent;
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

/* The state of trigger @t in scope @pid: found, or made with @t's count.  NULL on ENOMEM. */
static struct mtrig *state_of(int32_t pid, const struct ut_evtrig *t)
{
	char ident[sizeof(trigs[0]->ident)];
	struct mtrig *m, **v;

	ut_evtrig_ident(t, ident, sizeof(ident));
	for (size_t i = 0; i < nr_trigs; i++)
		if (trigs[i]->pid == pid && !strcmp(trigs[i]->ident, ident))
			return trigs[i];
	m = calloc(1, sizeof(*m));
	v = m ? realloc(trigs, (nr_trigs + 1) * sizeof(struct mtrig *)) : NULL;
	if (!v) {
		free(m);
		return NULL;
	}
	trigs = v;
	m->pid = pid;
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

void tfs_mtrig_forget(int32_t pid, const char *ident, bool tables_only)
{
	size_t k = 0;

	for (size_t i = 0; i < nr_trigs; i++) {
		struct mtrig *m = trigs[i];
		bool mine = (!pid || m->pid == pid) && !strcmp(m->ident, ident);

		if (mine && tables_only) {
			free(m->ent);
			free(m->strs);
			m->ent = NULL;
			m->strs = NULL;
			m->nent = 0;
			m->hits = m->drops = 0;
		} else if (mine) {
			free(m->ent);
			free(m->strs);
			free(m);
			continue;
		}
		trigs[k++] = m;
	}
	nr_trigs = k;
}

void tfs_mtrig_free(void)
{
	for (size_t i = 0; i < nr_trigs; i++) {
		free(trigs[i]->ent);
		free(trigs[i]->strs);
		free(trigs[i]);
	}
	free(trigs);
	trigs = NULL;
	nr_trigs = 0;
}

bool tfs_mtrig_count(int32_t pid, const char *ident, int64_t *count)
{
	for (size_t i = 0; i < nr_trigs; i++)
		if (trigs[i]->pid == pid && !strcmp(trigs[i]->ident, ident)) {
			*count = trigs[i]->count;
			return true;
		}
	return false;
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

long tfs_mtrig_hist(int32_t pid, const char *ident, uint32_t str_size, struct ut_hist_entry **out,
		    char **strs, uint64_t *hits, uint64_t *drops)
{
	size_t n = 0;
	struct ut_hist_entry *v = NULL;
	char *sv = NULL;

	for (size_t i = 0; i < nr_trigs; i++) {
		const struct mtrig *m = trigs[i];

		if ((pid && m->pid != pid) || strcmp(m->ident, ident) != 0)
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

/* What a hit knows: the fields' slots and the writer. */
struct mhit {
	uint64_t slot[2]; /* ip, buf */
	int32_t tid;
	const char *comm;
};

static uint64_t field(const struct mhit *h, int slot)
{
	if (slot == UT_HIST_SLOT_PID)
		return (uint64_t)h->tid;
	return slot >= 0 && slot < 2 ? h->slot[slot] : 0;
}

/*
 * @t's key of hit @h into @key, and a string key's text into @ks (the
 * entry's keys' strings, @l): its number is ut_hist_str_key()'s, as the
 * runtime's (libutrace/evhist.c), so the processes' tables merge with these.
 */
static void hit_key(const struct ut_evtrig *t, const struct ut_evfmt *fmt,
		    const struct ut_hist_strs *l, const struct mhit *h, struct ut_hist_entry *key,
		    char *ks)
{
	for (unsigned i = 0; i < t->nkeys && i < UT_HIST_KEYS; i++) {
		uint64_t v = field(h, ut_hist_field_slot(fmt, t->keys[i].name));

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
	char *ns;

	if (m->nent >= t->size)
		return NULL;
	nv = realloc(m->ent, (m->nent + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	m->ent = nv;
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

/* A hist trigger's hit counted in its table (a linear search: the tables stay small). */
static void hist_hit(struct mtrig *m, const struct ut_evtrig *t, const struct ut_evfmt *fmt,
		     const struct mhit *h)
{
	struct ut_hist_entry key = {.state = 2}, *e = NULL;
	struct ut_hist_strs l;
	char ks[UT_HIST_KEY_BYTES_MAX] = "";

	ut_hist_strs_layout(t, fmt, &l);
	hit_key(t, fmt, &l, h, &key, ks);
	m->hits++;
	for (size_t i = 0; i < m->nent && !e; i++)
		if (!memcmp(m->ent[i].key, key.key, sizeof(key.key)) &&
		    (!l.keys || (m->strs && !memcmp(m->strs + i * m->str_size, ks, l.keys))))
			e = &m->ent[i];
	if (!e) {
		e = new_entry(m, t, &l, &key, ks);
		if (!e) {
			m->drops++;
			return;
		}
		snprintf(e->comm, sizeof(e->comm), "%s", h->comm);
	}
	e->hits++;
	for (unsigned i = 0; i < t->nvals && i < UT_HIST_VALS; i++)
		e->val[i] += field(h, ut_hist_field_slot(fmt, t->vals[i].name));
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

/* Trigger @t acts on hit @h (its filter passed). */
static void act(struct tfs_req *r, const struct ut_evtrig *t, const struct ut_evfmt *fmt,
		const struct mhit *h)
{
	struct mtrig *m = state_of(r->sc->pid, t);

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
			hist_hit(m, t, fmt, h);
		break;
	}
}

/* Whether hit @h passes trigger @t's filter (none: it does). */
static bool passes(const struct ut_evtrig *t, const struct ut_evfmt *fmt, const struct mhit *h)
{
	struct ut_evtrig_filter *f;
	struct ut_evtrig_ctx ctx = {.pid = h->tid, .comm = h->comm};
	bool yes;

	if (!t->filter[0])
		return true;
	f = ut_evtrig_filter_compile(t->filter, fmt);
	if (!f)
		return false;
	yes = ut_evtrig_filter_match(f, h->slot, 2, &ctx);
	ut_evtrig_filter_free(f);
	return yes;
}

void tfs_mtrig_fire(struct tfs_req *r, const char *triggers, int32_t tid, const char *comm,
		    const char *text)
{
	struct mhit h = {.slot = {0, (uint64_t)(uintptr_t)text}, .tid = tid, .comm = comm};
	const char *lines[UT_EVTRIGS_MAX], *p;
	size_t lens[UT_EVTRIGS_MAX], n, nr = 0;
	struct ut_evfmt fmt;

	if (r->sc->inst) /* an instance has no events/ */
		return;
	for (p = tfs_evtrig_next(triggers, MARKER_EV, &n); p && nr < UT_EVTRIGS_MAX;
	     p = tfs_evtrig_next(p + n, MARKER_EV, &n)) {
		lines[nr] = p;
		lens[nr++] = n;
	}
	if (!nr || !tfs_mtrig_format(&fmt))
		return;
	while (nr--) { /* newest first, as the kernel's list */
		struct ut_evtrig t;
		struct ut_evtrig_err err;

		if (!ut_evtrig_parse(lines[nr], lens[nr], &t, &err) && !t.remove &&
		    passes(&t, &fmt, &h))
			act(r, &t, &fmt, &h);
	}
}
