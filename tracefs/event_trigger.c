// SPDX-License-Identifier: MIT
/*
 * events/SYS/EVT/trigger: the kernel's event triggers (SPEC §9.4,
 * common/evtrigger.h) on the USDT events of the scope's processes.  A
 * trigger is a "trigger SYS:EVT TEXT" line of the configuration, which
 * each process runs (libutrace/evtrigger.c); the counts they have left
 * and the hist tables are the sessions' shared files (reader/evtrig.c).
 *
 * Writes: one trigger, or `!trigger` to remove it (count and filter may
 * be left out).  A second trigger of the same kind (the same target for
 * enable_event/disable_event, the same definition for hist) is EEXIST; a
 * hist trigger written again with :pause or :continue pauses or resumes
 * it, with :clear empties its tables.  Bad input is EINVAL and changes
 * nothing; hist errors are logged in error_log as the kernel logs them
 * ("hist:SYS:EVT: error: Couldn't find field", the caret under the field);
 * the kernel logs nothing for a bad plain trigger, nor does this.
 *
 * Reads: one line per trigger, newest first, the count left from the
 * first process of the scope that runs the trigger; "# Available
 * triggers:" with none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/evtrigger.h"
#include "common/histstr.h"
#include "common/synth.h"
#include "common/procev_fields.h"
#include "common/usdt_events.h"
#include "tracefs/tracefs.h"
#include "utrace/abi.h"
#include "utrace/read.h"

/* What a store asks the configuration edit to do. */
struct trig_edit {
	const char *ev;          /* "SYS:EVT" */
	const struct ut_evtrig *t;
	const char *line;        /* the configuration's text for t */
};

/* Each trigger line of @c's on event @ev: its text (after "SYS:EVT "), @n bytes. */
const char *tfs_evtrig_next(const char *p, const char *ev, size_t *n)
{
	size_t evn = strlen(ev);

	for (; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		size_t len = strcspn(p, "\n");

		if (len > evn && !memcmp(p, ev, evn) && p[evn] == ' ') {
			*n = len - evn - 1;
			return p + evn + 1;
		}
	}
	return NULL;
}

/* Whether trigger @a and @b are the same one (the kernel's duplicate rule). */
static bool same_trigger(const struct ut_evtrig *a, const struct ut_evtrig *b)
{
	char x[256], y[256];

	if (a->cmd != b->cmd)
		return false;
	ut_evtrig_ident(a, x, sizeof(x));
	ut_evtrig_ident(b, y, sizeof(y));
	return !strcmp(x, y);
}

/* @c's triggers with the one matching @e->t removed (@keep: replaced by e->line). */
static int rewrite(struct ut_cfg *c, const struct trig_edit *e, bool keep)
{
	char *old = c->triggers;
	const char *p = old;
	struct ut_evtrig t;
	struct ut_evtrig_err err;
	size_t evn = strlen(e->ev);
	int ret = 0;

	c->triggers = NULL;
	for (; p && *p && !ret; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		size_t len = strcspn(p, "\n");
		bool mine = len > evn && !memcmp(p, e->ev, evn) && p[evn] == ' ' &&
			    !ut_evtrig_parse(p + evn + 1, len - evn - 1, &t, &err) &&
			    same_trigger(&t, e->t);
		char line[512];

		if (mine && keep)
			snprintf(line, sizeof(line), "%s %s", e->ev, e->line);
		else
			snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (!mine || keep)
			ret = ut_cfg_add_trigger(c, line);
	}
	free(old);
	return ret;
}

/* Whether @c has the trigger of @e (the same kind, target or hist definition). */
static bool has_trigger(const struct ut_cfg *c, const struct trig_edit *e)
{
	const char *p;
	size_t n;
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	for (p = tfs_evtrig_next(c->triggers, e->ev, &n); p; p = tfs_evtrig_next(p + n, e->ev, &n))
		if (!ut_evtrig_parse(p, n, &t, &err) && same_trigger(&t, e->t))
			return true;
	return false;
}

