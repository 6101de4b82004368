// SPDX-License-Identifier: MIT
/*
 * USDT probe discovery (common/usdt.h): an object's `.note.stapsdt` notes
 * read with libelf, each probe's argument descriptions parsed by the
 * architecture's operand parser, and symbol operands resolved through the
 * object's symbol tables.  Everything in the file is untrusted: a note
 * that is cut short is skipped, arguments that cannot be decoded leave the
 * probe listed with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/usdt.h"
#include "common/usdt_desc.h"

#define NT_STAPSDT 3

int ut_usdt_parse_args(const char *args, struct ut_usdt_arg *v, char *why, size_t whylen)
{
	const char *s = args;
	int n = 0;

	for (;;) {
		char one[80];
		size_t len;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		len = strcspn(s, " \t");
		if (n == UT_USDT_MAX_ARGS) {
			snprintf(why, whylen, "more than %d arguments", UT_USDT_MAX_ARGS);
			return -EINVAL;
		}
		if (ut_usdt_parse_arg(s, len, &v[n], one, sizeof(one))) {
			snprintf(why, whylen, "arg%d '%.*s': %s", n + 1, (int)(len > 40 ? 40 : len), s,
				 one);
			return -EINVAL;
		}
		n++;
		s += len;
	}
}

const char *ut_usdt_type_name(const struct ut_usdt_arg *a)
{
	static const char *const names[2][4] = {{"u8", "u16", "u32", "u64"},
						{"s8", "s16", "s32", "s64"}};
	unsigned k = a->size == 1 ? 0 : a->size == 2 ? 1 : a->size == 4 ? 2 : 3;

	return names[a->is_signed ? 1 : 0][k];
}

/* The value of symbol @name in @elf (.symtab first, then .dynsym); false if absent. */
static bool find_symbol(Elf *elf, const char *name, uint64_t *value)
{
	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			GElf_Sym sym;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
				const char *n;

				if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
					continue;
				n = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (n && !strcmp(n, name)) {
					*value = sym.st_value;
					return true;
				}
			}
		}
	}
	return false;
}

/* Decode @p->args into @p->arg, resolving symbol operands in @elf. */
static void decode_args(Elf *elf, struct ut_usdt_probe *p)
{
	p->nargs = ut_usdt_parse_args(p->args, p->arg, p->why, sizeof(p->why));
	for (int i = 0; i < p->nargs; i++) {
		struct ut_usdt_arg *a = &p->arg[i];
		uint64_t v;

		if (!a->sym[0])
			continue;
		if (!find_symbol(elf, a->sym, &v)) {
			snprintf(p->why, sizeof(p->why), "arg%d: symbol %s not found", i + 1, a->sym);
			p->nargs = -EINVAL;
			return;
		}
		a->val += (int64_t)v;
	}
}

/* The address of section @want in @elf, or 0. */
static uint64_t section_addr(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, want))
			return sh.sh_addr;
	}
	return 0;
}

static uint64_t get_addr(const uint8_t *p, bool wide)
{
	uint64_t v64;
	uint32_t v32;

	if (wide) {
		memcpy(&v64, p, 8);
		return v64;
	}
	memcpy(&v32, p, 4);
	return v32;
}

/* The string after the one at @s, if both end before @end; else NULL. */
static const char *next_string(const char *s, const char *end)
{
	const char *nul = memchr(s, '\0', (size_t)(end - s));

	return nul && nul + 1 < end ? nul + 1 : NULL;
}

