// SPDX-License-Identifier: MIT
/*
 * Event triggers in the traced process: what events/SYS/EVT/trigger holds
 * (the configuration's "trigger" lines, common/evtrigger.h), run when a
 * USDT probe of that event hits (usdt.c calls ut_evtrig_hit() after its
 * record), a process event happens, or the program writes a marker with
 * utrace_marker() (ftrace:print; a write to the mount's trace_marker runs
 * them in the mount, tracefs/marker_trig.c).  As in the kernel:
 *
 *  - an event with triggers fires even when it is not enabled (its probe
 *    is armed), but is recorded only if enabled ("soft" mode);
 *  - traceon/traceoff flip the process's tracing_on, stacktrace records a
 *    stack, enable_event/disable_event switch their target's soft state
 *    (the target is armed from the moment the trigger exists, recording
 *    nothing until enabled), each counting down its ":N" only when it
 *    changed something (stacktrace: each time);
 *  - hist counts the hit in its table under the event's key fields.
 *
 * The triggers run after the event's record: the event that fires
 * traceoff is still recorded, the one that fires traceon is not (SPEC
 * §9.4).  Counts and hist tables live in the session's shared files
 * "evtrig" and "hist.<N>" (include/utrace/abi.h), so readers list the
 * counts left and the histograms, also after the process has gone.
 *
 * The table the hit path reads is rebuilt under ut_rt.lock when the
 * configuration changes and published with one pointer store; a thread may
 * still run in the previous one (from a signal handler), so old tables are
 * never freed: a table is rebuilt only when the triggers changed (a write
 * to a trigger file), and holds just its triggers (about 1 KiB each).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/evtrigger.h"
#include "common/evtrigger_filter.h"
#include "libutrace/evtrig_tab.h"
#include "common/procev_fields.h"
#include "libutrace/internal.h"

#define MAX_EVENTS ((size_t)2 * UT_EVTRIGS_MAX)
#define MAX_HISTS 16
#define MAX_SYNTH 32

/* A hist table file of the session, mapped. */
struct hist_map {
	struct ut_hist_hdr *h;
	size_t len;
};

static struct rt_tab *cur;          /* read by the hit path */
static struct rt_tab *table(void);
static char *applied;               /* the triggers text cur was built from */
static struct ut_evtrigs *shared;   /* the session's "evtrig" */
static struct hist_map hists[MAX_HISTS];
static uint32_t nr_hists;
static int32_t files_pid;           /* the process the mappings above belong to */

