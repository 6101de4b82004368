// SPDX-License-Identifier: MIT
/*
 * Symbol tables.  Names are interned in one string arena per table so the
 * entries stay small; lookups are a binary search over a sorted array.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/symbols.h"

struct ut_symtab {
	struct ut_sym *syms;
	size_t nr, cap;
	/* the other names of functions in syms (aliases), by address, then preference */
	struct ut_sym *alias;
	size_t nr_alias, cap_alias;
	/* interned strings: a list of chunks, never moved once handed out */
	char **chunks;
	size_t nr_chunks;
	size_t chunk_used, chunk_cap;
};

struct ut_symtab *ut_symtab_new(void)
{
	return calloc(1, sizeof(struct ut_symtab));
}

void ut_symtab_free(struct ut_symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nr_chunks; i++)
		free(st->chunks[i]);
	free(st->chunks);
	free(st->syms);
	free(st->alias);
	free(st);
}

/*
 * Copy @s into the table's arena after a byte holding @tag; returns the
 * copy, or NULL on ENOMEM.  A name's tag is its symbol's binding
 * (bind_of): kept beside the name rather than in struct ut_sym, whose 8
 * more bytes cost a 100,000-function program's start-up about 3 ms
 * (the sort moves every symbol twice) for what only aliases need.
 */
static const char *intern(struct ut_symtab *st, const char *s, unsigned char tag)
{
	size_t len = strlen(s) + 1;

	if (!st->nr_chunks || st->chunk_used + len + 1 > st->chunk_cap) {
		size_t cap = len + 1 > 65536 ? len + 1 : 65536;
		char **c = realloc(st->chunks, (st->nr_chunks + 1) * sizeof(*c));

		if (!c)
			return NULL;
		st->chunks = c;
		c[st->nr_chunks] = malloc(cap);
		if (!c[st->nr_chunks])
			return NULL;
		st->nr_chunks++;
		st->chunk_used = 0;
		st->chunk_cap = cap;
	}
	char *p = st->chunks[st->nr_chunks - 1] + st->chunk_used;
	p[0] = (char)tag;
	memcpy(p + 1, s, len);
	st->chunk_used += len + 1;
	return p + 1;
}

/* A symbol's binding (enum ut_sym_bind), in the byte before its name (intern). */
static unsigned bind_of(const struct ut_sym *s)
{
	return (unsigned char)s->name[-1];
}

int ut_symtab_add(struct ut_symtab *st, uint64_t addr, uint64_t size, const char *name,
		  const char *module)
{
	return ut_symtab_add_bound(st, addr, size, name, module, UT_SYM_GLOBAL);
}

int ut_symtab_add_bound(struct ut_symtab *st, uint64_t addr, uint64_t size, const char *name,
			const char *module, unsigned bind)
{
	if (st->nr == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 1024;
		struct ut_sym *s = realloc(st->syms, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		st->syms = s;
		st->cap = cap;
	}
	struct ut_sym *s = &st->syms[st->nr];
	s->addr = addr;
	s->size = size;
	s->name = intern(st, name, (unsigned char)bind);
	s->module = module ? intern(st, module, 0) : NULL;
	if (!s->name || (module && !s->module))
		return -ENOMEM;
	st->nr++;
	return 0;
}

static unsigned elf_bind(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_LOCAL:
		return UT_SYM_LOCAL;
	case STB_WEAK:
		return UT_SYM_WEAK;
	default: /* STB_GLOBAL, STB_GNU_UNIQUE */
		return UT_SYM_GLOBAL;
	}
}

/* Is @sym a function symbol to keep (its name aside)? */
static bool func_sym(const GElf_Sym *sym)
{
	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC && GELF_ST_TYPE(sym->st_info) != STT_GNU_IFUNC)
		return false;
	return sym->st_shndx != SHN_UNDEF && sym->st_value;
}

/*
 * The section's string table as one NUL-terminated block, or NULL: then
 * each name goes through elf_strptr(), which checks it (and costs ~40 ns a
 * symbol: 4 ms of a program of 100,000 functions' start-up).
 */
