// SPDX-License-Identifier: MIT
/*
 * events/PROVIDER/NAME/filter and events/PROVIDER/filter: the kernel's
 * event filters (SPEC §9.3) for USDT events and process events.  A write
 * is compiled here against the event's format (common/evfilter.h) and goes
 * to the processes as the configuration's event_filter line; each process
 * evaluates it before it writes an event (libutrace/evfilter.c).
 *
 * As the kernel's: a read shows the filter as written, or "none"; "0"
 * clears it; a filter that does not parse is EINVAL, the file then shows
 * the filter with a caret under the fault and "parse_error: MESSAGE", and
 * error_log gets an "event filter parse error" entry.  Unlike the kernel,
 * which drops the event's filter on a bad write, the filter in force stays
 * (a bad write changes nothing); the report stays in the file until the
 * next good write.
 *
 * A write to a provider's filter sets every event of it that has the
 * fields the filter names; each event that does not gets the kernel's
 * report ("Couldn't find or set field in one of a subsystem's events") in
 * its own file and an error_log entry, and keeps its filter.  If no event
 * took it, the write is EINVAL and the provider's file shows the report;
 * otherwise the provider's file shows the kernel's banner.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/evfilter.h"
#include "common/usdt_events.h"
#include "tracefs/tracefs.h"

#define SYS_BANNER                                                      \
	"### global filter ###\n"                                       \
	"# Use this to set filters for multiple events.\n"              \
	"# Only events with the given fields will be affected.\n"       \
	"# If no events are modified, an error message will be displayed here\n"

#define ERR_TAG "event filter parse error"

/* The reports a failed write left, by scope (process, 0: top) and file ("P:N" or "P"). */
static struct report {
	int32_t pid;
	char *file, *text;
} *reports;
static size_t nr_reports;

static struct report *report_find(int32_t pid, const char *file)
{
	for (size_t i = 0; i < nr_reports; i++)
		if (reports[i].pid == pid && !strcmp(reports[i].file, file))
			return &reports[i];
	return NULL;
}

/* Keep @text as the report of @file (NULL: forget it). */
static void report_set(int32_t pid, const char *file, const char *text)
{
	struct report *r = report_find(pid, file), *v;

	if (r) {
		free(r->file);
		free(r->text);
		*r = reports[--nr_reports];
	}
	if (!text)
		return;
	v = realloc(reports, (nr_reports + 1) * sizeof(*v));
	if (!v)
		return;
	reports = v;
	v[nr_reports].pid = pid;
	v[nr_reports].file = strdup(file);
	v[nr_reports].text = strdup(text);
	if (v[nr_reports].file && v[nr_reports].text)
		nr_reports++;
	else {
		free(v[nr_reports].file);
		free(v[nr_reports].text);
	}
}

/* The write's text as the kernel keeps it: blanks around it taken off.  NULL: NUL in it, or ENOMEM. */
static char *stripped(const char *buf, size_t len)
{
	if (memchr(buf, '\0', len))
		return NULL;
	while (len && isspace((unsigned char)*buf))
		buf++, len--;
	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	return strndup(buf, len);
}

/* Filters to set (prog) or remove (prog NULL), one per event. */
struct evf_edit {
	size_t n;
	struct {
		char event[160];
		char *prog;
	} *v;
	const char *text;
};

static int edit_filters(struct ut_cfg *c, const void *p)
{
	const struct evf_edit *e = p;

	for (size_t i = 0; i < e->n; i++)
		if (ut_cfg_set_evf(c, e->v[i].event, e->v[i].prog, e->text))
			return -ENOMEM;
	return 0;
}

static void edit_free(struct evf_edit *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].prog);
	free(e->v);
}

/*
 * Add event @ev with @fmt's fields to @e: the filter @text compiled (the
 * program, or on error the report in *@err), or removed when @text is NULL.
 * Events already in @e (another probe of the same name) are skipped.
 */
static int edit_add(struct evf_edit *e, const char *ev, const struct ut_evfmt *fmt,
		    const char *text, struct ut_evf_error *err)
{
	struct ut_evf_field fields[UT_USDT_MAX_ARGS];
	struct ut_evf *f = NULL;
	void *v;
	int ret;

	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].event, ev))
			return 0;
	if (text && (ret = ut_evf_parse(text, fields, ut_evfmt_fields(fmt, fields), &f, err)))
		return ret;
	v = realloc(e->v, (e->n + 1) * sizeof(e->v[0]));
	if (!v) {
		ut_evf_free(f);
		return -ENOMEM;
	}
	e->v = v;
	snprintf(e->v[e->n].event, sizeof(e->v[e->n].event), "%s", ev);
	e->v[e->n].prog = f ? ut_evf_encode(f) : NULL;
	ut_evf_free(f);
	if (text && !e->v[e->n].prog)
		return -ENOMEM;
	e->n++;
	return 0;
}

