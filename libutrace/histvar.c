// SPDX-License-Identifier: MIT
/*
 * Hist variables and inter-event actions in the traced process
 * (common/histvar.h for what a trigger says; histogram.rst's semantics):
 *
 *  - a hit of a hist trigger with variables first resolves the $refs it
 *    reads from other events' tables: the entry of the same key there, its
 *    variable read once (the bit that says it is set cleared atomically,
 *    as the kernel's tracing_map_read_var_once); a ref not set drops the
 *    whole hit, uncounted, as the kernel does;
 *  - it is then counted, its own variables are stored in its entry (value,
 *    then the set bit with release), and its actions run: onmatch
 *    generates the synthetic event with its params; onmax/onchange keep the
 *    new value and the saved fields under the entry's sequence count, and
 *    with .snapshot() ask for a snapshot when it also beats the last
 *    snapshot's value.
 *
 * The variables live beside the entries of the trigger's shared table
 * (struct ut_hist_vars, include/utrace/abi.h), so every thread of the
 * process reads and writes the same ones with atomics only: no lock, no
 * system call.  Two threads that set and read a variable of one key at
 * once see either value whole; a thread that finds a track being rewritten
 * by another (the sequence count odd) leaves its update out rather than
 * wait, since it may have interrupted that very writer (signal handler).
 * Processes do not match each other: each has its own tables.
 */
#include <string.h>
#include <unistd.h>

#include "common/histvar_run.h"
#include "common/ring_buffer.h"
#include "libutrace/evtrig_tab.h"

#define MAX_DEPTH 2

uint64_t ut_histvar_field(const struct rt_hit *h, int slot)
{
	if (slot == UT_HIST_SLOT_PID) {
		if (!ut_self.tid)
			ut_self.tid = (int32_t)gettid();
		return (uint64_t)ut_self.tid;
	}
	return slot >= 0 && (unsigned)slot < h->nargs ? h->args[slot] : 0;
}

/* Trigger index of the hist trigger @self reads $@name from (common/histvar_run.h); -1. */
static int16_t var_source(const struct rt_tab *tab, const struct rt_trig *self, const char *name,
			  int8_t *idx)
{
	for (uint32_t i = 0; i < tab->nr_trig; i++) {
		const struct rt_trig *o = &tab->trig[i];
		int k = o == self ? -1
				  : ut_histvar_source(&self->t, &o->t, tab->ev[o->ev].sys,
						      tab->ev[o->ev].evt, name);

		if (k >= 0) {
			*idx = (int8_t)k;
			return (int16_t)i;
		}
	}
	return -1;
}

void ut_histvar_resolve(struct rt_tab *tab, struct rt_trig *rt, const struct ut_evfmt *fmt)
{
	const struct ut_hist_defs *d = &rt->t.hv;

	(void)tab;
	rt->has_vars = d->nvars || d->nactions;
	for (uint8_t i = 0; i < d->nvars; i++)
		for (uint8_t j = 0; j < d->vars[i].nops; j++) {
			const struct ut_hist_operand *o = &d->vars[i].op[j];
			struct rt_operand *r = &rt->op[i][j];
			const struct ut_hist_var *own = ut_histvar_find(d, o->name);

			*r = (struct rt_operand){.kind = o->kind,
						 .usecs = o->usecs,
						 .k = o->k,
						 .own = -1,
						 .src = -1,
						 .slot = -1};
			if (o->kind == UT_HO_FIELD)
				r->slot = (int8_t)ut_hist_field_slot(fmt, o->name);
			if (o->kind == UT_HO_VAR && own && own < &d->vars[i])
				r->own = (int8_t)(own - d->vars);
		}
	for (uint8_t i = 0; i < d->nactions; i++) {
		const struct ut_hist_action *a = &d->act[i];
		struct rt_action *r = &rt->act[i];
		const struct ut_hist_var *v = ut_histvar_find(d, a->var);

		*r = (struct rt_action){.handler = a->handler,
					.action = a->action,
					.synth = -1,
					.nparams = a->nparams,
					.var = (int8_t)(v ? v - d->vars : -1)};
		for (uint8_t j = 0; j < a->nparams; j++) {
			v = a->param[j][0] == '$' ? ut_histvar_find(d, a->param[j] + 1) : NULL;
			r->pvar[j] = (int8_t)(v ? v - d->vars : -1);
			r->pslot[j] = (int8_t)(v ? -1 : ut_hist_field_slot(fmt, a->param[j]));
			r->psrc[j] = -1;
			if (v ? rt->strs.var_size[r->pvar[j]] != 0
			      : ut_hist_str_keysize(fmt, r->pslot[j]) != 0)
				r->pstr |= (uint16_t)(1u << j);
		}
	}
}