static const char *string_block(Elf *elf, size_t link, size_t *size)
{
	Elf_Scn *scn = elf_getscn(elf, link);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const char *p = d ? d->d_buf : NULL;

	if (!p || !d->d_size || p[d->d_size - 1] != '\0')
		return NULL;
	*size = d->d_size;
	return p;
}

/* Add the STT_FUNC symbols of one symbol-table section. */
static int load_section(struct ut_symtab *st, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
			uint64_t bias, const char *module)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, strsize = 0;
	const char *strs = string_block(elf, sh->sh_link, &strsize);
	int added = 0;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || !func_sym(&sym))
			continue;
		if (strs)
			name = sym.st_name < strsize ? strs + sym.st_name : NULL;
		else
			name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (ut_symtab_add_bound(st, sym.st_value + bias, sym.st_size, name, module,
					elf_bind(&sym)))
			return -ENOMEM;
		added++;
	}
	return added;
}

bool ut_elf_has_symtab(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	bool found = false;
	GElf_Shdr sh;

	while (elf && !found && (scn = elf_nextscn(elf, scn)))
		found = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB;
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

int ut_symtab_load_elf(struct ut_symtab *st, const char *path, uint64_t bias, const char *module)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ut_symtab_load_elf_fd(st, fd, bias, module);
	close(fd);
	return ret;
}

int ut_symtab_load_elf_fd(struct ut_symtab *st, int fd, uint64_t bias, const char *module)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, symsh, dynsh;
	int ret;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symsh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsh = sh;
		}
	}
	ret = 0;
	if (symtab)
		ret = load_section(st, elf, symtab, &symsh, bias, module);
	if (ret == 0 && dynsym)
		ret = load_section(st, elf, dynsym, &dynsh, bias, module);
out:
	if (elf)
		elf_end(elf);
	return ret;
}

/* Which of two names of one address a user knows the function by (symbols.h): < 0 for @x. */
static int prefer(const struct ut_sym *x, const struct ut_sym *y)
{
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_"), lx, ly;

	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1; /* a function, not a label inside one */
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (bind_of(x) != bind_of(y))
		return bind_of(x) < bind_of(y) ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ut_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return prefer(x, y);
}

#define RADIX_BITS 11 /* 2,048 counters (16 KiB): two passes cover a module of 4 MiB */
#define MAX_RUNS 64    /* sorted runs put in order by sort_runs() */

struct run {
	uint64_t lo, hi; /* its first and last address */
	size_t at, n;
};

static int cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Two sorted runs, the second from @mid on (what ut_symtab_mark_gaps
 * appends to a sorted table): merged, the first run's first at equal
 * addresses, as a stable sort leaves them.
 */
static bool merge_two(struct ut_symtab *st, size_t mid)
{
	struct ut_sym *tmp = malloc(st->nr * sizeof(*tmp));
	size_t i = 0, j = mid, out = 0;

	if (!tmp)
		return false;
	while (i < mid && j < st->nr)
		tmp[out++] = st->syms[j].addr < st->syms[i].addr ? st->syms[j++] : st->syms[i++];
	while (i < mid)
		tmp[out++] = st->syms[i++];
	while (j < st->nr)
		tmp[out++] = st->syms[j++];
	memcpy(st->syms, tmp, st->nr * sizeof(*tmp));
	free(tmp);
	return true;
}

/*
 * Symbols that come as sorted runs side by side (each object's, from its
 * snapshot or its sorted table: a session's 100,000 names, read by record
 * at the end) are ordered by putting the runs in order, one copy, when no
 * two runs' address ranges meet; else false, and the radix sort does it.
 */
static bool sort_runs(struct ut_symtab *st)
{
	struct run runs[MAX_RUNS] = {{0}};
	size_t nr = 0, start = 0, out = 0;
	struct ut_sym *tmp;

	for (size_t i = 1; i <= st->nr; i++) {
		if (i < st->nr && st->syms[i - 1].addr <= st->syms[i].addr)
			continue;
		if (nr == MAX_RUNS)
			return false;
		runs[nr++] = (struct run){st->syms[start].addr, st->syms[i - 1].addr, start, i - start};
		start = i;
	}
	if (nr == 2)
		return merge_two(st, runs[1].at);
	qsort(runs, nr, sizeof(*runs), cmp_run);
	for (size_t k = 1; k < nr; k++)
		if (runs[k].lo <= runs[k - 1].hi)
			return false; /* interleaved, or one address in two runs: aliases to keep in order */
	tmp = malloc(st->nr * sizeof(*tmp));
	if (!tmp)
		return false;
	for (size_t k = 0; k < nr; k++) {
		memcpy(tmp + out, st->syms + runs[k].at, runs[k].n * sizeof(*tmp));
		out += runs[k].n;
	}
	memcpy(st->syms, tmp, st->nr * sizeof(*tmp));
	free(tmp);
	return true;
}

