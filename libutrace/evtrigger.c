// SPDX-License-Identifier: MIT
/*
 * Event triggers in the traced process: what events/SYS/EVT/trigger holds
 * (the configuration's "trigger" lines, common/evtrigger.h), run when a
 * USDT probe of that event hits (usdt.c calls ut_evtrig_hit() after its
 * record).  As in the kernel:
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
#include "common/procev_fields.h"
#include "libutrace/internal.h"

#define MAX_EVENTS ((size_t)2 * UT_EVTRIGS_MAX)
#define MAX_HISTS 16

struct rt_trig {
	struct ut_evtrig t;
	uint32_t ev;               /* the event it is on: index in tab->ev */
	int32_t target;            /* enable/disable_event's target event, else -1 */
	struct ut_evtrig_entry *e; /* its entry in the shared table (its count) */
	struct ut_hist_hdr *hist;  /* hist: its shared table */
	struct ut_evtrig_filter *filter; /* `if FILTER`, compiled; NULL: none */
};

/* An event with triggers, or the target of one; soft: +1 on, -1 off, 0 as enabled. */
struct rt_event {
	char sys[UT_EVTRIG_NAME_MAX], evt[UT_EVTRIG_NAME_MAX];
	int32_t soft;
};

/* A table: built in room for the most, published in one allocation of its size. */
struct rt_tab {
	int32_t pid;               /* the process whose files it uses (a fork child rebuilds) */
	uint32_t nr_trig, nr_ev;
	bool incomplete;           /* a filtered trigger's event had no probe loaded yet */
	struct rt_trig *trig;
	struct rt_event *ev;
};

/* A hist table file of the session, mapped. */
struct hist_map {
	struct ut_hist_hdr *h;
	size_t len;
};

