// SPDX-License-Identifier: MIT
/*
 * Site discovery: every loaded object's patchable function entries, found
 * by the site finder the tools use too (common/sitefind.h), here over the
 * object in memory: the lists are read where the loader relocated them,
 * the bytes where they run.
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

#include "common/grow.h"
#include "common/sitefind.h"
#include "common/symbols.h"
#include "libutrace/internal.h"

/* The object in memory, as the site finder's source (common/sitefind.h). */
struct scan {
	struct ut_module *m;
	const struct dl_phdr_info *info;
	uint64_t text_lo, text_hi; /* the executable segment in_text_of() found last */
	uint64_t load_lo, load_hi; /* the readable one mem_word() found last (link-time) */
};

/* Is [addr, addr+len) in an executable PT_LOAD of the object?  The last segment found first. */
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

/* The site finder's view of the object: its code and its lists, in memory. */
static const uint8_t *mem_code(struct ut_sitefind *f, uint64_t addr, size_t len)
{
	struct scan *s = f->src.ctx;

	return in_text_of(s, addr, (unsigned)len) ? (const uint8_t *)addr : NULL;
}

/*
 * The readable PT_LOAD of the object holding [vaddr, vaddr+len) (link-time
 * addresses), or false; a list's 100,000 entries fall in the one found last.
 */
static bool in_load_cached(struct scan *s, uint64_t vaddr, uint64_t len)
{
	const struct dl_phdr_info *info = s->info;

	if (vaddr >= s->load_lo && len <= s->load_hi - s->load_lo &&
	    vaddr - s->load_lo <= s->load_hi - s->load_lo - len)
		return true;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && vaddr >= ph->p_vaddr &&
		    len <= ph->p_filesz && vaddr - ph->p_vaddr <= ph->p_filesz - len) {
			s->load_lo = ph->p_vaddr;
			s->load_hi = ph->p_vaddr + ph->p_filesz;
			return true;
		}
	}
	return false;
}

