// SPDX-License-Identifier: MIT
/*
 * events/SYS/EVT/hist: the tables of the event's hist triggers in the
 * kernel's format (histogram.rst): for each trigger, newest first, the
 * "# event histogram" header with the trigger's definition, one
 * "{ key: value } hitcount: N  val: M" line per entry in the trigger's
 * sort order, and the totals.  Each process counts in its own shared
 * table (libutrace/evhist.c, file hist.<N> of its session); the scope's
 * tables are merged here, those of processes that have exited included:
 * the same key in two processes is one entry with the sums of both.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/evtrigger.h"
#include "common/histstr.h"
#include "common/symbols.h"
#include "common/usdt_events.h"
#include "tracefs/tracefs.h"
#include "utrace/abi.h"
#include "utrace/read.h"

/* Session hist files are hist.0, hist.1, ... (libutrace/evtrigger.c keeps at most 16). */
#define MAX_HIST_FILES 16

/* An entry with its onmax/onchange track (the kernel prints it under the entry). */
struct mentry {
	struct ut_hist_entry e;
	struct ut_hist_vars v; /* flags 0: no track */
	const char *s;	       /* its strings (common/histstr.h), NULL: none */
};

struct merged {
	struct mentry *v;
	size_t n, cap;
	uint64_t hits, drops;
	const struct ut_hist_strs *l; /* the strings' layout of the trigger's entries */
	char **bufs;		      /* the tables' strings the entries point into */
	size_t nbufs;
	/* .snapshot(): the value and entry of the last snapshot (the greatest for onmax) */
	bool snap;
	uint64_t snap_track;
	struct ut_hist_entry snap_e;
};

/* What the sort compares: the trigger, which key fields are signed, where strings are. */
struct sort_ctx {
	const struct ut_evtrig *t;
	bool key_signed[UT_HIST_MAX_KEYS];
	const struct ut_hist_strs *l;
};

bool tfs_sess_has_triggers(const char *sessdir)
{
	char path[PATH_MAX];

	return snprintf(path, sizeof(path), "%s/evtrig", sessdir) < (int)sizeof(path) &&
	       access(path, F_OK) == 0;
}

/* Whether session @s belongs to the scope (the top: every process, exited ones too). */
static bool in_scope(const struct tfs_scope *sc, const struct ut_live_sess *s)
{
	return !s->markers && (!sc->pid || s->pid == sc->pid);
}

/* Entries by key: the numbers (a string's hash), then the keys' strings. */
static int cmp_key(const void *a, const void *b, void *arg)
{
	const struct mentry *x = a, *y = b;
	const struct ut_hist_strs *l = arg;
	int r = memcmp(x->e.key, y->e.key, sizeof(x->e.key));

	if (r || !l->keys || !x->s || !y->s)
		return r ? r : (x->s != NULL) - (y->s != NULL);
	return memcmp(x->s, y->s, l->keys);
}

/* The track of @b merged into @a's: the greater for onmax, any for onchange. */
static void merge_track(struct ut_hist_vars *a, const struct ut_hist_vars *b)
{
	if ((b->flags & 1) && (!(a->flags & 1) || b->track > a->track))
		*a = *b;
}

/* Entries with the same key (from several processes) made one. */
static void combine(struct merged *m)
{
	size_t k = 0;

	if (!m->n)
		return;
	qsort_r(m->v, m->n, sizeof(*m->v), cmp_key, (void *)m->l);
	for (size_t i = 1; i < m->n; i++) {
		struct mentry *d = &m->v[k];

		if (!cmp_key(d, &m->v[i], (void *)m->l)) {
			d->e.hits += m->v[i].e.hits;
			for (int j = 0; j < UT_HIST_VALS; j++)
				d->e.val[j] += m->v[i].e.val[j];
			merge_track(&d->v, &m->v[i].v);
			continue;
		}
		m->v[++k] = m->v[i];
	}
	m->n = k + 1;
}

/*
 * Keep a table's strings @hs (NULL: none) until @m is printed: its entries
 * point into them.  @hs, or NULL when there is no room (freed: the keys
 * print empty).
 */
static char *keep_strs(struct merged *m, char *hs)
{
	char **bufs;

	if (!hs)
		return NULL;
	bufs = realloc(m->bufs, (m->nbufs + 1) * sizeof(*bufs));
	if (!bufs) {
		free(hs);
		return NULL;
	}
	m->bufs = bufs;
	m->bufs[m->nbufs++] = hs;
	return hs;
}