/* A session file of @size bytes, created and mapped; NULL on failure. */
static void *map_new(const char *name, size_t size)
{
	void *p = MAP_FAILED;
	int fd = openat(ut_rt.dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return NULL;
	if (!ftruncate(fd, (off_t)size) && !fallocate(fd, 0, 0, (off_t)size))
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* After a fork the mappings are the parent's files: forget them (the parent keeps its own). */
static void forget_parent_files(void)
{
	if (files_pid == ut_rt.pid)
		return;
	shared = NULL;
	nr_hists = 0;
	files_pid = ut_rt.pid;
}

static struct ut_evtrigs *shared_table(void)
{
	if (!shared && ut_rt.dirfd >= 0) {
		shared = map_new("evtrig", sizeof(*shared));
		if (shared) {
			shared->version = UT_ABI_VERSION;
			__atomic_store_n(&shared->magic, UT_EVTRIGS_MAGIC, __ATOMIC_RELEASE);
		}
	}
	return shared;
}

/* Index of event sys:evt in @tab, added if new; -1 if the table is full. */
static int32_t event_of(struct rt_tab *tab, const char *sys, const char *evt)
{
	for (uint32_t i = 0; i < tab->nr_ev; i++)
		if (!strcmp(tab->ev[i].sys, sys) && !strcmp(tab->ev[i].evt, evt))
			return (int32_t)i;
	if (tab->nr_ev >= MAX_EVENTS)
		return -1;
	snprintf(tab->ev[tab->nr_ev].sys, sizeof(tab->ev[0].sys), "%s", sys);
	snprintf(tab->ev[tab->nr_ev].evt, sizeof(tab->ev[0].evt), "%s", evt);
	return (int32_t)tab->nr_ev++;
}

/* The hist table of @sys:@evt with identity @ident: the one kept, or a new file. */
static struct ut_hist_hdr *hist_table(const char *sys, const char *evt, const char *ident,
				      uint32_t size, bool vars, const struct ut_hist_strs *strs)
{
	struct ut_hist_hdr *h;
	char name[32];
	size_t len, str_off;

	for (uint32_t i = 0; i < nr_hists; i++) {
		h = hists[i].h;
		if (!h->removed && !strcmp(h->sys, sys) && !strcmp(h->evt, evt) &&
		    !strcmp(h->ident, ident))
			return h;
	}
	if (nr_hists >= MAX_HISTS)
		return NULL;
	len = sizeof(*h) + (size_t)size * 2 * sizeof(struct ut_hist_entry);
	if (vars) /* the variables beside the entries (struct ut_hist_vars) */
		len += (size_t)size * 2 * sizeof(struct ut_hist_vars);
	str_off = len; /* then the entries' strings (common/histstr.h) */
	len += (size_t)size * 2 * strs->size;
	snprintf(name, sizeof(name), "hist.%u", nr_hists);
	h = map_new(name, len);
	if (!h)
		return NULL;
	if (vars)
		h->vars_off = sizeof(*h) + (size_t)size * 2 * sizeof(struct ut_hist_entry);
	if (strs->size) {
		h->str_off = str_off;
		h->str_size = strs->size;
		h->str_keys = strs->keys;
	}
	h->version = UT_ABI_VERSION;
	h->nr_slots = size * 2;
	h->max_entries = size;
	snprintf(h->sys, sizeof(h->sys), "%s", sys);
	snprintf(h->evt, sizeof(h->evt), "%s", evt);
	snprintf(h->ident, sizeof(h->ident), "%s", ident);
	__atomic_store_n(&h->magic, UT_HIST_MAGIC, __ATOMIC_RELEASE);
	hists[nr_hists].h = h;
	hists[nr_hists++].len = len;
	return h;
}

/* The count trigger sys:evt/@ident had in the table in force (its own, carried on). */
static bool old_count(const char *sys, const char *evt, const char *ident, int64_t *count)
{
	for (uint32_t i = 0; cur && shared && i < cur->nr_trig; i++) {
		const struct rt_trig *o = &cur->trig[i];

		if (o->e && !strcmp(o->e->sys, sys) && !strcmp(o->e->evt, evt) &&
		    !strcmp(o->e->ident, ident)) {
			*count = __atomic_load_n(&o->e->count, __ATOMIC_RELAXED);
			return true;
		}
	}
	return false;
}

/*
 * Event @sys:@evt's format: a synthetic event's, a process event's or a
 * loaded object's probe's; false if none.
 */
static bool event_format(const struct rt_tab *tab, const char *sys, const char *evt,
			 struct ut_evfmt *f)
{
	for (uint32_t i = 0; !strcmp(sys, UT_SYNTH_SYSTEM) && i < tab->nr_synth; i++)
		if (!strcmp(tab->synth[i].d.name, evt)) {
			ut_synth_evfmt(&tab->synth[i].d, f);
			return true;
		}
	if (ut_procev_evfmt_named(sys, evt, f))
		return true;
	if (!strcmp(sys, "ftrace") && !strcmp(evt, "print")) { /* utrace_marker()'s (api.c) */
		const struct ut_procev *e = ut_procev_find(sys, evt);

		return e && ut_procev_evfmt(e, f);
	}
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		const struct ut_module *m = ut_rt.mods[i];

		for (size_t k = 0; m->alive && k < m->usdt.n; k++) {
			const struct ut_usdt_probe *p = &m->usdt.v[k];

			if (p->nargs < 0 || strcmp(p->provider, sys) != 0 || strcmp(p->name, evt) != 0)
				continue;
			ut_evfmt_from_probe(f, p);
			return true;
		}
	}
	return false;
}

/*
 * The filter of trigger @rt on @sys:@evt compiled (common/evtrigger_filter.h);
 * false if it cannot be: the trigger is left out (its event's probes not
 * loaded yet: the table is rebuilt at the next change).
 */
static bool compile_filter(struct rt_trig *rt, const struct ut_evfmt *fmt)
{
	if (!rt->t.filter[0])
		return true;
	if (!fmt)
		return false;
	rt->filter = ut_evtrig_filter_compile(rt->t.filter, fmt);
	return rt->filter != NULL;
}

/* The field slots of @rt's keys and values on @fmt (NULL: argN only, names wait for a rebuild). */
static void resolve_fields(struct rt_tab *tab, struct rt_trig *rt, const struct ut_evfmt *fmt)
{
	ut_hist_strs_layout(&rt->t, fmt, &rt->strs);
	for (unsigned i = 0; i < rt->t.nkeys; i++)
		rt->slot[i] = (int8_t)ut_hist_field_slot(fmt, rt->t.keys[i].name);
	for (unsigned i = 0; i < rt->t.nvals; i++)
		rt->slot[UT_HIST_MAX_KEYS + i] =
		    (int8_t)ut_hist_field_slot(fmt, rt->t.vals[i].name);
	ut_histvar_resolve(tab, rt, fmt);
}

/* Bit @slot if it is a string field of @fmt. */
static uint32_t str_bit(const struct ut_evfmt *fmt, int slot)
{
	return slot >= 0 && slot < fmt->nargs && fmt->is_string[slot] ? 1u << slot : 0;
}

/*
 * The string fields of @fmt trigger @rt reads as strings (bit i: slot i):
 * its filter's, its keys', its variables' and its actions' params; a
 * probe's hit copies their text, and only theirs (a system call each).
 */
static uint32_t strings_read(const struct rt_trig *rt, const struct ut_evfmt *fmt)
{
	const struct ut_hist_defs *d = &rt->t.hv;
	uint32_t m = rt->t.filter[0] ? ut_evtrig_filter_strings(rt->t.filter, fmt) : 0;

	if (rt->t.cmd != UT_ET_HIST)
		return m;
	for (unsigned i = 0; i < rt->t.nkeys; i++)
		m |= str_bit(fmt, rt->slot[i]);
	for (uint8_t i = 0; i < d->nvars; i++)
		for (uint8_t j = 0; j < d->vars[i].nops; j++)
			if (d->vars[i].op[j].kind == UT_HO_FIELD)
				m |= str_bit(fmt, ut_hist_field_slot(fmt, d->vars[i].op[j].name));
	for (uint8_t i = 0; i < d->nactions; i++)
		for (uint8_t j = 0; j < d->act[i].nparams; j++)
			m |= str_bit(fmt, ut_hist_field_slot(fmt, d->act[i].param[j]));
	return m;
}

/* One configuration line "SYS:EVT TRIGGER" into @tab. */
static void add_line(struct rt_tab *tab, const char *line, size_t n)
{
	char sys[UT_EVTRIG_NAME_MAX], evt[UT_EVTRIG_NAME_MAX];
	const char *colon = memchr(line, ':', n), *sp = memchr(line, ' ', n);
	struct ut_evtrig_err err;
	struct rt_trig *rt = &tab->trig[tab->nr_trig];
	struct ut_evfmt fmt;
	int32_t ev;
	bool have;

	if (!colon || !sp || colon > sp || tab->nr_trig >= UT_EVTRIGS_MAX ||
	    (size_t)(colon - line) >= sizeof(sys) || (size_t)(sp - colon - 1) >= sizeof(evt))
		return;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - line), line);
	snprintf(evt, sizeof(evt), "%.*s", (int)(sp - colon - 1), colon + 1);
	memset(rt, 0, sizeof(*rt));
	if (ut_evtrig_parse(sp + 1, (size_t)(line + n - sp - 1), &rt->t, &err) || rt->t.remove)
		return;
	ev = event_of(tab, sys, evt);
	rt->target = -1;
	if (rt->t.cmd == UT_ET_ENABLE || rt->t.cmd == UT_ET_DISABLE)
		rt->target = event_of(tab, rt->t.sys, rt->t.evt);
	have = event_format(tab, sys, evt, &fmt);
	if (!have && (rt->t.filter[0] || rt->t.cmd == UT_ET_HIST))
		tab->incomplete = true; /* its probes not loaded yet: the table is rebuilt later */
	if (ev < 0 ||
	    ((rt->t.cmd == UT_ET_ENABLE || rt->t.cmd == UT_ET_DISABLE) && rt->target < 0) ||
	    !compile_filter(rt, have ? &fmt : NULL))
		return;
	if (rt->t.cmd == UT_ET_HIST)
		resolve_fields(tab, rt, have ? &fmt : NULL);
	if (have)
		tab->ev[ev].strings |= strings_read(rt, &fmt);
	rt->ev = (uint32_t)ev;
	tab->nr_trig++;
}

