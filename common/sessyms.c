// SPDX-License-Identifier: MIT
/*
 * The symbols of the objects that sessions loaded, for every reader (record,
 * show, extract, the mount): each session's "modules" file names them, with
 * the identity each had when it was loaded and its symbol snapshot
 * (common/symsnap.h).  Objects are named from the session's snapshot (from
 * the file when a session has none), and an object whose file was rebuilt
 * or deleted since it was loaded is said on stderr, once per object.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/control.h"
#include "common/filter.h"
#include "common/symbols.h"
#include "common/symsnap.h"
#include "common/warn.h"

/* One "load" line and the "syms" line that follows it. */
struct modline {
	unsigned long long bias;
	char mod[128];
	char path[PATH_MAX];
	bool has_id;     /* a "syms" line came (sessions of older runtimes have none) */
	char snap[32];   /* the snapshot's file name in the session, "" for none */
	struct ut_objid id;
};

struct seen {
	char **keys;
	size_t n;
};

/* Has this object (bias, path, build-id) been added already?  Remember it. */
static bool seen_before(struct seen *s, const struct modline *ml)
{
	char key[PATH_MAX + 200], **nv;

	snprintf(key, sizeof(key), "%llx %s %s", ml->bias, ml->id.build_id, ml->path);
	for (size_t k = 0; k < s->n; k++)
		if (!strcmp(s->keys[k], key))
			return true;
	nv = realloc(s->keys, (s->n + 1) * sizeof(*nv));
	if (!nv)
		return true;
	s->keys = nv;
	s->keys[s->n] = strdup(key);
	if (s->keys[s->n])
		s->n++;
	return false;
}

/* Say @what about @path once per reader: the mount reads sessions again and again. */
static void warn_once(const char *path, const char *what)
{
	static char *said[256];
	static size_t nsaid;
	char key[PATH_MAX + 1024];

	snprintf(key, sizeof(key), "%s: %s", path, what);
	for (size_t i = 0; i < nsaid; i++)
		if (!strcmp(said[i], key))
			return;
	if (nsaid < sizeof(said) / sizeof(*said))
		said[nsaid++] = strdup(key);
	ut_warn("%s", key);
}

/* Why the file at @ml->path is not the object the session loaded. */
static void describe_change(const struct modline *ml, int err, const struct ut_objid *now,
			    char *out, size_t len)
{
	if (err == -ENOENT)
		snprintf(out, len, "deleted since it was traced");
	else if (err)
		snprintf(out, len, "unreadable since it was traced (%s)", strerror(-err));
	else if (ml->id.build_id[0])
		snprintf(out, len, "changed since it was traced (build-id %s then, %s now)",
			 ml->id.build_id, now->build_id[0] ? now->build_id : "none");
	else
		snprintf(out, len, "changed since it was traced (size or mtime differ)");
}

