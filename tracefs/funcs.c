// SPDX-License-Identifier: MIT
/*
 * Function tables of the traced processes, for the tracefs files that list
 * functions: available_filter_functions and the read side of
 * set_ftrace_filter, set_ftrace_notrace, set_graph_function and
 * set_graph_notrace (their write side only stores words: each process
 * replays them over its own table, see common/config.h).
 *
 * A process's table is rebuilt from its session's "modules" file (objects
 * loaded and unloaded, in order: the order the process itself lists its
 * functions in) and the ELF files it names, and cached until that file
 * grows.  The top level shows the functions of every running process,
 * each name once.  To show a list, its words are replayed over the table
 * the way a process does, skipping words that match nothing there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/control.h"
#include "common/cxxname.h"
#include "common/demangle.h"
#include "common/elfsites.h"
#include "common/filter.h"
#include "common/whynosite.h"
#include "utrace/abi.h"
#include "utrace/read.h"
#include "tracefs/tracefs.h"

#define MODULES_MAX (1u << 20) /* a modules file is read up to this size */

struct ftab {
	char name[64];     /* the session directory's name */
	off_t modsize;     /* size of its modules file when built */
	unsigned kinds;    /* the other kinds of site its configuration asked for then */
	struct ut_ftable *t;
};

static struct ftab *cache;
static size_t nr_cache;

/* Read the session's modules file (at most MODULES_MAX bytes), malloc'd. */
static char *read_modules(const char *sessdir, off_t *size)
{
	char path[PATH_MAX], *text;
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/modules", sessdir);
	fd = ut_live_open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 0) {
		close(fd);
		return NULL;
	}
	if (st.st_size > (off_t)MODULES_MAX)
		st.st_size = MODULES_MAX;
	text = malloc((size_t)st.st_size + 1);
	n = text ? pread(fd, text, (size_t)st.st_size, 0) : -1;
	close(fd);
	if (n < 0) {
		free(text);
		return NULL;
	}
	text[n] = '\0';
	*size = st.st_size;
	return text;
}

