// SPDX-License-Identifier: MIT
/*
 * The one site finder (see sitefind.h), shared by the runtime and the
 * tools: the same sections, the same candidates, the same byte test and the
 * same naming, whether the bytes come from memory or from the file.
 */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "common/populate.h"
#include "common/sitefind.h"

static int reserve(struct ut_sitefind *f, size_t more)
{
	size_t cap = f->cap ? f->cap : 256;
	uint64_t *n;

	if (f->nr + more <= f->cap)
		return 0;
	while (cap < f->nr + more)
		cap *= 2;
	n = realloc(f->addrs, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->addrs = n;
	f->cap = cap;
	return 0;
}

static int add(struct ut_sitefind *f, uint64_t a)
{
	if (reserve(f, 1))
		return -ENOMEM;
	f->addrs[f->nr++] = a;
	return 0;
}

/* One site list section: its entries (relocated), made run-time addresses. */
static int read_list(struct ut_sitefind *f, const GElf_Shdr *sh)
{
	size_t n = sh->sh_size / 8;

	if (sh->sh_type == SHT_NOBITS || !(sh->sh_flags & SHF_ALLOC))
		return 0;
	if (reserve(f, n)) /* the whole list at once, not by doubling */
		return -ENOMEM;
	ut_populate(f->addrs + f->nr, n * sizeof(*f->addrs));
	for (size_t i = 0; i < n; i++) {
		uint64_t a;

		if (!f->src.word(f, sh->sh_addr + 8 * i, &a) || !a)
			continue;
		/* non-PIC objects hold link-time addresses: relocate those */
		if (!f->src.code(f, a, 5) && f->src.code(f, a + f->bias, 5))
			a += f->bias;
		f->addrs[f->nr++] = a;
	}
	return 0;
}

static int read_lists(struct ut_sitefind *f)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(f->elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(f->elf, scn))) {
		const char *name;
		int ret;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, "__patchable_function_entries") ||
			     !strcmp(name, "__mcount_loc"))) {
			f->listed = true;
			ret = read_list(f, &sh);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The index of __fentry__ in a symbol table section, or 0. */
static size_t fentry_index(Elf *elf, Elf_Scn *symscn, const GElf_Shdr *symsh)
{
	Elf_Data *d = elf_getdata(symscn, NULL);
	size_t n = symsh->sh_entsize ? symsh->sh_size / symsh->sh_entsize : 0;

	for (size_t i = 1; d && i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		name = elf_strptr(elf, symsh->sh_link, sym.st_name);
		if (name && !strcmp(name, "__fentry__"))
			return i;
	}
	return 0;
}

/*
 * Where __fentry__ calls go (its GOT slot, its PLT stub's jump slot).  Only
 * relocation sections whose symbol table has __fentry__ are read: a
 * position-independent program has a relocation per site list entry, which
 * 100,000 sites would make 100,000 lookups for nothing.
 */
static void find_fentry(struct ut_sitefind *f)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(f->elf, scn))) {
		Elf_Data *data;
		GElf_Shdr symsh;
		Elf_Scn *symscn;
		size_t want;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(f->elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh))
			continue;
		data = elf_getdata(scn, NULL);
		want = data ? fentry_index(f->elf, symscn, &symsh) : 0;
		if (!want)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela rela;

			if (!gelf_getrela(data, (int)i, &rela) || GELF_R_SYM(rela.r_info) != want)
				continue;
			if (GELF_R_TYPE(rela.r_info) == R_X86_64_GLOB_DAT)
				f->fentry_got = rela.r_offset + f->bias;
			else if (GELF_R_TYPE(rela.r_info) == R_X86_64_JUMP_SLOT)
				f->fentry_slot = rela.r_offset + f->bias;
		}
	}
}

int ut_sitefind_scan(struct ut_sitefind *f)
{
	int ret = read_lists(f);

	if (!ret)
		find_fentry(f);
	return ret;
}

bool ut_sitefind_by_symbols(const struct ut_sitefind *f)
{
	return !f->listed && (f->fentry_got || f->fentry_slot);
}

/* The PLT stub the entry at @code calls, if it jumps through __fentry__'s slot. */
static void learn_plt(struct ut_sitefind *f, const uint8_t *code, uint64_t addr)
{
	uint64_t target;
	const uint8_t *stub;

	if (f->fentry_plt || !f->fentry_slot || !ut_site_call_target(code, addr, &target))
		return;
	stub = f->src.code(f, target, 16);
	if (stub && ut_site_plt_slot(stub, target) == f->fentry_slot)
		f->fentry_plt = target;
}

int ut_sitefind_fentry_calls(struct ut_sitefind *f, const struct ut_symtab *st)
{
	for (size_t i = 0; i < ut_symtab_count(st); i++) {
		const struct ut_sym *sym = ut_symtab_at(st, i);
		const uint8_t *code = f->src.code(f, sym->addr, UT_SITE_PROBE);
		unsigned off;

		if (!code)
			continue;
		off = ut_site_entry_offset(code);
		learn_plt(f, code + off, sym->addr + off);
		if (ut_site_length(code + off, sym->addr + off, f->fentry, f->fentry_plt,
				   f->fentry_got) &&
		    add(f, sym->addr + off))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Site lists are written in address order: sorting them is mostly not needed. */
static bool sorted_u64(const uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return false;
	return true;
}

int ut_sitefind_finish(struct ut_sitefind *f)
{
	size_t n = 0;
	unsigned max = ut_site_max();

	/* addrs is NULL when nothing was found: qsort's base must not be NULL */
	if (f->nr && !sorted_u64(f->addrs, f->nr))
		qsort(f->addrs, f->nr, sizeof(*f->addrs), cmp_u64);
	f->lens = malloc(f->nr ? f->nr : 1);
	if (!f->lens)
		return -ENOMEM;
	ut_populate(f->lens, f->nr);
	for (size_t i = 0; i < f->nr; i++) {
		uint64_t a = f->addrs[i];
		const uint8_t *code;
		unsigned len;

		if (n && f->addrs[n - 1] == a)
			continue;
		code = f->src.code(f, a, max);
		len = code ? ut_site_length(code, a, f->fentry, f->fentry_plt, f->fentry_got) : 0;
		if (!len)
			continue;
		f->addrs[n] = a;
		f->lens[n++] = (uint8_t)len;
	}
	f->nr = n;
	return 0;
}

const struct ut_sym *ut_sitefind_symbol(const struct ut_symtab *st, size_t *k, uint64_t a)
{
	size_t nsyms = ut_symtab_count(st);
	const struct ut_sym *sym;

	/* the last symbol at or below @a, as ut_symtab_lookup finds it */
	while (*k + 1 < nsyms && ut_symtab_at(st, *k + 1)->addr <= a)
		(*k)++;
	sym = nsyms ? ut_symtab_at(st, *k) : NULL;
	if (!sym || a < sym->addr || (sym->size && a >= sym->addr + sym->size))
		return NULL;
	return sym;
}

void ut_sitefind_free(struct ut_sitefind *f)
{
	free(f->addrs);
	free(f->lens);
	f->addrs = NULL;
	f->lens = NULL;
	f->nr = f->cap = 0;
}
