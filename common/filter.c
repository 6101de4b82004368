// SPDX-License-Identifier: MIT
/*
 * set_ftrace_filter-style function sets (see filter.h for the model).
 *
 * The selection is a bitmap over the table, so the per-function decision the
 * runtime asks for is O(1).  Parsing and listing are linear scans of the
 * table, which only happen when the user writes or reads a list.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cxxname.h"
#include "common/filter.h"
#include "common/glob.h"

/* Names are packed into large blocks: tables hold 10^5 functions and more. */
#define ARENA_BLOCK 65536

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	char data[];
};

/* Per entry flags. */
#define F_DEAD 1    /* its module was unloaded */
#define F_ALIASES 2 /* it has other names in ->alias */

/* Another name of entry @func (symbols at its address: symbols.h). */
struct falias {
	size_t func;
	const char *name;
};

struct ut_ftable {
	struct ut_filter_func *funcs;
	unsigned char *flags; /* per entry: F_DEAD, F_ALIASES */
	size_t nr, cap, cap_flags;
	struct falias *alias; /* other names, by entry (ut_ftable_add_alias) */
	size_t nr_alias, cap_alias;
	uint32_t *alias_first; /* per entry with F_ALIASES: its first in ->alias */
	size_t cap_first;
	char **mods; /* interned module names */
	size_t nr_mods, cap_mods;
	struct arena_block *arena;
	struct ut_fset **sets; /* sets to prune when a module goes away */
	size_t nr_sets, cap_sets;
	struct cxx_cache *cxx; /* demangled names, made when a word first needs them */
};

/*
 * C++ names in the forms a user types them (common/cxxname.h), made from
 * the mangled names ("_Z...") on first use: a C program has none, and a C++
 * program that is given no filter never demangles.  NOT_CXX marks an entry
 * whose name is not mangled or does not demangle (matched by its name only).
 */
struct cxx_cache {
	char *(*demangle)(const char *mangled);
	struct ut_cxxforms **forms;
	size_t cap;
	struct ut_cxxforms **aforms; /* the same for the aliases */
	size_t acap;
	bool list_demangled; /* listings print the demangled names */
};
static struct ut_cxxforms not_cxx;
#define NOT_CXX (&not_cxx)

struct bitmap {
	uint64_t *w;
	size_t nwords;
};

struct pending_mod {
	char *func; /* "*" for a blank function part */
	char *module;
};

struct ut_fset {
	struct ut_ftable *t;
	unsigned int flags;
	struct bitmap cur;  /* installed list */
	struct bitmap work; /* what the open write builds */
	size_t nr;          /* bits set in cur */
	bool open;
	struct ut_fcmd *cmds;
	size_t nr_cmds, cap_cmds;
	struct pending_mod *pend;
	size_t nr_pend, cap_pend;
};

/* Grow *@p (of *@cap elements of @size bytes) to hold at least @need. */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

/* --- bitmaps ---------------------------------------------------------------- */

static int bm_grow(struct bitmap *bm, size_t nbits)
{
	size_t nw = (nbits + 63) / 64;
	uint64_t *w;

	if (nw <= bm->nwords)
		return 0;
	w = realloc(bm->w, nw * sizeof(*w));
	if (!w)
		return -ENOMEM;
	memset(w + bm->nwords, 0, (nw - bm->nwords) * sizeof(*w));
	bm->w = w;
	bm->nwords = nw;
	return 0;
}

static bool bm_test(const struct bitmap *bm, size_t i)
{
	return i / 64 < bm->nwords && (bm->w[i / 64] >> (i % 64) & 1);
}

/* The caller grew @bm to cover @i. */
static void bm_assign(struct bitmap *bm, size_t i, bool on)
{
	uint64_t bit = (uint64_t)1 << (i % 64);

	if (on)
		bm->w[i / 64] |= bit;
	else
		bm->w[i / 64] &= ~bit;
}

static size_t bm_count(const struct bitmap *bm)
{
	size_t i, n = 0;

	for (i = 0; i < bm->nwords; i++)
		n += (size_t)__builtin_popcountll(bm->w[i]);
	return n;
}

static void bm_free(struct bitmap *bm)
{
	free(bm->w);
	bm->w = NULL;
	bm->nwords = 0;
}

/* --- the table ---------------------------------------------------------------- */

static char *arena_strdup(struct ut_ftable *t, const char *s)
{
	size_t len = strlen(s) + 1;
	struct arena_block *b = t->arena;
	char *p;

	if (!b || b->cap - b->used < len) {
		size_t cap = len > ARENA_BLOCK ? len : ARENA_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = t->arena;
		b->used = 0;
		b->cap = cap;
		t->arena = b;
	}
	p = b->data + b->used;
	memcpy(p, s, len);
	b->used += len;
	return p;
}

/* One copy per module name: a library has thousands of functions. */
static const char *intern_module(struct ut_ftable *t, const char *module)
{
	size_t i;
	char *m;

	for (i = 0; i < t->nr_mods; i++)
		if (strcmp(t->mods[i], module) == 0)
			return t->mods[i];
	if (grow((void **)&t->mods, &t->cap_mods, t->nr_mods + 1, sizeof(*t->mods)))
		return NULL;
	m = arena_strdup(t, module);
	if (!m)
		return NULL;
	t->mods[t->nr_mods++] = m;
	return m;
}