/* Param @j of @a, $@name of the matched event's trigger: where it is read from. */
static void link_param(struct rt_tab *tab, struct rt_trig *rt, struct rt_action *a, uint8_t j,
		       const char *name)
{
	int8_t idx = -1;

	a->psrc[j] = var_source(tab, rt, name, &idx);
	a->psrc_var[j] = idx;
	if (a->psrc[j] >= 0 && tab->trig[a->psrc[j]].strs.var_size[idx])
		a->pstr |= (uint16_t)(1u << j);
}

void ut_histvar_link(struct rt_tab *tab)
{
	for (uint32_t k = 0; k < tab->nr_trig; k++) {
		struct rt_trig *rt = &tab->trig[k];
		const struct ut_hist_defs *d = &rt->t.hv;

		for (uint8_t i = 0; i < d->nvars; i++)
			for (uint8_t j = 0; j < d->vars[i].nops; j++)
				if (rt->op[i][j].kind == UT_HO_VAR && rt->op[i][j].own < 0)
					rt->op[i][j].src = var_source(
					    tab, rt, d->vars[i].op[j].name, &rt->op[i][j].src_var);
		for (uint8_t i = 0; i < d->nactions; i++) {
			struct rt_action *a = &rt->act[i];

			for (uint32_t s = 0; d->act[i].action == UT_HA_TRACE && s < tab->nr_synth;
			     s++)
				if (!strcmp(tab->synth[s].d.name, d->act[i].synth))
					a->synth = (int16_t)s;
			for (uint8_t j = 0; a->handler == UT_HH_ONMATCH && j < a->nparams; j++)
				if (d->act[i].param[j][0] == '$' && a->pvar[j] < 0)
					link_param(tab, rt, a, j, d->act[i].param[j] + 1);
		}
	}
}

/* The variables beside entry @e of table @h; NULL if the table has none. */
static struct ut_hist_vars *vars_of(struct ut_hist_hdr *h, const struct ut_hist_entry *e)
{
	const struct ut_hist_entry *v = (const struct ut_hist_entry *)(h + 1);

	if (!h->vars_off || !e)
		return NULL;
	return (struct ut_hist_vars *)((char *)h + h->vars_off) + (e - v);
}

/*
 * Read variable @idx of @key in trigger @src's table once; false if it is
 * not set.  A string variable's text is copied into @sbuf, *@out its
 * address (the entry keeps the text: a later hit may rewrite it).
 */
static bool read_once(const struct rt_tab *tab, int16_t src, int8_t idx, const struct rt_key *key,
		      uint64_t *out, char *sbuf)
{
	const struct rt_trig *o = src >= 0 ? &tab->trig[src] : NULL;
	struct ut_hist_hdr *h = o ? o->hist : NULL;
	struct ut_hist_entry *e = h ? ut_evhist_find(h, key) : NULL;
	struct ut_hist_vars *v = h ? vars_of(h, e) : NULL;
	const char *s;

	if (!v || idx < 0 || !ut_hist_var_take(v, (unsigned)idx, out))
		return false;
	if (o->strs.var_size[idx] && (s = ut_evhist_strs(h, e)) != NULL) {
		ut_hist_str_copy(sbuf, UT_HIST_STR_MAX,
				 (uint64_t)(uintptr_t)(s + o->strs.var_off[idx]));
		*out = (uint64_t)(uintptr_t)sbuf;
	}
	return true;
}

/*
 * common_timestamp: the hit's time as the trace shows it, ns of the trace
 * clock (the local clock's cycles converted, as readers convert them), as
 * the kernel's is its ring's time stamp; so .usecs are microseconds.
 */
static uint64_t timestamp(struct rt_hit *h, bool usecs)
{
	const struct ut_ctl *ctl = ut_rt.ctl;

	if (!h->ts && ctl) {
		struct ut_clockconv c = {.clock = ut_rt.cfg.clock,
					 .tsc0 = ctl->tsc0,
					 .mono0 = ctl->mono0,
					 .mult = ctl->tsc_mult,
					 .shift = ctl->tsc_shift};

		h->ts = ut_clock_to_trace(&c, ut_now());
	}
	return usecs ? h->ts / 1000 : h->ts;
}

