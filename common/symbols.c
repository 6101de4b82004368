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
	free(st);
}

/* Copy @s into the table's arena; returns NULL on ENOMEM. */
static const char *intern(struct ut_symtab *st, const char *s)
{
	size_t len = strlen(s) + 1;

	if (!st->nr_chunks || st->chunk_used + len > st->chunk_cap) {
		size_t cap = len > 65536 ? len : 65536;
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
	memcpy(p, s, len);
	st->chunk_used += len;
	return p;
}

int ut_symtab_add(struct ut_symtab *st, uint64_t addr, uint64_t size, const char *name,
		  const char *module)
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
	s->name = intern(st, name);
	s->module = module ? intern(st, module) : NULL;
	if (!s->name || (module && !s->module))
		return -ENOMEM;
	st->nr++;
	return 0;
}

/* Add the STT_FUNC symbols of one symbol-table section. */
static int load_section(struct ut_symtab *st, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
			uint64_t bias, const char *module)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n;
	int added = 0;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC && GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC)
			continue;
		if (sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (ut_symtab_add(st, sym.st_value + bias, sym.st_size, name, module))
			return -ENOMEM;
		added++;
	}
	return added;
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

static int cmp_sym(const void *a, const void *b)
{
	const struct ut_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/*
	 * Prefer a sized symbol, then a global-looking name (no leading '_'),
	 * then the shorter: libc's aliases are longer spellings of the name
	 * programs call (free, not cfree; strtol, not strtoimax).
	 */
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	if ((x->name[0] == '_') != (y->name[0] == '_'))
		return x->name[0] == '_' ? 1 : -1;
	size_t lx = strlen(x->name), ly = strlen(y->name);

	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

#define RADIX_BITS 11 /* 2,048 counters (16 KiB): two passes cover a module of 4 MiB */

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
	if (sorted || !diff)
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

void ut_symtab_finish(struct ut_symtab *st)
{
	size_t out = 0;

	if (!st->nr)
		return;
	if (!sort_by_addr(st))
		qsort(st->syms, st->nr, sizeof(*st->syms), cmp_sym);
	for (size_t i = 0; i < st->nr; i++) {
		/* aliases (same address): keep the preferred one */
		if (out && st->syms[out - 1].addr == st->syms[i].addr) {
			if (cmp_sym(&st->syms[i], &st->syms[out - 1]) < 0)
				st->syms[out - 1] = st->syms[i];
			continue;
		}
		st->syms[out++] = st->syms[i];
	}
	st->nr = out;
	/* Unsized symbols (kallsyms has no sizes) reach the next one, as in the kernel. */
	for (size_t i = 0; i + 1 < st->nr; i++)
		if (!st->syms[i].size)
			st->syms[i].size = st->syms[i + 1].addr - st->syms[i].addr;
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
