// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/ehframe.h"
#include "common/elfsites.h"
#include "common/inlined.h"
#include "common/sitefind.h"
#include "common/symbols.h"
#include "common/usdt.h"

/*
 * The file as the site finder's source (common/sitefind.h): code from the
 * executable PT_LOAD segments as they would be mapped (link-time addresses:
 * bias 0), list entries from the file with their R_X86_64_RELATIVE addend
 * where the linker left the word 0 (the loader would write it there).
 */
struct filesrc {
	const uint8_t *raw;
	size_t rawlen;
	GElf_Phdr ph[32];
	int nph;
	uint64_t eh_hdr; /* PT_GNU_EH_FRAME's address, 0 if none */
	GElf_Rela *rel; /* the RELATIVE relocations, by offset, read at the first need */
	size_t nrel, caprel;
	bool rel_read;
};

/* Bytes [vaddr, vaddr+len) of a PT_LOAD (executable ones only if @exec), or NULL. */
static const uint8_t *at_vaddr(const struct filesrc *fs, uint64_t vaddr, size_t len, bool exec)
{
	for (int i = 0; i < fs->nph; i++) {
		const GElf_Phdr *p = &fs->ph[i];

		if (exec && !(p->p_flags & PF_X))
			continue;
		if (vaddr < p->p_vaddr || len > p->p_filesz || vaddr - p->p_vaddr > p->p_filesz - len)
			continue;
		if (p->p_offset > fs->rawlen || vaddr - p->p_vaddr + len > fs->rawlen - p->p_offset)
			return NULL;
		return fs->raw + p->p_offset + (vaddr - p->p_vaddr);
	}
	return NULL;
}

static const uint8_t *file_code(struct ut_sitefind *f, uint64_t addr, size_t len)
{
	return at_vaddr(f->src.ctx, addr, len, true);
}

static int cmp_rel(const void *a, const void *b)
{
	const GElf_Rela *x = a, *y = b;

	return x->r_offset < y->r_offset ? -1 : x->r_offset > y->r_offset;
}

static void read_relative(struct filesrc *fs, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	fs->rel_read = true;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Rela *n;

			if (!gelf_getrela(d, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_RELATIVE)
				continue;
			if (fs->nrel == fs->caprel) {
				size_t cap = fs->caprel ? 2 * fs->caprel : 256;

				n = realloc(fs->rel, cap * sizeof(*n));
				if (!n)
					return;
				fs->rel = n;
				fs->caprel = cap;
			}
			fs->rel[fs->nrel++] = r;
		}
	}
	if (fs->nrel)
		qsort(fs->rel, fs->nrel, sizeof(*fs->rel), cmp_rel);
}

static bool file_word(struct ut_sitefind *f, uint64_t vaddr, uint64_t *out)
{
	struct filesrc *fs = f->src.ctx;
	const uint8_t *p = at_vaddr(fs, vaddr, 8, false);
	size_t lo = 0, hi;

	if (!p)
		return false;
	memcpy(out, p, 8);
	if (*out)
		return true;
	if (!fs->rel_read)
		read_relative(fs, f->elf);
	for (hi = fs->nrel; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (fs->rel[mid].r_offset < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < fs->nrel && fs->rel[lo].r_offset == vaddr)
		*out = (uint64_t)fs->rel[lo].r_addend;
	return true;
}

/* Open @path and run the site finder over it (*@fs, *@f to free with close_file). */
static int find_in_file(const char *path, int *fd, struct filesrc *fs, struct ut_sitefind *f,
			const struct ut_symtab *st)
{
	size_t nph = 0;
	int ret;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0)
		return -errno;
	f->elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || elf_getphdrnum(f->elf, &nph))
		return -ENOEXEC;
	fs->raw = (const uint8_t *)elf_rawfile(f->elf, &fs->rawlen);
	for (size_t i = 0; i < nph && fs->nph < 32; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &fs->ph[fs->nph]))
			continue;
		if (fs->ph[fs->nph].p_type == PT_GNU_EH_FRAME)
			fs->eh_hdr = fs->ph[fs->nph].p_vaddr;
		fs->nph += fs->ph[fs->nph].p_type == PT_LOAD;
	}
	f->src = (struct ut_sitefind_src){file_code, file_word, fs};
	ret = fs->raw ? ut_sitefind_scan(f) : -ENOEXEC;
	if (!ret && st && ut_sitefind_by_symbols(f))
		ret = ut_sitefind_fentry_calls(f, st);
	return ret ? ret : ut_sitefind_finish(f);
}