/* What eval_vars' operands read: the table, the trigger, the hit, its key, the string copies. */
struct eval_ctx {
	struct rt_tab *tab;
	const struct rt_trig *rt;
	struct rt_hit *h;
	const struct rt_key *key;
	char (*sbuf)[UT_HIST_STR_MAX];
};

/* Operand @j of variable @i (not a constant, not an own variable): a field, the time, a $ref. */
static bool operand(void *arg, unsigned i, unsigned j, uint64_t *x)
{
	struct eval_ctx *c = arg;
	const struct rt_operand *o = &c->rt->op[i][j];

	if (o->kind == UT_HO_FIELD)
		*x = ut_histvar_field(c->h, o->slot);
	else if (o->kind == UT_HO_TS)
		*x = timestamp(c->h, o->usecs);
	else
		return read_once(c->tab, o->src, o->src_var, c->key, x, c->sbuf[i]);
	return true;
}

/*
 * The variables of @rt for hit @h into @val; false if a $ref is not set
 * (the hit is dropped).  A string variable's value is the address of its
 * text: the field's, or (read from another table) its copy in @sbuf.
 */
static bool eval_vars(struct rt_tab *tab, const struct rt_trig *rt, struct rt_hit *h,
		      const struct rt_key *key, uint64_t *val, char (*sbuf)[UT_HIST_STR_MAX])
{
	struct eval_ctx c = {.tab = tab, .rt = rt, .h = h, .key = key, .sbuf = sbuf};

	return ut_histvar_values(&rt->t.hv, operand, &c, val);
}

/*
 * onmatch's params that are the matched event's variables, read once
 * into @pv (strings copied into @sbuf) as the variables are: false if one
 * is not set (the hit is dropped).
 */
static bool read_params(struct rt_tab *tab, const struct rt_trig *rt, const struct rt_key *key,
			uint64_t (*pv)[UT_HIST_MAX_PARAMS], char (*sbuf)[UT_HIST_STR_MAX])
{
	for (uint8_t i = 0; i < rt->t.hv.nactions; i++) {
		const struct rt_action *a = &rt->act[i];

		for (uint8_t j = 0; j < a->nparams; j++) {
			if (a->handler != UT_HH_ONMATCH || a->pvar[j] >= 0 ||
			    rt->t.hv.act[i].param[j][0] != '$')
				continue;
			if (!read_once(tab, a->psrc[j], a->psrc_var[j], key, &pv[i][j], sbuf[j]))
				return false;
		}
	}
	return true;
}

/*
 * onmax/onchange: a new value for the entry's track, with the fields saved
 * beside it (.save()); true if it was one (.trace() then generates).
 */
