// SPDX-License-Identifier: MIT
/*
 * The traceable functions of what a recording ran: every object any
 * process loaded, as its session's "modules" log names it.  `record` checks
 * the filter words against these after the run when it could not before:
 * the program was a script, or a program without sites that runs others.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ran.h"
#include "common/control.h"
#include "common/demangle.h"
#include "common/elfsites.h"

/* Has @key ("path") been added already?  Remembers it if not. */
static bool seen_before(char ***seen, size_t *n, const char *key)
{
	char **nv;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*seen)[i], key))
			return true;
	nv = realloc(*seen, (*n + 1) * sizeof(*nv));
	if (!nv)
		return true; /* out of memory: skip it */
	*seen = nv;
	nv[*n] = strdup(key);
	if (nv[*n])
		(*n)++;
	return false;
}

static void add_session(struct ut_ftable *t, const char *dir, const char *name, char ***seen,
			size_t *nseen)
{
	char path[PATH_MAX], line[PATH_MAX + 160];
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s/modules", dir, name) >= (int)sizeof(path))
		return;
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char what[16], mod[128], obj[PATH_MAX];
		unsigned long long bias;

		if (!strncmp(line, "names ", 6)) { /* the inlined instances it made sites */
			char sdir[PATH_MAX];

			snprintf(sdir, sizeof(sdir), "%s/%s", dir, name);
			ut_live_names_rows(t, sdir, line);
			continue;
		}
		if (sscanf(line, "%15s %llx %127s %4095[^\n]", what, &bias, mod, obj) != 4 ||
		    strcmp(what, "load") != 0 || seen_before(seen, nseen, obj))
			continue;
		ut_elfsites_file(t, obj, strcmp(mod, "-") ? mod : NULL);
	}
	if (f)
		fclose(f);
}

struct ut_ftable *ut_ran_functions(const char *dir)
{
	struct ut_ftable *t = ut_ftable_new();
	DIR *d = opendir(dir);

	if (t && ut_ftable_set_demangle(t, ut_demangle_alloc)) {
		ut_ftable_free(t);
		t = NULL;
	}
	struct dirent *e;
	char **seen = NULL;
	size_t nseen = 0;

	while (t && d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			add_session(t, dir, e->d_name, &seen, &nseen);
	if (d)
		closedir(d);
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	return t;
}

/* Each loaded object of the session @name once (@l: the objects so far). */
static void objects_of_session(struct ut_objlist *l, const char *dir, const char *name)
{
	char path[PATH_MAX], line[PATH_MAX + 160];
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s/modules", dir, name) >= (int)sizeof(path))
		return;
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char what[16], mod[128], obj[PATH_MAX];
		unsigned long long bias;
		bool seen = false;

		if (sscanf(line, "%15s %llx %127s %4095[^\n]", what, &bias, mod, obj) != 4 ||
		    strcmp(what, "load") != 0)
			continue;
		for (size_t i = 0; i < l->n && !seen; i++)
			seen = !strcmp(l->v[i].path, obj);
		if (!seen)
			ut_objlist_add(l, obj, strcmp(mod, "-") ? mod : NULL);
	}
	if (f)
		fclose(f);
}

void ut_ran_objects(const char *dir, struct ut_objlist *l)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	memset(l, 0, sizeof(*l));
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			objects_of_session(l, dir, e->d_name);
	if (d)
		closedir(d);
}