static void close_file(int fd, struct filesrc *fs, struct ut_sitefind *f)
{
	ut_sitefind_free(f);
	free(fs->rel);
	if (f->elf)
		elf_end(f->elf);
	if (fd >= 0)
		close(fd);
}

/*
 * The function @s names, with its other names (symbols at its address), as
 * the runtime adds it; @ka walks the aliases (functions come in address order).
 */
static int add_function(struct ut_ftable *t, const struct ut_symtab *st, size_t *ka,
			const struct ut_sym *s, const char *module)
{
	long idx = ut_ftable_add(t, s->name, module);
	size_t n;
	const struct ut_sym *a = ut_symtab_aliases_next(st, ka, s->addr, &n);

	for (size_t k = 0; idx >= 0 && k < n; k++)
		if (ut_ftable_add_alias(t, (size_t)idx, a[k].name))
			return -ENOMEM;
	return idx < 0 ? (int)idx : 0;
}

static bool with_prologues;

void ut_elfsites_with_prologues(bool on)
{
	with_prologues = on;
}

static const uint8_t *pro_code(void *ctx, uint64_t addr, size_t len)
{
	return at_vaddr(ctx, addr, len, true);
}

static const uint8_t *any_bytes(void *ctx, uint64_t addr, size_t len)
{
	return at_vaddr(ctx, addr, len, false);
}

/* The walk over a file already read: symbols @st, sites in @f, code in @fs. */
static void walk_file(const char *path, const struct ut_symtab *st, const struct ut_sitefind *f,
		      struct filesrc *fs, ut_pro_found_fn cb, void *ctx)
{
	struct ut_eh_range *v = NULL;
	struct ut_pro_frames frames = {0};
	bool stripped;

	if (ut_pro_module_refused(path)) {
		struct ut_pro_plan none = {0};

		for (size_t i = 0; i < ut_symtab_count(st); i++)
			cb(ctx, ut_symtab_at(st, i), UT_PRO_MODULE, &none);
		return;
	}
	/* no .symtab: .dynsym's functions, checked against the code its FDEs describe */
	stripped = !ut_elf_has_symtab(path);
	if (stripped) {
		long n = ut_eh_ranges(fs->eh_hdr, any_bytes, fs, &v);

		frames = (struct ut_pro_frames){v, n > 0 ? (size_t)n : 0};
	}
	ut_pro_walk(st, f->addrs, f->nr, stripped ? &frames : NULL, pro_code, fs,
		    &(struct ut_pro_data){any_bytes, pro_code, fs}, cb, ctx);
	free(v);
}

struct pro_add {
	struct ut_ftable *t;
	const char *module;
	int n, err;
	char **later; /* the short form's (prologue.h), added after the others */
	size_t nlater, cap;
};

static void add_row(struct pro_add *a, const char *name)
{
	long i = ut_ftable_add(a->t, name, a->module);

	if (i < 0) {
		a->err = -ENOMEM;
		return;
	}
	ut_ftable_set_kind(a->t, (size_t)i, UT_KIND_PROLOGUE);
	a->n++;
}

/*
 * A patchable function, in the order the runtime's table has them: an
 * object's functions with the site at their entry, then those of the short
 * form (libutrace/prologue.c makes a module of each), each in address order.
 */
