// SPDX-License-Identifier: MIT
/*
 * synthetic_events (the kernel's, histogram.rst section 2.2): the
 * definitions of synthetic events, kept as the configuration's "synth"
 * lines of the template and of every process (common/synth.h).  Each one
 * is an event under events/synthetic/NAME/ like the probes' (format, id,
 * enable, filter, trigger, hist), written by the onmatch() actions of hist
 * triggers in the processes that define it.
 *
 * Writes: "NAME TYPE FIELD[; TYPE FIELD]..." adds one (an existing name:
 * EEXIST, "Event already exists"), "!NAME" removes one (EBUSY while a
 * trigger is on it or generates it), O_TRUNC removes them all first (EBUSY
 * if one is in use).  Bad definitions are EINVAL with the kernel's message
 * in error_log ("synthetic_events: error: Invalid type", the command, the
 * caret).  Reads: one definition per line, "NAME\tTYPE FIELD; ...".
 *
 * Synthetic events are global in the kernel (one definition list, whatever
 * instance writes it), and a process's synthetic event is only usable when
 * every process that may generate it knows its definition: so the file is
 * one list, the top level's, also seen as processes/PID/synthetic_events (a
 * view: reads show the top level's list, writes change it, i.e. the template
 * and every running process), where the kernel's self-tests, which run in a
 * process's directory, look for it.  Errors go to the error_log of the
 * directory written in, where the writer reads it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/evtrigger.h"
#include "common/synth.h"
#include "tracefs/tracefs.h"

struct synth_edit {
	const struct ut_synth_def *d;
	bool remove, all;
	const char *line;
};

/* Whether a trigger of @c is on synthetic event @name or generates it. */
static bool in_use(const struct ut_cfg *c, const char *name)
{
	char ev[80];

	snprintf(ev, sizeof(ev), "%s:%s ", UT_SYNTH_SYSTEM, name);
	for (const char *p = c->triggers; p && *p;
	     p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		const char *sp = memchr(p, ' ', strcspn(p, "\n"));
		struct ut_evtrig t;
		struct ut_evtrig_err err;

		if (!strncmp(p, ev, strlen(ev)))
			return true;
		if (!sp || ut_evtrig_parse(sp + 1, strcspn(sp + 1, "\n"), &t, &err))
			continue;
		for (uint8_t i = 0; i < t.hv.nactions; i++)
			if (t.hv.act[i].action == UT_HA_TRACE && !strcmp(t.hv.act[i].synth, name))
				return true;
	}
	return false;
}

/* @c's definitions without @name's (every one with @name NULL); -EBUSY if one is in use. */
static int drop(struct ut_cfg *c, const char *name)
{
	char *old = c->synth;
	int ret = 0;

	for (const char *p = old; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		struct ut_synth_def d;
		struct ut_synth_err err;
		bool rm;

		if (!ut_synth_parse(p, strcspn(p, "\n"), &d, &rm, &err) &&
		    (!name || !strcmp(d.name, name)) && in_use(c, d.name))
			return -EBUSY;
	}
	c->synth = NULL;
	for (const char *p = old; p && *p && !ret;
	     p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		struct ut_synth_def d;
		struct ut_synth_err err;
		bool rm;

		if (name && (ut_synth_parse(p, strcspn(p, "\n"), &d, &rm, &err) ||
			     strcmp(d.name, name) != 0))
			ret = ut_cfg_add_synth(c, p);
	}
	free(old);
	return ret;
}

static int edit_synth(struct ut_cfg *c, const void *arg)
{
	const struct synth_edit *e = arg;
	struct ut_synth_def o;

	if (e->all)
		return drop(c, NULL);
	if (e->remove)
		return ut_synth_find(c->synth, e->d->name, &o) ? drop(c, e->d->name) : -ENOENT;
	if (ut_synth_find(c->synth, e->d->name, &o))
		return -EEXIST;
	return ut_cfg_add_synth(c, e->line);
}

int tfs_show_synth(struct tfs_req *r, FILE *f)
{
	struct ut_cfg c;
	int ret = tfs_scope_config(tfs_scope_get(0), &c);

	for (const char *p = c.synth; !ret && p && *p;
	     p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		struct ut_synth_def d;
		struct ut_synth_err err;
		char line[1024];
		bool rm;

		if (ut_synth_parse(p, strcspn(p, "\n"), &d, &rm, &err))
			continue;
		ut_synth_print(&d, line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	if (!ret)
		ut_cfg_free(&c);
	return ret;
}

int tfs_trunc_synth(struct tfs_req *r)
{
	struct synth_edit e = {.all = true};
	struct ut_cfg c;
	bool none;

	(void)r;
	if (tfs_scope_config(tfs_scope_get(0), &c))
		return 0;
	none = !c.synth || !c.synth[0];
	ut_cfg_free(&c);
	if (none) /* nothing listed: no process to ask (each would be asked, and answer) */
		return 0;
	return tfs_scope_edit(tfs_scope_get(0), edit_synth, &e, false, "");
}

int tfs_synth_apply(struct tfs_req *r, const char *cmd, size_t off)
{
	struct ut_synth_def d;
	struct ut_synth_err err;
	struct synth_edit e = {.d = &d, .line = cmd + off};
	int ret;

	if (ut_synth_parse(cmd + off, strlen(cmd + off), &d, &e.remove, &err)) {
		tfs_errlog_at(r->sc, "synthetic_events", err.msg, cmd, (int)(err.pos + off));
		return -EINVAL;
	}
	ret = tfs_scope_edit(tfs_scope_get(0), edit_synth, &e, false, cmd);
	if (ret == -EEXIST)
		tfs_errlog_at(r->sc, "synthetic_events", "Event already exists", cmd, (int)off);
	return ret;
}

int tfs_synth_remove(const char *name)
{
	struct ut_synth_def d = {0};
	struct synth_edit e = {.d = &d, .remove = true};

	snprintf(d.name, sizeof(d.name), "%s", name);
	return tfs_scope_edit(tfs_scope_get(0), edit_synth, &e, false, name);
}

int tfs_store_synth(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	char cmd[1024];

	(void)append;
	if (tfs_strip(buf, len, cmd, sizeof(cmd)) || !cmd[0])
		return cmd[0] ? -EINVAL : 0; /* `echo > synthetic_events` only clears */
	return tfs_synth_apply(r, cmd, 0);
}

int tfs_synth_add(struct ut_probetab *t)
{
	struct ut_cfg c;
	int ret;

	if (tfs_scope_config(tfs_scope_get(0), &c))
		return 0;
	ret = ut_synth_add_all(t, c.synth);
	ut_cfg_free(&c);
	return ret;
}