/*
 * The count trigger @rt starts with: the one it has left in the table in
 * force, if it was there (read before the shared entries are rewritten).
 */
static int64_t start_count(const struct rt_tab *tab, const struct rt_trig *rt)
{
	const struct rt_event *ev = &tab->ev[rt->ev];
	int64_t count = rt->t.counted ? rt->t.count : -1;
	char ident[sizeof(shared->e[0].ident)];

	ut_evtrig_ident(&rt->t, ident, sizeof(ident));
	if (rt->t.counted)
		old_count(ev->sys, ev->evt, ident, &count);
	return count;
}

/* The shared entry of trigger @rt (entry @k), starting at @count. */
static void publish_one(struct rt_tab *tab, struct rt_trig *rt, uint32_t k, int64_t count)
{
	struct ut_evtrig_entry *e = &shared->e[k];
	const struct rt_event *ev = &tab->ev[rt->ev];

	memset(e, 0, sizeof(*e));
	snprintf(e->sys, sizeof(e->sys), "%s", ev->sys);
	snprintf(e->evt, sizeof(e->evt), "%s", ev->evt);
	ut_evtrig_ident(&rt->t, e->ident, sizeof(e->ident));
	e->count = count;
	e->counted = rt->t.counted;
	if (rt->target >= 0)
		e->soft = tab->ev[rt->target].soft;
	if (rt->t.cmd == UT_ET_HIST) {
		/* a named one (name=NAME): one table for that name on every event */
		rt->hist = rt->t.name[0] ? hist_table("", rt->t.name, e->ident, rt->t.size,
						      rt->has_vars, &rt->strs)
					 : hist_table(ev->sys, ev->evt, e->ident, rt->t.size,
						      rt->has_vars, &rt->strs);
		if (rt->hist) {
			__atomic_store_n(&rt->hist->paused, rt->t.pause, __ATOMIC_RELEASE);
			for (uint32_t i = 0; i < nr_hists; i++)
				if (hists[i].h == rt->hist)
					e->hist = i + 1;
		}
	}
	rt->e = e;
}