static int edit_triggers(struct ut_cfg *c, const void *arg)
{
	const struct trig_edit *e = arg;
	const struct ut_evtrig *t = e->t;
	bool has = has_trigger(c, e);
	char line[512];

	if (t->remove)
		return rewrite(c, e, false);
	if (t->cmd == UT_ET_HIST && (t->pause || t->cont || t->clear) && has)
		return t->pause || t->cont ? rewrite(c, e, true) : 0; /* clear: the tables only */
	if (t->cmd == UT_ET_HIST && (t->cont || t->clear) && !t->pause)
		return -ENOENT; /* continue or clear a hist that is not there */
	if (has)
		return -EEXIST;
	snprintf(line, sizeof(line), "%s %s", e->ev, e->line);
	return ut_cfg_add_trigger(c, line);
}

bool tfs_event_format(struct tfs_req *r, struct ut_evfmt *out)
{
	struct ut_probetab *tab;
	const char *colon = strchr(r->ev, ':');
	bool found = false;
	char sys[UT_EVTRIG_NAME_MAX];

	if (tfs_mtrig_event(r->ev)) /* trace_marker's: run by the mount (marker_trig.c) */
		return tfs_mtrig_format(out);
	/* a process event: its fields as named slots (common/procev_fields.h) */
	snprintf(sys, sizeof(sys), "%.*s", colon ? (int)(colon - r->ev) : 0, r->ev);
	if (colon && ut_procev_evfmt_named(sys, colon + 1, out))
		return true;
	tab = tfs_scope_probes(r->sc);
	for (size_t i = 0; colon && tab && i < tab->n && !found; i++) {
		const struct ut_evfmt *fm = &tab->v[i].f;

		found = !strncmp(fm->system, r->ev, (size_t)(colon - r->ev)) &&
			!fm->system[colon - r->ev] && !strcmp(fm->name, colon + 1);
		if (found)
			*out = *fm;
	}
	ut_probetab_free(tab);
	return found;
}

/* A hist or filter error into error_log as the kernel logs it: "hist:SYS:EVT: error: MSG". */
static void log_error(struct tfs_req *r, const struct ut_evtrig_err *err, const char *cmd)
{
	char loc[160];

	if (!err->logged)
		return;
	if (err->in_filter)
		snprintf(loc, sizeof(loc), "event filter parse error");
	else
		snprintf(loc, sizeof(loc), "hist:%s", r->ev);
	tfs_errlog_at(r->sc, loc, err->msg, cmd, (int)err->pos);
}

/*
 * Whether a hist trigger of @c other than @t defines variable @name (on
 * the event @t's onmatch() matches, if it has one).
 */
static bool var_defined(const struct ut_cfg *c, const struct ut_evtrig *t, const char *name)
{
	const struct ut_hist_action *m = NULL;
	char ev[2 * UT_EVTRIG_NAME_MAX + 2] = "";

	for (uint8_t i = 0; i < t->hv.nactions; i++)
		if (t->hv.act[i].handler == UT_HH_ONMATCH)
			m = &t->hv.act[i];
	if (m)
		snprintf(ev, sizeof(ev), "%s:%s ", m->sys, m->evt);
	for (const char *p = c->triggers; p && *p;
	     p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		const char *sp = memchr(p, ' ', strcspn(p, "\n"));
		struct ut_evtrig o;
		struct ut_evtrig_err err;

		if (!sp || (m && strncmp(p, ev, strlen(ev)) != 0) ||
		    ut_evtrig_parse(sp + 1, strcspn(sp + 1, "\n"), &o, &err))
			continue;
		if (o.cmd == UT_ET_HIST && ut_histvar_find(&o.hv, name))
			return true;
	}
	return false;
}

/* onmatch()'s params $VAR that are not @t's own: the matched event's, defined in @c. */
static int check_params(const struct ut_cfg *c, const struct ut_evtrig *t, const char *cmd,
			struct ut_evtrig_err *err)
{
	for (uint8_t i = 0; i < t->hv.nactions; i++) {
		const struct ut_hist_action *a = &t->hv.act[i];

		for (uint8_t j = 0; a->handler == UT_HH_ONMATCH && j < a->nparams; j++) {
			const char *p = a->param[j], *at;

			if (p[0] != '$' || ut_histvar_find(&t->hv, p + 1) || var_defined(c, t, p + 1))
				continue;
			at = strstr(cmd, p);
			err->msg = "Couldn't find param";
			err->pos = at ? (size_t)(at - cmd) : 0;
			err->logged = true;
			err->in_filter = false;
			return -EINVAL;
		}
	}
	return 0;
}