/* One note's description (@desc, @len bytes) into a new entry of @l. */
static int add_probe(Elf *elf, struct ut_usdt_list *l, const uint8_t *desc, size_t len,
		     bool wide, uint64_t base_now)
{
	size_t w = wide ? 8 : 4, off = 3 * w;
	const char *prov, *name, *args;
	struct ut_usdt_probe *p, *v;
	uint64_t base, adjust;

	if (len < off + 3)
		return 0;
	prov = (const char *)desc + off;
	name = next_string(prov, (const char *)desc + len);
	if (!name || !memchr(name, '\0', (size_t)((const char *)desc + len - name)))
		return 0; /* the name must end inside the note */
	args = next_string(name, (const char *)desc + len);
	/* no argument string: a probe without arguments */
	if (!args || !memchr(args, '\0', (size_t)((const char *)desc + len - args)))
		args = "";
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	p = &v[l->n];
	*p = (struct ut_usdt_probe){0};
	base = get_addr(desc + w, wide);
	/* a prelinked object: everything moved by what .stapsdt.base moved */
	adjust = base && base_now ? base_now - base : 0;
	p->pc = get_addr(desc, wide) + adjust;
	p->semaphore = get_addr(desc + 2 * w, wide);
	if (p->semaphore)
		p->semaphore += adjust;
	p->provider = strdup(prov);
	p->name = strdup(name);
	p->args = strdup(args);
	if (!p->provider || !p->name || !p->args) {
		free(p->provider), free(p->name), free(p->args);
		return -ENOMEM;
	}
	l->n++;
	decode_args(elf, p);
	return 1;
}

/* The stapsdt notes of one SHT_NOTE section. */
static int read_notes(Elf *elf, Elf_Scn *scn, struct ut_usdt_list *l, bool wide, uint64_t base)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	int added = 0;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *owner = (const char *)d->d_buf + name_off;
		int r;

		if (nh.n_type != NT_STAPSDT || nh.n_namesz != sizeof("stapsdt") ||
		    memcmp(owner, "stapsdt", sizeof("stapsdt")) != 0)
			continue;
		r = add_probe(elf, l, (const uint8_t *)d->d_buf + desc_off, nh.n_descsz, wide, base);
		if (r < 0)
			return r;
		added += r;
	}
	if (added > 0)
		ut_usdt_describe(l);
	return added;
}

int ut_usdt_read_elf(Elf *elf, struct ut_usdt_list *l)
{
	bool wide = gelf_getclass(elf) == ELFCLASS64;
	uint64_t base = section_addr(elf, ".stapsdt.base");
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int added = 0;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		int r;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(n = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(n, ".note.stapsdt") != 0)
			continue;
		r = read_notes(elf, scn, l, wide, base);
		if (r < 0)
			return r;
		added += r;
	}
	return added;
}

int ut_usdt_read_file(const char *path, struct ut_usdt_list *l)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		ret = -ENOEXEC;
	else
		ret = ut_usdt_read_elf(elf, l);
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

void ut_usdt_list_free(struct ut_usdt_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].provider);
		free(l->v[i].name);
		free(l->v[i].args);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* @pat (@len bytes) against @s as a shell glob; an empty pattern matches anything. */
static bool glob_part(const char *pat, size_t len, const char *s)
{
	char buf[256];

	if (!len)
		return true;
	if (len >= sizeof(buf))
		return false;
	memcpy(buf, pat, len);
	buf[len] = '\0';
	return fnmatch(buf, s, 0) == 0;
}

bool ut_usdt_word_matches(const char *w, size_t len, const char *provider, const char *name)
{
	const char *colon = memchr(w, ':', len);

	if (!colon) /* an event of any provider, or a whole provider (set_event) */
		return glob_part(w, len, name) || glob_part(w, len, provider);
	return glob_part(w, (size_t)(colon - w), provider) &&
	       glob_part(colon + 1, len - (size_t)(colon - w) - 1, name);
}

bool ut_usdt_selected(const char *events, const char *provider, const char *name)
{
	const char *w = events ? events : "";
	bool on = false;

	for (;;) {
		size_t n;
		bool neg;

		w += strspn(w, " \t\n");
		if (!*w)
			return on;
		n = strcspn(w, " \t\n");
		neg = w[0] == '!';
		if (ut_usdt_word_matches(w + neg, n - neg, provider, name))
			on = !neg;
		w += n;
	}
}
