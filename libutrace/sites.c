// SPDX-License-Identifier: MIT
/*
 * Site discovery: every loaded object's patchable function entries.
 *
 *  -fpatchable-function-entry=N  the __patchable_function_entries section
 *                                lists the sites (absolute addresses once
 *                                relocated, so it is read from memory);
 *  -pg -mfentry -mrecord-mcount  the __mcount_loc section, likewise;
 *  -pg -mfentry                  no list: every function symbol whose first
 *                                instruction (after endbr64) calls __fentry__.
 *
 * Names come from the object's ELF symbol tables (static functions too).
 * An object with no sites is simply not traceable.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/symbols.h"
#include "libutrace/internal.h"

struct scan {
	struct ut_module *m;
	const struct dl_phdr_info *info;
	uint64_t *addrs;
	size_t nr, cap;
	uint64_t fentry, fentry_plt, fentry_got, fentry_slot;
	uint64_t text_lo, text_hi; /* the executable segment in_text_of() found last */
};

/* Is [addr, addr+len) inside an executable PT_LOAD of the object? */
static bool in_text(const struct dl_phdr_info *info, uint64_t addr, unsigned len)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && addr >= lo &&
		    addr + len <= lo + ph->p_memsz)
			return true;
	}
	return false;
}

/* in_text() for the scan's object, the last segment found tried first (sites are sorted). */
static bool in_text_of(struct scan *s, uint64_t addr, unsigned len)
{
	if (addr >= s->text_lo && addr + len <= s->text_hi)
		return true;
	for (int i = 0; i < s->info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &s->info->dlpi_phdr[i];
		uint64_t lo = s->info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && addr >= lo &&
		    addr + len <= lo + ph->p_memsz) {
			s->text_lo = lo;
			s->text_hi = lo + ph->p_memsz;
			return true;
		}
	}
	return false;
}

/* Is [vaddr, vaddr+len) (link-time addresses) inside a PT_LOAD of the object? */
static bool in_load(const struct dl_phdr_info *info, uint64_t vaddr, uint64_t len)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && vaddr >= ph->p_vaddr &&
		    len <= ph->p_filesz && vaddr - ph->p_vaddr <= ph->p_filesz - len)
			return true;
	}
	return false;
}

static int add_addr(struct scan *s, uint64_t a)
{
	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		uint64_t *n = realloc(s->addrs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->addrs = n;
		s->cap = cap;
	}
	s->addrs[s->nr++] = a;
	return 0;
}

/* Read a site list section (absolute addresses, relocated in memory). */
static int read_list(struct scan *s, GElf_Shdr *sh)
{
	const uint64_t *p = (const uint64_t *)(s->m->bias + sh->sh_addr);
	size_t n = sh->sh_size / 8;

	if (sh->sh_type == SHT_NOBITS || !(sh->sh_flags & SHF_ALLOC))
		return 0;
	if (s->nr + n > s->cap) { /* the whole list at once, not by doubling */
		uint64_t *grown = realloc(s->addrs, (s->nr + n) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->addrs = grown;
		s->cap = s->nr + n;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t a = p[i];

		/* Non-PIC objects may hold link-time addresses: relocate those. */
		if (a && !in_text_of(s, a, 5) && in_text_of(s, a + s->m->bias, 5))
			a += s->m->bias;
		if (a && add_addr(s, a))
			return -ENOMEM;
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
 * Find where __fentry__ calls go in this object (GOT slot, PLT stub).  Only
 * relocation sections whose symbol table has __fentry__ are read: a
 * position-independent program has a relocation per site list entry, which
 * 100,000 sites would make 100,000 lookups for nothing.
 */
static void find_fentry(struct scan *s, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr symsh;
		Elf_Scn *symscn;
		size_t want;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh))
			continue;
		data = elf_getdata(scn, NULL);
		want = data ? fentry_index(elf, symscn, &symsh) : 0;
		if (!want)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela rela;

			if (!gelf_getrela(data, (int)i, &rela) || GELF_R_SYM(rela.r_info) != want)
				continue;
			if (GELF_R_TYPE(rela.r_info) == R_X86_64_GLOB_DAT)
				s->fentry_got = rela.r_offset + s->m->bias;
			else if (GELF_R_TYPE(rela.r_info) == R_X86_64_JUMP_SLOT)
				s->fentry_slot = rela.r_offset + s->m->bias;
		}
	}
}