/* A list entry, read where the loader mapped and relocated it. */
static bool mem_word(struct ut_sitefind *f, uint64_t vaddr, uint64_t *out)
{
	struct scan *s = f->src.ctx;

	if (!in_load_cached(s, vaddr, 8))
		return false;
	memcpy(out, (const void *)(f->bias + vaddr), 8);
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

/*
 * Keep @sym's other names (symbols at its address) for function @func.
 * Without memory the function keeps its one name.
 */
static void name_aliases(const struct ut_symtab *st, size_t *ka, const struct ut_sym *sym,
			 uint32_t func)
{
	size_t n;
	const struct ut_sym *a = ut_symtab_aliases_next(st, ka, sym->addr, &n);

	for (size_t k = 0; k < n; k++) {
		if (ut_rt.nr_aliases == ut_rt.cap_aliases &&
		    ut_grow(&ut_rt.aliases, &ut_rt.cap_aliases, sizeof(*ut_rt.aliases), 64))
			return;
		ut_rt.aliases[ut_rt.nr_aliases++] = (struct ut_func_alias){func, a[k].name};
	}
}

/*
 * Append @a's function to ut_rt.funcs if a symbol of @st covers it; @k
 * walks @st's symbols, @ka its aliases (sites come in address order).
 */
static uint32_t name_site(struct ut_module *m, const struct ut_symtab *st, size_t *k, size_t *ka,
			  uint64_t a, uint32_t site)
{
	const struct ut_sym *sym = ut_sitefind_symbol(st, k, a);

	if (!sym)
		return UT_NO_FUNC;
	ut_rt.funcs[ut_rt.nr_funcs] = (struct ut_func){
		.name = sym->name,
		.module = m->name[0] ? m->name : NULL,
		.mod = m->index,
		.site = site};
	name_aliases(st, ka, sym, ut_rt.nr_funcs);
	return ut_rt.nr_funcs++;
}

/* Append a function named @name whose site is @m's site @site; UT_NO_FUNC if no memory. */
uint32_t ut_sites_add_func(const struct ut_module *m, const char *name, uint32_t site)
{
	if (reserve_funcs(1))
		return UT_NO_FUNC;
	ut_rt.funcs[ut_rt.nr_funcs] = (struct ut_func){
		.name = name, .module = m->name[0] ? m->name : NULL, .mod = m->index, .site = site};
	return ut_rt.nr_funcs++;
}

/*
 * Build the module's site array from what the finder kept, naming each
 * site from @st (a site no symbol covers is left out).  Sites and symbols
 * are both sorted by address, so one walk over the two names them all.
 * Without @st (names deferred), every site is kept, unnamed: name_module()
 * names it later.
 */
static int build_sites(struct ut_module *m, const struct ut_sitefind *f,
		       const struct ut_symtab *st)
{
	size_t n = 0, k = 0, ka = 0;

	m->sites = calloc(f->nr ? f->nr : 1, sizeof(*m->sites));
	if (!m->sites || (st && reserve_funcs(f->nr)))
		return -ENOMEM;
	for (size_t i = 0; i < f->nr; i++) {
		uint32_t fn = UT_NO_FUNC;

		if (st && (fn = name_site(m, st, &k, &ka, f->addrs[i], (uint32_t)n)) == UT_NO_FUNC)
			continue;
		m->sites[n].addr = f->addrs[i];
		m->sites[n].len = f->lens[i];
		m->sites[n].func = fn;
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
struct ut_symtab *ut_sites_symbols(const struct ut_module *m)
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
	struct ut_sitefind f = {.bias = m->bias, .src = {mem_code, mem_word, &s}};
	struct ut_symtab *st = NULL;
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
	f.elf = elf;
	ut_usdt_scan(m, elf);
	f.fentry = (uint64_t)dlsym(RTLD_DEFAULT, "__fentry__");
	ret = ut_sitefind_scan(&f);
	if (ret)
		goto out;
	if (ut_sitefind_by_symbols(&f))
		lazy = false; /* the sites are found from the symbols */
	if (!lazy) {
		st = ut_sites_symbols(m);
		if (!st) {
			ret = -ENOEXEC;
			goto out;
		}
	}
	ut_session_snapshot_module(m, st);
	m->unnamed = lazy;
	if (st && ut_sitefind_by_symbols(&f))
		ret = ut_sitefind_fentry_calls(&f, st);
	if (!ret)
		ret = ut_sitefind_finish(&f);
	if (!ret)
		ret = build_sites(m, &f, st);
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
	ut_sitefind_free(&f);
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
	struct ut_symtab *st = ut_sites_symbols(m);
	size_t k = 0, ka = 0;

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
		m->sites[i].func = name_site(m, st, &k, &ka, m->sites[i].addr, i);
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

		/* an object without sites (lo 0) is known by its bias alone: its probes live on */
		if (m->bias == info->dlpi_addr && (m->lo >= info->dlpi_addr || !m->nr_sites))
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
			if (m->kind != UT_KIND_LIBCALL) /* library-call hooks (plthook.c): no object of their own */
				ut_session_log_module("unload", m);
		}
	}
	return 0;
}

/**
 * ut_sites_add_module - publish a module of sites of another kind
 *
 * Under ut_rt.lock; @m is complete (sites, stub).  Not logged in the
 * session: its addresses are named from the object's own module.
 */
int ut_sites_add_module(struct ut_module *m)
{
	if (ut_rt.nr_mods >= UT_MAX_MODULES)
		return -ENOSPC;
	m->index = ut_rt.nr_mods;
	ut_rt.mods[ut_rt.nr_mods] = m;
	__atomic_store_n(&ut_rt.nr_mods, ut_rt.nr_mods + 1, __ATOMIC_RELEASE);
	return 0;
}

/* The site at exactly @addr in a live module, or NULL.  Async-signal-safe. */
struct ut_site *ut_sites_find(uint64_t addr)
{
	return ut_sites_find_in(addr, NULL);
}

/* The same, and the module it is in (if @mod). */
struct ut_site *ut_sites_find_in(uint64_t addr, struct ut_module **mod)
{
	uint32_t n = __atomic_load_n(&ut_rt.nr_mods, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++) {
		struct ut_module *m = ut_rt.mods[i];
		uint32_t lo = 0, hi;

		if (addr < m->lo || addr >= m->hi || (m->of && !m->alive))
			continue; /* an unloaded object's patched prologues: its slots are not this code's */
		hi = m->nr_sites;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (m->sites[mid].addr == addr) {
				if (mod)
					*mod = m;
				return &m->sites[mid];
			}
			if (m->sites[mid].addr < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return NULL;
}