/*
 * Order the symbols by address alone: a stable LSD radix sort over the bits
 * in which the addresses differ, 11 at a time (a module's span of a few MiB
 * takes two passes, and an even number of passes leaves the result in
 * place), instead of qsort's comparisons, which cost 14 ms at start-up for
 * 100,000 symbols.  Aliases stay next to each other for ut_symtab_finish to
 * choose from.  Returns false without memory.
 */
static bool sort_by_addr(struct ut_symtab *st)
{
	uint64_t all_or = 0, all_and = ~0ull, diff;
	struct ut_sym *tmp, *from = st->syms, *to;
	size_t count[1u << RADIX_BITS];
	bool sorted = true;

	for (size_t i = 0; i < st->nr; i++) {
		all_or |= st->syms[i].addr;
		all_and &= st->syms[i].addr;
		sorted &= !i || st->syms[i - 1].addr <= st->syms[i].addr;
	}
	diff = all_or ^ all_and;
	if (sorted || !diff || sort_runs(st))
		return true;
	tmp = malloc(st->nr * sizeof(*tmp));
	if (!tmp)
		return false;
	to = tmp;
	for (unsigned shift = (unsigned)__builtin_ctzll(diff); shift < 64 && (diff >> shift);
	     shift += RADIX_BITS) {
		const uint64_t mask = (1u << RADIX_BITS) - 1;
		size_t pos = 0;

		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < st->nr; i++)
			count[(from[i].addr >> shift) & mask]++;
		for (size_t d = 0; d <= mask; d++) {
			size_t c = count[d];

			count[d] = pos;
			pos += c;
		}
		for (size_t i = 0; i < st->nr; i++)
			to[count[(from[i].addr >> shift) & mask]++] = from[i];
		struct ut_sym *t = from; /* the next pass reads what this one wrote */

		from = to;
		to = t;
	}
	if (from != st->syms)
		memcpy(st->syms, from, st->nr * sizeof(*tmp));
	free(tmp);
	return true;
}

/*
 * Keep @s, another name of the function @keep, in the alias list; names
 * already there for the address (a symbol listed twice) are not repeated,
 * aliases from @from on being this address's.  Without memory the name is
 * dropped: the function keeps its preferred name.
 */
static void keep_alias(struct ut_symtab *st, const struct ut_sym *s, const struct ut_sym *keep,
		       size_t from)
{
	if (!strcmp(s->name, keep->name))
		return;
	for (size_t i = from; i < st->nr_alias; i++)
		if (!strcmp(st->alias[i].name, s->name))
			return;
	if (st->nr_alias == st->cap_alias) {
		size_t cap = st->cap_alias ? 2 * st->cap_alias : 64;
		struct ut_sym *a = realloc(st->alias, cap * sizeof(*a));

		if (!a)
			return;
		st->alias = a;
		st->cap_alias = cap;
	}
	st->alias[st->nr_alias++] = *s;
}

/* The symbols at the address of syms[@i], up to @j: the preferred one's index; the others become aliases. */
static size_t choose(struct ut_symtab *st, size_t i, size_t j)
{
	size_t best = i, from = st->nr_alias;

	for (size_t k = i + 1; k < j; k++)
		if (prefer(&st->syms[k], &st->syms[best]) < 0)
			best = k;
	for (size_t k = i; k < j; k++)
		if (k != best)
			keep_alias(st, &st->syms[k], &st->syms[best], from);
	/* the address's few aliases in the order of preference (insertion sort) */
	for (size_t k = from + 1; k < st->nr_alias; k++) {
		struct ut_sym a = st->alias[k];
		size_t m = k;

		for (; m > from && prefer(&a, &st->alias[m - 1]) < 0; m--)
			st->alias[m] = st->alias[m - 1];
		st->alias[m] = a;
	}
	return best;
}