/* Mark the hist tables @tab no longer uses as removed (readers skip them). */
static void retire_hists(const struct rt_tab *tab)
{
	for (uint32_t i = 0; i < nr_hists; i++) {
		bool used = false;

		for (uint32_t k = 0; k < tab->nr_trig && !used; k++)
			used = tab->trig[k].hist == hists[i].h;
		if (!used)
			__atomic_store_n(&hists[i].h->removed, 1, __ATOMIC_RELEASE);
	}
}

/* Soft states carried from the table in force for events that stay targets. */
static void carry_soft(struct rt_tab *tab)
{
	for (uint32_t i = 0; cur && i < tab->nr_ev; i++)
		for (uint32_t k = 0; k < cur->nr_ev; k++)
			if (!strcmp(cur->ev[k].sys, tab->ev[i].sys) &&
			    !strcmp(cur->ev[k].evt, tab->ev[i].evt))
				tab->ev[i].soft = cur->ev[k].soft;
}

/* The synthetic events defined in the configuration's text @defs (common/synth.h). */
static void add_synth(struct rt_tab *tab, const char *defs)
{
	for (const char *p = defs; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		struct rt_synth *s = &tab->synth[tab->nr_synth];
		struct ut_synth_err err;
		bool rm;

		if (tab->nr_synth >= MAX_SYNTH ||
		    ut_synth_parse(p, strcspn(p, "\n"), &s->d, &rm, &err) || rm)
			continue;
		s->pc = ut_synth_pc(s->d.name);
		s->ev = -1;
		tab->nr_synth++;
	}
}