static void add_patchable(void *ctx, const struct ut_sym *s, enum ut_pro_why why,
			  const struct ut_pro_plan *p)
{
	struct pro_add *a = ctx;

	if (why != UT_PRO_OK || a->err)
		return;
	if (!p->jump) {
		add_row(a, s->name);
		return;
	}
	if (a->nlater == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		char **v = realloc(a->later, cap * sizeof(*v));

		if (!v) {
			a->err = -ENOMEM;
			return;
		}
		a->later = v;
		a->cap = cap;
	}
	if (!(a->later[a->nlater] = strdup(s->name)))
		a->err = -ENOMEM;
	else
		a->nlater++;
}

/* The short form's rows after the walk; a's memory freed. */
static void add_later(struct pro_add *a)
{
	for (size_t i = 0; i < a->nlater; i++) {
		if (!a->err)
			add_row(a, a->later[i]);
		free(a->later[i]);
	}
	free(a->later);
	a->later = NULL;
	a->nlater = a->cap = 0;
}

/* @path's symbols (into @st, NULL: out of memory) and its sites; 0 or a negative errno. */
static int read_file(const char *path, const char *module, struct ut_symtab *st, int *fd,
		     struct filesrc *fs, struct ut_sitefind *f)
{
	int ret;

	if (!st)
		return -ENOMEM;
	ret = ut_symtab_load_elf(st, path, 0, module);
	if (ret < 0)
		return ret;
	ut_symtab_finish(st);
	return find_in_file(path, fd, fs, f, st);
}

int ut_elfsites_prologues(const char *path, const char *module, ut_pro_found_fn cb, void *ctx)
{
	struct ut_symtab *st = ut_symtab_new();
	struct ut_sitefind f = {0};
	struct filesrc fs = {0};
	int fd = -1, ret = read_file(path, module, st, &fd, &fs, &f);

	if (ret >= 0)
		walk_file(path, st, &f, &fs, cb, ctx);
	close_file(fd, &fs, &f);
	ut_symtab_free(st);
	return ret < 0 ? ret : 0;
}

/* Instances by entry address: indexes into @ctx's table (qsort_r). */
static int cmp_entry(const void *a, const void *b, void *ctx)
{
	const struct ut_inltab *t = ctx;
	uint64_t x = t->v[*(const size_t *)a].entry, y = t->v[*(const size_t *)b].entry;

	return x < y ? -1 : x > y;
}

/* The walk of ut_elfsites_inlined() over a file already read. */
static int judge_inlined(const char *path, const struct ut_inltab *t, const struct ut_symtab *st,
			 const struct ut_sitefind *f, struct filesrc *fs, enum ut_pro_why *why)
{
	size_t *by = calloc(t->n + 1, sizeof(*by)), n = 0;
	uint64_t *at = calloc(t->n + 1, sizeof(*at)), *busy = calloc(2 * f->nr + 1, sizeof(*busy));
	struct ut_pro_at *out = calloc(t->n + 1, sizeof(*out));
	int ret = by && at && busy && out ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < f->nr; i++) { /* a compiler site's bytes are its own */
		busy[2 * i] = f->addrs[i];
		busy[2 * i + 1] = f->addrs[i] + f->lens[i];
	}
	for (size_t i = 0; !ret && i < t->n; i++) {
		why[i] = ut_pro_module_refused(path) ? UT_PRO_MODULE : UT_PRO_NOENTRY;
		if (t->v[i].entry && why[i] == UT_PRO_NOENTRY)
			by[n++] = i;
	}
	if (!ret && n) {
		qsort_r(by, n, sizeof(*by), cmp_entry, (void *)t);
		for (size_t i = 0; i < n; i++)
			at[i] = t->v[by[i]].entry;
		ut_pro_walk_at(st, pro_code, fs, at, n, busy, f->nr, out);
		for (size_t i = 0; i < n; i++)
			why[by[i]] = out[i].why;
	}
	free(by);
	free(at);
	free(busy);
	free(out);
	return ret;
}