/*
 * The PLT stub that jumps through __fentry__'s JUMP_SLOT: the common call
 * target of the first instruction of many functions.  Find it by looking at
 * the call targets of function entries and checking the jump's GOT slot.
 */
static uint64_t plt_jump_slot(const uint8_t *code, uint64_t addr)
{
	unsigned off = ut_arch_entry_offset(code);

	if (code[off] == 0xf2)
		off++; /* bnd prefix */
	if (code[off] == 0xff && code[off + 1] == 0x25) {
		int32_t d;

		memcpy(&d, code + off + 2, 4);
		return addr + off + 6 + (int64_t)d;
	}
	return 0;
}

static int scan_fentry_calls(struct scan *s, const struct ut_symtab *st)
{
	for (size_t i = 0; i < ut_symtab_count(st); i++) {
		const struct ut_sym *sym = ut_symtab_at(st, i);
		const uint8_t *code;
		unsigned off, len;

		if (!in_text(s->info, sym->addr, 16))
			continue;
		code = (const uint8_t *)sym->addr;
		off = ut_arch_entry_offset(code);
		if (!s->fentry_plt && s->fentry_slot && code[off] == 0xe8) {
			int32_t rel;
			uint64_t target;

			memcpy(&rel, code + off + 1, 4);
			target = sym->addr + off + 5 + (int64_t)rel;
			if (in_text(s->info, target, 16) &&
			    plt_jump_slot((const uint8_t *)target, target) == s->fentry_slot)
				s->fentry_plt = target;
		}
		if (ut_arch_site_kind(code + off, sym->addr + off, s->fentry, s->fentry_plt,
				      s->fentry_got, &len) != UT_SITE_NONE) {
			if (add_addr(s, sym->addr + off))
				return -ENOMEM;
		}
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

/* Room for @more functions in ut_rt.funcs, in one allocation. */
static int reserve_funcs(size_t more)
{
	size_t want = (size_t)ut_rt.nr_funcs + more, cap = ut_rt.cap_funcs ? ut_rt.cap_funcs : 1024;
	struct ut_func *f;

	if (want <= ut_rt.cap_funcs)
		return 0;
	while (cap < want)
		cap *= 2;
	if (cap > UINT32_MAX)
		return -ENOMEM;
	f = realloc(ut_rt.funcs, cap * sizeof(*f));
	if (!f)
		return -ENOMEM;
	ut_rt.funcs = f;
	ut_rt.cap_funcs = (uint32_t)cap;
	return 0;
}

/* Append @a's function to ut_rt.funcs if a symbol of @st covers it; @k walks @st. */
static uint32_t name_site(struct ut_module *m, const struct ut_symtab *st, size_t *k, uint64_t a,
			  uint32_t site)
{
	size_t nsyms = ut_symtab_count(st);
	const struct ut_sym *sym;

	/* the last symbol at or below @a, as ut_symtab_lookup finds it */
	while (*k + 1 < nsyms && ut_symtab_at(st, *k + 1)->addr <= a)
		(*k)++;
	sym = nsyms ? ut_symtab_at(st, *k) : NULL;
	if (!sym || a < sym->addr || (sym->size && a >= sym->addr + sym->size))
		return UT_NO_FUNC;
	ut_rt.funcs[ut_rt.nr_funcs] = (struct ut_func){
		.name = sym->name,
		.module = m->name[0] ? m->name : NULL,
		.mod = m->index,
		.site = site};
	return ut_rt.nr_funcs++;
}

/*
 * Build the module's site array: classify every site, and name it from @st
 * (a site no symbol covers is left out).  Sites and symbols are both sorted
 * by address, so one walk over the two names them all.  Without @st (names
 * deferred), every site is kept, unnamed: name_module() names it later.
 */
static int build_sites(struct scan *s, const struct ut_symtab *st)
{
	struct ut_module *m = s->m;
	size_t n = 0, k = 0;

	/* s->addrs is NULL when no site was found: qsort's base must not be NULL */
	if (s->nr && !sorted_u64(s->addrs, s->nr))
		qsort(s->addrs, s->nr, sizeof(*s->addrs), cmp_u64);
	m->sites = calloc(s->nr ? s->nr : 1, sizeof(*m->sites));
	if (!m->sites || (st && reserve_funcs(s->nr)))
		return -ENOMEM;
	for (size_t i = 0; i < s->nr; i++) {
		uint64_t a = s->addrs[i];
		uint32_t f = UT_NO_FUNC;
		unsigned len;

		if ((n && m->sites[n - 1].addr == a) || !in_text_of(s, a, UT_ARCH_SITE_MAX))
			continue;
		if (ut_arch_site_kind((const uint8_t *)a, a, s->fentry, s->fentry_plt,
				      s->fentry_got, &len) == UT_SITE_NONE)
			continue;
		if (st && (f = name_site(m, st, &k, a, (uint32_t)n)) == UT_NO_FUNC)
			continue;
		m->sites[n].addr = a;
		m->sites[n].len = (uint8_t)len;
		m->sites[n].func = f;
		n++;
	}
	m->nr_sites = (uint32_t)n;
	if (n) {
		m->lo = m->sites[0].addr;
		m->hi = m->sites[n - 1].addr + m->sites[n - 1].len;
	}
	return 0;
}

/*
 * What the object is, for readers that come when its file may have changed:
 * the build-id of the image in memory (the loader mapped it, so it is the
 * one running), the file's size and mtime.
 */
static void identify(struct ut_module *m, const struct dl_phdr_info *info, int fd)
{
	struct stat st;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		/* only notes the loader mapped: a PT_NOTE outside PT_LOADs is not in memory */
		if (ph->p_type == PT_NOTE && in_load(info, ph->p_vaddr, ph->p_memsz) &&
		    ut_build_id_from_notes((const void *)(info->dlpi_addr + ph->p_vaddr),
					   ph->p_memsz, ph->p_align, m->id.build_id))
			break;
	}
	if (!fstat(fd, &st)) {
		m->sym_dev = (uint64_t)st.st_dev;
		m->sym_ino = (uint64_t)st.st_ino;
		m->id.size = (uint64_t)st.st_size;
		m->id.mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
				 (uint64_t)st.st_mtim.tv_nsec;
	}
}

/*
 * Where a module's symbols are read from: the file kept open since the scan
 * if it is still that file (the program may have closed the descriptor, or
 * reused its number), else the path, if the object there is still the one
 * loaded (else -ESTALE: no names rather than another object's).  The fd
 * return is borrowed; -1 means "the path".
 */
static bool own_symfd(const struct ut_module *m)
{
	struct stat sb;

	return m->symfd >= 0 && !fstat(m->symfd, &sb) && (uint64_t)sb.st_dev == m->sym_dev &&
	       (uint64_t)sb.st_ino == m->sym_ino;
}

/* Done with the kept file: closed if the descriptor is still ours, else left to its owner. */
static void drop_symfd(struct ut_module *m)
{
	if (own_symfd(m))
		close(m->symfd);
	m->symfd = -1;
}

static int symbols_source(const struct ut_module *m)
{
	struct ut_objid now;

	if (own_symfd(m))
		return m->symfd;
	if (!m->unnamed)
		return -1; /* scanned with tracing on: read at once, as loaded */
	if (ut_objid_of_file(m->path, &now) || !ut_objid_same(&m->id, &now))
		return -ESTALE;
	return -1;
}

/* The module's function symbols, sorted; NULL on failure. */
static struct ut_symtab *load_symbols(const struct ut_module *m)
{
	const char *mod = m->name[0] ? m->name : NULL;
	int src = symbols_source(m);
	struct ut_symtab *st = src == -ESTALE ? NULL : ut_symtab_new();

	if (st && (src >= 0 ? ut_symtab_load_elf_fd(st, src, m->bias, mod)
			    : ut_symtab_load_elf(st, m->path, m->bias, mod)) < 0) {
		ut_symtab_free(st);
		return NULL;
	}
	if (st)
		ut_symtab_finish(st);
	return st;
}

/* The site lists the object carries (pfe, mcount_loc); *@listed if it has one. */
static int read_lists(struct scan *s, Elf *elf, bool *listed)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int ret;

	*listed = false;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, "__patchable_function_entries") ||
			     !strcmp(name, "__mcount_loc"))) {
			*listed = true;
			ret = read_list(s, &sh);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * Find the module's sites and turn them into nops (the caller does, with
 * ut_patch_prepare_module).  With @lazy (tracing is off: nothing needs a
 * name), the symbol table is not read: 100,000 names cost ~15 ms that a
 * program started with tracing off should not wait for.  An object whose
 * sites are known only from its symbols (-pg -mfentry without a list) is
 * read at once.  Symbol tables stay alive: ut_func.name points into them.
 */