int tfs_show_event_filter(struct tfs_req *r, FILE *f)
{
	const struct report *rep = report_find(r->sc->pid, r->ev);
	const struct ut_cfg_evf *e;
	struct ut_cfg c;
	int ret;

	if (rep) {
		fputs(rep->text, f);
		return 0;
	}
	ret = tfs_scope_config(r->sc, &c);
	if (ret)
		return ret;
	e = ut_cfg_find_evf(&c, r->ev);
	fprintf(f, "%s\n", e ? e->text : "none");
	ut_cfg_free(&c);
	return 0;
}

/* The report a failed parse leaves in the event's file, and its error_log entry. */
static void parse_failed(struct tfs_req *r, const char *file, const char *text,
			 const struct ut_evf_error *err)
{
	char rep[1024];

	ut_evf_error_file(rep, sizeof(rep), text, err);
	report_set(r->sc->pid, file, rep);
	tfs_errlog_at(r->sc, ERR_TAG, ut_evf_errtext(err->code), text, err->pos);
}

int tfs_store_event_filter(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	struct ut_probetab *t;
	struct evf_edit e = {0};
	struct ut_evf_error err = {0};
	char *text = stripped(buf, len);
	int ret = -ENOENT;

	(void)append;
	if (!text)
		return -EINVAL;
	e.text = text;
	t = tfs_pid_probes(r->sc->pid);
	for (size_t i = 0; t && i < t->n && ret == -ENOENT; i++) {
		char ev[160];

		snprintf(ev, sizeof(ev), "%s:%s", t->v[i].f.system, t->v[i].f.name);
		if (!strcmp(ev, r->ev))
			ret = edit_add(&e, ev, &t->v[i].f, ut_evf_is_clear(text) ? NULL : text, &err);
	}
	ut_probetab_free(t);
	if (ret == -EINVAL)
		parse_failed(r, r->ev, text, &err);
	if (!ret)
		ret = tfs_scope_edit(r->sc, edit_filters, &e, false, text);
	if (!ret)
		report_set(r->sc->pid, r->ev, NULL);
	edit_free(&e);
	free(text);
	return ret;
}

int tfs_show_evsys_filter(struct tfs_req *r, FILE *f)
{
	const struct report *rep = report_find(r->sc->pid, r->ev);

	fputs(rep ? rep->text : SYS_BANNER, f);
	return 0;
}

/* The provider's events: each that takes the filter into @e, a report for each that does not. */
static int sys_events(struct tfs_req *r, struct evf_edit *e, const char *text, size_t *failed)
{
	struct ut_probetab *t = tfs_pid_probes(r->sc->pid);
	struct ut_evf_error err = {.code = UT_EVF_E_BAD_SUBSYS_FILTER, .pos = 0}, perr;
	int ret = 0;

	for (size_t i = 0; t && i < t->n && ret != -ENOMEM; i++) {
		char ev[160];

		if (strcmp(t->v[i].f.system, r->ev) != 0)
			continue;
		snprintf(ev, sizeof(ev), "%s:%s", t->v[i].f.system, t->v[i].f.name);
		ret = edit_add(e, ev, &t->v[i].f, text, &perr);
		if (ret == -EINVAL) { /* the kernel reports every such event's fault the same way */
			parse_failed(r, ev, text, &err);
			(*failed)++;
		}
	}
	ut_probetab_free(t);
	return ret == -ENOMEM ? ret : 0;
}

int tfs_store_evsys_filter(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	struct evf_edit e = {0};
	struct ut_evf_error err = {.code = UT_EVF_E_BAD_SUBSYS_FILTER, .pos = 0};
	char *text = stripped(buf, len), rep[1024];
	bool clear;
	size_t failed = 0;
	int ret;

	(void)append;
	if (!text)
		return -EINVAL;
	clear = ut_evf_is_clear(text);
	e.text = text;
	ret = sys_events(r, &e, clear ? NULL : text, &failed);
	if (!ret && !e.n && failed) {
		ut_evf_error_file(rep, sizeof(rep), text, &err);
		report_set(r->sc->pid, r->ev, rep);
		ret = -EINVAL;
	}
	if (!ret && e.n)
		ret = tfs_scope_edit(r->sc, edit_filters, &e, false, text);
	if (!ret) {
		report_set(r->sc->pid, r->ev, NULL);
		for (size_t i = 0; i < e.n; i++)
			report_set(r->sc->pid, e.v[i].event, NULL);
	}
	edit_free(&e);
	free(text);
	return ret;
}