struct ut_ftable *ut_ftable_new(void)
{
	return calloc(1, sizeof(struct ut_ftable));
}

void ut_ftable_free(struct ut_ftable *t)
{
	struct arena_block *b, *next;

	if (!t)
		return;
	for (b = t->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	if (t->cxx) {
		ut_ftable_forget_demangled(t);
		free(t->cxx->forms);
		free(t->cxx->aforms);
		free(t->cxx);
	}
	free(t->funcs);
	free(t->flags);
	free(t->alias);
	free(t->alias_first);
	free(t->mods);
	free(t->sets);
	free(t);
}

static void forget_forms(struct ut_cxxforms **forms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (forms[i] != NOT_CXX)
			free(forms[i]);
		forms[i] = NULL;
	}
}

void ut_ftable_forget_demangled(struct ut_ftable *t)
{
	if (!t->cxx)
		return;
	forget_forms(t->cxx->forms, t->cxx->cap);
	forget_forms(t->cxx->aforms, t->cxx->acap);
}

int ut_ftable_list_demangled(struct ut_ftable *t, bool on)
{
	if (!t->cxx || !t->cxx->demangle)
		return -EINVAL;
	t->cxx->list_demangled = on;
	return 0;
}

int ut_ftable_set_demangle(struct ut_ftable *t, char *(*demangle)(const char *mangled))
{
	if (!t->cxx) {
		t->cxx = calloc(1, sizeof(*t->cxx));
		if (!t->cxx)
			return -ENOMEM;
	}
	t->cxx->demangle = demangle;
	return 0;
}

/*
 * The C++ forms of @name, cached in (*@forms)[@i] (an array of *@cap
 * entries, grown to @want when @i is past it), or NOT_CXX.
 */
static const struct ut_cxxforms *forms_in(struct cxx_cache *c, struct ut_cxxforms ***forms,
					  size_t *cap, size_t want, size_t i, const char *name)
{
	char *dm;

	if (!c->demangle || name[0] != '_' || name[1] != 'Z')
		return NOT_CXX;
	if (i >= *cap) {
		size_t old = *cap;

		/* an array of pointers: spell the element type out */
		if (grow((void **)forms, cap, want, sizeof(struct ut_cxxforms *)))
			return NOT_CXX;
		memset(*forms + old, 0, (*cap - old) * sizeof(struct ut_cxxforms *));
	}
	if (!(*forms)[i]) {
		dm = c->demangle(name);
		(*forms)[i] = dm ? ut_cxxforms_new(dm) : NULL;
		free(dm);
		if (!(*forms)[i])
			(*forms)[i] = NOT_CXX;
	}
	return (*forms)[i];
}

/* The C++ forms of entry @i, or NOT_CXX. */
static const struct ut_cxxforms *cxx_forms(const struct ut_ftable *t, size_t i)
{
	struct cxx_cache *c = t->cxx;

	return c ? forms_in(c, &c->forms, &c->cap, t->cap, i, t->funcs[i].name) : NOT_CXX;
}

/* The C++ forms of alias @a (an index into t->alias), or NOT_CXX. */
static const struct ut_cxxforms *alias_forms(const struct ut_ftable *t, size_t a)
{
	struct cxx_cache *c = t->cxx;

	return c ? forms_in(c, &c->aforms, &c->acap, t->cap_alias, a, t->alias[a].name) : NOT_CXX;
}

/* Does @g match another variant (C1/C2/C3, D0/D1/D2) of the constructor or destructor @name? */
static bool structor_match(const struct ut_glob *g, const char *name)
{
	const char *code = ut_cxx_structor(name);
	char alias[512];
	size_t n = strlen(name), at;

	if (!code || n >= sizeof(alias))
		return false;
	memcpy(alias, name, n + 1);
	at = (size_t)(code - name);
	for (int v = code[0] == 'C' ? '1' : '0'; v <= (code[0] == 'C' ? '3' : '2'); v++) {
		if (v == code[1])
			continue;
		alias[at + 1] = (char)v;
		if (ut_glob_match(g, alias))
			return true;
	}
	return false;
}

/* Does @g match one of the C++ forms @f? */
static bool cxx_match(const struct ut_glob *g, const struct ut_cxxforms *f)
{
	if (f == NOT_CXX)
		return false;
	return ut_glob_match(g, f->base) || ut_glob_match(g, f->noret) ||
	       (f->base_notmpl != f->base && ut_glob_match(g, f->base_notmpl)) ||
	       (f->full != f->noret && ut_glob_match(g, f->full));
}

static long add_func(struct ut_ftable *t, const char *name, const char *module, bool copy)
{
	struct ut_filter_func *f;

	if (grow((void **)&t->funcs, &t->cap, t->nr + 1, sizeof(*t->funcs)) ||
	    grow((void **)&t->flags, &t->cap_flags, t->nr + 1, sizeof(*t->flags)))
		return -ENOMEM;
	f = &t->funcs[t->nr];
	f->name = copy ? arena_strdup(t, name) : name;
	f->module = module ? intern_module(t, module) : NULL;
	if (!f->name || (module && !f->module))
		return -ENOMEM;
	f->kind = UT_KIND_COMPILER;
	t->flags[t->nr] = 0;
	return (long)t->nr++;
}

