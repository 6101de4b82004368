// SPDX-License-Identifier: MIT
/* Library calls: which the runtime hooks, and a program's before it runs (common/pltsyms.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/pltsyms.h"
#include "common/symbols.h"

bool ut_plt_never_hooked(const char *name)
{
	static const char *const skip[] = {
		"setjmp",	"_setjmp",  "__sigsetjmp", "sigsetjmp",	      "savectx",
		"vfork",	"__vfork",  "getcontext",  "__getcontext",    "qsetjmp",
		"__libc_start_main", "__cxa_finalize"};

	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strcmp(name, skip[i]))
			return true;
	return false;
}

/* A defined function of an object's .dynsym. */
struct def {
	char *name;
	uint64_t value;
};

/* One object: what it exports, and what it calls through its GOT (in relocation order). */
struct obj {
	struct def *defs;
	size_t ndefs;
	char **refs;
	size_t nrefs;
	bool loader;
};

/* A library call found: the function's object (index in the list) and address. */
struct found {
	size_t obj;
	uint64_t value;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct def *)a)->name, ((const struct def *)b)->name);
}

static const struct def *find_def(const struct obj *o, const char *name)
{
	struct def key = {.name = (char *)name};

	return o->ndefs ? bsearch(&key, o->defs, o->ndefs, sizeof(key), by_name) : NULL;
}

static int push(void **v, size_t *n, size_t size, const void *item)
{
	void *p = realloc(*v, (*n + 1) * size);

	if (!p)
		return -ENOMEM;
	*v = p;
	memcpy((char *)p + *n * size, item, size);
	(*n)++;
	return 0;
}

/* The symbol versions of @elf's .dynsym (SHT_GNU_versym), or NULL. */
static Elf_Data *versions(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			return elf_getdata(scn, NULL);
	return NULL;
}

/*
 * The functions @elf's .dynsym (section @scn) defines, but not its hidden
 * versions (compatibility symbols such as libstdc++'s older
 * condition_variable::wait): the loader binds a new reference to the
 * default one.
 */
static int read_defs(struct obj *o, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL), *vd = versions(elf);
	size_t n = d && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;
		unsigned t;

		GElf_Versym ver = 0;

		if (!gelf_getsym(d, (int)i, &s) || (vd && gelf_getversym(vd, (int)i, &ver) && (ver & 0x8000)))
			continue;
		t = GELF_ST_TYPE(s.st_info);
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (s.st_shndx == SHN_UNDEF || (t != STT_FUNC && t != STT_GNU_IFUNC) || !name ||
		    !*name)
			continue;
		struct def v = {.name = strdup(name), .value = s.st_value};

		if (!v.name || push((void **)&o->defs, &o->ndefs, sizeof(v), &v)) {
			free(v.name);
			return -ENOMEM;
		}
	}
	if (o->ndefs)
		qsort(o->defs, o->ndefs, sizeof(*o->defs), by_name);
	return 0;
}

/* The function names @elf's relocation section @scn fills GOT slots for. */
static int read_refs(struct obj *o, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr ssh;
	Elf_Data *d = elf_getdata(scn, NULL), *sd = symscn ? elf_getdata(symscn, NULL) : NULL;
	size_t n = d && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	if (!sd || !gelf_getshdr(symscn, &ssh) || ssh.sh_type != SHT_DYNSYM)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *name;
		unsigned t;

		if (!gelf_getrela(d, (int)i, &r) ||
		    !ut_plt_reloc_kind((uint32_t)GELF_R_TYPE(r.r_info)) || !GELF_R_SYM(r.r_info) ||
		    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		t = GELF_ST_TYPE(s.st_info);
		name = elf_strptr(elf, ssh.sh_link, s.st_name);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC && t != STT_NOTYPE) || !name || !*name)
			continue;
		char *copy = strdup(name);

		if (!copy || push((void **)&o->refs, &o->nrefs, sizeof(copy), &copy)) {
			free(copy);
			return -ENOMEM;
		}
	}
	return 0;
}

static int read_obj(struct obj *o, const char *path)
{
	const char *base = strrchr(path, '/');
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;

	o->loader = !strncmp(base ? base + 1 : path, "ld-linux", 8);
	while (elf && !ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM)
			ret = read_defs(o, elf, scn, &sh);
		else if (sh.sh_type == SHT_RELA)
			ret = read_refs(o, elf, scn, &sh);
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ret;
}

static void free_obj(struct obj *o)
{
	for (size_t i = 0; i < o->ndefs; i++)
		free(o->defs[i].name);
	for (size_t i = 0; i < o->nrefs; i++)
		free(o->refs[i]);
	free(o->defs);
	free(o->refs);
}