int ut_elfsites_inlined(const char *path, const struct ut_inltab *t, enum ut_pro_why *why)
{
	struct ut_symtab *st = ut_symtab_new();
	struct ut_sitefind f = {0};
	struct filesrc fs = {0};
	int fd = -1, ret = read_file(path, NULL, st, &fd, &fs, &f);

	if (ret >= 0)
		ret = judge_inlined(path, t, st, &f, &fs, why);
	close_file(fd, &fs, &f);
	ut_symtab_free(st);
	return ret < 0 ? ret : 0;
}

static int cmp_pair(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Probes by address: indexes into @ctx's list (qsort_r). */
static int cmp_pc(const void *a, const void *b, void *ctx)
{
	const struct ut_usdt_list *l = ctx;
	uint64_t x = l->v[*(const size_t *)a].pc, y = l->v[*(const size_t *)b].pc;

	return x < y ? -1 : x > y;
}

/* The walk of ut_elfsites_probes() over a file already read. */
static int judge_probes(const struct ut_usdt_list *l, const struct ut_symtab *st,
			const struct ut_pro_frames *frames, const struct ut_sitefind *f,
			struct filesrc *fs, enum ut_pro_why *why)
{
	size_t *by = calloc(l->n + 1, sizeof(*by)), nb = 0;
	uint64_t *at = calloc(l->n + 1, sizeof(*at)),
		 *busy = calloc(2 * (f->nr + l->n) + 1, sizeof(*busy));
	struct ut_pro_probe_at *out = calloc(l->n + 1, sizeof(*out));
	int ret = by && at && busy && out ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < f->nr; i++, nb++) { /* a compiler site's bytes are its own */
		busy[2 * nb] = f->addrs[i];
		busy[2 * nb + 1] = f->addrs[i] + f->lens[i];
	}
	for (size_t i = 0; !ret && i < l->n; i++, nb++) { /* and a probe's nop */
		busy[2 * nb] = l->v[i].pc;
		busy[2 * nb + 1] = l->v[i].pc + 1;
		by[i] = i;
	}
	if (!ret && l->n) {
		qsort(busy, nb, 2 * sizeof(*busy), cmp_pair);
		qsort_r(by, l->n, sizeof(*by), cmp_pc, (void *)l);
		for (size_t i = 0; i < l->n; i++)
			at[i] = l->v[by[i]].pc;
		ut_pro_walk_probes(st, frames, pro_code, fs, at, l->n, busy, nb, out);
		for (size_t i = 0; i < l->n; i++)
			why[by[i]] = out[i].why;
	}
	free(by);
	free(at);
	free(busy);
	free(out);
	return ret;
}

int ut_elfsites_probes(const char *path, const struct ut_usdt_list *l, enum ut_pro_why *why)
{
	struct ut_symtab *st = ut_symtab_new();
	struct ut_sitefind f = {0};
	struct filesrc fs = {0};
	struct ut_eh_range *v = NULL;
	struct ut_pro_frames frames = {0};
	bool stripped = !ut_elf_has_symtab(path);
	int fd = -1, ret = read_file(path, NULL, st, &fd, &fs, &f);

	if (ret >= 0 && stripped) { /* as the runtime: unnamed code is known from its FDEs */
		long n = ut_eh_ranges(fs.eh_hdr, any_bytes, &fs, &v);

		frames = (struct ut_pro_frames){v, n > 0 ? (size_t)n : 0};
	}
	if (ret >= 0)
		ret = judge_probes(l, st, stripped ? &frames : NULL, &f, &fs, why);
	free(v);
	close_file(fd, &fs, &f);
	ut_symtab_free(st);
	return ret < 0 ? ret : 0;
}

static bool with_inlined;

void ut_elfsites_with_inlined(bool on)
{
	with_inlined = on;
}

