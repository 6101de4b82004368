// SPDX-License-Identifier: MIT
/*
 * Why a filter word selects no traceable function (see whynosite.h).  The
 * evidence, per object: its symbol table (the function has code but no
 * site; a clone such as name.constprop.0 has the code) and its DWARF (the
 * function was inlined into its callers).  One reason a case, most telling
 * first.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/glob.h"
#include "common/inlined.h"
#include "common/prologue.h"
#include "common/symbols.h"
#include "common/whynosite.h"

/* A growing text. */
struct text {
	char *s;
	size_t len;
	bool nomem;
};

static void say(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *line = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->nomem = true;
		return;
	}
	char *s = realloc(t->s, t->len + (size_t)n + 1);

	if (!s) {
		t->nomem = true;
		free(line);
		return;
	}
	memcpy(s + t->len, line, (size_t)n + 1);
	t->s = s;
	t->len += (size_t)n;
	free(line);
}

/* The word's function pattern and module pattern ("" if none), as the filter reads them. */
static void split_word(const char *word, char *pat, size_t plen, char *mod, size_t mlen)
{
	const char *m = strstr(word, ":mod:"), *colon;

	mod[0] = '\0';
	if (m) {
		snprintf(pat, plen, "%.*s", (int)(m - word), word);
		snprintf(mod, mlen, "%s", m + 5);
		return;
	}
	colon = strchr(word, ':'); /* FUNC:CMD[:N] */
	snprintf(pat, plen, "%.*s", colon ? (int)(colon - word) : (int)strlen(word), word);
}

/* What one object tells about the pattern. */
struct evidence {
	const struct ut_obj *obj;
	const char *name;         /* a symbol the pattern matches (no site) */
	const char *known_as;     /* the name its function is listed by, if @name is another */
	const char *clones[4];    /* symbols name.constprop.0, name.cold, ... */
	size_t nr_clones;
	size_t inlined;           /* instances of matching functions */
	const struct ut_inl *first; /* one of them (for a plain name: the first) */
	const struct ut_inltab *dbg;
	struct ut_symtab *st;
};

/* name.SUFFIX where SUFFIX is one of the compiler's clone or split kinds. */
static bool clone_of(const char *sym, const char *name)
{
	static const char *const kinds[] = {"constprop", "isra", "part", "cold", "lto_priv",
					    "localalias", "specialized"};
	size_t n = strlen(name);

	if (strncmp(sym, name, n) != 0 || sym[n] != '.')
		return false;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(sym + n + 1, kinds[i], strlen(kinds[i])))
			return true;
	return false;
}

static void symbol_evidence(struct evidence *e, const struct ut_glob *g, const char *pat,
			    bool plain)
{
	uint64_t addr = 0;

	e->st = ut_symtab_new();
	if (!e->st || ut_symtab_load_elf(e->st, e->obj->path, 0, NULL) < 0)
		return;
	/* every symbol, aliases too (not finished yet): any name may be the one meant */
	for (size_t i = 0; i < ut_symtab_count(e->st); i++) {
		const struct ut_sym *s = ut_symtab_at(e->st, i);

		/* a glob's matches in a library without sites tell nothing useful */
		if (!e->name && (plain || !e->obj->module[0]) && ut_glob_match(g, s->name)) {
			e->name = s->name;
			addr = s->addr;
		} else if (plain && e->nr_clones < 4 && clone_of(s->name, pat)) {
			e->clones[e->nr_clones++] = s->name;
		}
	}
	if (!e->name)
		return;
	/* the names stay where they are (the table's arena): only the order changes */
	ut_symtab_finish(e->st);
	const struct ut_sym *f = ut_symtab_lookup(e->st, addr);

	if (f && f->addr == addr && strcmp(f->name, e->name) != 0)
		e->known_as = f->name;
}