void ut_symtab_finish(struct ut_symtab *st)
{
	size_t out = 0, had = st->nr_alias;

	if (!st->nr)
		return;
	if (!sort_by_addr(st))
		qsort(st->syms, st->nr, sizeof(*st->syms), cmp_sym);
	for (size_t i = 0, j; i < st->nr; i = j) {
		for (j = i + 1; j < st->nr && st->syms[j].addr == st->syms[i].addr; j++)
			;
		st->syms[out++] = st->syms[j > i + 1 ? choose(st, i, j) : i];
	}
	st->nr = out;
	/* a finish after more symbols were added (ut_symtab_mark_gaps) may add aliases below */
	if (had && st->nr_alias > had && st->alias[had - 1].addr >= st->alias[had].addr)
		qsort(st->alias, st->nr_alias, sizeof(*st->alias), cmp_sym);
	/* Unsized symbols (kallsyms has no sizes) reach the next one, as in the kernel. */
	for (size_t i = 0; i + 1 < st->nr; i++)
		if (!st->syms[i].size)
			st->syms[i].size = st->syms[i + 1].addr - st->syms[i].addr;
}

/* The aliases at @addr from st->alias[@lo] on (the first at or after @addr), or NULL. */
static const struct ut_sym *aliases_at(const struct ut_symtab *st, size_t lo, uint64_t addr,
				       size_t *n)
{
	size_t end;

	*n = 0;
	if (lo >= st->nr_alias || st->alias[lo].addr != addr)
		return NULL;
	for (end = lo; end < st->nr_alias && st->alias[end].addr == addr; end++)
		;
	*n = end - lo;
	return &st->alias[lo];
}

const struct ut_sym *ut_symtab_aliases_next(const struct ut_symtab *st, size_t *cursor,
					    uint64_t addr, size_t *n)
{
	*n = 0;
	if (!st)
		return NULL;
	while (*cursor < st->nr_alias && st->alias[*cursor].addr < addr)
		(*cursor)++;
	return aliases_at(st, *cursor, addr, n);
}

const struct ut_sym *ut_symtab_aliases(const struct ut_symtab *st, uint64_t addr, size_t *n)
{
	size_t lo = 0, hi = st ? st->nr_alias : 0;

	*n = 0;
	if (!st)
		return NULL;
	while (lo < hi) { /* the first alias at or after @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (st->alias[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return aliases_at(st, lo, addr, n);
}

void ut_symtab_mark_gaps(struct ut_symtab *st)
{
	size_t n = st->nr;

	for (size_t i = 0; i < n; i++) {
		const struct ut_sym *s = &st->syms[i];
		uint64_t end = s->addr + s->size;
		char name[80];

		if (!s->size || (i + 1 < n && st->syms[i + 1].addr <= end))
			continue;
		snprintf(name, sizeof(name), "[%s]", s->module ? s->module : "unknown");
		/* ut_symtab_add may move st->syms: copy what we need first. */
		const char *module = s->module;
		if (ut_symtab_add(st, end, 0, name, module))
			return;
	}
	ut_symtab_finish(st);
}

const struct ut_sym *ut_symtab_lookup(const struct ut_symtab *st, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!st || !st->nr || addr < st->syms[0].addr)
		return NULL;
	hi = st->nr;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &st->syms[lo];
}

size_t ut_symtab_count(const struct ut_symtab *st)
{
	return st ? st->nr : 0;
}

const struct ut_sym *ut_symtab_at(const struct ut_symtab *st, size_t i)
{
	return i < st->nr ? &st->syms[i] : NULL;
}

void ut_module_name(const char *path, char *out, size_t len)
{
	const char *base = strrchr(path, '/');
	const char *end;
	size_t n;

	if (!len)
		return;
	base = base ? base + 1 : path;
	end = strchr(base, '.'); /* libz.so.1 -> libz, libfoo.gcc-pfe.so -> libfoo */
	n = end ? (size_t)(end - base) : strlen(base);
	if (n >= len)
		n = len - 1;
	memcpy(out, base, n);
	out[n] = '\0';
}