/* Add the entries of session @dir's table of sys:evt/@ident to @m. */
static void add_session(struct merged *m, const char *dir, const char *sys, const char *evt,
			const char *ident)
{
	for (uint32_t n = 0; n < MAX_HIST_FILES; n++) {
		struct ut_hist_hdr h;
		struct ut_hist_entry *e = NULL;
		struct ut_hist_vars *hv = NULL;
		struct mentry *v;
		char *hs = NULL;
		long k = ut_live_hist_all(dir, n, &h, &e, &hv, &hs);

		if (k == -ENOENT)
			break;
		if (k < 0 || h.removed || strcmp(h.sys, sys) != 0 || strcmp(h.evt, evt) != 0 ||
		    strncmp(h.ident, ident, sizeof(h.ident) - 1) != 0) {
			free(e);
			free(hv);
			free(hs);
			continue;
		}
		if (hs && (h.str_size != m->l->size || h.str_keys != m->l->keys)) {
			free(hs); /* laid out otherwise than the trigger says: no strings */
			hs = NULL;
		}
		hs = keep_strs(m, hs);
		m->hits += h.hits;
		m->drops += h.drops;
		if ((h.snap_taken & 1) && h.snap_slot && h.snap_slot <= (uint64_t)k &&
		    (!m->snap || h.snap_track > m->snap_track)) {
			m->snap = true;
			m->snap_track = h.snap_track;
			m->snap_e = e[h.snap_slot - 1];
		}
		v = k ? realloc(m->v, (m->n + (size_t)k) * sizeof(*v)) : m->v;
		if (v) {
			for (long i = 0; i < k; i++) {
				v[m->n + (size_t)i].e = e[i];
				if (hv)
					v[m->n + (size_t)i].v = hv[i];
				else
					memset(&v[m->n + (size_t)i].v, 0, sizeof(v[0].v));
				v[m->n + (size_t)i].s = hs ? hs + (size_t)i * h.str_size : NULL;
			}
			m->v = v;
			m->n += (size_t)k;
		}
		free(e);
		free(hv);
	}
}

/*
 * The tables the mount keeps for the triggers it runs (tracefs/marker_trig.c:
 * ftrace:print's, and those of the synthetic events they generate) of
 * event @ev, added to @m.
 */
static void add_marker_tables(struct merged *m, const struct tfs_scope *sc, const char *ev,
			      const char *ident)
{
	struct ut_hist_entry *e = NULL;
	char *hs = NULL;
	uint32_t size = m->l->size;
	long k = tfs_mtrig_hist(sc->pid, ev, ident, size, &e, &hs, &m->hits, &m->drops);
	struct mentry *v = k > 0 ? realloc(m->v, (m->n + (size_t)k) * sizeof(*v)) : NULL;

	hs = keep_strs(m, hs);
	for (long i = 0; v && i < k; i++) {
		memset(&v[m->n + (size_t)i], 0, sizeof(*v));
		v[m->n + (size_t)i].e = e[i];
		v[m->n + (size_t)i].s = hs ? hs + (size_t)i * size : NULL;
	}
	if (v) {
		m->v = v;
		m->n += (size_t)k;
	}
	free(e);
}

/* The scope's sessions' tables of sys:evt/@ident, merged into @m. */
static void collect(const struct tfs_scope *sc, const char *sys, const char *evt,
		    const char *ident, struct merged *m)
{
	struct ut_live_sess *v = NULL;
	long n = ut_live_list(tfs_rundir, &v);
	char ev[TFS_EV_MAX];

	for (long i = 0; i < n; i++)
		if (in_scope(sc, &v[i]))
			add_session(m, v[i].dir, sys, evt, ident);
	if (n > 0)
		free(v);
	snprintf(ev, sizeof(ev), "%s:%s", sys, evt);
	add_marker_tables(m, sc, ev, ident);
	combine(m);
}

static uint64_t sort_value(const struct mentry *me, int what)
{
	const struct ut_hist_entry *e = &me->e;

	return !what ? e->hits : what > 0 ? e->val[what - 1] : e->key[-what - 1];
}

/* A string key's text in entry @me ("" if the entry has no strings). */
static const char *key_str(const struct mentry *me, const struct ut_hist_strs *l, int k)
{
	return me->s ? me->s + l->key_off[k] : "";
}

