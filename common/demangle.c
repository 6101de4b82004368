// SPDX-License-Identifier: MIT
/*
 * Demangling with the C++ runtime's own demangler (__cxa_demangle, from
 * libstdc++), behind a cache: a trace prints the same few names again and
 * again, and one demangling costs a microsecond or more.  The cache is keyed
 * by the name's text, not its address, so that a reader that reloads its
 * symbol table (the live stream does when a process loads a library) cannot
 * find a stale entry.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/demangle.h"

/*
 * The Itanium C++ ABI's demangler, __cxa_demangle, exported by libstdc++
 * with C linkage; no C header declares it, and C reserves its name, so it
 * is declared here under a name of ours bound to that symbol.
 */
char *ut_cxa_demangle(const char *mangled, char *buf, size_t *len, int *status)
	__asm__("__cxa_demangle");

struct entry {
	char *key;   /* the mangled name; NULL: free slot */
	char *val;   /* its demangling; NULL if it is not a valid mangled name */
};

struct ut_demangler {
	struct entry *tab;
	size_t cap, nr; /* cap: a power of two */
};

struct ut_demangler *ut_demangler_new(void)
{
	return calloc(1, sizeof(struct ut_demangler));
}

void ut_demangler_free(struct ut_demangler *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->cap; i++) {
		free(d->tab[i].key);
		free(d->tab[i].val);
	}
	free(d->tab);
	free(d);
}

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static struct entry *slot(struct entry *tab, size_t cap, const char *key)
{
	size_t i = (size_t)hash(key) & (cap - 1);

	while (tab[i].key && strcmp(tab[i].key, key) != 0)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* Keep the table at most half full. */
static bool grow(struct ut_demangler *d)
{
	size_t cap = d->cap ? d->cap * 2 : 256;
	struct entry *tab;

	if (2 * (d->nr + 1) <= d->cap)
		return true;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return false;
	for (size_t i = 0; i < d->cap; i++)
		if (d->tab[i].key)
			*slot(tab, cap, d->tab[i].key) = d->tab[i];
	free(d->tab);
	d->tab = tab;
	d->cap = cap;
	return true;
}

const char *ut_demangle(struct ut_demangler *d, const char *name)
{
	struct entry *e;
	int status = -1;

	if (!d || !name || name[0] != '_' || name[1] != 'Z')
		return name;
	if (d->cap) {
		e = slot(d->tab, d->cap, name);
		if (e->key)
			return e->val ? e->val : name;
	}
	if (!grow(d))
		return name;
	e = slot(d->tab, d->cap, name);
	e->key = strdup(name);
	if (!e->key)
		return name;
	e->val = ut_cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(e->val);
		e->val = NULL;
	}
	d->nr++;
	return e->val ? e->val : name;
}

char *ut_demangle_alloc(const char *mangled)
{
	int status = -1;
	char *s = ut_cxa_demangle(mangled, NULL, NULL, &status);

	if (status != 0) {
		free(s);
		return NULL;
	}
	return s;
}

bool ut_demangled_has_params(const char *raw, const char *printed)
{
	return printed != raw && strchr(printed, '(') != NULL;
}
