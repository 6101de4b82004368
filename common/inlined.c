// SPDX-License-Identifier: MIT
/*
 * Inlined instances from DWARF (see inlined.h).  One walk over every
 * compilation unit's tree: out-of-line functions (DW_TAG_subprogram with
 * code) give the function an instance sits in; each DW_TAG_inlined_subroutine
 * is an instance (its DW_AT_abstract_origin names the function), and its
 * children may hold more (nested inlining).  Other DIEs (types, variables)
 * are skipped with their subtrees.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/debugfile.h"
#include "common/grow.h"
#include "common/inlined.h"

/* The walk's state for one compilation unit. */
struct walk {
	struct ut_inltab *t;
	Dwarf_Die cu;
	bool nomem;
};

static const char *func_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	return n ? n : dwarf_diename(die);
}

const char *ut_inlined_file(const struct ut_inltab *t, const struct ut_inl *v)
{
	Dwarf_Die cu;
	Dwarf_Files *files;
	Dwarf_Attribute a;
	size_t nfiles;
	const char *f, *dir;

	if (!t || !t->dwarf || !v->fileno || !dwarf_offdie(t->dwarf, v->cu, &cu) ||
	    dwarf_getsrcfiles(&cu, &files, &nfiles) || v->fileno > nfiles)
		return NULL;
	f = dwarf_filesrc(files, v->fileno - 1, NULL, NULL);
	dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
	/* relative to the compilation's directory, as the user wrote it */
	if (f && dir && *dir && !strncmp(f, dir, strlen(dir)) && f[strlen(dir)] == '/')
		f += strlen(dir) + 1;
	return f;
}

/* The instance's code: entry, extent and number of ranges. */
static void code_of(Dwarf_Die *die, struct ut_inl *i)
{
	Dwarf_Addr base, start, end, entry;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (end < start)
			continue; /* damaged: no code there */
		if (!i->nr_ranges || start < i->lo)
			i->lo = start;
		if (!i->nr_ranges || end > i->hi)
			i->hi = end;
		i->nr_ranges++;
	}
	if (dwarf_entrypc(die, &entry) == 0)
		i->entry = entry;
	else if (i->nr_ranges)
		i->entry = i->lo;
}

static struct ut_inl *add(struct ut_inltab *t)
{
	if (t->n == t->cap && ut_grow(&t->v, &t->cap, sizeof(*t->v), 256))
		return NULL;
	memset(&t->v[t->n], 0, sizeof(t->v[0]));
	return &t->v[t->n++];
}

static void damaged(struct ut_inltab *t, const char *what)
{
	t->status = UT_INL_DAMAGED;
	if (!t->note[0])
		snprintf(t->note, sizeof(t->note), "damaged debug info (%s: %s)", what,
			 dwarf_errmsg(-1));
}

static void walk_children(struct walk *w, Dwarf_Die *parent, const char *in, const char *via,
			  unsigned depth);

static void inlined_here(struct walk *w, Dwarf_Die *die, const char *in, const char *via,
			 unsigned depth)
{
	const char *name = func_name(die);
	Dwarf_Attribute a;
	Dwarf_Word line = 0, file = 0;
	struct ut_inl *i;

	if (name && in) {
		i = add(w->t);
		if (!i) {
			w->nomem = true;
			return;
		}
		i->func = name;
		i->in = in;
		i->via = via;
		i->depth = depth + 1;
		i->cu = dwarf_dieoffset(&w->cu);
		if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &file) &&
		    file < UINT32_MAX - 1)
			i->fileno = (unsigned)file + 1; /* DWARF 5 counts from 0 */
		if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &line))
			i->line = (unsigned)line;
		code_of(die, i);
	}
	walk_children(w, die, in, name ? name : via, depth + 1);
}

/* Does the subprogram have code here (not a declaration nor an abstract body)? */
static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/* Depth-first over the scopes that can hold code; bounded by the tree's depth. */
static void walk_children(struct walk *w, Dwarf_Die *parent, const char *in, const char *via,
			  unsigned depth)
{
	Dwarf_Die die;
	int r = dwarf_child(parent, &die);

	if (depth > 64) { /* real nesting is a few levels: deeper is a loop in bad data */
		damaged(w->t, "nesting too deep");
		return;
	}
	while (r == 0 && !w->nomem) {
		switch (dwarf_tag(&die)) {
		case DW_TAG_subprogram:
			if (has_code(&die))
				walk_children(w, &die, func_name(&die), NULL, 0);
			break;
		case DW_TAG_inlined_subroutine:
			inlined_here(w, &die, in, via, depth);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
			walk_children(w, &die, in, via, depth);
			break;
		default:
			break;
		}
		r = dwarf_siblingof(&die, &die);
	}
	if (r < 0)
		damaged(w->t, "a DIE");
}