static bool track(const struct rt_trig *rt, const struct rt_action *a, struct ut_hist_vars *v,
		  char *strs, const struct rt_hit *h, const uint64_t *val)
{
	uint64_t x = val[a->var], seq = __atomic_load_n(&v->seq, __ATOMIC_ACQUIRE);
	bool have = __atomic_load_n(&v->flags, __ATOMIC_RELAXED) & 1;

	if (have && (a->handler == UT_HH_ONMAX ? x <= v->track : x == v->track))
		return false;
	if ((seq & 1) || !__atomic_compare_exchange_n(&v->seq, &seq, seq + 1, false,
						      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false; /* another writer has it (perhaps the code this handler interrupted)
			       */
	__atomic_store_n(&v->track, x, __ATOMIC_RELAXED);
	for (uint8_t j = 0; a->action == UT_HA_SAVE && j < a->nparams && j < UT_HIST_SAVES; j++) {
		uint64_t sv = a->pvar[j] >= 0 ? val[a->pvar[j]] : ut_histvar_field(h, a->pslot[j]);

		if (rt->strs.save_size[j] && strs) /* a string: its text, kept in the entry */
			ut_hist_str_copy(strs + rt->strs.save_off[j], rt->strs.save_size[j], sv);
		__atomic_store_n(&v->save[j], rt->strs.save_size[j] ? 0 : sv, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&v->flags, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&v->seq, seq + 2, __ATOMIC_RELEASE);
	return true;
}

/* onmatch's trace(): synthetic event @a->synth with its params, recorded and triggered. */
static void generate(struct rt_tab *tab, const struct rt_trig *rt, const struct rt_action *a,
		     const struct rt_hit *h, const uint64_t *val, const uint64_t *pv)
{
	const struct rt_synth *s = &tab->synth[a->synth];
	struct rt_hit g = {.site = s->pc, .ts = h->ts, .depth = h->depth + 1, .fetched = true};

	if (a->nparams != s->d.nfields || h->depth >= MAX_DEPTH)
		return;
	g.nargs = a->nparams;
	for (uint8_t j = 0; j < a->nparams; j++) {
		g.args[j] = a->pvar[j] >= 0 ? val[a->pvar[j]] : ut_histvar_field(h, a->pslot[j]);
		if (a->pvar[j] < 0 && rt->t.hv.act[a - rt->act].param[j][0] == '$')
			g.args[j] = pv[j]; /* the matched event's variable */
		if (s->d.is_string[j] && !(a->pstr >> j & 1))
			g.args[j] = 0; /* a number for a string field: no text to read (empty) */
	}
	if (__atomic_load_n(&s->sel, __ATOMIC_RELAXED))
		ut_synth_record(s, g.args);
	if (s->ev >= 0)
		ut_evtrig_run(tab, (uint32_t)s->ev, &g);
}

/* Store @rt's variables @val in entry @e (@v beside it): a string's text into the entry's strings. */
static void store_vars(const struct rt_trig *rt, struct ut_hist_entry *e, struct ut_hist_vars *v,
		       const uint64_t *val)
{
	char *strs = ut_evhist_strs(rt->hist, e);

	for (uint8_t i = 0; v && i < rt->t.hv.nvars; i++) {
		if (rt->strs.var_size[i] && strs)
			ut_hist_str_copy(strs + rt->strs.var_off[i], rt->strs.var_size[i], val[i]);
		ut_hist_var_put(v, i, rt->strs.var_size[i] ? 0 : val[i]);
	}
}

/*
 * .snapshot(): the entry's track moved to @x; a snapshot if @x also beats
 * the value that took the last one (the kernel's conditional snapshot
 * keeps one track per trigger), which is kept with the entry in the
 * table's header for the hist file's "Snapshot taken" lines.
 */
static void snapshot(struct ut_hist_hdr *hh, const struct rt_action *a,
		     const struct ut_hist_entry *e, uint64_t x)
{
	uint64_t cur = __atomic_load_n(&hh->snap_track, __ATOMIC_RELAXED);

	do {
		if (a->handler == UT_HH_ONMAX ? x <= cur : x == cur)
			return;
	} while (!__atomic_compare_exchange_n(&hh->snap_track, &cur, x, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	__atomic_store_n(&hh->snap_slot, (uint64_t)(e - (const struct ut_hist_entry *)(hh + 1)) + 1,
			 __ATOMIC_RELAXED);
	__atomic_fetch_or(&hh->snap_taken, 1, __ATOMIC_RELEASE);
	ut_evtrig_snapshot();
}

void ut_histvar_hit(struct rt_tab *tab, struct rt_trig *rt, struct rt_hit *h)
{
	uint64_t vals[UT_HIST_VALS] = {0}, val[UT_HIST_MAX_VARS];
	uint64_t pv[UT_HIST_MAX_ACTIONS][UT_HIST_MAX_PARAMS];
	char sbuf[UT_HIST_MAX_VARS][UT_HIST_STR_MAX], psbuf[UT_HIST_MAX_PARAMS][UT_HIST_STR_MAX];
	struct rt_key key;
	struct ut_hist_entry *e;
	struct ut_hist_vars *v;

	ut_evhist_key(rt, h, &key);
	if (!eval_vars(tab, rt, h, &key, val, sbuf) || !read_params(tab, rt, &key, pv, psbuf))
		return;
	for (unsigned i = 0; i < rt->t.nvals && i < UT_HIST_VALS; i++)
		vals[i] = ut_histvar_field(h, rt->slot[UT_HIST_MAX_KEYS + i]);
	e = ut_evhist_count(rt->hist, &rt->t, &key, vals);
	v = vars_of(rt->hist, e);
	store_vars(rt, e, v, val);
	for (uint8_t i = 0; e && i < rt->t.hv.nactions; i++) {
		const struct rt_action *a = &rt->act[i];

		/* onmatch: each hit that got here; onmax/onchange: a new value */
		bool moved = a->handler != UT_HH_ONMATCH && v && a->var >= 0 &&
			     track(rt, a, v, ut_evhist_strs(rt->hist, e), h, val);

		if (a->action == UT_HA_SNAPSHOT && moved)
			snapshot(rt->hist, a, e, val[a->var]);
		else if ((a->handler == UT_HH_ONMATCH || (moved && a->action == UT_HA_TRACE)) &&
			 a->synth >= 0)
			generate(tab, rt, a, h, val, pv[i]);
	}
}