static int scan_module(struct ut_module *m, const struct dl_phdr_info *info, bool lazy)
{
	struct scan s = {.m = m, .info = info};
	struct ut_symtab *st = NULL;
	bool listed = false;
	Elf *elf = NULL;
	int fd, ret;

	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	identify(m, info, fd);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		ret = -ENOEXEC;
		goto out;
	}
	ret = read_lists(&s, elf, &listed);
	if (ret)
		goto out;
	s.fentry = (uint64_t)dlsym(RTLD_DEFAULT, "__fentry__");
	find_fentry(&s, elf);
	if (!listed && (s.fentry_got || s.fentry_slot))
		lazy = false; /* the sites are found from the symbols */
	if (!lazy) {
		st = load_symbols(m);
		if (!st) {
			ret = -ENOEXEC;
			goto out;
		}
	}
	ut_session_snapshot_module(m, st);
	m->unnamed = lazy;
	if (st && !listed && (s.fentry_got || s.fentry_slot)) {
		ret = scan_fentry_calls(&s, st);
		if (ret)
			goto out;
	}
	ret = build_sites(&s, st);
	if (!ret && lazy && m->nr_sites) {
		/* its sites are named from the object that was mapped (symbols_source) */
		m->symfd = fd;
		fd = -1;
	}
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(s.addrs);
	if (ret || !m->nr_sites)
		ut_symtab_free(st); /* no function names point into it */
	return ret;
}