/* Index of event sys:evt in @tab, -1 if it has no triggers. */
static int32_t find_ev(const struct rt_tab *tab, const char *sys, const char *evt)
{
	for (uint32_t i = 0; i < tab->nr_ev; i++)
		if (!strcmp(tab->ev[i].sys, sys) && !strcmp(tab->ev[i].evt, evt))
			return (int32_t)i;
	return -1;
}

/* Which synthetic events set_event enables now (read by the hit path). */
static void select_synth(struct rt_tab *tab)
{
	for (uint32_t i = 0; tab && i < tab->nr_synth; i++)
		__atomic_store_n(
		    &tab->synth[i].sel,
		    ut_usdt_selected(ut_rt.cfg.events, UT_SYNTH_SYSTEM, tab->synth[i].d.name),
		    __ATOMIC_RELAXED);
	for (uint32_t i = 0; tab && i < tab->nr_synth; i++)
		ut_synth_filter_apply(&tab->synth[i]);
}

/**
 * ut_evtrig_apply - rebuild the trigger table from the configuration's triggers
 *
 * Under ut_rt.lock, before the probes are armed (usdt.c).  Return: 0, or
 * -ENOMEM / -EIO (the triggers that could not get their files do nothing).
 */
/* The triggers of the configuration's text @l, in a table of their size; NULL on ENOMEM. */
static struct rt_tab *build(const char *l)
{
	struct rt_tab b = {.pid = ut_rt.pid}, *tab = NULL;

