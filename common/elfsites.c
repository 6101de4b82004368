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

#include "common/elfsites.h"
#include "common/symbols.h"

/* The executable section code_at() found last: symbols come in address order. */
struct code_cache {
	uint64_t lo, hi;
	const uint8_t *buf;
};

/*
 * Bytes of the file at virtual address @addr, from the section holding it;
 * *@len: how many there are up to the section's end, at most @need (a small
 * function at the end of .text has fewer than a site test could read).
 */
static const uint8_t *code_at(Elf *elf, uint64_t addr, size_t need, size_t *len,
			      struct code_cache *cc)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (cc->buf && addr >= cc->lo && addr < cc->hi) {
		*len = cc->hi - addr < need ? cc->hi - addr : need;
		return cc->buf + (addr - cc->lo);
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr >= d->d_size)
			return NULL;
		cc->lo = sh.sh_addr;
		cc->hi = sh.sh_addr + d->d_size;
		cc->buf = d->d_buf;
		*len = cc->hi - addr < need ? cc->hi - addr : need;
		return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
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

/* The most bytes is_site() reads: endbr64 then five 1-byte nops. */
#define SITE_PROBE 9

/* Whether the @len bytes at @c (a function's entry) start with a site. */
static bool is_site(const uint8_t *c, size_t len, bool pfe, bool fentry)
{
	static const uint8_t nop5[4] = {0x0f, 0x1f, 0x44, 0x00};
	static const uint8_t nop1x5[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
	static const uint8_t endbr[4] = {0xf3, 0x0f, 0x1e, 0xfa};

	if (len >= 4 && !memcmp(c, endbr, 4)) {
		c += 4;
		len -= 4;
	}
	if (len < 5) /* every site is 5 bytes at least */
		return false;
	if (pfe && (!memcmp(c, nop5, 4) || !memcmp(c, nop1x5, 5)))
		return true;
	return fentry && (c[0] == 0xe8 || (c[0] == 0xff && c[1] == 0x15));
}

int ut_elfsites_file(struct ut_ftable *t, const char *path, const char *module)
{
	struct ut_symtab *st = ut_symtab_new();
	int fd, ret, n = 0;
	Elf *elf;

	if (!st)
		return -ENOMEM;
	ret = ut_symtab_load_elf(st, path, 0, module);
	if (ret < 0) {
		ut_symtab_free(st);
		return ret;
	}
	ut_symtab_finish(st);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!elf) {
		ret = fd < 0 ? -errno : -ENOEXEC;
		goto out;
	}
	bool fentry = uses_fentry(elf);
	bool pfe = has_section(elf, "__patchable_function_entries");
	struct code_cache cc = {0};

	for (size_t i = 0; i < ut_symtab_count(st); i++) {
		const struct ut_sym *s = ut_symtab_at(st, i);
		size_t len = 0;
		const uint8_t *c = code_at(elf, s->addr, SITE_PROBE, &len, &cc);

		if (c && is_site(c, len, pfe, fentry)) {
			if (ut_ftable_add(t, s->name, module) < 0) {
				ret = -ENOMEM;
				goto out;
			}
			n++;
		}
	}
	ret = n;
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	ut_symtab_free(st);
	return ret;
}

/* The first function symbol of a symbol table section whose entry is a site. */
static bool any_site(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, bool pfe, bool fentry)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct code_cache cc = {0};

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym sym;
		const uint8_t *c;
		const char *name;
		size_t len = 0;

		if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		c = name && *name ? code_at(elf, sym.st_value, SITE_PROBE, &len, &cc) : NULL;
		if (c && is_site(c, len, pfe, fentry))
			return true;
	}
	return false;
}

int ut_elfsites_any(const char *path)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool pfe, fentry, found = false;
	int fd, ret = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out;
	}
	/* the symbols in file order, not sorted: the first site found answers */
	fentry = uses_fentry(elf);
	pfe = has_section(elf, "__patchable_function_entries");
	while (!found && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			found = any_site(elf, scn, &sh, pfe, fentry);
	ret = found;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
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