/*
 * Read the symbols of a module scanned with tracing off: write its snapshot
 * (if due) and name its sites, in order, appending to ut_rt.funcs.  Sites
 * no symbol covers stay unnamed (never enabled, as if not found).
 */
static void name_module(struct ut_module *m)
{
	struct ut_symtab *st = load_symbols(m);
	size_t k = 0;

	m->unnamed = false;
	drop_symfd(m);
	if (!st) {
		m->nr_sites = 0; /* no names: not traceable, as scan_module would decide */
		return;
	}
	if (m->snap_due)
		ut_session_snapshot_module(m, st);
	if (!m->nr_sites || reserve_funcs(m->nr_sites)) {
		ut_symtab_free(st);
		return;
	}
	for (uint32_t i = 0; i < m->nr_sites; i++)
		m->sites[i].func = name_site(m, st, &k, m->sites[i].addr, i);
}

/**
 * ut_sites_name_all - read the symbols deferred while tracing was off
 *
 * Called under ut_rt.lock before anything needs a function's name (a
 * tracer, a filter, an instance: ut_select_apply), and before new objects
 * are scanned, so that ut_rt.funcs stays in load order.
 */
void ut_sites_name_all(void)
{
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		struct ut_module *m = ut_rt.mods[i];

		if (m->unnamed && m->alive)
			name_module(m);
	}
}

static bool known(const struct dl_phdr_info *info, const char *path)
{
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		struct ut_module *m = ut_rt.mods[i];

		if (m->alive && m->bias == info->dlpi_addr && !strcmp(m->path, path))
			return true;
	}
	return false;
}

/*
 * The file an object whose loader name is relative was mapped from: the
 * name (dlopen("./lib1.so"), a relative LD_LIBRARY_PATH or RUNPATH entry)
 * is relative to the working directory of that moment, which may have
 * changed since, so ask the kernel which file backs its first segment.
 */