static int cmp_sort(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;

	for (uint8_t i = 0; i < c->t->nsort; i++) {
		int w = c->t->sort[i].what;
		uint64_t x = sort_value(a, w), y = sort_value(b, w);
		int r;

		if (w < 0 && c->l->key_size[-w - 1]) { /* a string key: by its text, as the kernel */
			r = strcmp(key_str(a, c->l, -w - 1), key_str(b, c->l, -w - 1));
			r = r < 0 ? -1 : r > 0;
		} else if (w < 0 && c->key_signed[-w - 1])
			r = (int64_t)x < (int64_t)y ? -1 : (int64_t)x > (int64_t)y;
		else
			r = x < y ? -1 : x > y;
		if (r)
			return c->t->sort[i].descending ? -r : r;
	}
	return 0;
}

/*
 * An address as the kernel's sprint_symbol prints it: "name" (.sym), or
 * "name+0xOFF/0xSIZE [module]" (.sym-offset); unknown: "0x..." (the
 * scope's symbols: a key of one process's address space is looked up in
 * them all, as the kernel has one).
 */
static void sym_text(const struct ut_symtab *st, uint64_t v, bool offset, char *buf, size_t len)
{
	const struct ut_sym *sym = st ? ut_symtab_lookup(st, v) : NULL;

	if (sym && sym->size && v >= sym->addr + sym->size)
		sym = NULL; /* past the function's end: not in it */
	if (!sym || !sym->name || !*sym->name)
		snprintf(buf, len, "0x%" PRIx64, v);
	else if (!offset)
		snprintf(buf, len, "%s", sym->name);
	else
		snprintf(buf, len, "%s+0x%" PRIx64 "/0x%" PRIx64 "%s%s%s", sym->name, v - sym->addr,
			 sym->size, sym->module ? " [" : "", sym->module ? sym->module : "",
			 sym->module ? "]" : "");
}

/* One key field of an entry, as the kernel's hist_trigger_print_key (@str: a string key's text). */
static void print_key(FILE *f, const struct ut_hist_field *k, uint64_t v, const char *comm,
		      const char *str, const struct ut_symtab *st)
{
	char sym[256];

	if (str) {
		fprintf(f, "%s: %-50s", k->name, str);
		return;
	}
	if (k->flags & (UT_HF_SYM | UT_HF_SYM_OFFSET))
		sym_text(st, v, k->flags & UT_HF_SYM_OFFSET, sym, sizeof(sym));
	if (k->flags & UT_HF_HEX)
		fprintf(f, "%s: %" PRIx64, k->name, v);
	else if (k->flags & UT_HF_SYM)
		fprintf(f, "%s: [%" PRIx64 "] %-45s", k->name, v, sym);
	else if (k->flags & UT_HF_SYM_OFFSET)
		fprintf(f, "%s: [%" PRIx64 "] %-55s", k->name, v, sym);
	else if (k->flags & UT_HF_EXECNAME)
		fprintf(f, "%s: %-16s[%10" PRIu64 "]", k->name, comm, v);
	else if (k->flags & UT_HF_LOG2)
		fprintf(f, "%s: ~ 2^%-2ld", k->name, (long)v);
	else if (k->flags & UT_HF_BUCKETS)
		fprintf(f, "%s: ~ %" PRIu64 "-%" PRIu64, k->name, v, v + k->buckets - 1);
	else
		fprintf(f, "%s: %10" PRIu64, k->name, v);
}

/* onmax/onchange: "max: N" (or "changed: N") and the fields saved with it, as the kernel. */
static void print_track(FILE *f, const struct ut_evtrig *t, const struct mentry *me,
			const struct ut_hist_strs *l)
{
	const struct ut_hist_vars *v = &me->v;

	for (uint8_t i = 0; i < t->hv.nactions; i++) {
		const struct ut_hist_action *a = &t->hv.act[i];

		if (a->handler == UT_HH_ONMATCH)
			continue;
		fprintf(f, "\n\t%s: %10" PRIu64, a->handler == UT_HH_ONMAX ? "max" : "changed",
			(v->flags & 1) ? v->track : 0);
		for (uint8_t j = 0; a->action == UT_HA_SAVE && j < a->nparams && j < UT_HIST_SAVES;
		     j++)
			if (l->save_size[j])
				fprintf(f, "  %s: %-32s", a->param[j],
					(v->flags & 1) && me->s ? me->s + l->save_off[j] : "");
			else
				fprintf(f, "  %s: %10" PRIu64, a->param[j],
					(v->flags & 1) ? v->save[j] : 0);
	}
}