void ut_ftable_set_kind(struct ut_ftable *t, size_t i, unsigned kind)
{
	if (i < t->nr && kind < UT_KIND_NR)
		t->funcs[i].kind = (unsigned char)kind;
}

long ut_ftable_add(struct ut_ftable *t, const char *name, const char *module)
{
	return add_func(t, name, module, true);
}

long ut_ftable_add_kept(struct ut_ftable *t, const char *name, const char *module)
{
	return add_func(t, name, module, false);
}

long ut_ftable_add_funcs(struct ut_ftable *t, const struct ut_filter_func *funcs, size_t n)
{
	long first = (long)t->nr, r;
	size_t i;

	for (i = 0; i < n; i++) {
		r = ut_ftable_add(t, funcs[i].name, funcs[i].module);
		if (r < 0)
			return r;
	}
	return first;
}

static bool dead(const struct ut_ftable *t, size_t i)
{
	return t->flags[i] & F_DEAD;
}

/* Where entry @i's aliases start in t->alias; *@n of them. */
static size_t aliases_of(const struct ut_ftable *t, size_t i, size_t *n)
{
	size_t lo, end;

	*n = 0;
	if (!(t->flags[i] & F_ALIASES))
		return 0;
	lo = t->alias_first[i];
	for (end = lo; end < t->nr_alias && t->alias[end].func == i; end++)
		;
	*n = end - lo;
	return lo;
}

static int add_alias(struct ut_ftable *t, size_t i, const char *name, bool copy)
{
	const char *n;

	/* kept by entry: an alias is added to the newest entries only */
	if (i >= t->nr || (t->nr_alias && t->alias[t->nr_alias - 1].func > i))
		return -EINVAL;
	if (grow((void **)&t->alias, &t->cap_alias, t->nr_alias + 1, sizeof(*t->alias)) ||
	    (!(t->flags[i] & F_ALIASES) &&
	     grow((void **)&t->alias_first, &t->cap_first, i + 1, sizeof(*t->alias_first))) ||
	    t->nr_alias >= UINT32_MAX)
		return -ENOMEM;
	n = copy ? arena_strdup(t, name) : name;
	if (!n)
		return -ENOMEM;
	if (!(t->flags[i] & F_ALIASES))
		t->alias_first[i] = (uint32_t)t->nr_alias;
	t->alias[t->nr_alias++] = (struct falias){.func = i, .name = n};
	t->flags[i] |= F_ALIASES;
	return 0;
}

int ut_ftable_add_alias(struct ut_ftable *t, size_t i, const char *name)
{
	return add_alias(t, i, name, true);
}

int ut_ftable_add_alias_kept(struct ut_ftable *t, size_t i, const char *name)
{
	return add_alias(t, i, name, false);
}

const char *ut_ftable_alias(const struct ut_ftable *t, size_t i, size_t k)
{
	size_t n = 0, first = i < t->nr ? aliases_of(t, i, &n) : 0;

	return k < n ? t->alias[first + k].name : NULL;
}

size_t ut_ftable_size(const struct ut_ftable *t)
{
	return t->nr;
}

static bool live(const struct ut_ftable *t, size_t i)
{
	return i < t->nr && !dead(t, i);
}

const struct ut_filter_func *ut_ftable_get(const struct ut_ftable *t, size_t i)
{
	return live(t, i) ? &t->funcs[i] : NULL;
}

static void fset_prune(struct ut_fset *s);

long ut_ftable_remove_module(struct ut_ftable *t, const char *module)
{
	long n = 0;
	size_t i;

	if (!module)
		return -EINVAL;
	for (i = 0; i < t->nr; i++) {
		if (!dead(t, i) && t->funcs[i].module && strcmp(t->funcs[i].module, module) == 0) {
			t->flags[i] |= F_DEAD;
			n++;
		}
	}
	if (n)
		for (i = 0; i < t->nr_sets; i++)
			fset_prune(t->sets[i]);
	return n;
}

int ut_ftable_module_loaded(struct ut_ftable *t, const char *module)
{
	size_t i;
	int r;

	for (i = 0; i < t->nr_sets; i++) {
		r = ut_fset_apply_pending(t->sets[i], module);
		if (r < 0)
			return r;
	}
	return 0;
}

/* --- output buffers ------------------------------------------------------------ */

struct sbuf {
	char *s;
	size_t len, cap;
	int err;
};