/* Add one object's functions; only regular files are opened (no FIFO can block us). */
static void load_object(struct ut_ftable *t, struct ut_objlist *live, const char *path,
			const char *module)
{
	struct stat st;

	if (path[0] != '/' || stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	ut_elfsites_file(t, path, module);
	ut_objlist_add(live, path, module);
}

/* @module was unloaded: its functions are dead, its object no longer loaded. */
static void unload_object(struct ut_ftable *t, struct ut_objlist *live, const char *module)
{
	size_t k = 0;

	ut_ftable_remove_module(t, module);
	for (size_t i = 0; i < live->n; i++) {
		if (!strcmp(live->v[i].module, module))
			free(live->v[i].path);
		else
			live->v[k++] = live->v[i];
	}
	live->n = k;
}

/*
 * The table described by a modules file ("load|unload BIAS MODULE|- PATH"
 * lines, and "names" lines for the inlined instances the process made sites),
 * for a process running with @kinds: TFS_KIND_* (sitekinds.c).
 */
static struct ut_ftable *build_table(char *text, unsigned kinds, const char *dir)
{
	struct ut_ftable *t = ut_ftable_new();
	struct ut_objlist live = {0};
	char *save = NULL;

	if (t && ut_ftable_set_demangle(t, ut_demangle_alloc)) {
		ut_ftable_free(t);
		return NULL;
	}
	for (char *line = t ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *op = line, *bias, *mod, *path;

		if (!strncmp(line, "names ", 6)) {
			ut_live_names_rows(t, dir, line);
			continue;
		}
		bias = strchr(op, ' ');
		mod = bias ? strchr(bias + 1, ' ') : NULL;
		path = mod ? strchr(mod + 1, ' ') : NULL;
		if (!path)
			continue;
		*bias = *mod = *path++ = '\0';
		mod++;
		if (!strcmp(op, "load"))
			load_object(t, &live, path, strcmp(mod, "-") != 0 ? mod : NULL);
		else if (!strcmp(op, "unload") && strcmp(mod, "-") != 0)
			unload_object(t, &live, mod);
	}
	if (t && kinds)
		tfs_other_kinds(t, &live, kinds & TFS_KIND_PROLOGUE, kinds & TFS_KIND_PLT);
	ut_objlist_free(&live);
	return t;
}

/* Drop the cached tables of sessions that are gone. */
static void prune(const struct ut_live_sess *v, long n)
{
	size_t k = 0;

	for (size_t i = 0; i < nr_cache; i++) {
		long j = 0;

		while (j < n && strcmp(v[j].name, cache[i].name) != 0)
			j++;
		if (j < n)
			cache[k++] = cache[i];
		else
			ut_ftable_free(cache[i].t);
	}
	nr_cache = k;
}

/* The other kinds of site the session's configuration asks for: TFS_KIND_*. */
static unsigned session_kinds(const struct ut_live_sess *s)
{
	struct ut_cfg c;
	unsigned kinds = 0;

	if (!ut_live_get_config(s->dir, 0, &c))
		kinds = (c.plt ? TFS_KIND_PLT : 0) | (c.patch_prologue ? TFS_KIND_PROLOGUE : 0);
	ut_cfg_free(&c);
	return kinds;
}

/* The function table of one session (cached; owned by the cache). */
static struct ut_ftable *session_table(const struct ut_live_sess *s)
{
	struct ftab *c = NULL, *nc;
	off_t size = 0;
	char *text = read_modules(s->dir, &size);
	unsigned kinds = session_kinds(s);
	struct ut_ftable *t;

	if (!text)
		return NULL;
	for (size_t i = 0; i < nr_cache; i++)
		if (!strcmp(cache[i].name, s->name))
			c = &cache[i];
	if (c && c->modsize == size && c->kinds == kinds) {
		free(text);
		return c->t;
	}
	t = build_table(text, kinds, s->dir);
	free(text);
	if (!t)
		return NULL;
	if (!c) {
		nc = realloc(cache, (nr_cache + 1) * sizeof(*cache));
		if (!nc) {
			ut_ftable_free(t);
			return NULL;
		}
		cache = nc;
		c = &cache[nr_cache++];
		snprintf(c->name, sizeof(c->name), "%s", s->name);
	} else {
		ut_ftable_free(c->t);
	}
	c->t = t;
	c->modsize = size;
	c->kinds = kinds;
	return t;
}

void tfs_funcs_free(void)
{
	for (size_t i = 0; i < nr_cache; i++)
		ut_ftable_free(cache[i].t);
	free(cache);
	cache = NULL;
	nr_cache = 0;
}

struct fref {
	const char *name, *module;
	unsigned kind;
	size_t order;
	const struct ut_ftable *t; /* the process's table, entry @e: for the other names */
	size_t e;
};

/* By module, then name. */
static int cmp_name_only(const struct fref *x, const struct fref *y)
{
	int c = strcmp(x->module ? x->module : "", y->module ? y->module : "");

	return c ? c : strcmp(x->name, y->name);
}

/* By module, then name, then first seen. */
static int cmp_name(const void *a, const void *b)
{
	const struct fref *x = a, *y = b;
	int c = cmp_name_only(x, y);

	if (!c)
		c = x->order < y->order ? -1 : x->order > y->order;
	return c;
}

static int cmp_order(const void *a, const void *b)
{
	const struct fref *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* Append the function @r, with its other names (any of them selects it). */
static int add_ref(struct ut_ftable *out, const struct fref *r)
{
	long i = ut_ftable_add(out, r->name, r->module);
	const char *alias;

	if (i >= 0)
		ut_ftable_set_kind(out, (size_t)i, r->kind);
	for (size_t k = 0; i >= 0 && (alias = ut_ftable_alias(r->t, r->e, k)); k++)
		if (ut_ftable_add_alias(out, (size_t)i, alias))
			return -ENOMEM;
	return i < 0 ? (int)i : 0;
}

/*
 * The table a scope shows, in a new table the caller frees: one process's,
 * or (top level) every running process's functions, each once, in the
 * order first seen.  NULL if there is no such process (or ENOMEM).
 */
static struct ut_ftable *scope_table(const struct tfs_scope *sc)
{
	struct ut_live_sess *v;
	struct ut_ftable *out = NULL;
	struct fref *refs = NULL;
	size_t nrefs = 0, cap = 0, k = 0;
	long n = ut_live_list(tfs_rundir, &v);
	bool any = false;

	if (n < 0)
		return NULL;
	prune(v, n);
	for (long i = 0; i < n; i++) {
		struct ut_ftable *t;
		size_t size;

		if (v[i].markers || (sc->pid ? v[i].pid != sc->pid : !v[i].alive))
			continue;
		/* processes/PID/: the newest image of that pid only */
		if (sc->pid && i + 1 < n) {
			long j = i + 1;

			while (j < n && (v[j].pid != sc->pid || v[j].markers))
				j++;
			if (j < n)
				continue;
		}
		t = session_table(&v[i]);
		if (!t)
			continue;
		any = true;
		size = ut_ftable_size(t);
		for (size_t e = 0; e < size; e++) {
			const struct ut_filter_func *f = ut_ftable_get(t, e);

			if (!f)
				continue;
			if (nrefs == cap) {
				struct fref *nr = realloc(refs, (cap ? cap * 2 : 1024) * sizeof(*nr));

				if (!nr)
					goto out;
				refs = nr;
				cap = cap ? cap * 2 : 1024;
			}
			refs[nrefs] = (struct fref){f->name, f->module, f->kind, nrefs, t, e};
			nrefs++;
		}
	}
	if (!any)
		goto out;
	/* each (module, name) once, the first one seen */
	if (nrefs)
		qsort(refs, nrefs, sizeof(*refs), cmp_name);
	for (size_t i = 0; i < nrefs; i++)
		if (!k || cmp_name_only(&refs[i], &refs[k - 1]) != 0)
			refs[k++] = refs[i];
	if (k)
		qsort(refs, k, sizeof(*refs), cmp_order);
	out = ut_ftable_new();
	/* C++ names: words match them demangled; listings show them as options/sym-demangle says */
	if (out && (ut_ftable_set_demangle(out, ut_demangle_alloc) ||
		    ut_ftable_list_demangled(out, ut_opts_get(&sc->opts, UT_OPT_SYM_DEMANGLE) != 0))) {
		ut_ftable_free(out);
		out = NULL;
	}
	for (size_t i = 0; out && i < k; i++) {
		if (add_ref(out, &refs[i]) < 0) {
			ut_ftable_free(out);
			out = NULL;
		}
	}
out:
	free(refs);
	free(v);
	return out;
}

int tfs_show_available(struct tfs_req *r, FILE *f)
{
	struct ut_ftable *t = scope_table(r->sc);
	char *text = NULL;
	size_t len = 0;

	if (!t)
		return 0; /* no process: no functions */
	if (!ut_ftable_format_available(t, &text, &len))
		fwrite(text, 1, len, f);
	free(text);
	ut_ftable_free(t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The four lists                                                      */
/* ------------------------------------------------------------------ */

static char **list_of(struct ut_cfg *c, int which)
{
	switch (which) {
	case 0:
		return &c->filter;
	case 1:
		return &c->notrace;
	case 2:
		return &c->graph_function;
	default:
		return &c->graph_notrace;
	}
}

static const char *empty_text(int which)
{
	return which == 0 || which == 2 ? UT_FSET_EMPTY_FILTER : UT_FSET_EMPTY_NOTRACE;
}

static unsigned fset_flags(int which)
{
	static const unsigned flags[] = {UT_FSET_FILTER, UT_FSET_NOTRACE, UT_FSET_GRAPH,
					 UT_FSET_GRAPH_NOTRACE};

	return flags[which & 3];
}

/* Session @i of @v is one @sc shows: processes/PID/ the newest image of PID, the top every live one. */
static bool scope_has(const struct tfs_scope *sc, const struct ut_live_sess *v, long n, long i)
{
	if (v[i].markers)
		return false;
	if (!sc->pid)
		return v[i].alive;
	if (v[i].pid != sc->pid)
		return false;
	for (long j = i + 1; j < n; j++)
		if (v[j].pid == sc->pid && !v[j].markers)
			return false;
	return true;
}

/* Command @c of the listing is entry @e of a process's table. */
static bool same_cmd(const struct ut_filter_func *fn, const struct ut_fcmd *c,
		     const struct ut_cmd_entry *e)
{
	return e->type == c->type && (e->counted != 0) == c->counted && !strcmp(e->func, fn->name) &&
	       !strcmp(e->module, fn->module ? fn->module : "");
}

/*
 * The counts the commands have left in the processes (their "cmds"
 * tables), over the counts the words give: "f:traceoff:count=1" after one
 * traceoff.  At the top level, the smallest count of any process.
 */
static void overlay_counts(const struct tfs_scope *sc, struct ut_ftable *t, struct ut_fset *s)
{
	struct ut_cmd_entry e[UT_CMDS_MAX];
	struct ut_live_sess *v;
	size_t n = 0;
	struct ut_fcmd *c = ut_fset_cmds(s, &n);
	long nv = n ? ut_live_list(tfs_rundir, &v) : -1;

	for (long i = 0; i < nv; i++) {
		long k = scope_has(sc, v, nv, i) ? ut_live_cmds(v[i].dir, e) : -1;

		for (long j = 0; j < k; j++) {
			for (size_t m = 0; m < n; m++) {
				const struct ut_filter_func *fn = ut_ftable_get(t, c[m].func);

				if (fn && c[m].counted && same_cmd(fn, &c[m], &e[j]) &&
				    e[j].count >= 0 && e[j].count < c[m].count)
					c[m].count = e[j].count;
			}
		}
	}
	if (nv > 0)
		free(v);
}

/* Replay @words over @t as a process does in lenient mode, and print the result. */
static void print_replayed(const struct tfs_scope *sc, struct ut_ftable *t, int which,
			   const char *words, FILE *f)
{
	struct ut_fset *s = ut_fset_new(t, fset_flags(which));
	char *text = NULL;
	size_t len = 0, n = 0;

	if (!s || ut_fset_begin(s, true)) {
		ut_fset_free(s);
		return;
	}
	for (const char *p = ut_cfg_word(words, &n); p; p = ut_cfg_word(p + n, &n))
		ut_fset_write(s, p, n, NULL, 0);
	ut_fset_commit(s);
	if (which == 0 && !sc->inst)
		overlay_counts(sc, t, s);
	if (!ut_fset_format(s, empty_text(which), &text, &len))
		fwrite(text, 1, len, f);
	free(text);
	ut_fset_free(s);
}

int tfs_show_list(struct tfs_req *r, FILE *f)
{
	int which = r->file->arg;
	struct ut_ftable *t;
	struct ut_cfg c;
	const char *words;
	int ret = tfs_scope_config(r->sc, &c);

	if (ret == -ENODEV) {
		ut_cfg_free(&c);
		return ret;
	}
	words = *list_of(&c, which);
	t = scope_table(r->sc);
	if (t && ut_ftable_size(t)) {
		print_replayed(r->sc, t, which, words, f);
	} else if (!words) {
		fputs(empty_text(which), f);
	} else {
		/* No process to match them against yet: the words as written. */
		size_t n = 0;

		for (const char *p = ut_cfg_word(words, &n); p; p = ut_cfg_word(p + n, &n))
			fprintf(f, "%.*s\n", (int)n, p);
	}
	ut_ftable_free(t);
	ut_cfg_free(&c);
	return 0;
}

/* The words of @words that do something over @t, as a new string (NULL if none). */
static char *keep_matching(struct ut_ftable *t, int which, const char *words)
{
	struct ut_fset *s = ut_fset_new(t, fset_flags(which));
	char *out = NULL;

	if (!s || ut_fset_begin(s, true)) {
		ut_fset_free(s);
		return words ? strdup(words) : NULL;
	}
	size_t n = 0;

	for (const char *p = ut_cfg_word(words, &n); p; p = ut_cfg_word(p + n, &n)) {
		if (!ut_fset_write(s, p, n, NULL, 0)) {
			char *w = strndup(p, n);

			if (w)
				ut_cfg_set_words(&out, w, true);
			free(w);
		}
	}
	ut_fset_abort(s);
	ut_fset_free(s);
	return out;
}

int tfs_words_prune(const struct ut_live_sess *sess, struct ut_cfg *c)
{
	struct ut_live_sess *v;
	struct ut_ftable *t;
	long n = ut_live_list(tfs_rundir, &v);

	if (n < 0)
		return (int)n;
	prune(v, n);
	free(v);
	t = session_table(sess);
	if (!t || !ut_ftable_size(t))
		return -ENOENT;
	for (int which = 0; which < 4; which++) {
		char **list = list_of(c, which);
		char *kept = keep_matching(t, which, *list);

		free(*list);
		*list = kept;
	}
	return 0;
}

struct list_arg {
	int which;
	const char *words;
	bool append;
};

/*
 * ">" on set_ftrace_filter: the kernel empties the function list but keeps
 * the function commands until "!FUNC:CMD" removes them, so the command
 * words of the old list (additions and removals, in order) stay.
 */
static int keep_commands(char **list)
{
	char *kept = NULL;
	size_t n = 0;
	int ret = 0;

	for (const char *p = ut_cfg_word(*list, &n); p && !ret; p = ut_cfg_word(p + n, &n)) {
		char *w;

		if (!ut_fset_word_is_cmd(p, n))
			continue;
		w = strndup(p, n);
		ret = w ? ut_cfg_set_words(&kept, w, true) : -ENOMEM;
		free(w);
	}
	if (ret) {
		free(kept);
		return ret;
	}
	free(*list);
	*list = kept;
	return 0;
}

static int edit_list(struct ut_cfg *c, const void *p)
{
	const struct list_arg *a = p;
	char **list = list_of(c, a->which);
	bool append = a->append;

	if (!append && a->which == 0) {
		int ret = keep_commands(list);

		if (ret)
			return ret;
		append = true;
	}
	return ut_cfg_set_words(list, a->words, append);
}

/* The objects of one session's modules file ("load BIAS MODULE|- PATH" lines), each once. */
static void add_objects(struct ut_objlist *l, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *bias = strchr(line, ' '), *mod = bias ? strchr(bias + 1, ' ') : NULL;
		char *path = mod ? strchr(mod + 1, ' ') : NULL;
		bool seen = false;

		if (!path || strncmp(line, "load ", 5) != 0)
			continue;
		*mod++ = *path++ = '\0';
		for (size_t i = 0; i < l->n && !seen; i++)
			seen = !strcmp(l->v[i].path, path);
		if (!seen && path[0] == '/')
			ut_objlist_add(l, path, strcmp(mod, "-") ? mod : NULL);
	}
}

/*
 * The objects the scope's processes loaded, for the explanations of
 * whynosite.h; *@prologues (if not NULL): one of them patches prologues.
 */
static void scope_objects(const struct tfs_scope *sc, struct ut_objlist *l, bool *prologues)
{
	struct ut_live_sess *v;
	long n = ut_live_list(tfs_rundir, &v);

	memset(l, 0, sizeof(*l));
	for (long i = 0; i < n; i++) {
		off_t size;
		char *text;

		if (!scope_has(sc, v, n, i) || !(text = read_modules(v[i].dir, &size)))
			continue;
		add_objects(l, text);
		free(text);
		if (prologues && (session_kinds(&v[i]) & TFS_KIND_PROLOGUE))
			*prologues = true;
	}
	if (n >= 0)
		free(v);
}

/*
 * Top level: a word that matches nothing in any running process fails
 * here, naming the word (each process would skip it, and the write would
 * fail without saying which word it was).  Returns 0 or -EINVAL with the
 * word in @bad.
 */
static int check_words(const struct tfs_scope *sc, int which, const char *old, const char *words,
		       char *bad, size_t badlen, char **note)
{
	struct ut_ftable *t = scope_table(sc);
	struct ut_fset *s = t && ut_ftable_size(t) ? ut_fset_new(t, fset_flags(which)) : NULL;
	int ret = 0;

	if (!s || ut_fset_begin(s, true)) {
		ut_fset_free(s);
		ut_ftable_free(t);
		return 0;
	}
	/* what ">>" adds to: as shown */
	size_t m = 0;

	for (const char *p = ut_cfg_word(old, &m); p; p = ut_cfg_word(p + m, &m))
		ut_fset_write(s, p, m, NULL, 0);
	for (const char *p = words; *p && !ret;) {
		size_t n;

		p += strspn(p, " \t\n\r\v\f");
		n = strcspn(p, " \t\n\r\v\f");
		if (n && ut_fset_write(s, p, n, bad, badlen) == -EINVAL)
			ret = -EINVAL;
		p += n;
	}
	if (!ret && (which == 0 || which == 2)) {
		struct ut_objlist l;
		struct ut_cfg c;
		bool inlined = !tfs_scope_config(sc, &c) && c.inlined;

		ut_cfg_free(&c);
		/* the copies this list cannot trace: read from the debug info only now */
		ut_fset_commit(s);
		scope_objects(sc, &l, NULL);
		*note = ut_inlined_missed(t, s, l.v, l.n,
					  which ? "set_graph_function" : "set_ftrace_filter", inlined);
		ut_objlist_free(&l);
	} else {
		ut_fset_abort(s);
	}
	ut_fset_free(s);
	ut_ftable_free(t);
	return ret;
}

/* The error_log text for a word matching nothing: the error, then why (whynosite.h). */
static char *no_match_text(const struct tfs_scope *sc, const char *file, const char *bad)
{
	struct ut_objlist l;
	char *why, *msg = NULL;
	bool prologues = false;

	scope_objects(sc, &l, &prologues);
	why = ut_why_untraced(bad, l.v, l.n, prologues);
	ut_objlist_free(&l);
	if (why && why[0])
		why[strlen(why) - 1] = '\0';
	if (asprintf(&msg, "%s: '%s' matches no traceable function%s%s%s", file, bad,
		     ut_cxx_word_hint(bad), why ? "\n" : "", why ? why : "") < 0)
		msg = NULL;
	free(why);
	return msg;
}

/*
 * processes/PID/: the process itself answers, so its refusal came first
 * (the error_log entry tfs_scope_edit made); it is replaced by the same
 * error with the reasons, found from the process's objects.  A list the
 * process took gets the note on the inlined copies it does not trace.
 */
static void explain_process(struct tfs_req *r, const struct list_arg *a, int ret)
{
	struct tfs_scope *sc = r->sc;
	char bad[128] = "", *note = NULL, *msg;

	if (ret && ret != -EINVAL)
		return;
	if (check_words(sc, a->which, NULL, a->words, bad, sizeof(bad), &note) == -EINVAL) {
		msg = ret ? no_match_text(sc, r->file->name, bad) : NULL;
		if (msg && sc->nr_errlog > 0) {
			free(sc->errlog[--sc->nr_errlog]);
			tfs_errlog_add(sc, msg, a->words);
		}
		free(msg);
	} else if (!ret && note) {
		tfs_errlog_note(sc, note, a->words);
	}
	free(note);
}

int tfs_store_list(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	struct list_arg a = {.which = r->file->arg, .append = append};
	char *words;
	int ret;

	if (memchr(buf, '\0', len))
		return -EINVAL;
	words = strndup(buf, len);
	if (!words)
		return -ENOMEM;
	a.words = words;
	if (append && strspn(words, " \t\n\r\v\f") == len) {
		free(words);
		return 0; /* ">>" with nothing: nothing changes */
	}
	if (!r->sc->pid) {
		char bad[128] = "", *note = NULL;
		struct ut_cfg c;

		tfs_scope_config(r->sc, &c);
		/* what the words act on: the list, or after ">" the commands it keeps */
		ret = append || a.which != 0 ? 0 : keep_commands(list_of(&c, a.which));
		if (!ret)
			ret = check_words(r->sc, a.which,
					  append || a.which == 0 ? *list_of(&c, a.which) : NULL,
					  words, bad, sizeof(bad), &note);
		ut_cfg_free(&c);
		if (ret) {
			char *msg = ret == -EINVAL ? no_match_text(r->sc, r->file->name, bad) : NULL;

			if (msg)
				tfs_errlog_add(r->sc, msg, words);
			free(msg);
			free(words);
			return ret;
		}
		if (note)
			tfs_errlog_note(r->sc, note, words);
		free(note);
	}
	ret = tfs_scope_edit(r->sc, edit_list, &a, true, words);
	if (r->sc->pid && !r->sc->inst)
		explain_process(r, &a, ret);
	free(words);
	return ret;
}