/* -O inlined: the instances of @path that become sites, as rows of kind UT_KIND_INLINED. */
static int add_inlined(struct ut_ftable *t, const char *path, const char *module,
		       const struct ut_symtab *st, const struct ut_sitefind *f, struct filesrc *fs)
{
	const struct ut_inltab *tab = ut_inlined_of(path);
	enum ut_pro_why *why = tab && tab->n ? calloc(tab->n, sizeof(*why)) : NULL;
	int n = 0, ret = 0;

	if (!why)
		return tab && tab->n ? -ENOMEM : 0;
	ret = judge_inlined(path, tab, st, f, fs, why);
	for (size_t i = 0; !ret && i < tab->n; i++) {
		long idx = why[i] == UT_PRO_OK ? ut_ftable_add(t, tab->v[i].func, module) : -1;

		if (idx >= 0) {
			ut_ftable_set_kind(t, (size_t)idx, UT_KIND_INLINED);
			n++;
		}
	}
	free(why);
	return ret < 0 ? ret : n;
}

int ut_elfsites_file_prologues(struct ut_ftable *t, const char *path, const char *module)
{
	struct pro_add a = {.t = t, .module = module};
	int ret = ut_elfsites_prologues(path, module, add_patchable, &a);

	add_later(&a);
	return ret < 0 ? ret : a.err < 0 ? a.err : a.n;
}

int ut_elfsites_file(struct ut_ftable *t, const char *path, const char *module)
{
	struct ut_symtab *st = ut_symtab_new();
	struct ut_sitefind f = {0};
	struct filesrc fs = {0};
	size_t k = 0, ka = 0;
	int fd = -1, ret = read_file(path, module, st, &fd, &fs, &f), n = 0;

	/* named as the runtime names them (ut_sitefind_symbol), in address order */
	for (size_t i = 0; !ret && i < f.nr; i++) {
		const struct ut_sym *s = ut_sitefind_symbol(st, &k, f.addrs[i]);

		if (s && add_function(t, st, &ka, s, module) < 0)
			ret = -ENOMEM;
		n += s != NULL;
	}
	if (!ret && with_prologues) {
		struct pro_add a = {.t = t, .module = module};

		walk_file(path, st, &f, &fs, add_patchable, &a);
		add_later(&a);
		ret = a.err;
		n += a.n;
	}
	if (!ret && with_inlined) {
		int got = add_inlined(t, path, module, st, &f, &fs);

		ret = got < 0 ? got : 0;
		n += got > 0 ? got : 0;
	}
	close_file(fd, &fs, &f);
	ut_symtab_free(st);
	return ret < 0 ? ret : n;
}

/* Does a function symbol of the table section cover one of the sites (sorted)? */
static bool any_named(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const struct ut_sitefind *f)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		size_t lo = 0, hi = f->nr;

		if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		while (lo < hi) { /* the first site at or after the symbol */
			size_t mid = lo + (hi - lo) / 2;

			if (f->addrs[mid] < sym.st_value)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < f->nr && (f->addrs[lo] == sym.st_value ||
				   f->addrs[lo] < sym.st_value + sym.st_size))
			return true;
	}
	return false;
}

int ut_elfsites_any(const char *path)
{
	struct ut_sitefind f = {0};
	struct filesrc fs = {0};
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool found = false;
	int fd = -1, ret;

	ret = find_in_file(path, &fd, &fs, &f, NULL);
	if (!ret && !f.listed && ut_sitefind_by_symbols(&f)) {
		/* -pg -mfentry without a list: the symbols are where the sites are found */
		close_file(fd, &fs, &f);
		struct ut_ftable *t = ut_ftable_new();

		ret = t ? ut_elfsites_file(t, path, NULL) : -ENOMEM;
		ut_ftable_free(t);
		return ret < 0 ? ret : ret > 0;
	}
	/* the symbols in file order, not sorted: the first one naming a site answers */
	while (!ret && !found && (scn = elf_nextscn(f.elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			found = any_named(f.elf, scn, &sh, &f);
	close_file(fd, &fs, &f);
	return ret < 0 ? ret : found;
}

/* Does the object import __fentry__ (built with -pg -mfentry)? */
static bool uses_fentry(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s))
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (name && s.st_shndx == SHN_UNDEF && !strcmp(name, "__fentry__"))
				return true;
		}
	}
	return false;
}