static void sb_addn(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->err)
		return;
	if (grow((void **)&sb->s, &sb->cap, sb->len + n + 1, 1)) {
		sb->err = -ENOMEM;
		return;
	}
	memcpy(sb->s + sb->len, s, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

static void sb_add(struct sbuf *sb, const char *s)
{
	sb_addn(sb, s, strlen(s));
}

static void sb_long(struct sbuf *sb, long v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	sb_addn(sb, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Hand the buffer over; an empty result is still a malloc'd "". */
static int sb_finish(struct sbuf *sb, char **out, size_t *lenp)
{
	sb_addn(sb, "", 0);
	if (sb->err) {
		free(sb->s);
		return sb->err;
	}
	*out = sb->s;
	if (lenp)
		*lenp = sb->len;
	return 0;
}

/* Entry @i's name as listings print it. */
static const char *list_name(const struct ut_ftable *t, size_t i)
{
	const struct ut_cxxforms *f;

	if (!t->cxx || !t->cxx->list_demangled)
		return t->funcs[i].name;
	f = cxx_forms(t, i);
	return f->full ? f->full : t->funcs[i].name;
}

const char *ut_ftable_listed_name(const struct ut_ftable *t, size_t i)
{
	return i < t->nr ? list_name(t, i) : NULL;
}

static void sb_aliases(struct sbuf *sb, const struct ut_ftable *t, size_t i);

/* One line of a listing: "name [module]", and with @aliases " [= other, names]". */
/*
 * One line: "name [module]", with @aliases its other names and with @kind,
 * after them, its kind of site when it is not the compiler's (" [plt]",
 * " [prologue]"; the lists read back as the kernel's, without it).
 */
static void sb_func(struct sbuf *sb, const struct ut_ftable *t, size_t i, bool aliases, bool kind)
{
	const struct ut_filter_func *f = &t->funcs[i];

	sb_add(sb, list_name(t, i));
	if (f->module) {
		sb_add(sb, " [");
		sb_add(sb, f->module);
		sb_add(sb, "]");
	}
	if (aliases)
		sb_aliases(sb, t, i);
	if (kind && f->kind != UT_KIND_COMPILER) {
		sb_add(sb, " [");
		sb_add(sb, ut_kind_name(f->kind));
		sb_add(sb, "]");
	}
	sb_add(sb, "\n");
}

/* Alias @a's name as listings print it. */
static const char *alias_list_name(const struct ut_ftable *t, size_t a)
{
	const struct ut_cxxforms *f;

	if (!t->cxx || !t->cxx->list_demangled)
		return t->alias[a].name;
	f = alias_forms(t, a);
	return f->full ? f->full : t->alias[a].name;
}

/*
 * True if @a is @primary plus a suffix gcc gives the local alias it makes
 * for a function that may be interposed (NAME.localalias): a name no one
 * types, not worth a listing's room.
 */
static bool compiler_alias(const char *a, const char *primary)
{
	size_t n = strlen(primary);

	return !strncmp(a, primary, n) && !strcmp(a + n, ".localalias");
}

/*
 * " [= a, b]": entry @i's other names as listed, each once and not the
 * listed name itself (a constructor's C1 and C2 demangle alike), nor its
 * compiler-made local alias.
 */
static void sb_aliases(struct sbuf *sb, const struct ut_ftable *t, size_t i)
{
	size_t n, first = aliases_of(t, i, &n), shown = 0;
	const char *primary = list_name(t, i);

	for (size_t k = 0; k < n; k++) {
		const char *a = alias_list_name(t, first + k);
		bool seen = !strcmp(a, primary) || compiler_alias(a, primary);

		for (size_t j = 0; j < k && !seen; j++)
			seen = !strcmp(a, alias_list_name(t, first + j));
		if (seen)
			continue;
		sb_add(sb, shown++ ? ", " : " [= ");
		sb_add(sb, a);
	}
	if (shown)
		sb_add(sb, "]");
}

char *ut_ftable_alias_note(const struct ut_ftable *t, size_t i)
{
	struct sbuf sb = { 0 };
	char *out = NULL;

	if (i >= t->nr)
		return NULL;
	sb_aliases(&sb, t, i);
	if (!sb.len) {
		free(sb.s);
		return NULL;
	}
	return sb_finish(&sb, &out, NULL) ? NULL : out; /* it frees the text on error */
}

static int format_all(const struct ut_ftable *t, bool aliases, char **out, size_t *lenp)
{
	struct sbuf sb = { 0 };

	for (size_t i = 0; i < t->nr; i++)
		if (!dead(t, i))
			sb_func(&sb, t, i, aliases, true);
	return sb_finish(&sb, out, lenp);
}

int ut_ftable_format_available(const struct ut_ftable *t, char **out, size_t *lenp)
{
	return format_all(t, false, out, lenp);
}

int ut_ftable_format_listing(const struct ut_ftable *t, char **out, size_t *lenp)
{
	return format_all(t, true, out, lenp);
}

/* --- matching one word against the table ------------------------------------------ */

/*
 * A parsed "FUNC[:mod:MOD]".  @func_blank: an empty FUNC with a module part
 * means every function of the module(s).  @mod_blank: an empty MOD means
 * "any module", or with '!' "no module" (the main executable).
 */
struct fmatch {
	bool is_index;
	size_t idx;
	struct ut_glob func;
	bool func_blank;
	bool has_mod, mod_blank, mod_exclude;
	bool mangled; /* FUNC starts with "_Z": no demangled name can match it */
	bool anchored;  /* a mangled name without @anchor cannot match FUNC as demangled */
	char anchor[128];
	struct ut_glob mod;
	const char *mod_exact; /* instead of @mod: only this module (pending entries) */
};

/* The table index of line @n (1-based) of available_filter_functions. */
static int index_of_line(const struct ut_ftable *t, const char *digits, size_t *idx)
{
	unsigned long n = 0;
	const char *p;
	size_t i;

	for (p = digits; *p; p++) {
		if (!isdigit((unsigned char)*p) || n > (ULONG_MAX - 9) / 10)
			return -EINVAL;
		n = n * 10 + (unsigned long)(*p - '0');
	}
	if (n == 0)
		return -EINVAL;
	for (i = 0; i < t->nr; i++) {
		if (!dead(t, i) && --n == 0) {
			*idx = i;
			return 0;
		}
	}
	return -EINVAL;
}

static void fmatch_free(struct fmatch *m)
{
	ut_glob_free(&m->func);
	ut_glob_free(&m->mod);
}

/*
 * @func has its '!' already stripped; @mod is NULL without a ":mod:" part
 * and may start with '!'.
 */
static int fmatch_init(struct fmatch *m, const struct ut_ftable *t, const char *func,
		       const char *mod)
{
	memset(m, 0, sizeof(*m));
	if (isdigit((unsigned char)func[0])) {
		/* like the kernel, a line number ignores any module part */
		m->is_index = true;
		return index_of_line(t, func, &m->idx);
	}
	if (ut_glob_compile(&m->func, func))
		return -ENOMEM;
	m->mangled = func[0] == '_' && func[1] == 'Z';
	m->anchored = !m->mangled && ut_cxx_word_anchor(func, m->anchor, sizeof(m->anchor));
	if (!mod)
		return 0;
	m->has_mod = true;
	m->func_blank = !*func;
	if (*mod == '!') {
		m->mod_exclude = true;
		mod++;
	}
	m->mod_blank = !*mod;
	if (ut_glob_compile(&m->mod, mod)) {
		fmatch_free(m);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Does @m's function part match @name: entry @i's name (@a SIZE_MAX) or
 * its alias t->alias[@a]?
 */
static bool name_test(const struct fmatch *m, const struct ut_ftable *t, const char *name,
		      size_t i, size_t a)
{
	if (ut_glob_match(&m->func, name))
		return true;
	if (m->mangled)
		return structor_match(&m->func, name);
	if (m->anchored && !strstr(name, m->anchor))
		return false; /* not demangled: it cannot match */
	return cxx_match(&m->func, a == SIZE_MAX ? cxx_forms(t, i) : alias_forms(t, a));
}

static bool fmatch_test(const struct fmatch *m, const struct ut_ftable *t, size_t i)
{
	const struct ut_filter_func *f = &t->funcs[i];
	size_t n, first;
	bool hit;

	if (m->is_index)
		return i == m->idx;
	if (m->mod_exact) {
		if (!f->module || strcmp(f->module, m->mod_exact) != 0)
			return false;
		if (m->func_blank)
			return true;
	} else if (m->has_mod) {
		if (m->mod_blank)
			hit = f->module != NULL;
		else
			hit = f->module && ut_glob_match(&m->mod, f->module);
		if (hit == m->mod_exclude)
			return false;
		if (m->func_blank)
			return true;
	}
	if (name_test(m, t, f->name, i, SIZE_MAX))
		return true;
	/* any name of the function selects it (symbols at one address) */
	first = aliases_of(t, i, &n);
	for (size_t k = 0; k < n; k++)
		if (name_test(m, t, t->alias[first + k].name, i, first + k))
			return true;
	return false;
}

/* Set (@on) or clear every live match in @bm; returns how many matched. */
static size_t fmatch_apply(const struct fmatch *m, const struct ut_ftable *t, struct bitmap *bm,
			   bool on)
{
	size_t i, n = 0;

	if (m->is_index) {
		bm_assign(bm, m->idx, on);
		return 1;
	}
	for (i = 0; i < t->nr; i++) {
		if (!dead(t, i) && fmatch_test(m, t, i)) {
			bm_assign(bm, i, on);
			n++;
		}
	}
	return n;
}

/* Is a module matching @m's module part loaded at all? */
static bool module_present(const struct fmatch *m, const struct ut_ftable *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (!dead(t, i) && t->funcs[i].module && ut_glob_match(&m->mod, t->funcs[i].module))
			return true;
	return false;
}

/* --- sets ------------------------------------------------------------------------- */

struct ut_fset *ut_fset_new(struct ut_ftable *t, unsigned int flags)
{
	struct ut_fset *s;

	/* t->sets is an array of pointers: spell the element type out */
	if (grow((void **)&t->sets, &t->cap_sets, t->nr_sets + 1, sizeof(struct ut_fset *)))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->t = t;
	s->flags = flags;
	t->sets[t->nr_sets++] = s;
	return s;
}

static void pending_del(struct ut_fset *s, size_t j)
{
	free(s->pend[j].func);
	free(s->pend[j].module);
	memmove(&s->pend[j], &s->pend[j + 1], (s->nr_pend - j - 1) * sizeof(*s->pend));
	s->nr_pend--;
}

static void pending_clear(struct ut_fset *s)
{
	while (s->nr_pend)
		pending_del(s, s->nr_pend - 1);
}

void ut_fset_free(struct ut_fset *s)
{
	struct ut_ftable *t;
	size_t i;

	if (!s)
		return;
	t = s->t;
	for (i = 0; i < t->nr_sets; i++) {
		if (t->sets[i] == s) {
			t->sets[i] = t->sets[--t->nr_sets];
			break;
		}
	}
	pending_clear(s);
	free(s->pend);
	free(s->cmds);
	bm_free(&s->cur);
	bm_free(&s->work);
	free(s);
}

/* Forget functions of unloaded modules, in both copies and in the commands. */
static void fset_prune(struct ut_fset *s)
{
	const struct ut_ftable *t = s->t;
	size_t i, j;

	for (i = 0; i < t->nr; i++) {
		if (!dead(t, i))
			continue;
		if (bm_test(&s->cur, i))
			bm_assign(&s->cur, i, false);
		if (bm_test(&s->work, i))
			bm_assign(&s->work, i, false);
	}
	s->nr = bm_count(&s->cur);
	for (i = j = 0; i < s->nr_cmds; i++)
		if (!dead(t, s->cmds[i].func))
			s->cmds[j++] = s->cmds[i];
	s->nr_cmds = j;
}

int ut_fset_begin(struct ut_fset *s, bool truncate)
{
	if (s->open)
		return -EBUSY;
	if (bm_grow(&s->work, s->t->nr))
		return -ENOMEM;
	if (s->work.nwords) /* an empty table has no words yet (w NULL) */
		memset(s->work.w, 0, s->work.nwords * sizeof(*s->work.w));
	if (truncate) {
		/* O_TRUNC drops the cached module entries at open time */
		pending_clear(s);
	} else if (s->cur.nwords) {
		if (bm_grow(&s->work, s->cur.nwords * 64))
			return -ENOMEM;
		memcpy(s->work.w, s->cur.w, s->cur.nwords * sizeof(*s->cur.w));
	}
	s->open = true;
	return 0;
}

int ut_fset_commit(struct ut_fset *s)
{
	struct bitmap tmp;

	if (!s->open)
		return -EBADF;
	tmp = s->cur;
	s->cur = s->work;
	s->work = tmp;
	s->nr = bm_count(&s->cur);
	s->open = false;
	return 0;
}

void ut_fset_abort(struct ut_fset *s)
{
	s->open = false;
}

/* --- pending :mod: entries ------------------------------------------------------- */

/*
 * Nothing matched "[!]FUNC:mod:MOD".  As the kernel does for modules that
 * are not loaded: remember a positive entry, or let a negative one delete
 * remembered entries.
 */
static int cache_mod(struct ut_fset *s, const struct fmatch *m, bool neg, const char *func,
		     const char *mod)
{
	struct pending_mod *p;
	bool all = !*func || strcmp(func, "*") == 0;
	size_t j, removed = 0;

	if (!(s->flags & UT_FSET_F_MODCACHE))
		return -EINVAL;
	if (!*func)
		func = "*";
	if (neg) {
		for (j = s->nr_pend; j-- > 0;) {
			p = &s->pend[j];
			if (strcmp(p->module, mod) == 0 && (all || strcmp(p->func, func) == 0)) {
				pending_del(s, j);
				removed++;
			}
		}
		return removed ? 0 : -EINVAL;
	}
	/* only a module that is absent can still bring matches */
	if (m->mod_blank || m->mod_exclude || module_present(m, s->t))
		return -EINVAL;
	for (j = 0; j < s->nr_pend; j++)
		if (!strcmp(s->pend[j].module, mod) && !strcmp(s->pend[j].func, func))
			return 0;
	if (grow((void **)&s->pend, &s->cap_pend, s->nr_pend + 1, sizeof(*s->pend)))
		return -ENOMEM;
	p = &s->pend[s->nr_pend];
	p->func = strdup(func);
	p->module = strdup(mod);
	if (!p->func || !p->module) {
		free(p->func);
		free(p->module);
		return -ENOMEM;
	}
	s->nr_pend++;
	return 0;
}

int ut_fset_apply_pending(struct ut_fset *s, const char *module)
{
	struct ut_ftable *t = s->t;
	struct ut_glob modg;
	struct fmatch m;
	bool hit;
	size_t j;
	int n = 0;

	if (bm_grow(&s->cur, t->nr) || (s->open && bm_grow(&s->work, t->nr)))
		return -ENOMEM;
	for (j = 0; j < s->nr_pend;) {
		if (ut_glob_compile(&modg, s->pend[j].module))
			return -ENOMEM;
		hit = ut_glob_match(&modg, module);
		ut_glob_free(&modg);
		if (!hit) {
			j++;
			continue;
		}
		memset(&m, 0, sizeof(m));
		if (ut_glob_compile(&m.func, s->pend[j].func))
			return -ENOMEM;
		m.mod_exact = module;
		m.func_blank = strcmp(s->pend[j].func, "*") == 0;
		fmatch_apply(&m, t, &s->cur, true);
		if (s->open)
			fmatch_apply(&m, t, &s->work, true);
		fmatch_free(&m);
		/* the kernel consumes a cached entry once its module is there */
		pending_del(s, j);
		n++;
	}
	s->nr = bm_count(&s->cur);
	return n;
}

/* --- commands ----------------------------------------------------------------------- */

static const char *const cmd_names[] = {
	[UT_FCMD_TRACEON] = "traceon",
	[UT_FCMD_TRACEOFF] = "traceoff",
	[UT_FCMD_STACKTRACE] = "stacktrace",
	[UT_FCMD_DUMP] = "dump",
	[UT_FCMD_CPUDUMP] = "cpudump",
};

#define NR_CMDS (sizeof(cmd_names) / sizeof(cmd_names[0]))

const char *ut_fcmd_name(int type)
{
	return type >= 0 && (size_t)type < NR_CMDS ? cmd_names[type] : "?";
}

bool ut_fset_word_is_cmd(const char *w, size_t len)
{
	const char *colon, *cmd, *end;
	char word[256];

	/* the first ':' that is not in a C++ "::" */
	if (len >= sizeof(word))
		len = sizeof(word) - 1;
	memcpy(word, w, len);
	word[len] = '\0';
	colon = ut_cxx_cmd_colon(word);
	if (!colon)
		return false;
	w = word;
	cmd = colon + 1;
	end = memchr(cmd, ':', len - (size_t)(cmd - w));
	if (!end)
		end = w + len;
	return !((size_t)(end - cmd) == 3 && memcmp(cmd, "mod", 3) == 0);
}

static int cmd_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < NR_CMDS; i++)
		if (strcmp(cmd_names[i], name) == 0)
			return (int)i;
	/* enable_event / disable_event need the event table: not yet */
	return -EINVAL;
}

/* Like kstrtoul(s, 0): decimal, 0x hex or 0 octal, nothing trailing. */
static int parse_count(const char *s, long *count)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v > LONG_MAX)
		return -EINVAL;
	*count = (long)v;
	return 0;
}

static bool cmd_exists(const struct ut_fset *s, size_t func, int type, bool counted)
{
	size_t i;

	for (i = 0; i < s->nr_cmds; i++)
		if (s->cmds[i].func == func && s->cmds[i].type == type &&
		    s->cmds[i].counted == counted)
			return true;
	return false;
}

static int cmd_add(struct ut_fset *s, const char *func, int type, bool counted, long count)
{
	const struct ut_ftable *t = s->t;
	struct fmatch m;
	size_t i, found = 0;
	int r;

	r = fmatch_init(&m, t, func, NULL);
	if (r)
		return r;
	for (i = 0; i < t->nr; i++) {
		if (dead(t, i) || !fmatch_test(&m, t, i))
			continue;
		found++;
		/* an existing command keeps its count, as in the kernel */
		if (cmd_exists(s, i, type, counted))
			continue;
		if (grow((void **)&s->cmds, &s->cap_cmds, s->nr_cmds + 1, sizeof(*s->cmds))) {
			fmatch_free(&m);
			return -ENOMEM;
		}
		s->cmds[s->nr_cmds++] = (struct ut_fcmd){
			.func = i, .type = type, .counted = counted, .count = count,
		};
	}
	fmatch_free(&m);
	return found ? 0 : -EINVAL;
}

static int cmd_remove(struct ut_fset *s, const char *func, int type, bool counted)
{
	bool all = !*func || strcmp(func, "*") == 0;
	struct fmatch m = { 0 };
	size_t i, j;
	int r;

	if (!all) {
		r = fmatch_init(&m, s->t, func, NULL);
		if (r)
			return r;
	}
	for (i = j = 0; i < s->nr_cmds; i++) {
		const struct ut_fcmd *c = &s->cmds[i];

		if (c->type == type && c->counted == counted &&
		    (all || fmatch_test(&m, s->t, c->func)))
			continue;
		s->cmds[j++] = *c;
	}
	if (!all)
		fmatch_free(&m);
	r = j < s->nr_cmds ? 0 : -EINVAL;
	s->nr_cmds = j;
	return r;
}

/* "[!]FUNC:CMD[:PARAM]"; @param is NULL when there was no third part. */
static int do_cmd(struct ut_fset *s, char *func, const char *cmd, char *param)
{
	bool neg = false, counted = param != NULL;
	long count = -1;
	char *colon;
	int type, r;

	type = cmd_lookup(cmd);
	if (type < 0 || !(s->flags & UT_FSET_F_CMDS))
		return -EINVAL;
	if (*func == '!') {
		neg = true;
		func++;
	}
	if (type == UT_FCMD_DUMP || type == UT_FCMD_CPUDUMP) {
		/* dumping the buffer is a one-shot, whatever count was given */
		counted = true;
		count = 1;
	} else if (neg) {
		/* as the kernel: a removal names the counted or uncounted command, its
		 * count is not read (the selftests write "!f:cmd:count=0" back) */
	} else if (param) {
		/* only the first field counts; an empty one means unlimited */
		colon = strchr(param, ':');
		if (colon)
			*colon = '\0';
		if (*param) {
			r = parse_count(param, &count);
			if (r)
				return r;
		}
	}
	if (neg)
		return cmd_remove(s, func, type, counted);
	return cmd_add(s, func, type, counted, count);
}

/* --- words ------------------------------------------------------------------------- */

/* "[!]PAT" or "[!]PAT:mod:MOD" (@mod NULL for the first). */
static int do_pattern(struct ut_fset *s, char *func, const char *mod)
{
	bool neg = false;
	struct fmatch m;
	size_t n;
	int r;

	if (*func == '!') {
		neg = true;
		func++;
	}
	r = fmatch_init(&m, s->t, func, mod);
	if (r)
		return r;
	n = fmatch_apply(&m, s->t, &s->work, !neg);
	if (n)
		r = 0;
	else if (mod)
		r = cache_mod(s, &m, neg, func, mod);
	else
		r = -EINVAL;
	fmatch_free(&m);
	return r;
}

/*
 * The module part of ":mod:MOD" as modules are named (common/symbols.c: the
 * file name up to its first dot), so that the shared object's file name
 * works too: "lib1.so", "libz.so.1" and "/usr/lib/libz.so.1" name "lib1"
 * and "libz".  In place, after the '!' of an exclusion.  -EINVAL if a
 * name was given but nothing of it is left (".so"): it could name no module.
 */
static int module_part(char *mod)
{
	char *p = mod + (*mod == '!'), *slash = strrchr(p, '/');
	bool given = *p != '\0';

	if (slash)
		memmove(p, slash + 1, strlen(slash + 1) + 1);
	p[strcspn(p, ".")] = '\0';
	return given && !*p ? -EINVAL : 0;
}

/* One word, NUL-terminated and writable. */
static int do_word(struct ut_fset *s, char *w)
{
	char *cmd, *param;

	cmd = ut_cxx_cmd_colon(w);
	if (!cmd)
		return do_pattern(s, w, NULL);
	*cmd++ = '\0';
	param = strchr(cmd, ':');
	if (param)
		*param++ = '\0';
	if (strcmp(cmd, "mod") == 0) {
		/* "f:mod" names no module; "f:mod:a:b" is no module name */
		if (!param || strchr(param, ':') || module_part(param))
			return -EINVAL;
		return do_pattern(s, w, param);
	}
	return do_cmd(s, w, cmd, param);
}

static void copy_word(char *dst, size_t dlen, const char *w, size_t wlen)
{
	if (!dst || !dlen)
		return;
	if (wlen > dlen - 1)
		wlen = dlen - 1;
	memcpy(dst, w, wlen);
	dst[wlen] = '\0';
}

static bool is_sep(char c)
{
	return c == '\0' || isspace((unsigned char)c);
}

int ut_fset_write(struct ut_fset *s, const char *buf, size_t len, char *badword, size_t badlen)
{
	size_t i = 0, start;
	char *w;
	int r = 0;

	copy_word(badword, badlen, "", 0);
	if (!s->open)
		return -EBADF;
	/* the table may have grown since ut_fset_begin() */
	if (bm_grow(&s->work, s->t->nr))
		return -ENOMEM;
	w = malloc(len + 1);
	if (!w)
		return -ENOMEM;
	while (i < len) {
		while (i < len && is_sep(buf[i]))
			i++;
		if (i == len)
			break;
		start = i;
		i = ut_cxx_word_end(buf, i, len);
		memcpy(w, buf + start, i - start);
		w[i - start] = '\0';
		r = do_word(s, w);
		if (r) {
			copy_word(badword, badlen, buf + start, i - start);
			break;
		}
	}
	free(w);
	return r;
}

int ut_fset_set(struct ut_fset *s, const char *buf, bool truncate, char *badword, size_t badlen)
{
	int r, r2;

	copy_word(badword, badlen, "", 0);
	r = ut_fset_begin(s, truncate);
	if (r)
		return r;
	r = ut_fset_write(s, buf, strlen(buf), badword, badlen);
	r2 = ut_fset_commit(s);
	return r ? r : r2;
}

/* --- queries ----------------------------------------------------------------------- */

bool ut_fset_contains(const struct ut_fset *s, size_t i)
{
	return live(s->t, i) && bm_test(&s->cur, i);
}

size_t ut_fset_count(const struct ut_fset *s)
{
	return s->nr;
}

size_t ut_fset_nr_pending(const struct ut_fset *s)
{
	return s->nr_pend;
}

bool ut_fset_active(const struct ut_fset *s)
{
	return s->nr || ((s->flags & UT_FSET_F_MODACTIVE) && s->nr_pend);
}

bool ut_fset_traced(const struct ut_fset *filter, const struct ut_fset *notrace, size_t i)
{
	const struct ut_fset *any = filter ? filter : notrace;

	if (any && !live(any->t, i))
		return false;
	/* notrace wins over filter */
	if (notrace && bm_test(&notrace->cur, i))
		return false;
	if (filter && ut_fset_active(filter))
		return bm_test(&filter->cur, i);
	return true;
}

struct ut_fcmd *ut_fset_cmds(struct ut_fset *s, size_t *n)
{
	*n = s->nr_cmds;
	return s->cmds;
}

int ut_fset_format(const struct ut_fset *s, const char *empty_text, char **out, size_t *lenp)
{
	const struct ut_ftable *t = s->t;
	struct sbuf sb = { 0 };
	size_t i;

	if (!ut_fset_active(s) && empty_text)
		sb_add(&sb, empty_text);
	for (i = 0; i < t->nr; i++)
		if (!dead(t, i) && bm_test(&s->cur, i))
			sb_func(&sb, t, i, false, false);
	for (i = 0; i < s->nr_cmds; i++) {
		const struct ut_fcmd *c = &s->cmds[i];

		sb_add(&sb, list_name(t, c->func));
		sb_add(&sb, ":");
		sb_add(&sb, ut_fcmd_name(c->type));
		if (c->count < 0) {
			sb_add(&sb, ":unlimited\n");
		} else {
			sb_add(&sb, ":count=");
			sb_long(&sb, c->count);
			sb_add(&sb, "\n");
		}
	}
	for (i = 0; i < s->nr_pend; i++) {
		sb_add(&sb, s->pend[i].func);
		sb_add(&sb, ":mod:");
		sb_add(&sb, s->pend[i].module);
		sb_add(&sb, "\n");
	}
	return sb_finish(&sb, out, lenp);
}