static int by_obj_value(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* Each function the objects call through their GOT, once: its object and address. */
static int resolve_all(const struct obj *o, size_t n, const struct obj *rt, struct found **out,
		       size_t *nout)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; !o[i].loader && r < o[i].nrefs; r++) {
			const char *name = o[i].refs[r];
			const struct def *d = NULL;
			size_t k;

			if (ut_plt_never_hooked(name) || (rt && find_def(rt, name)))
				continue;
			for (k = 0; k < n && !(d = find_def(&o[k], name)); k++)
				;
			if (!d || o[k].loader)
				continue;
			struct found f = {.obj = k, .value = d->value};
			bool seen = false;

			for (size_t j = 0; j < *nout && !seen; j++)
				seen = (*out)[j].obj == k && (*out)[j].value == d->value;
			if (!seen && push((void **)out, nout, sizeof(f), &f))
				return -ENOMEM;
		}
	}
	if (*nout)
		qsort(*out, *nout, sizeof(**out), by_obj_value);
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct ut_filter_func *x = *(const struct ut_filter_func *const *)a;
	const struct ut_filter_func *y = *(const struct ut_filter_func *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return strcmp(x->module ? x->module : "", y->module ? y->module : "");
}

/* The functions @t lists already (those with a site), sorted for listed(). */
static const struct ut_filter_func **sites_sorted(const struct ut_ftable *t, size_t *n)
{
	const struct ut_filter_func **v = malloc((ut_ftable_size(t) + 1) * sizeof(const struct ut_filter_func *));

	*n = 0;
	for (size_t i = 0; v && i < ut_ftable_size(t); i++)
		if (ut_ftable_get(t, i))
			v[(*n)++] = ut_ftable_get(t, i);
	if (v && *n)
		qsort(v, *n, sizeof(const struct ut_filter_func *), cmp_func);
	return v;
}

/* Whether @name of @module (NULL: the program) has a site: listed in @v already. */
static bool listed(const struct ut_filter_func **v, size_t n, const char *name, const char *module)
{
	struct ut_filter_func key = {.name = name, .module = module};
	const struct ut_filter_func *k = &key;

	return n && bsearch(&k, v, n, sizeof(const struct ut_filter_func *), cmp_func);
}

/* A library call to list: its name (owned) and module (the list's). */
struct named {
	char *name;
	const char *module;
};

/*
 * The found functions, named as each object's symbols name them at that
 * address, without those that have a site (already in @t).
 */
static int name_found(const struct ut_ftable *t, const struct ut_objlist *l,
		      const struct found *f, size_t n, struct named **out, size_t *nout)
{
	size_t nsites;
	const struct ut_filter_func **sites = sites_sorted(t, &nsites);
	struct ut_symtab *st = NULL;
	size_t st_obj = SIZE_MAX;
	int ret = sites ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < n; i++) {
		const char *mod = l->v[f[i].obj].module[0] ? l->v[f[i].obj].module : NULL;
		const struct ut_sym *s;

		if (f[i].obj != st_obj) {
			ut_symtab_free(st);
			st = ut_symtab_new();
			st_obj = f[i].obj;
			if (st && ut_symtab_load_elf(st, l->v[st_obj].path, 0, NULL) >= 0)
				ut_symtab_finish(st);
		}
		s = st ? ut_symtab_lookup(st, f[i].value) : NULL;
		if (!s || s->addr != f[i].value || listed(sites, nsites, s->name, mod))
			continue;
		struct named v = {.name = strdup(s->name), .module = mod};

		if (!v.name || push((void **)out, nout, sizeof(v), &v)) {
			free(v.name);
			ret = -ENOMEM;
		}
	}
	ut_symtab_free(st);
	free(sites);
	return ret;
}

/* Add them to @t (NULL: only free them); after naming, as adding may move what sites_sorted() saw. */
static long add_named(struct ut_ftable *t, struct named *v, size_t n)
{
	long added = 0;

	for (size_t i = 0; i < n; i++) {
		long k = t && added >= 0 ? ut_ftable_add(t, v[i].name, v[i].module) : 0;

		if (k < 0) {
			added = -ENOMEM;
		} else if (t && added >= 0) {
			ut_ftable_set_kind(t, (size_t)k, UT_KIND_LIBCALL);
			added++;
		}
		free(v[i].name);
	}
	free(v);
	return added;
}

long ut_pltsyms_add(struct ut_ftable *t, const struct ut_objlist *l, const char *runtime)
{
	struct obj *o = calloc(l->n ? l->n : 1, sizeof(*o)), rt = {0};
	struct found *f = NULL;
	size_t nf = 0;
	long ret = o ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < l->n; i++)
		ret = read_obj(&o[i], l->v[i].path);
	if (!ret && runtime)
		ret = read_obj(&rt, runtime);
	if (!ret)
		ret = resolve_all(o, l->n, runtime ? &rt : NULL, &f, &nf);
	struct named *named = NULL;
	size_t nnamed = 0;

	if (!ret)
		ret = name_found(t, l, f, nf, &named, &nnamed);
	if (!ret)
		ret = add_named(t, named, nnamed);
	else
		add_named(NULL, named, nnamed);
	for (size_t i = 0; o && i < l->n; i++)
		free_obj(&o[i]);
	free_obj(&rt);
	free(o);
	free(f);
	return ret;
}