static void dwarf_evidence(struct evidence *e, const struct ut_glob *g, const char *pat,
			   bool plain)
{
	const struct ut_inltab *t = ut_inlined_of(e->obj->path);

	e->dbg = t;
	if (!t)
		return;
	if (plain) {
		e->inlined = ut_inlined_find(t, pat, &e->first);
		return;
	}
	for (size_t i = 0; i < t->n; i++)
		if (ut_glob_match(g, t->v[i].func)) {
			if (!e->first)
				e->first = &t->v[i];
			e->inlined++;
		}
}

static const char *where(const struct ut_obj *o)
{
	return o->module[0] ? "the shared library " : "";
}

static bool same_call(const struct ut_inl *a, const struct ut_inl *b)
{
	return !strcmp(a->in, b->in) && a->line == b->line && a->cu == b->cu &&
	       a->fileno == b->fileno;
}

/*
 * "ip_send_skb (trap.c:4), main (trap.c:7) x2": the first 3 distinct call
 * sites of one function's @n instances, then how many more.
 */
static void callers(struct text *t, const struct ut_inltab *tab, const struct ut_inl *v, size_t n)
{
	size_t shown = 0, told = 0;

	for (size_t i = 0; i < n && shown < 3; i++) {
		size_t times = 0;
		bool before = false;

		for (size_t j = 0; j < i && !before; j++)
			before = same_call(&v[j], &v[i]);
		if (before)
			continue;
		for (size_t j = i; j < n; j++)
			times += same_call(&v[j], &v[i]);
		const char *file = ut_inlined_file(tab, &v[i]);

		say(t, "%s%s", shown++ ? ", " : "", v[i].in);
		if (file)
			say(t, " (%s:%u)", file, v[i].line);
		if (times > 1)
			say(t, " x%zu", times);
		told += times;
	}
	if (n > told)
		say(t, " and %zu more", n - told);
}

static void tell_inlined(struct text *t, const struct evidence *e, const char *pat, bool plain)
{
	const char *name = e->first->func;

	if (plain && !e->name)
		say(t, "  %s was inlined into every caller: %zu instance%s, in ", name,
		    e->inlined, e->inlined == 1 ? "" : "s");
	else
		say(t, "  %s: %zu inlined instance%s of matching functions, e.g. %s in ", pat,
		    e->inlined, e->inlined == 1 ? "" : "s", name);
	callers(t, e->dbg, e->first, plain ? e->inlined : 1);
	say(t, "\n  to trace it: -O inlined traces the inlined copies, or mark it "
	       "__attribute__((noinline)), or trace its callers; `utrace list --inlined -f %s` "
	       "lists them\n",
	    e->obj->path);
}

/* The reasons one object gives; true if it gave one. */
static bool tell(struct text *t, const struct evidence *e, const char *pat, bool plain)
{
	size_t before = t->len;

	if (e->inlined)
		tell_inlined(t, e, pat, plain);
	if (e->nr_clones) {
		say(t, "  the compiler made clones of %s, which carry its code: ", pat);
		for (size_t i = 0; i < e->nr_clones; i++)
			say(t, "%s%s", i ? ", " : "", e->clones[i]);
		say(t, " (filter on them: '%s.*')\n", pat);
	}
	if (e->name && !e->inlined && !e->nr_clones) {
		if (!ut_elfsites_instrumented(e->obj->path))
			say(t, "  %s lives in %s%s, built without sites (only code built with "
			       "-fpatchable-function-entry=5 or -pg -mfentry has them; %s"
			       "-O plt traces the calls other objects make to it)\n",
			    e->name, where(e->obj), e->obj->path,
			    ut_pro_module_refused(e->obj->path)
				    ? ""
				    : "-O patch-prologue, or options/patch-prologue in the mount, "
				      "traces it through a patched prologue; ");
		else if (e->known_as)
			say(t, "  %s, another name of %s, is in %s%s but has no site (a part the "
			       "compiler split off, or built with no_instrument_function)\n",
			    e->name, e->known_as, where(e->obj), e->obj->path);
		else
			say(t, "  %s is in %s%s but has no site (a part the compiler split off, "
			       "or built with no_instrument_function)\n",
			    e->name, where(e->obj), e->obj->path);
	}
	return t->len > before;
}