/* An entry's key, "{ k1: v1, k2: v2 }" (@me: where its strings are; NULL: none known). */
static void print_keys(FILE *f, const struct ut_evtrig *t, const struct ut_hist_entry *e,
		       const struct mentry *me, const struct ut_hist_strs *l,
		       const struct ut_symtab *st)
{
	fputs("{ ", f);
	for (uint8_t i = 0; i < t->nkeys; i++) {
		if (i)
			fputs(", ", f);
		print_key(f, &t->keys[i], e->key[i], e->comm,
			  l->key_size[i] ? (me ? key_str(me, l, i) : "") : NULL, st);
	}
	fputs(" }", f);
}

static void print_entry(FILE *f, const struct ut_evtrig *t, const struct mentry *me,
			const struct ut_hist_strs *l, const struct ut_symtab *st)
{
	const struct ut_hist_entry *e = &me->e;

	print_keys(f, t, e, me, l, st);
	fprintf(f, " hitcount: %10" PRIu64, e->hits);
	for (uint8_t i = 0; i < t->nvals; i++)
		fprintf(f, (t->vals[i].flags & UT_HF_HEX) ? "  %s: %10" PRIx64 : "  %s: %10" PRIu64,
			t->vals[i].name, e->val[i]);
	print_track(f, t, me, l);
	fputc('\n', f);
}

/* .snapshot()'s lines after the entries, as the kernel's, once one was taken. */
/* The merged entry whose keys are @e's: where its strings are (NULL: none). */
static const struct mentry *entry_of(const struct merged *m, const struct ut_hist_entry *e)
{
	for (size_t i = 0; i < m->n; i++)
		if (!memcmp(m->v[i].e.key, e->key, sizeof(e->key)))
			return &m->v[i];
	return NULL;
}

static void print_snapshot(FILE *f, const struct ut_evtrig *t, const struct merged *m,
			   const struct ut_hist_strs *l, const struct ut_symtab *st)
{
	for (uint8_t i = 0; m->snap && i < t->hv.nactions; i++) {
		const struct ut_hist_action *a = &t->hv.act[i];

		if (a->action != UT_HA_SNAPSHOT)
			continue;
		fprintf(f, "\nSnapshot taken (see tracing/snapshot).  Details:\n"
			   "\ttriggering value { %s($%s) }: %10" PRIu64 "\ttriggered by event with key: ",
			a->handler == UT_HH_ONMAX ? "onmax" : "onchange", a->var, m->snap_track);
		print_keys(f, t, &m->snap_e, entry_of(m, &m->snap_e), l, st);
		fputc('\n', f);
		return;
	}
}

/* Which key fields of @t are signed arguments of the event (format @fmt). */
static void signedness(struct sort_ctx *c, const struct ut_evfmt *fmt)
{
	for (uint8_t i = 0; i < c->t->nkeys; i++) {
		unsigned a = (unsigned)atoi(c->t->keys[i].name + 3);

		c->key_signed[i] = fmt && !strncmp(c->t->keys[i].name, "arg", 3) && a >= 1 &&
				   a <= fmt->nargs && fmt->is_signed[a - 1] &&
				   !(c->t->keys[i].flags & (UT_HF_LOG2 | UT_HF_BUCKETS));
	}
}

static bool wants_symbols(const struct ut_evtrig *t)
{
	for (uint8_t i = 0; i < t->nkeys; i++)
		if (t->keys[i].flags & (UT_HF_SYM | UT_HF_SYM_OFFSET))
			return true;
	return false;
}

/* The symbols of the objects the scope's processes loaded (exited ones' too). */
static struct ut_symtab *scope_symbols(const struct tfs_scope *sc)
{
	struct ut_live_sess *v = NULL;
	long n = ut_live_list(tfs_rundir, &v);
	const char **dirs = n > 0 ? calloc((size_t)n, sizeof(*dirs)) : NULL;
	struct ut_symtab *st;
	size_t k = 0;

	for (long i = 0; dirs && i < n; i++)
		if (in_scope(sc, &v[i]))
			dirs[k++] = v[i].dir;
	st = k ? ut_live_symbols(dirs, k) : NULL;
	free(dirs);
	if (n > 0)
		free(v);
	return st;
}

