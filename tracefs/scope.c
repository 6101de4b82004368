// SPDX-License-Identifier: MIT
/*
 * Scopes of the tracefs mount (tracefs/tracefs.h): the top level acts on
 * every traced process of the user and on the template new processes start
 * with, processes/PID/ on one process, instances/NAME/ on one instance of
 * every process.  Here: finding a scope's session,
 * reading and changing its configuration through the live-control API
 * (common/control.h), the options the mount holds, and error_log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracefs/tracefs.h"
#include "utrace/abi.h"

char tfs_rundir[PATH_MAX];

static struct tfs_scope top;
static bool top_ready;
static struct tfs_scope **procs;
static size_t nr_procs;

static void scope_init(struct tfs_scope *sc, int32_t pid)
{
	memset(sc, 0, sizeof(*sc));
	sc->pid = pid;
	ut_opts_init(&sc->opts, 0);
}

struct tfs_scope *tfs_scope_get(int32_t pid)
{
	struct tfs_scope *sc, **v;

	if (!top_ready) {
		scope_init(&top, 0);
		top_ready = true;
	}
	if (pid <= 0)
		return &top;
	for (size_t i = 0; i < nr_procs; i++)
		if (procs[i]->pid == pid)
			return procs[i];
	sc = malloc(sizeof(*sc));
	v = sc ? realloc(procs, (nr_procs + 1) * sizeof(struct tfs_scope *)) : NULL;
	if (!v) {
		free(sc);
		return NULL;
	}
	procs = v;
	scope_init(sc, pid);
	procs[nr_procs++] = sc;
	return sc;
}

struct tfs_scope *tfs_scope_get_inst(int inst)
{
	static struct tfs_scope insts[UT_MAX_INSTANCES + 1];

	if (inst < 1 || inst > UT_MAX_INSTANCES)
		return NULL;
	if (insts[inst].inst != inst) {
		scope_init(&insts[inst], 0);
		insts[inst].inst = inst;
	}
	return &insts[inst];
}

void tfs_scopes_free(void)
{
	tfs_mtrig_free();
	for (size_t i = 0; i < nr_procs; i++) {
		tfs_errlog_clear(procs[i]);
		tfs_snapshot_free(procs[i]);
		free(procs[i]);
	}
	free(procs);
	procs = NULL;
	nr_procs = 0;
	tfs_errlog_clear(&top);
	tfs_snapshot_free(&top);
}

int tfs_scope_session(const struct tfs_scope *sc, struct ut_live_sess *s)
{
	if (!sc->pid)
		return -EINVAL;
	return ut_live_find(tfs_rundir, sc->pid, s) ? -ENOENT : 0;
}

int tfs_scope_config(const struct tfs_scope *sc, struct ut_cfg *c)
{
	struct ut_live_sess s;
	int ret;

	if (sc->inst) {
		ret = ut_live_get_config(tfs_rundir, sc->inst, c);
		c->tracing_on = ut_inst_tracing_on(tfs_rundir, sc->inst);
		return ret;
	}
	if (!sc->pid)
		return ut_live_get_config(tfs_rundir, 0, c);
	if (tfs_scope_session(sc, &s)) {
		ut_cfg_init(c);
		return -ENODEV;
	}
	ret = ut_live_get_config(s.dir, 0, c);
	/* a flag of the control block, not of the document (traceoff commands) */
	c->tracing_on = s.tracing_on;
	return ret;
}

int tfs_scope_set_tracing_on(struct tfs_scope *sc, bool on)
{
	struct ut_live_sess s, *v;
	struct ut_cfg c;
	long n;
	int ret;

	if (sc->inst)
		return ut_inst_set_tracing_on(tfs_rundir, sc->inst, on);
	if (sc->pid)
		return tfs_scope_session(sc, &s) ? -ENODEV : ut_live_set_tracing_on(s.dir, on);
	n = ut_live_list(tfs_rundir, &v);
	for (long i = 0; i < n; i++)
		if (v[i].alive && !v[i].markers)
			ut_live_set_tracing_on(v[i].dir, on);
	if (n > 0)
		free(v);
	ut_live_get_config(tfs_rundir, 0, &c);
	c.tracing_on = on;
	ret = ut_live_set_template(tfs_rundir, 0, &c);
	ut_cfg_free(&c);
	return ret;
}

bool tfs_top_tracing_on(bool tmpl)
{
	struct ut_live_sess *v;
	long n = ut_live_list(tfs_rundir, &v);
	bool on = true, any = false;

	for (long i = 0; i < n; i++) {
		if (v[i].alive && !v[i].markers) {
			any = true;
			on &= v[i].tracing_on;
		}
	}
	if (n > 0)
		free(v);
	return any ? on : tmpl;
}

/*
 * Apply @edit to one process.  Switching the tracer or the clock empties its
 * buffers, as the kernel does.  -ESRCH if it has exited.
 */