static int by_name(const void *a, const void *b)
{
	const struct ut_inl *x = a, *y = b;
	int c = strcmp(x->func, y->func);

	if (c)
		return c;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

int ut_inlined_scan_elf(struct ut_inltab *t, void *elf)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	size_t hsize;

	t->status = UT_INL_OK;
	t->dwarf = dw;
	if (!dw) {
		t->status = UT_INL_NODEBUG;
		return 0;
	}
	while (true) {
		struct walk w = {.t = t};
		int r = dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL);

		if (r > 0)
			break;
		if (r < 0) {
			damaged(t, "a unit header");
			break;
		}
		if (!dwarf_offdie(dw, off + hsize, &w.cu)) {
			damaged(t, "a unit");
		} else {
			walk_children(&w, &w.cu, NULL, NULL, 0);
			if (w.nomem)
				return -ENOMEM;
		}
		if (next <= off)
			break;
		off = next;
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), by_name);
	return 0;
}

void ut_inlined_release(struct ut_inltab *t)
{
	if (t->dwarf)
		dwarf_end(t->dwarf);
	if (t->elf)
		elf_end(t->elf);
	if (t->fd >= 0)
		close(t->fd);
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
	t->dwarf = t->elf = NULL;
	t->fd = -1;
}

size_t ut_inlined_find(const struct ut_inltab *t, const char *name, const struct ut_inl **first)
{
	size_t lo = 0, hi = t ? t->n : 0, end;

	*first = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t->v[mid].func, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; t && end < t->n && !strcmp(t->v[end].func, name); end++)
		;
	if (end > lo)
		*first = &t->v[lo];
	return end - lo;
}

/* --- the cache: one table per object, by build-id ------------------------ */

struct cached {
	char key[160]; /* "id:HEX", or "file:DEV:INO:SIZE:MTIME" without a build-id */
	struct ut_inltab *t;
};

static struct cached *cache;
static size_t nr_cache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static void key_of(const char *path, Elf *elf, char *key, size_t len)
{
	const unsigned char *id = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	struct stat st;

	if (n > 0 && n <= 64) {
		size_t at = (size_t)snprintf(key, len, "id:");

		for (ssize_t i = 0; i < n && at + 3 <= len; i++)
			at += (size_t)snprintf(key + at, len - at, "%02x", id[i]);
		return;
	}
	if (stat(path, &st))
		memset(&st, 0, sizeof(st));
	snprintf(key, len, "file:%lu:%lu:%lld:%lld.%09ld", (unsigned long)st.st_dev,
		 (unsigned long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec);
}

/* Read the table of the object @elf (at @path) from wherever its debug info is. */
static struct ut_inltab *read_table(const char *path, Elf *elf)
{
	struct ut_inltab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->fd = ut_debugfile_open(path, elf, t->source, sizeof(t->source), t->note,
				  sizeof(t->note));
	if (t->fd < 0) {
		t->status = UT_INL_NODEBUG;
		return t;
	}
	t->elf = elf_begin(t->fd, ELF_C_READ_MMAP, NULL);
	if (!t->elf || ut_inlined_scan_elf(t, t->elf) < 0) {
		ut_inlined_release(t);
		free(t);
		return NULL;
	}
	return t;
}

static const struct ut_inltab *remember(const char *key, struct ut_inltab *t)
{
	struct cached *nc = t ? realloc(cache, (nr_cache + 1) * sizeof(*nc)) : NULL;

	if (!nc) {
		if (t)
			ut_inlined_release(t);
		free(t);
		return NULL;
	}
	cache = nc;
	snprintf(cache[nr_cache].key, sizeof(cache[nr_cache].key), "%s", key);
	cache[nr_cache++].t = t;
	return t;
}

const struct ut_inltab *ut_inlined_of(const char *path)
{
	const struct ut_inltab *t = NULL;
	char key[160];
	int fd;
	Elf *elf;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	key_of(path, elf, key, sizeof(key));
	pthread_mutex_lock(&cache_lock);
	for (size_t i = 0; i < nr_cache && !t; i++)
		if (!strcmp(cache[i].key, key))
			t = cache[i].t;
	if (!t)
		t = remember(key, read_table(path, elf));
	pthread_mutex_unlock(&cache_lock);
	elf_end(elf);
	close(fd);
	return t;
}

void ut_inlined_forget_all(void)
{
	pthread_mutex_lock(&cache_lock);
	for (size_t i = 0; i < nr_cache; i++) {
		ut_inlined_release(cache[i].t);
		free(cache[i].t);
	}
	free(cache);
	cache = NULL;
	nr_cache = 0;
	pthread_mutex_unlock(&cache_lock);
}