/* Was the object built with -fpatchable-function-entry? */
static bool has_section(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, want))
			return true;
	}
	return false;
}

bool ut_elfsites_instrumented(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	bool yes = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		yes = has_section(elf, "__patchable_function_entries") ||
		      has_section(elf, "__mcount_loc") || uses_fentry(elf);
		elf_end(elf);
	}
	close(fd);
	return yes;
}

/* Ask the dynamic loader which objects @prog loads (what ldd does): no program code runs. */
static char *loader_list(const char *prog)
{
	int pfd[2];
	char *out = NULL;
	size_t len = 0;
	pid_t pid;
	FILE *f;

	if (pipe(pfd))
		return NULL;
	pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		int nul = open("/dev/null", O_WRONLY);
		if (nul >= 0)
			dup2(nul, 2);
		setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
		unsetenv("LD_PRELOAD");
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	if (f) {
		char buf[4096];
		size_t r;

		while ((r = fread(buf, 1, sizeof(buf), f)) > 0) {
			char *n = realloc(out, len + r + 1);

			if (!n)
				break;
			out = n;
			memcpy(out + len, buf, r);
			len += r;
			out[len] = '\0';
		}
		fclose(f);
	}
	waitpid(pid, NULL, 0);
	return out;
}

int ut_elfsites_program(struct ut_ftable *t, const char *prog, int *nr_objects)
{
	int ret;

	elf_version(EV_CURRENT);
	*nr_objects = 0;
	ret = ut_elfsites_file(t, prog, NULL);
	if (ret < 0)
		return ret;
	*nr_objects += ret > 0;
	ut_elfsites_libraries(t, prog, nr_objects);
	return 0;
}

int ut_objlist_add(struct ut_objlist *l, const char *path, const char *mod)
{
	struct ut_obj *v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->v = v;
	v[l->n].path = strdup(path);
	if (!v[l->n].path)
		return -ENOMEM;
	snprintf(v[l->n].module, sizeof(v[l->n].module), "%s", mod ? mod : "");
	l->n++;
	return 0;
}

int ut_elfsites_objects(const char *prog, bool with_prog, bool with_libs, struct ut_objlist *l)
{
	char *list, *line, *save = NULL;

	memset(l, 0, sizeof(*l));
	if (with_prog && ut_objlist_add(l, prog, NULL))
		return -ENOMEM;
	list = with_libs ? loader_list(prog) : NULL;
	for (line = list ? strtok_r(list, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(line, "=> "), *path, *sp, mod[64];

		if (!arrow)
			continue;
		path = arrow + 3;
		sp = strstr(path, " (");
		if (sp)
			*sp = '\0';
		if (path[0] != '/')
			continue;
		ut_module_name(path, mod, sizeof(mod));
		if (ut_objlist_add(l, path, mod)) {
			free(list);
			return -ENOMEM;
		}
	}
	free(list);
	return 0;
}

void ut_objlist_free(struct ut_objlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void ut_elfsites_libraries(struct ut_ftable *t, const char *prog, int *nr_objects)
{
	struct ut_objlist l;

	elf_version(EV_CURRENT);
	ut_elfsites_objects(prog, false, true, &l);
	for (size_t i = 0; i < l.n; i++)
		if (ut_elfsites_file(t, l.v[i].path, l.v[i].module) > 0)
			(*nr_objects)++;
	ut_objlist_free(&l);
}