static void show_one(struct tfs_req *r, FILE *f, const struct ut_evtrig *t,
		     const struct ut_evfmt *fmt, bool first)
{
	const char *colon = strchr(r->ev, ':');
	char sys[UT_EVTRIG_NAME_MAX], ident[256], info[600];
	struct ut_hist_strs l;
	struct merged m = {.l = &l};
	struct sort_ctx c = {.t = t, .l = &l};
	struct ut_symtab *st;

	ut_hist_strs_layout(t, fmt, &l);
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - r->ev), r->ev);
	ut_evtrig_ident(t, ident, sizeof(ident));
	ut_evtrig_print(t, -1, info, sizeof(info));
	/* a named hist's table is the name's, on every event (libutrace/evtrigger.c) */
	collect(r->sc, t->name[0] ? "" : sys, t->name[0] ? t->name : colon + 1, ident, &m);
	signedness(&c, fmt);
	if (m.n)
		qsort_r(m.v, m.n, sizeof(*m.v), cmp_sort, &c);
	fprintf(f, "%s# event histogram\n#\n# trigger info: %s\n#\n\n", first ? "" : "\n\n", info);
	st = wants_symbols(t) ? scope_symbols(r->sc) : NULL;
	for (size_t i = 0; i < m.n; i++)
		print_entry(f, t, &m.v[i], &l, st);
	print_snapshot(f, t, &m, &l, st);
	ut_symtab_free(st);
	fprintf(f, "\nTotals:\n    Hits: %" PRIu64 "\n    Entries: %zu\n    Dropped: %" PRIu64 "\n",
		m.hits, m.n, m.drops);
	free(m.v);
	for (size_t i = 0; i < m.nbufs; i++)
		free(m.bufs[i]);
	free(m.bufs);
}

static int show_hists(struct tfs_req *r, FILE *f);

int tfs_show_event_hist(struct tfs_req *r, FILE *f)
{
	tfs_snapshot_sync(r); /* a .snapshot() that fired: taken at its time */
	return show_hists(r, f);
}

static int show_hists(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	struct ut_evfmt fmt;
	const char *p, *lines[UT_EVTRIGS_MAX];
	size_t n, lens[UT_EVTRIGS_MAX], nr = 0;
	bool first = true, have_fmt;
	int ret = tfs_scope_config(r->sc, &c);

	for (p = tfs_evtrig_next(c.triggers, r->ev, &n); !ret && p && nr < UT_EVTRIGS_MAX;
	     p = tfs_evtrig_next(p + n, r->ev, &n)) {
		lines[nr] = p;
		lens[nr++] = n;
	}
	have_fmt = nr && tfs_event_format(r, &fmt);
	while (!ret && nr--) {
		struct ut_evtrig t;
		struct ut_evtrig_err err;

		if (ut_evtrig_parse(lines[nr], lens[nr], &t, &err) || t.cmd != UT_ET_HIST)
			continue;
		show_one(r, f, &t, have_fmt ? &fmt : NULL, first);
		first = false;
	}
	ut_cfg_free(&c);
	return ret;
}

void tfs_hist_clear(struct tfs_req *r, const struct ut_evtrig *t)
{
	const char *colon = strchr(r->ev, ':');
	struct ut_live_sess *v = NULL;
	long n = ut_live_list(tfs_rundir, &v);
	char sys[UT_EVTRIG_NAME_MAX], ident[256];

	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - r->ev), r->ev);
	ut_evtrig_ident(t, ident, sizeof(ident));
	tfs_mtrig_forget(r->sc->pid, r->ev, ident, true); /* the mount's tables of it */
	for (long i = 0; i < n; i++) {
		for (uint32_t k = 0; in_scope(r->sc, &v[i]) && k < MAX_HIST_FILES; k++) {
			struct ut_hist_hdr h;
			struct ut_hist_entry *e = NULL;
			long got = ut_live_hist(v[i].dir, k, &h, &e);

			free(e);
			if (got == -ENOENT)
				break;
			if (got >= 0 && !h.removed && !strcmp(h.sys, t->name[0] ? "" : sys) &&
			    !strcmp(h.evt, t->name[0] ? t->name : colon + 1) &&
			    !strncmp(h.ident, ident, sizeof(h.ident) - 1))
				ut_live_hist_clear(v[i].dir, k);
		}
	}
	if (n > 0)
		free(v);
}