/* @t's $refs to other triggers' variables: each defined in the scope (the kernel's check). */
static int check_refs(struct tfs_req *r, const struct ut_evtrig *t, const char *cmd,
		      struct ut_evtrig_err *err)
{
	struct ut_cfg c;
	int ret = 0;

	if (t->cmd != UT_ET_HIST || (!t->hv.nvars && !t->hv.nactions) ||
	    tfs_scope_config(r->sc, &c))
		return 0;
	for (uint8_t i = 0; i < t->hv.nvars && !ret; i++)
		for (uint8_t j = 0; j < t->hv.vars[i].nops && !ret; j++) {
			const struct ut_hist_operand *o = &t->hv.vars[i].op[j];
			const struct ut_hist_var *own = ut_histvar_find(&t->hv, o->name);
			char ref[UT_HIST_NAME_MAX + 2];
			const char *at;

			if (o->kind != UT_HO_VAR || (own && own < &t->hv.vars[i]) ||
			    var_defined(&c, t, o->name))
				continue;
			snprintf(ref, sizeof(ref), "$%s", o->name);
			at = strstr(cmd, ref);
			err->msg = "Couldn't find variable";
			err->pos = at ? (size_t)(at - cmd) : 0;
			err->logged = true;
			err->in_filter = false;
			ret = -EINVAL;
		}
	if (!ret)
		ret = check_params(&c, t, cmd, err);
	ut_cfg_free(&c);
	return ret;
}

/* A named hist: the same definition as the triggers of that name on other events (the kernel's). */
static int check_named(struct tfs_req *r, const struct ut_evtrig *t, const char *cmd,
		       struct ut_evtrig_err *err)
{
	struct ut_cfg c;
	char mine[256], other[256];
	int ret = 0;

	if (t->cmd != UT_ET_HIST || !t->name[0] || tfs_scope_config(r->sc, &c))
		return 0;
	ut_evtrig_ident(t, mine, sizeof(mine));
	for (const char *p = c.triggers; p && *p && !ret;
	     p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		const char *sp = memchr(p, ' ', strcspn(p, "\n")), *at;
		struct ut_evtrig o;
		struct ut_evtrig_err oe;

		if (!sp || ut_evtrig_parse(sp + 1, strcspn(sp + 1, "\n"), &o, &oe) ||
		    o.cmd != UT_ET_HIST || strcmp(o.name, t->name) != 0)
			continue;
		ut_evtrig_ident(&o, other, sizeof(other));
		if (!strcmp(mine, other))
			continue;
		at = strstr(cmd, "name=");
		err->msg = "Named hist trigger doesn't match existing named trigger (includes "
			   "variables)";
		err->pos = at ? (size_t)(at - cmd) : 0;
		err->logged = true;
		err->in_filter = false;
		ret = -EINVAL;
	}
	ut_cfg_free(&c);
	return ret;
}

/* onmatch().trace(): its synthetic event defined (synthetic_events), with as many fields as params.
 */
static int check_synth(const struct ut_evtrig *t, const struct ut_evfmt *fmt, const char *cmd,
		       struct ut_evtrig_err *err)
{
	struct ut_cfg c;
	int ret = 0;

	if (t->cmd != UT_ET_HIST || !t->hv.nactions || tfs_scope_config(tfs_scope_get(0), &c))
		return 0;
	for (uint8_t i = 0; i < t->hv.nactions && !ret; i++) {
		const struct ut_hist_action *a = &t->hv.act[i];
		const char *at = strstr(cmd, a->synth);
		struct ut_synth_def d;

		if (a->action != UT_HA_TRACE)
			continue;
		err->pos = at ? (size_t)(at - cmd) : 0;
		err->logged = true;
		err->in_filter = false;
		if (!ut_synth_find(c.synth, a->synth, &d)) {
			err->msg = "Couldn't find synthetic event";
			ret = -EINVAL;
		} else if (d.nfields != a->nparams) {
			err->msg = "Param count doesn't match synthetic event field count";
			ret = -EINVAL;
		}
		for (uint8_t j = 0; !ret && j < a->nparams; j++) {
			int str = ut_hist_param_is_string(t, fmt, a, j);

			if (str < 0 || str == d.is_string[j])
				continue; /* a string for a string field, a number for a number */
			at = strstr(cmd, a->param[j]);
			err->pos = at ? (size_t)(at - cmd) : 0;
			err->msg = "Param type doesn't match synthetic event field type";
			ret = -EINVAL;
		}
	}
	ut_cfg_free(&c);
	return ret;
}