/* What the debug info could not tell about @pat in the objects with sites. */
static void tell_unknown(struct text *t, const struct evidence *ev, size_t n, const char *pat)
{
	for (size_t i = 0; i < n; i++) {
		const struct evidence *e = &ev[i];

		if (!e->dbg || !ut_elfsites_instrumented(e->obj->path))
			continue;
		if (e->dbg->note[0] && e->dbg->status != UT_INL_DAMAGED)
			say(t, "  debug info: %s\n", e->dbg->note);
		if (e->dbg->status == UT_INL_NODEBUG)
			say(t, "  %s has no debug info: %s may have been inlined into its callers; "
			       "build it with -g (or install its -dbgsym package), then "
			       "`utrace list --inlined -f %s` tells\n",
			    e->obj->path, pat, e->obj->path);
		else if (e->dbg->status == UT_INL_DAMAGED)
			say(t, "  unknown whether %s was inlined: %s has %s\n", pat, e->obj->path,
			    e->dbg->note);
	}
}

char *ut_why_no_site(const char *word, const struct ut_obj *objs, size_t n)
{
	char pat[256], mod[128];
	struct evidence *ev = calloc(n ? n : 1, sizeof(*ev));
	struct text t = {0};
	struct ut_glob g;
	bool told = false;

	if (!ev || word[0] == '!' || word[strspn(word, "0123456789")] == '\0') {
		free(ev);
		return NULL;
	}
	split_word(word, pat, sizeof(pat), mod, sizeof(mod));
	if (!pat[0] || ut_glob_compile(&g, pat)) {
		free(ev);
		return NULL;
	}
	bool plain = !strpbrk(pat, "*?[\\");

	for (size_t i = 0; i < n; i++) {
		ev[i].obj = &objs[i];
		if (mod[0] && !ut_glob_fnmatch(mod, objs[i].module))
			continue;
		symbol_evidence(&ev[i], &g, pat, plain);
		if (ut_elfsites_instrumented(objs[i].path))
			dwarf_evidence(&ev[i], &g, pat, plain);
		/* processes of several builds of one program say it once */
		struct text one = {0};

		if (tell(&one, &ev[i], pat, plain) && (!t.s || !strstr(t.s, one.s)))
			say(&t, "%s", one.s);
		told |= one.len > 0;
		t.nomem |= one.nomem;
		free(one.s);
	}
	if (!told)
		tell_unknown(&t, ev, n, pat);
	for (size_t i = 0; i < n; i++)
		ut_symtab_free(ev[i].st);
	free(ev);
	ut_glob_free(&g);
	if (t.nomem) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

/* The object of @module ("" or NULL: the program) among @objs. */
static const struct ut_obj *object_of(const char *module, const struct ut_obj *objs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(objs[i].module, module ? module : ""))
			return &objs[i];
	return NULL;
}

/*
 * How many of the @k instances of @name (from @first on, in @tab of the
 * object @o) a filter misses: all of them without -O inlined (@traced),
 * else those -O inlined cannot make sites.  The verdicts are read once per
 * object and kept for the next rows.
 */
static size_t missed_of(const struct ut_obj *o, const struct ut_inltab *tab,
			const struct ut_inl *first, size_t k, bool traced)
{
	static const struct ut_inltab *judged;
	static enum ut_pro_why *why;
	size_t n = 0;

	if (!traced)
		return k;
	if (judged != tab) {
		free(why);
		why = calloc(tab->n + 1, sizeof(*why));
		judged = why && !ut_elfsites_inlined(o->path, tab, why) ? tab : NULL;
		if (!judged)
			return 0;
	}
	for (size_t i = 0; i < k; i++)
		n += why[first - tab->v + (ptrdiff_t)i] != UT_PRO_OK;
	return n;
}