static int edit_session(const struct ut_live_sess *s, tfs_edit_fn edit, const void *arg,
			char *err, size_t errlen)
{
	struct ut_cfg c;
	uint32_t tracer, clock;
	int ret;

	if (!s->alive) {
		snprintf(err, errlen, "process %d has exited", s->pid);
		return -ESRCH;
	}
	ret = ut_live_get_config(s->dir, 0, &c);
	if (ret == -ENOENT) { /* its session went since it was listed: it has exited */
		snprintf(err, errlen, "process %d has exited", s->pid);
		ut_cfg_free(&c);
		return -ESRCH;
	}
	if (ret) {
		snprintf(err, errlen, "process %d: unreadable configuration", s->pid);
		ut_cfg_free(&c);
		return ret;
	}
	/*
	 * Words from the top level that match nothing here were skipped by the
	 * process; keep them out, so that this change can be applied strictly
	 * (and refused, keeping the old configuration, if it is wrong).
	 */
	if (c.lenient && !tfs_words_prune(s, &c))
		c.lenient = false;
	tracer = c.tracer;
	clock = c.clock;
	ret = edit(&c, arg);
	if (!ret)
		ret = ut_live_set_config(s->dir, &c, err, errlen);
	if (!ret && (c.tracer != tracer || c.clock != clock))
		ut_live_clear(s->dir, 0);
	ut_cfg_free(&c);
	return ret;
}

/*
 * Top level, word lists: the same words for everyone, leniently (each
 * process skips those that match none of its functions), each process
 * keeping the rest of its configuration (common/control.c).
 */
static int edit_all_lists(tfs_edit_fn edit, const void *arg, char *err, size_t errlen)
{
	struct ut_cfg c;
	int ret;

	ut_live_get_config(tfs_rundir, 0, &c);
	ret = edit(&c, arg);
	if (!ret)
		ret = ut_live_edit_all(tfs_rundir, edit, arg, &c, err, errlen);
	ut_cfg_free(&c);
	return ret;
}

/*
 * instances/NAME/: its configuration for every process and the template.
 * Function tracer only; switching the tracer or the clock empties its
 * buffers, as the kernel does.
 */
static int edit_instance(int inst, tfs_edit_fn edit, const void *arg, char *err, size_t errlen)
{
	struct ut_cfg c;
	uint32_t tracer, clock;
	int ret;

	ut_live_get_config(tfs_rundir, inst, &c);
	tracer = c.tracer;
	clock = c.clock;
	ret = edit(&c, arg);
	if (!ret && c.tracer == UT_TRACER_FUNCTION_GRAPH) {
		snprintf(err, errlen, "function_graph cannot run in an instance");
		ret = -EINVAL;
	}
	if (!ret)
		ret = ut_inst_set_all(tfs_rundir, inst, &c, err, errlen);
	if (!ret && (c.tracer != tracer || c.clock != clock)) {
		struct ut_live_sess *v;
		long n = ut_live_list(tfs_rundir, &v);

		for (long i = 0; v && i < n; i++)
			if (v[i].alive)
				ut_live_clear(v[i].dir, inst);
		if (n > 0)
			free(v);
	}
	ut_cfg_free(&c);
	return ret;
}

/* Top level, one setting: each live process keeps the rest of its configuration. */
static int edit_all(tfs_edit_fn edit, const void *arg, char *err, size_t errlen)
{
	struct ut_live_sess *v;
	struct ut_cfg c;
	long n;
	int ret;

	ut_live_get_config(tfs_rundir, 0, &c);
	ret = edit(&c, arg);
	if (ret) {
		ut_cfg_free(&c);
		return ret;
	}
	n = ut_live_list(tfs_rundir, &v);
	for (long i = 0; i < n; i++) {
		char e[256] = "";
		int r;

		if (!v[i].alive || v[i].markers)
			continue;
		r = edit_session(&v[i], edit, arg, e, sizeof(e));
		if (r && r != -ESRCH && !ret) {
			ret = r;
			snprintf(err, errlen, "%s", e);
		}
	}
	if (!ret) {
		ret = ut_live_set_template(tfs_rundir, 0, &c);
		if (ret)
			snprintf(err, errlen, "template: %s", strerror(-ret));
		else
			ut_live_template_to_new(tfs_rundir, v, n > 0 ? n : 0, &c);
	}
	if (n > 0)
		free(v);
	ut_cfg_free(&c);
	return ret;
}