/* Whether hist trigger @t has an onmax() or onchange() handler. */
static bool tracks(const struct ut_evtrig *t)
{
	for (uint8_t i = 0; i < t->hv.nactions; i++)
		if (t->hv.act[i].handler != UT_HH_ONMATCH)
			return true;
	return false;
}

/* Parse and check one write; 0 or -EINVAL (logged as the kernel does). */
static int parse_write(struct tfs_req *r, const char *cmd, struct ut_evtrig *t)
{
	struct ut_evtrig_err err;
	struct ut_evfmt fmt;

	if (!tfs_event_format(r, &fmt))
		return -ENOENT;
	if (ut_evtrig_parse(cmd, strlen(cmd), t, &err) || ut_evtrig_check(t, &fmt, cmd, &err) ||
	    (!t->remove && (check_refs(r, t, cmd, &err) || check_synth(t, &fmt, cmd, &err) ||
			    check_named(r, t, cmd, &err)))) {
		log_error(r, &err, cmd);
		return -EINVAL;
	}
	if ((t->cmd == UT_ET_ENABLE || t->cmd == UT_ET_DISABLE) && !t->remove &&
	    !tfs_event_exists(r->sc->pid, t->sys, t->evt))
		return -EINVAL;
	/* the mount runs ftrace:print's hist variables and onmatch(), not onmax()/onchange() */
	if (tfs_mtrig_event(r->ev) && t->cmd == UT_ET_HIST && !t->remove && tracks(t))
		return -EINVAL;
	return 0;
}

/* A hist trigger with .snapshot(): writing it allocates the snapshot, as the snapshot trigger. */
static bool has_snapshot_action(const struct ut_evtrig *t)
{
	for (uint8_t i = 0; t->cmd == UT_ET_HIST && i < t->hv.nactions; i++)
		if (t->hv.act[i].action == UT_HA_SNAPSHOT)
			return true;
	return false;
}

int tfs_store_event_trigger(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	struct ut_evtrig t;
	struct trig_edit e = {.ev = r->ev, .t = &t};
	struct ut_evtrig_err err = {.logged = true, .pos = 0};
	char cmd[512], line[512];
	int ret;

	(void)append;
	if (tfs_strip(buf, len, cmd, sizeof(cmd)) || !cmd[0])
		return -EINVAL; /* `echo > trigger` removes nothing */
	ret = parse_write(r, cmd, &t);
	if (ret)
		return ret;
	ut_evtrig_config_text(&t, line, sizeof(line));
	e.line = line;
	ret = tfs_scope_edit(r->sc, edit_triggers, &e, false, cmd);
	if (ret == -EEXIST && t.cmd == UT_ET_HIST) {
		err.msg = "Hist trigger already exists";
		log_error(r, &err, cmd);
	} else if (ret == -ENOENT && t.cmd == UT_ET_HIST) {
		err.msg = "Can't clear or continue a nonexistent hist trigger";
		log_error(r, &err, cmd);
		ret = -EINVAL;
	}
	if (!ret && t.cmd == UT_ET_HIST && t.clear)
		tfs_hist_clear(r, &t);
	if (!ret && (t.remove || !(t.pause || t.cont || t.clear))) {
		char ident[256];

		/* the mount's state of it (the triggers it runs): written anew, counts start again */
		ut_evtrig_ident(&t, ident, sizeof(ident));
		tfs_mtrig_forget(r->sc->pid, r->ev, ident, false);
	}
	if (!ret && !t.remove && (t.cmd == UT_ET_SNAPSHOT || has_snapshot_action(&t)))
		ret = tfs_snapshot_alloc(r->sc); /* as the kernel's registration */
	return ret;
}