/* Two functions by (module, name). */
static int cmp_name(const struct ut_filter_func *f, const struct ut_filter_func *g)
{
	int c = strcmp(f->module ? f->module : "", g->module ? g->module : "");

	return c ? c : strcmp(f->name, g->name);
}

/* Rows of a table by (module, name), then row: qsort_r's order for first_rows(). */
static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct ut_ftable *t = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = cmp_name(ut_ftable_get(t, i), ut_ftable_get(t, j));

	return c ? c : (i > j) - (i < j);
}

/*
 * Which rows of @t among @s's are the first of their (module, name): a
 * function listed twice (two sites of one name) is told of once.  By
 * sorting: comparing each row with every earlier one cost 0.65 s for a
 * filter selecting 11,111 of 100,000 functions.  NULL on ENOMEM.
 */
static bool *first_rows(const struct ut_ftable *t, const struct ut_fset *s)
{
	size_t n = ut_ftable_size(t), k = 0, *by = malloc((n + 1) * sizeof(*by));
	bool *first = calloc(n + 1, sizeof(*first));

	if (!by || !first) {
		free(by);
		free(first);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (ut_ftable_get(t, i) && ut_fset_contains(s, i))
			by[k++] = i;
	qsort_r(by, k, sizeof(*by), cmp_row, (void *)t);
	for (size_t i = 0; i < k; i++)
		first[by[i]] = !i || cmp_name(ut_ftable_get(t, by[i - 1]), ut_ftable_get(t, by[i])) != 0;
	free(by);
	return first;
}

char *ut_inlined_missed(const struct ut_ftable *t, const struct ut_fset *s,
			const struct ut_obj *objs, size_t n, const char *file, bool traced)
{
	size_t funcs = 0, sites = 0;
	const char *one = NULL;
	char *out = NULL, *full = NULL;
	bool *once = s && ut_fset_active(s) ? first_rows(t, s) : NULL;
	const struct ut_obj *last = NULL; /* rows come by object: its table, looked up once */
	const struct ut_inltab *last_tab = NULL;

	for (size_t i = 0; once && i < ut_ftable_size(t); i++) {
		const struct ut_filter_func *f = ut_ftable_get(t, i);
		const struct ut_obj *o = once[i] ? object_of(f->module, objs, n) : NULL;
		const struct ut_inltab *tab;
		const struct ut_inl *first;

		if (o && o != last) {
			last = o;
			last_tab = ut_inlined_of(o->path);
		}
		tab = o ? last_tab : NULL;
		size_t k = tab ? ut_inlined_find(tab, f->name, &first) : 0;

		k = k ? missed_of(o, tab, first, k, traced) : 0;
		if (k) {
			funcs++;
			sites += k;
			one = f->name;
		}
	}
	free(once);
	if (!sites)
		return NULL;
	if (funcs == 1 && asprintf(&out, "%s: %s is also inlined at %zu call site%s%s", file, one,
				   sites, sites == 1 ? "" : "s",
				   traced ? " that -O inlined cannot trace" : ", not traced") < 0)
		return NULL;
	if (funcs > 1 && asprintf(&out, "%s: %zu of the functions are also inlined, at %zu call "
					"sites%s",
				  file, funcs, sites,
				  traced ? " that -O inlined cannot trace" : ", not traced") < 0)
		return NULL;
	if (traced ? asprintf(&full, "%s (`utrace list --inlined -f %s` says why)", out,
			      n ? objs[0].path : "PROGRAM") < 0
		   : asprintf(&full, "%s (-O inlined traces %s; `utrace list --inlined -f %s` lists %s)",
			      out, sites == 1 ? "it" : "them", n ? objs[0].path : "PROGRAM",
			      sites == 1 ? "it" : "them") < 0)
		full = NULL;
	free(out);
	return full;
}

char *ut_why_untraced(const char *word, const struct ut_obj *objs, size_t n, bool prologues)
{
	char *why = prologues ? ut_pro_why_word(word, objs, n) : NULL;

	return why ? why : ut_why_no_site(word, objs, n);
}