/* A snapshot name the runtime writes: "<@prefix>.<N>", nothing that leaves the session. */
static bool snap_file_ok(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0 || name[n] != '.' || !name[n + 1])
		return false;
	for (const char *p = name + n + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static bool snap_name_ok(const char *name)
{
	return snap_file_ok(name, "syms");
}

/*
 * The session's copy is what the process itself read, so it is preferred
 * even when the file is still the same object (a strip after the run keeps
 * the build-id but not the names); the file serves sessions without a copy.
 * Either way a file that is no longer the object loaded is said.
 */
static void load_module(struct ut_symtab *st, const char *dir, const struct modline *ml)
{
	const char *mod = strcmp(ml->mod, "-") ? ml->mod : NULL;
	char why[300 + 2 * sizeof(ml->id.build_id)], msg[sizeof(why) + 128], path[PATH_MAX + 40];
	struct ut_objid now;
	bool copied;
	int err;

	if (!ml->has_id) {
		ut_symtab_load_elf(st, ml->path, ml->bias, mod);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, ml->snap);
	copied = snap_name_ok(ml->snap) && ut_symsnap_load(st, path, ml->bias, mod) >= 0;
	err = ut_objid_of_file(ml->path, &now);
	if (!err && ut_objid_same(&ml->id, &now)) {
		if (!copied)
			ut_symtab_load_elf(st, ml->path, ml->bias, mod);
		return;
	}
	describe_change(ml, err, &now, why, sizeof(why));
	if (copied) {
		snprintf(msg, sizeof(msg), "%s; names from the session's copy", why);
	} else {
		snprintf(msg, sizeof(msg), "%s, and the session has no copy of its symbols; %s",
			 why, err ? "its functions print as addresses" : "its names may be wrong");
		if (!err)
			ut_symtab_load_elf(st, ml->path, ml->bias, mod);
	}
	warn_once(ml->path, msg);
}

/* "syms BIAS FILE|- BUILD-ID|- SIZE MTIME-NS": the identity of the load before it. */
static bool parse_syms(const char *line, struct modline *ml)
{
	char snap[32], bid[sizeof(ml->id.build_id)];
	unsigned long long bias, size, mtime;

	if (sscanf(line, "syms %llx %31s %128s %llu %llu", &bias, snap, bid, &size, &mtime) != 5 ||
	    bias != ml->bias)
		return false;
	snprintf(ml->snap, sizeof(ml->snap), "%s", strcmp(snap, "-") ? snap : "");
	snprintf(ml->id.build_id, sizeof(ml->id.build_id), "%s", strcmp(bid, "-") ? bid : "");
	ml->id.size = size;
	ml->id.mtime_ns = mtime;
	ml->has_id = true;
	return true;
}

/*
 * "names BIAS MODULE|- FILE": names for addresses that are no object's,
 * kept by the runtime in the session (libutrace/inlined.c: each inlined
 * instance's site, in its slot, named after the function inlined there,
 * with the module of the object it was inlined in).
 */
struct names_line {
	char path[PATH_MAX + 40]; /* the names file, in the session */
	char mod[64];
	unsigned long long bias;
};

/* The parts of a "names" line of session @dir; false if it is none (or not one of ours). */
static bool parse_names(const char *dir, const char *line, struct names_line *nl)
{
	char file[32];

	if (sscanf(line, "names %llx %63s %31s", &nl->bias, nl->mod, file) != 3 ||
	    !snap_file_ok(file, "names"))
		return false;
	snprintf(nl->path, sizeof(nl->path), "%s/%s", dir, file);
	return true;
}

/* Whether a "names" line carries @tag after its file (the runtime's ut_ool_log_names). */
static bool names_tagged(const char *line, const char *tag)
{
	char word[32] = "";

	return sscanf(line, "names %*s %*s %*s %31s", word) == 1 && !strcmp(word, tag);
}

static void load_names(struct ut_symtab *st, const char *dir, const char *line)
{
	struct names_line nl;

	if (parse_names(dir, line, &nl))
		ut_symsnap_load(st, nl.path, nl.bias, strcmp(nl.mod, "-") ? nl.mod : NULL);
}

int ut_live_names_rows(struct ut_ftable *t, const char *dir, const char *line)
{
	struct names_line nl;
	struct ut_symtab *st;
	int n = 0;

	if (!parse_names(dir, line, &nl) || names_tagged(line, "prologue"))
		return 0; /* short-form patched prologues: the object's own functions, listed with it */
	st = ut_symtab_new();
	if (!st)
		return -ENOMEM;
	if (ut_symsnap_load(st, nl.path, nl.bias, NULL) >= 0)
		ut_symtab_finish(st);
	for (size_t i = 0; i < ut_symtab_count(st) && n >= 0; i++) {
		long k = ut_ftable_add(t, ut_symtab_at(st, i)->name,
				       strcmp(nl.mod, "-") ? nl.mod : NULL);

		if (k < 0) {
			n = (int)k;
		} else {
			ut_ftable_set_kind(t, (size_t)k, UT_KIND_INLINED);
			n++;
		}
	}
	ut_symtab_free(st);
	return n;
}

static void flush(struct ut_symtab *st, const char *dir, struct modline *ml, struct seen *seen)
{
	if (ml->path[0] && !seen_before(seen, ml))
		load_module(st, dir, ml);
	ml->path[0] = '\0';
}

static void load_session(struct ut_symtab *st, const char *dir, struct seen *seen)
{
	char path[PATH_MAX], line[PATH_MAX + 320];
	struct modline *ml = calloc(1, sizeof(*ml));
	FILE *f;

	snprintf(path, sizeof(path), "%s/modules", dir);
	f = ml ? ut_live_fopen(path, O_RDONLY, "re") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		char what[16];

		if (!strncmp(line, "syms ", 5)) {
			if (ml->path[0] && parse_syms(line, ml))
				flush(st, dir, ml, seen);
			continue;
		}
		if (!strncmp(line, "names ", 6)) {
			load_names(st, dir, line);
			continue;
		}
		flush(st, dir, ml, seen);
		memset(ml, 0, sizeof(*ml));
		if (sscanf(line, "%15s %llx %127s %4095[^\n]", what, &ml->bias, ml->mod, ml->path) != 4 ||
		    strcmp(what, "load") != 0)
			ml->path[0] = '\0';
	}
	if (ml)
		flush(st, dir, ml, seen);
	if (f)
		fclose(f);
	free(ml);
}

struct ut_symtab *ut_live_symbols(const char *const *dirs, size_t n)
{
	struct ut_symtab *st = ut_symtab_new();
	struct seen seen = {0};

	for (size_t i = 0; st && i < n; i++)
		load_session(st, dirs[i], &seen);
	for (size_t k = 0; k < seen.n; k++)
		free(seen.keys[k]);
	free(seen.keys);
	if (st) {
		ut_symtab_finish(st);
		ut_symtab_mark_gaps(st);
	}
	return st;
}