/* The count trigger @ident of event r->ev has left in the scope's first process running it. */
static bool live_count(struct tfs_req *r, const char *ident, int64_t *count)
{
	struct ut_live_sess *v = NULL;
	long n = ut_live_list(tfs_rundir, &v);
	struct ut_evtrig_entry *e = malloc(UT_EVTRIGS_MAX * sizeof(*e));
	const char *colon = strchr(r->ev, ':');
	bool found = false;

	/* ftrace:print: the mount's count (trace_marker writes), else a program's (utrace_marker) */
	if (tfs_mtrig_event(r->ev))
		found = tfs_mtrig_count(r->sc->pid, r->ev, ident, count);
	for (long i = 0; e && colon && i < n && !found; i++) {
		long k = (!v[i].alive || (r->sc->pid && v[i].pid != r->sc->pid))
				 ? 0 : ut_live_evtrigs(v[i].dir, e);

		for (long j = 0; j < k && !found; j++) {
			found = !strncmp(e[j].sys, r->ev, (size_t)(colon - r->ev)) &&
				!e[j].sys[colon - r->ev] && !strcmp(e[j].evt, colon + 1) &&
				!strncmp(e[j].ident, ident, sizeof(e[j].ident) - 1);
			if (found)
				*count = e[j].count;
		}
	}
	free(e);
	if (n > 0)
		free(v);
	return found;
}

int tfs_show_event_trigger(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	const char *p, *lines[UT_EVTRIGS_MAX];
	size_t n, lens[UT_EVTRIGS_MAX], nr = 0;
	int ret = tfs_scope_config(r->sc, &c);

	for (p = tfs_evtrig_next(c.triggers, r->ev, &n); !ret && p && nr < UT_EVTRIGS_MAX;
	     p = tfs_evtrig_next(p + n, r->ev, &n)) {
		lines[nr] = p;
		lens[nr++] = n;
	}
	if (!ret && !nr)
		fputs(ut_evtrig_available, f);
	while (!ret && nr--) { /* newest first, as the kernel lists them */
		struct ut_evtrig t;
		struct ut_evtrig_err err;
		char ident[256], text[600];
		int64_t count;

		if (ut_evtrig_parse(lines[nr], lens[nr], &t, &err))
			continue;
		count = t.counted ? t.count : -1;
		ut_evtrig_ident(&t, ident, sizeof(ident));
		if (t.counted)
			live_count(r, ident, &count);
		ut_evtrig_print(&t, count, text, sizeof(text));
		fprintf(f, "%s\n", text);
	}
	ut_cfg_free(&c);
	return ret;
}

/* Whether @ev ("SYS:EVT") is the target of a trigger of @c (any event's); *@target_of: which. */
static bool targeted(const struct ut_cfg *c, const char *ev, char *ident, size_t len)
{
	for (const char *p = c->triggers; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		const char *sp = memchr(p, ' ', strcspn(p, "\n"));
		struct ut_evtrig t;
		struct ut_evtrig_err err;
		char name[2 * UT_EVTRIG_NAME_MAX + 2];

		if (!sp || ut_evtrig_parse(sp + 1, strcspn(sp + 1, "\n"), &t, &err) ||
		    (t.cmd != UT_ET_ENABLE && t.cmd != UT_ET_DISABLE))
			continue;
		snprintf(name, sizeof(name), "%s:%s", t.sys, t.evt);
		if (!strcmp(name, ev)) {
			ut_evtrig_ident(&t, ident, len);
			return true;
		}
	}
	return false;
}

/* The target's state in the scope's first live process running trigger @ident: 1, -1 or 0. */
static int live_soft(struct tfs_req *r, const char *ident)
{
	struct ut_live_sess *v = NULL;
	long n = ut_live_list(tfs_rundir, &v);
	struct ut_evtrig_entry *e = malloc(UT_EVTRIGS_MAX * sizeof(*e));
	int soft = 0;
	bool found = false;

	for (long i = 0; e && i < n && !found; i++) {
		long k = (!v[i].alive || (r->sc->pid && v[i].pid != r->sc->pid))
				 ? 0 : ut_live_evtrigs(v[i].dir, e);

		for (long j = 0; j < k && !found; j++)
			if (!strncmp(e[j].ident, ident, sizeof(e[j].ident) - 1)) {
				found = true;
				soft = e[j].soft;
			}
	}
	free(e);
	if (n > 0)
		free(v);
	return soft;
}

bool tfs_evtrig_soft_mode(struct tfs_req *r, bool enabled, int *digit)
{
	struct ut_cfg c;
	size_t n;
	char ident[256] = "";
	bool has, target;
	int soft = 0;

	if (tfs_scope_config(r->sc, &c))
		return false;
	has = tfs_evtrig_next(c.triggers, r->ev, &n) != NULL;
	target = targeted(&c, r->ev, ident, sizeof(ident));
	ut_cfg_free(&c);
	if (target)
		soft = live_soft(r, ident);
	*digit = enabled ? soft >= 0 : soft > 0;
	return has || target;
}