	b.trig = calloc(UT_EVTRIGS_MAX, sizeof(*b.trig));
	b.ev = calloc(MAX_EVENTS, sizeof(*b.ev));
	b.synth = calloc(MAX_SYNTH, sizeof(*b.synth));
	if (b.synth)
		add_synth(&b, ut_rt.cfg.synth);
	for (; b.trig && b.ev && b.synth && l && *l;
	     l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
		add_line(&b, l, strcspn(l, "\n"));
	if (b.trig && b.ev && b.synth)
		tab = calloc(1, sizeof(*tab) + b.nr_trig * sizeof(*b.trig) +
				    b.nr_ev * sizeof(*b.ev) + b.nr_synth * sizeof(*b.synth));
	if (tab) {
		*tab = b;
		tab->trig = (struct rt_trig *)(tab + 1);
		tab->ev = (struct rt_event *)(tab->trig + b.nr_trig);
		tab->synth = (struct rt_synth *)(tab->ev + b.nr_ev);
		memcpy(tab->trig, b.trig, b.nr_trig * sizeof(*b.trig));
		memcpy(tab->ev, b.ev, b.nr_ev * sizeof(*b.ev));
		memcpy(tab->synth, b.synth, b.nr_synth * sizeof(*b.synth));
		for (uint32_t i = 0; i < tab->nr_synth; i++)
			tab->synth[i].ev = find_ev(tab, UT_SYNTH_SYSTEM, tab->synth[i].d.name);
		ut_histvar_link(tab);
	}
	free(b.trig);
	free(b.ev);
	free(b.synth);
	return tab;
}

/* Whether @text is what the table in force was built from (nothing to do). */
static bool unchanged(const char *text)
{
	if (!cur || cur->pid != ut_rt.pid)
		return !text || !*text; /* none, none before */
	if (cur->incomplete)
		return false;
	return !strcmp(applied ? applied : "", text ? text : "");
}

/*
 * The session's "synth": the synthetic events' definitions, for the
 * readers that name their records (common/sessprobes.c).
 */
static void write_synth_file(const char *defs)
{
	int fd;

	if (ut_rt.dirfd < 0 || !defs || !*defs)
		return;
	fd = openat(ut_rt.dirfd, "synth", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return;
	if (write(fd, defs, strlen(defs)) < 0)
		ut_log("synth: %m");
	close(fd);
}

int ut_evtrig_apply(void)
{
	struct rt_tab *tab;
	char *text = NULL;
	uint32_t k;

	forget_parent_files();
	if (asprintf(&text, "%s%s%s", ut_rt.cfg.triggers ? ut_rt.cfg.triggers : "",
		     ut_rt.cfg.synth ? "\x1f" : "", ut_rt.cfg.synth ? ut_rt.cfg.synth : "") < 0)
		return -ENOMEM;
	select_synth(table());
	if (unchanged(ut_rt.cfg.triggers ? text : NULL)) {
		free(text);
		return 0;
	}
	tab = build(ut_rt.cfg.triggers);
	if (!tab) {
		free(text);
		return -ENOMEM;
	}
	select_synth(tab);
	if (cur && cur->pid == ut_rt.pid)
		carry_soft(tab);
	if (!shared_table() && tab->nr_trig) {
		free(tab);
		free(text);
		return -EIO;
	}
	if (tab->nr_synth)
		write_synth_file(ut_rt.cfg.synth);
	if (shared) {
		int64_t counts[UT_EVTRIGS_MAX] = {0};

		for (k = 0; k < tab->nr_trig; k++)
			counts[k] = start_count(tab, &tab->trig[k]);
		__atomic_add_fetch(&shared->gen, 1, __ATOMIC_ACQ_REL); /* odd: being rewritten */
		for (k = 0; k < tab->nr_trig; k++)
			publish_one(tab, &tab->trig[k], k, counts[k]);
		__atomic_store_n(&shared->nr, tab->nr_trig, __ATOMIC_RELEASE);
		__atomic_add_fetch(&shared->gen, 1, __ATOMIC_ACQ_REL);
		retire_hists(tab);
	}
	__atomic_store_n(&cur, tab, __ATOMIC_RELEASE);
	free(applied);
	applied = text;
	return 0;
}

/* The event @sys:@evt of the table, or NULL.  Async-signal-safe. */
static struct rt_event *find_named(struct rt_tab *tab, const char *sys, const char *evt)
{
	for (uint32_t i = 0; i < tab->nr_ev; i++)
		if (!strcmp(tab->ev[i].evt, evt) && !strcmp(tab->ev[i].sys, sys))
			return &tab->ev[i];
	return NULL;
}

static struct rt_event *find_event(struct rt_tab *tab, const struct ut_usdt_probe *p)
{
	return find_named(tab, p->provider, p->name);
}

static struct rt_tab *table(void)
{
	struct rt_tab *tab = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);

	return tab && tab->pid == ut_rt.pid && tab->nr_ev ? tab : NULL;
}

bool ut_evtrig_arms(const struct ut_usdt_probe *p)
{
	struct rt_tab *tab = table();

	return tab && find_event(tab, p);
}

bool ut_evtrig_records(const struct ut_usdt_probe *p, bool enabled)
{
	return ut_evtrig_records_named(p->provider, p->name, enabled);
}

bool ut_evtrig_arms_named(const char *sys, const char *evt)
{
	struct rt_tab *tab = table();

	return tab && find_named(tab, sys, evt);
}

bool ut_evtrig_records_named(const char *sys, const char *evt, bool enabled)
{
	struct rt_tab *tab = table();
	const struct rt_event *ev = tab ? find_named(tab, sys, evt) : NULL;
	int32_t soft = 0;

	if (ev)
		soft = __atomic_load_n(&ev->soft, __ATOMIC_RELAXED);
	return enabled ? soft >= 0 : soft > 0;
}

/* Take one from a counted trigger; false if it has none left. */
static bool take(struct ut_evtrig_entry *e)
{
	int64_t n = __atomic_load_n(&e->count, __ATOMIC_RELAXED);

	while (n) {
		if (n < 0)
			return true;
		if (__atomic_compare_exchange_n(&e->count, &n, n - 1, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	}
	return false;
}

static void set_tracing(struct ut_evtrig_entry *e, uint32_t want)
{
	uint32_t *on = &ut_rt.ctl->tracing_on;

	if (__atomic_load_n(on, __ATOMIC_RELAXED) != want && take(e))
		__atomic_store_n(on, want, __ATOMIC_RELEASE);
}

/* enable_event/disable_event fired: the target's state, shown in the entries that switch it. */
static void set_soft(struct rt_tab *tab, const struct rt_trig *rt, int32_t want)
{
	struct rt_event *target = &tab->ev[rt->target];

	if (__atomic_load_n(&target->soft, __ATOMIC_RELAXED) == want || !take(rt->e))
		return;
	__atomic_store_n(&target->soft, want, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < tab->nr_trig; i++)
		if (tab->trig[i].target == rt->target && tab->trig[i].e)
			__atomic_store_n(&tab->trig[i].e->soft, want, __ATOMIC_RELAXED);
}

/* The stack from @site, whose code goes on at @resume (a probe: after its 1-byte trap). */
static void stacktrace(struct ut_evtrig_entry *e, uint64_t site, uint64_t resume)
{
	struct ut_thread *t = &ut_self;

	if (!ut_tracing_on(t) || !take(e) || !ut_enter(t))
		return;
	ut_stack_record_from(t, site, resume);
	ut_leave(t);
}

/*
 * The hit's arguments (8-byte slots, as recorded), fetched from the
 * probe's registers once; its strings copied when the event's triggers
 * may read them (h->strs), a string's slot then the address of its copy
 * (0: it could not be read).
 */
static void fetch_args(struct rt_hit *h, uint32_t strings)
{
	unsigned n = h->p->nargs > 0 ? (unsigned)h->p->nargs : 0;

	for (unsigned i = 0; i < n && i < UT_USDT_MAX_ARGS; i++) {
		h->args[i] = ut_arch_usdt_fetch(h->uc, &h->p->arg[i], h->m->bias);
		if (h->p->arg[i].is_string && (strings >> i & 1) && h->strs)
			h->args[i] = ut_usdt_copy_string(h->strs[i], h->args[i])
					 ? (uint64_t)(uintptr_t)h->strs[i]
					 : 0;
	}
	h->nargs = n;
	h->fetched = true;
}

/* Whether the hit passes trigger @rt's filter (its thread, CPU and name as the kernel's). */
static bool filter_passes(const struct rt_trig *rt, const uint64_t *args, unsigned nargs)
{
	const struct ut_ctl *ctl = ut_rt.ctl;
	struct ut_evtrig_ctx ctx = {.cpu = ut_cpu()};
	char comm[17] = "";

	if (!ut_self.tid)
		ut_self.tid = (int32_t)gettid();
	ctx.pid = ut_self.tid;
	/* the slot's name may fill its 16 bytes: a terminated copy */
	if (ctl && ut_self.has_slot && ut_self.slot < UT_MAX_THREADS)
		memcpy(comm, ctl->threads[ut_self.slot].comm, 16);
	else if (ctl)
		memcpy(comm, ctl->comm, 16);
	ctx.comm = comm;
	return ut_evtrig_filter_match(rt->filter, args, nargs, &ctx);
}

/*
 * A snapshot now (the `snapshot` trigger, hist's .snapshot()): the time in
 * its numbered place, then the count the mount watches; the mount takes
 * the trace as it was at that time (tracefs/snapshot.c).  Two threads
 * asking at once may finish out of order, and the mount, reading the times
 * the count covers, may then read one not stored yet: a race of
 * nanoseconds that only misplaces that cut.
 */
void ut_evtrig_snapshot(void)
{
	struct ut_ctl *c = ut_rt.ctl;
	uint64_t k;

	if (!c)
		return;
	k = __atomic_fetch_add(&c->snap_claims, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&c->snap_ts[k % UT_SNAP_TS], ut_now(), __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->snap_requests, 1, __ATOMIC_RELEASE);
}

/* A plain hist trigger's hit: counted under its key, with its values' sums. */
static void hist_hit(struct rt_trig *rt, const struct rt_hit *h)
{
	uint64_t vals[UT_HIST_VALS] = {0};
	struct rt_key key;

	ut_evhist_key(rt, h, &key);
	for (unsigned i = 0; i < rt->t.nvals && i < UT_HIST_VALS; i++)
		vals[i] = ut_histvar_field(h, rt->slot[UT_HIST_MAX_KEYS + i]);
	ut_evhist_count(rt->hist, &rt->t, &key, vals);
}

void ut_evtrig_run(struct rt_tab *tab, uint32_t ev, struct rt_hit *h)
{
	for (uint32_t i = 0; i < tab->nr_trig; i++) {
		struct rt_trig *rt = &tab->trig[i];

		if (rt->ev != ev || !rt->e)
			continue;
		/* as the kernel's: the triggers that need the record follow set_event_pid */
		if ((rt->filter || rt->t.cmd == UT_ET_HIST) && !ut_evpid_ok())
			continue;
		if (!h->fetched && (rt->filter || rt->t.cmd == UT_ET_HIST))
			fetch_args(h, tab->ev[ev].strings);
		if (rt->filter && !filter_passes(rt, h->args, h->nargs))
			continue;
		switch (rt->t.cmd) {
		case UT_ET_TRACEON:
		case UT_ET_TRACEOFF:
			set_tracing(rt->e, rt->t.cmd == UT_ET_TRACEON);
			break;
		case UT_ET_STACKTRACE:
			if (h->resume) /* a synthetic event has no code to unwind from */
				stacktrace(rt->e, h->site, h->resume);
			break;
		case UT_ET_ENABLE:
		case UT_ET_DISABLE:
			set_soft(tab, rt, rt->t.cmd == UT_ET_ENABLE ? 1 : -1);
			break;
		case UT_ET_SNAPSHOT:
			if (take(rt->e))
				ut_evtrig_snapshot();
			break;
		case UT_ET_HIST:
			if (rt->hist && rt->has_vars)
				ut_histvar_hit(tab, rt, h);
			else if (rt->hist)
				hist_hit(rt, h);
			break;
		}
	}
}

/* From usdt.c after a hit of probe @r of module @m was recorded (or not). */
void ut_evtrig_hit(const struct ut_module *m, const struct ut_probe *r, const ucontext_t *uc)
{
	struct rt_tab *tab = table();
	const struct ut_usdt_probe *p = &m->usdt.v[r->idx];
	const struct rt_event *ev = tab ? find_event(tab, p) : NULL;
	char strs[UT_USDT_MAX_ARGS][UT_HIST_STR_MAX];
	struct rt_hit h;

	if (!ev)
		return;
	h.strs = strs;
	h.m = m;
	h.p = p;
	h.uc = uc;
	h.site = r->addr;
	h.resume = r->addr + 1; /* from the SIGTRAP handler: after the 1-byte trap */
	h.ts = 0;
	h.nargs = 0;
	h.fetched = false;
	h.depth = 0;
	ut_evtrig_run(tab, (uint32_t)(ev - tab->ev), &h);
}

/*
 * A process event @sys:@evt happened, with its fields @args (slots,
 * common/procev_fields.h); a stack starts at @site, the code that
 * reported it.
 */
void ut_evtrig_hit_event(const char *sys, const char *evt, const uint64_t *args,
			 unsigned nargs, uint64_t site)
{
	struct rt_tab *tab = table();
	const struct rt_event *ev = tab ? find_named(tab, sys, evt) : NULL;
	struct rt_hit h = {.site = site, .resume = site, .fetched = true};

	if (!ev)
		return;
	h.nargs = nargs < UT_USDT_MAX_ARGS ? nargs : UT_USDT_MAX_ARGS;
	memcpy(h.args, args, h.nargs * sizeof(*args));
	ut_evtrig_run(tab, (uint32_t)(ev - tab->ev), &h);
}

/* Whether the session holds hist tables (kept after the process exits). */
bool ut_evtrig_has_tables(void)
{
	return files_pid == ut_rt.pid && nr_hists;
}