int tfs_scope_edit(struct tfs_scope *sc, tfs_edit_fn edit, const void *arg, bool lists,
		   const char *cmd)
{
	char err[256] = "";
	struct ut_live_sess s;
	int ret;

	if (sc->inst) {
		ret = edit_instance(sc->inst, edit, arg, err, sizeof(err));
	} else if (sc->pid) {
		if (tfs_scope_session(sc, &s))
			return -ENODEV;
		ret = edit_session(&s, edit, arg, err, sizeof(err));
	} else if (lists) {
		ret = edit_all_lists(edit, arg, err, sizeof(err));
	} else {
		ret = edit_all(edit, arg, err, sizeof(err));
	}
	if (ret && err[0])
		tfs_errlog_add(sc, err, cmd);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

int tfs_opt_value(const struct tfs_scope *sc, const struct ut_cfg *c, int id)
{
	switch (id) {
	case UT_OPT_OVERWRITE:
		return c->overwrite;
	case UT_OPT_FUNC_STACK_TRACE:
		return c->func_stack;
	case UT_OPT_SLEEP_TIME:
		return c->sleep_time;
	case UT_OPT_PLT:
		return c->plt;
	case UT_OPT_INLINED:
		return c->inlined;
	case UT_OPT_PATCH_PROLOGUE:
		return c->patch_prologue;
	case UT_OPT_EVENT_FORK:
		return c->event_fork;
	default:
		return ut_opts_get(&sc->opts, id);
	}
}

static bool opt_mapped(int id)
{
	return id == UT_OPT_OVERWRITE || id == UT_OPT_FUNC_STACK_TRACE || id == UT_OPT_SLEEP_TIME ||
	       id == UT_OPT_PLT || id == UT_OPT_INLINED || id == UT_OPT_PATCH_PROLOGUE ||
	       id == UT_OPT_EVENT_FORK;
}

bool tfs_opt_listed(int id)
{
	const struct ut_opt_info *info = ut_opt_info(id);

	return info && !(info->tracer && !strcmp(info->tracer, "blk"));
}

void tfs_opt_words(const struct tfs_scope *sc, char words[][40], const char *ptrs[], int max,
		   int *n)
{
	struct ut_opts def;

	ut_opts_init(&def, 0);
	*n = 0;
	for (int id = 0; id < UT_OPT_NR && *n < max; id++) {
		int v = ut_opts_get(&sc->opts, id);

		if (opt_mapped(id) || !tfs_opt_listed(id) || v == ut_opts_get(&def, id))
			continue;
		snprintf(words[*n], 40, "%s%s", v ? "" : "no", ut_opt_info(id)->name);
		ptrs[*n] = words[*n];
		(*n)++;
	}
}

/* ------------------------------------------------------------------ */
/* error_log                                                           */
/* ------------------------------------------------------------------ */

/* Where the caret goes: under the word the message quotes ('word'), else 0. */
static size_t caret_pos(const char *msg, const char *cmd)
{
	const char *q = strchr(msg, '\''), *e, *hit;
	char word[128];

	if (!q || !(e = strchr(q + 1, '\'')) || e - q - 1 <= 0 ||
	    (size_t)(e - q - 1) >= sizeof(word))
		return 0;
	memcpy(word, q + 1, (size_t)(e - q - 1));
	word[e - q - 1] = '\0';
	hit = strstr(cmd, word);
	return hit ? (size_t)(hit - cmd) : 0;
}

static void errlog_entry(struct tfs_scope *sc, const char *tag, const char *kind,
			 const char *msg, const char *cmd, int pos);

void tfs_errlog_add(struct tfs_scope *sc, const char *msg, const char *cmd)
{
	errlog_entry(sc, "utrace", "error", msg, cmd, -1);
}

void tfs_errlog_note(struct tfs_scope *sc, const char *msg, const char *cmd)
{
	errlog_entry(sc, "utrace", "note", msg, cmd, -1);
}

void tfs_errlog_at(struct tfs_scope *sc, const char *tag, const char *msg, const char *cmd,
		   int pos)
{
	errlog_entry(sc, tag, "error", msg, cmd, pos < 0 ? 0 : pos);
}

/* @pos < 0: under the word @msg quotes. */
static void errlog_entry(struct tfs_scope *sc, const char *tag, const char *kind,
			 const char *msg, const char *cmd, int pos)
{
	struct timespec ts;
	char *e = NULL, clean[256];
	size_t i, n = 0;

	/* one line: newlines and tabs of the write become spaces */
	for (i = 0; cmd && cmd[i] && n < sizeof(clean) - 1; i++) {
		char ch = cmd[i];

		if (ch == '\n' || ch == '\t')
			ch = ' ';
		clean[n++] = ch;
	}
	while (n && clean[n - 1] == ' ')
		n--;
	clean[n] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (asprintf(&e, "[%5llu.%06lu] %s: %s: %s\n  Command: %s\n%*s^\n",
		     (unsigned long long)ts.tv_sec, (unsigned long)(ts.tv_nsec / 1000), tag, kind,
		     msg, clean, (int)(11 + (pos < 0 ? caret_pos(msg, clean) : (size_t)pos)),
		     "") < 0)
		return;
	if (sc->nr_errlog == TFS_ERRLOG_MAX) {
		free(sc->errlog[0]);
		memmove(sc->errlog, sc->errlog + 1, (TFS_ERRLOG_MAX - 1) * sizeof(sc->errlog[0]));
		sc->nr_errlog--;
	}
	sc->errlog[sc->nr_errlog++] = e;
}

void tfs_errlog_print(const struct tfs_scope *sc, FILE *f)
{
	for (int i = 0; i < sc->nr_errlog; i++)
		fputs(sc->errlog[i], f);
}

void tfs_errlog_clear(struct tfs_scope *sc)
{
	for (int i = 0; i < sc->nr_errlog; i++)
		free(sc->errlog[i]);
	sc->nr_errlog = 0;
}