static bool mapped_file(const struct dl_phdr_info *info, char *out, size_t len)
{
	uint64_t addr = 0, lo, hi;
	bool found = false;
	char line[PATH_MAX + 128];
	FILE *f;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD) {
			addr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			break;
		}
	f = addr ? fopen("/proc/self/maps", "re") : NULL;
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		int pos = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %*s %n", &lo, &hi, &pos) < 2 ||
		    addr < lo || addr >= hi || !pos || line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		found = snprintf(out, len, "%s", line + pos) < (int)len;
	}
	fclose(f);
	return found;
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *path = info->dlpi_name;
	char file[PATH_MAX];
	struct ut_module *m;
	bool main_prog = !path || !*path;
	int *err = arg;
	bool lazy = ut_select_idle();

	if (main_prog) {
		ssize_t n = readlink("/proc/self/exe", file, sizeof(file) - 1);

		if (n <= 0)
			return 0;
		file[n] = '\0';
		path = file;
	} else if (path[0] != '/' && !strstr(path, "linux-vdso")) {
		if (!mapped_file(info, file, sizeof(file)))
			return 0;
		path = file;
	}
	if (strstr(path, "linux-vdso") || path[0] != '/' || known(info, path))
		return 0;
	/* Never trace ourselves. */
	if (info->dlpi_addr == ut_rt.self_base)
		return 0;
	if (ut_rt.nr_mods >= UT_MAX_MODULES)
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return 0;
	snprintf(m->path, sizeof(m->path), "%s", path);
	if (!main_prog)
		ut_module_name(path, m->name, sizeof(m->name));
	m->bias = info->dlpi_addr;
	m->alive = true;
	m->symfd = -1;
	m->index = ut_rt.nr_mods;
	/*
	 * Objects without sites stay in the list too (never patched): readers
	 * need every object's symbols to name parents such as libc's callers.
	 */
	if (scan_module(m, info, lazy) || (m->nr_sites && ut_patch_prepare_module(m))) {
		free(m->sites);
		m->sites = NULL;
		m->nr_sites = 0;
		m->lo = m->hi = 0;
	}
	ut_rt.mods[ut_rt.nr_mods] = m;
	__atomic_store_n(&ut_rt.nr_mods, ut_rt.nr_mods + 1, __ATOMIC_RELEASE);
	ut_session_log_module("load", m);
	(void)size;
	(void)err;
	return 0;
}

/**
 * ut_sites_scan_all - find the sites of every object not seen yet
 *
 * Called at start-up and after each dlopen, under ut_rt.lock.  New sites are
 * turned into 5-byte nops before this returns (ut_patch_prepare_module).
 */
int ut_sites_scan_all(void)
{
	int err = 0;

	elf_version(EV_CURRENT);
	if (!ut_select_idle())
		ut_sites_name_all();
	dl_iterate_phdr(visit, &err);
	return err;
}

static int mark_alive(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		struct ut_module *m = ut_rt.mods[i];

		if (m->bias == info->dlpi_addr && m->lo >= info->dlpi_addr)
			m->seen = true;
	}
	return 0;
}

/* After dlclose: modules no longer mapped lose their sites (never freed: a
 * SIGTRAP handler may still be looking at them). */
int ut_sites_forget_unloaded(void)
{
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++)
		ut_rt.mods[i]->seen = false;
	dl_iterate_phdr(mark_alive, NULL);
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		struct ut_module *m = ut_rt.mods[i];

		if (m->alive && !m->seen) {
			m->alive = false;
			drop_symfd(m); /* never named: now never will be */
			ut_session_log_module("unload", m);
		}
	}
	return 0;
}

/* The site at exactly @addr in a live module, or NULL.  Async-signal-safe. */
struct ut_site *ut_sites_find(uint64_t addr)
{
	uint32_t n = __atomic_load_n(&ut_rt.nr_mods, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++) {
		struct ut_module *m = ut_rt.mods[i];
		uint32_t lo = 0, hi;

		if (addr < m->lo || addr >= m->hi)
			continue;
		hi = m->nr_sites;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (m->sites[mid].addr == addr)
				return &m->sites[mid];
			if (m->sites[mid].addr < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return NULL;
}