static struct rt_tab *cur;          /* read by the hit path */
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
				      uint32_t size)
{
	struct ut_hist_hdr *h;
	char name[32];
	size_t len;

	for (uint32_t i = 0; i < nr_hists; i++) {
		h = hists[i].h;
		if (!h->removed && !strcmp(h->sys, sys) && !strcmp(h->evt, evt) &&
		    !strcmp(h->ident, ident))
			return h;
	}
	if (nr_hists >= MAX_HISTS)
		return NULL;
	len = sizeof(*h) + (size_t)size * 2 * sizeof(struct ut_hist_entry);
	snprintf(name, sizeof(name), "hist.%u", nr_hists);
	h = map_new(name, len);
	if (!h)
		return NULL;
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

/* The format of event @sys:@evt from a probe of a loaded object, or a process event's. */
static bool probe_format(const char *sys, const char *evt, struct ut_evfmt *f)
{
	if (ut_procev_evfmt_named(sys, evt, f))
		return true;
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		const struct ut_module *m = ut_rt.mods[i];

		for (size_t k = 0; m->alive && k < m->usdt.n; k++) {
			const struct ut_usdt_probe *p = &m->usdt.v[k];

			if (p->nargs < 0 || strcmp(p->provider, sys) != 0 || strcmp(p->name, evt) != 0)
				continue;
			memset(f, 0, sizeof(*f));
			snprintf(f->system, sizeof(f->system), "%s", sys);
			snprintf(f->name, sizeof(f->name), "%s", evt);
			f->nargs = (uint8_t)p->nargs;
			for (int a = 0; a < p->nargs; a++) {
				f->size[a] = p->arg[a].size;
				f->is_signed[a] = p->arg[a].is_signed;
			}
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
static bool compile_filter(struct rt_tab *tab, struct rt_trig *rt, const char *sys,
			   const char *evt)
{
	struct ut_evfmt fmt;

	if (!rt->t.filter[0])
		return true;
	if (!probe_format(sys, evt, &fmt)) {
		tab->incomplete = true;
		return false;
	}
	rt->filter = ut_evtrig_filter_compile(rt->t.filter, &fmt);
	return rt->filter != NULL;
}

/* One configuration line "SYS:EVT TRIGGER" into @tab. */
static void add_line(struct rt_tab *tab, const char *line, size_t n)
{
	char sys[UT_EVTRIG_NAME_MAX], evt[UT_EVTRIG_NAME_MAX];
	const char *colon = memchr(line, ':', n), *sp = memchr(line, ' ', n);
	struct ut_evtrig_err err;
	struct rt_trig *rt = &tab->trig[tab->nr_trig];
	int32_t ev;

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
	if (ev < 0 || ((rt->t.cmd == UT_ET_ENABLE || rt->t.cmd == UT_ET_DISABLE) && rt->target < 0) ||
	    !compile_filter(tab, rt, sys, evt))
		return;
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
		rt->hist = hist_table(ev->sys, ev->evt, e->ident, rt->t.size);
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
	for (; b.trig && b.ev && l && *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
		add_line(&b, l, strcspn(l, "\n"));
	if (b.trig && b.ev)
		tab = calloc(1, sizeof(*tab) + b.nr_trig * sizeof(*b.trig) + b.nr_ev * sizeof(*b.ev));
	if (tab) {
		*tab = b;
		tab->trig = (struct rt_trig *)(tab + 1);
		tab->ev = (struct rt_event *)(tab->trig + b.nr_trig);
		memcpy(tab->trig, b.trig, b.nr_trig * sizeof(*b.trig));
		memcpy(tab->ev, b.ev, b.nr_ev * sizeof(*b.ev));
	}
	free(b.trig);
	free(b.ev);
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

int ut_evtrig_apply(void)
{
	const char *l = ut_rt.cfg.triggers;
	struct rt_tab *tab;
	char *text;
	uint32_t k;

	forget_parent_files();
	if (unchanged(l))
		return 0;
	tab = build(l);
	text = strdup(l ? l : "");
	if (!tab || !text) {
		free(tab);
		free(text);
		return -ENOMEM;
	}
	if (cur && cur->pid == ut_rt.pid)
		carry_soft(tab);
	if (!shared_table() && tab->nr_trig) {
		free(tab);
		free(text);
		return -EIO;
	}
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

/* The probe's arguments (8-byte slots, as recorded). */
static unsigned fetch_args(const struct ut_module *m, const struct ut_usdt_probe *p,
			   const ucontext_t *uc, uint64_t *args)
{
	unsigned n = p->nargs > 0 ? (unsigned)p->nargs : 0;

	for (unsigned i = 0; i < n && i < UT_USDT_MAX_ARGS; i++)
		args[i] = ut_arch_usdt_fetch(uc, &p->arg[i], m->bias);
	return n;
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

/* Whether a trigger of event @ev reads the hit's fields (a filter, a hist). */
static bool needs_fields(const struct rt_tab *tab, const struct rt_event *ev)
{
	for (uint32_t i = 0; i < tab->nr_trig; i++)
		if (&tab->ev[tab->trig[i].ev] == ev &&
		    (tab->trig[i].filter || tab->trig[i].t.cmd == UT_ET_HIST))
			return true;
	return false;
}

/* Run the triggers of event @ev for a hit with fields @args; a stack starts at @site. */
static void fire(struct rt_tab *tab, const struct rt_event *ev, const uint64_t *args,
		 unsigned nargs, uint64_t site, uint64_t resume)
{
	for (uint32_t i = 0; i < tab->nr_trig; i++) {
		struct rt_trig *rt = &tab->trig[i];

		if (&tab->ev[rt->ev] != ev || !rt->e)
			continue;
		/* as the kernel's: the triggers that need the record follow set_event_pid */
		if ((rt->filter || rt->t.cmd == UT_ET_HIST) && !ut_evpid_ok())
			continue;
		if (rt->filter && !filter_passes(rt, args, nargs))
			continue;
		switch (rt->t.cmd) {
		case UT_ET_TRACEON:
		case UT_ET_TRACEOFF:
			set_tracing(rt->e, rt->t.cmd == UT_ET_TRACEON);
			break;
		case UT_ET_STACKTRACE:
			stacktrace(rt->e, site, resume);
			break;
		case UT_ET_ENABLE:
		case UT_ET_DISABLE:
			set_soft(tab, rt, rt->t.cmd == UT_ET_ENABLE ? 1 : -1);
			break;
		case UT_ET_SNAPSHOT: /* the mount takes it when it sees the count move */
			if (take(rt->e))
				__atomic_add_fetch(&ut_rt.ctl->snap_requests, 1, __ATOMIC_RELEASE);
			break;
		case UT_ET_HIST:
			if (rt->hist)
				ut_evhist_add(rt->hist, &rt->t, args, nargs);
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
	uint64_t args[UT_USDT_MAX_ARGS];
	unsigned nargs = 0;

	if (!ev)
		return;
	if (needs_fields(tab, ev))
		nargs = fetch_args(m, p, uc, args);
	fire(tab, ev, args, nargs, r->addr, r->addr + 1);
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

	if (ev)
		fire(tab, ev, args, nargs, site, site);
}

/* Whether the session holds hist tables (kept after the process exits). */
bool ut_evtrig_has_tables(void)
{
	return files_pid == ut_rt.pid && nr_hists;
}
