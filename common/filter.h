/* SPDX-License-Identifier: MIT */
/*
 * Function sets with the semantics of set_ftrace_filter, set_ftrace_notrace,
 * set_graph_function and set_graph_notrace (SPEC §12, §13).
 *
 * A struct ut_ftable is the list of traceable functions, i.e. the lines of
 * available_filter_functions.  It is append-only: a module (shared object)
 * that goes away has its entries flagged dead, so an index, once handed out,
 * names the same function forever.  Line N of available_filter_functions is
 * the N-th *live* entry.
 *
 * A struct ut_fset is one of the four lists over a table: a bitmap of
 * selected entries, plus (for set_ftrace_filter) the function commands and
 * the pending ":mod:" entries for modules not loaded yet.  Writes follow the
 * file protocol: ut_fset_begin() is open(2) (">" truncates, ">>" appends),
 * ut_fset_write() is write(2), ut_fset_commit() is close(2).
 *
 * Configuration-time code: it mallocs, but keeps no global state and does no
 * I/O, so the runtime library can link it.  Not thread-safe; callers lock.
 */
#ifndef UT_FILTER_H
#define UT_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kind.h"

struct ut_filter_func {
	const char *name;
	const char *module; /* NULL = main executable, else e.g. "libz" */
	unsigned char kind; /* enum ut_kind (common/kind.h): what makes it traceable */
};

struct ut_ftable;
/* Set the kind of site of entry @i (added as UT_KIND_COMPILER). */
void ut_ftable_set_kind(struct ut_ftable *t, size_t i, unsigned kind);

struct ut_ftable;
struct ut_fset;

/* --- the function table ------------------------------------------------ */

/** ut_ftable_new() - an empty table.  Return: the table, or NULL (ENOMEM). */
struct ut_ftable *ut_ftable_new(void);

/**
 * ut_ftable_free() - free @t and its strings
 * @t: the table, or NULL
 *
 * Free every ut_fset made on @t first.
 */
void ut_ftable_free(struct ut_ftable *t);

/**
 * ut_ftable_add() - append one function
 * @t: the table
 * @name: the function name (copied)
 * @module: NULL for the main executable, else the module name (copied once)
 *
 * Return: the new entry's index (>= 0), or -ENOMEM.
 */
long ut_ftable_add(struct ut_ftable *t, const char *name, const char *module);

/*
 * ut_ftable_add() without copying @name, which the caller keeps unchanged
 * for the table's life (the runtime's names live in symbol tables it never
 * frees): 100,000 functions' names are not copied again at start-up.
 */
long ut_ftable_add_kept(struct ut_ftable *t, const char *name, const char *module);

/*
 * ut_ftable_add_alias() - another name of entry @i (a symbol at the same
 * address: common/symbols.h), copied; ut_ftable_add_alias_kept() keeps
 * @name as ut_ftable_add_kept() does.  A word matching any name of a
 * function selects it; listings print its own name (available_filter_functions,
 * a set's functions, commands), ut_ftable_format_listing() the others too.
 * Aliases are added to the newest entries: @i may not be below an entry
 * that already has some.  Return: 0, -EINVAL (@i out of order) or -ENOMEM.
 */
int ut_ftable_add_alias(struct ut_ftable *t, size_t i, const char *name);
int ut_ftable_add_alias_kept(struct ut_ftable *t, size_t i, const char *name);

/* ut_ftable_alias() - entry @i's alias @k (0...) as added, NULL past the last. */
const char *ut_ftable_alias(const struct ut_ftable *t, size_t i, size_t k);

/*
 * ut_ftable_alias_note() - " [= a, b]": entry @i's other names as listings
 * print them (demangled or not), without those that list as its own name
 * (a constructor's C1 and C2 demangle alike); malloc'd, NULL if none.
 */
char *ut_ftable_alias_note(const struct ut_ftable *t, size_t i);

/**
 * ut_ftable_add_funcs() - append @n functions
 * @t: the table
 * @funcs: the functions (strings copied)
 * @n: how many
 *
 * Index i of @funcs gets table index (return value + i).  When a module is
 * loaded, add its functions, then call ut_ftable_module_loaded().
 *
 * Return: the index of the first added entry, or -ENOMEM (entries added
 * before the failure stay).
 */
long ut_ftable_add_funcs(struct ut_ftable *t, const struct ut_filter_func *funcs, size_t n);

/**
 * ut_ftable_module_loaded() - apply pending ":mod:" entries for @module
 * @t: the table
 * @module: the module whose functions were just added
 *
 * Runs ut_fset_apply_pending() on every set made on @t.
 *
 * Return: 0 or -ENOMEM.
 */
int ut_ftable_module_loaded(struct ut_ftable *t, const char *module);

/**
 * ut_ftable_remove_module() - flag every function of @module dead
 * @t: the table
 * @module: the unloaded module (not NULL: the executable never goes away)
 *
 * Like the kernel on module unload, the functions also leave every set made
 * on @t, commands on them are dropped, and nothing is re-cached: a filter
 * that held only them becomes empty, i.e. traces everything again.
 *
 * Return: the number of entries flagged, or -EINVAL for a NULL @module.
 */
long ut_ftable_remove_module(struct ut_ftable *t, const char *module);

/**
 * ut_ftable_set_demangle() - let patterns match C++ names as demangled
 * @t: the table
 * @demangle: returns the malloc'd demangling of a mangled name ("_Z..."),
 *            or NULL; it is called once per name, when a word is first
 *            matched against it (common/cxxname.h: the forms matched)
 *
 * Without it, patterns match the names as added only.
 * Return: 0 or -ENOMEM.
 */
int ut_ftable_set_demangle(struct ut_ftable *t, char *(*demangle)(const char *mangled));

/*
 * ut_ftable_forget_demangled() - free the demangled names kept for matching
 * (they are made again when a word needs them): the runtime keeps no copy
 * of a big C++ program's names between configurations.
 */
void ut_ftable_forget_demangled(struct ut_ftable *t);

/*
 * ut_ftable_list_demangled() - listings (available_filter_functions, a
 * set's functions) print C++ names demangled (@on) or as added.  Needs
 * ut_ftable_set_demangle() first (else -EINVAL).
 */
int ut_ftable_list_demangled(struct ut_ftable *t, bool on);

/*
 * ut_ftable_listed_name() - entry @i's name as listings print it (demangled
 * after ut_ftable_list_demangled(t, true)), for callers that print entries
 * themselves; NULL if @i is out of range.
 */
const char *ut_ftable_listed_name(const struct ut_ftable *t, size_t i);

/** ut_ftable_size() - number of entries, dead ones included (valid indexes are below it). */
size_t ut_ftable_size(const struct ut_ftable *t);

/**
 * ut_ftable_get() - entry @i
 * @t: the table
 * @i: index
 *
 * Return: the entry (strings owned by @t), or NULL if @i is out of range or dead.
 */
const struct ut_filter_func *ut_ftable_get(const struct ut_ftable *t, size_t i);

/**
 * ut_ftable_format_available() - available_filter_functions
 * @t: the table
 * @out: receives a malloc'd NUL-terminated string: one live function a line,
 *       "name" or "name [module]", then its kind of site when it is not
 *       the compiler's (" [prologue]", " [plt]": ut_kind_name()); "" for
 *       an empty table
 * @lenp: receives strlen(*@out) (may be NULL)
 *
 * Return: 0 or -ENOMEM.
 */
int ut_ftable_format_available(const struct ut_ftable *t, char **out, size_t *lenp);

/*
 * ut_ftable_format_listing() - the same with each function's other names
 * after it, "name [module] [= alias, ...] [kind]" (utrace's own listings:
 * `list -f`; available_filter_functions keeps the kernel's one name a line).
 */
int ut_ftable_format_listing(const struct ut_ftable *t, char **out, size_t *lenp);

/* --- function sets ------------------------------------------------------- */

enum {
	UT_FSET_F_CMDS = 1 << 0,      /* accepts FUNC:CMD[:N] commands */
	UT_FSET_F_MODCACHE = 1 << 1,  /* caches :mod: entries of absent modules */
	UT_FSET_F_MODACTIVE = 1 << 2, /* pending entries make the set non-empty */
};

/*
 * Presets.  Pending ":mod:" entries make set_ftrace_filter an active filter
 * (nothing is traced until the module arrives, as on Linux >= 4.13), while in
 * set_ftrace_notrace they exclude nothing yet.  The graph files take the same
 * patterns (":mod:" included, but not cached) and no commands.
 */
#define UT_FSET_PLAIN 0 /* patterns only: no commands, :mod: entries not cached */
#define UT_FSET_FILTER (UT_FSET_F_CMDS | UT_FSET_F_MODCACHE | UT_FSET_F_MODACTIVE)
#define UT_FSET_NOTRACE UT_FSET_F_MODCACHE
#define UT_FSET_GRAPH UT_FSET_PLAIN
#define UT_FSET_GRAPH_NOTRACE UT_FSET_PLAIN

/* The read-back texts of the empty lists. */
#define UT_FSET_EMPTY_FILTER "#### all functions enabled ####\n"
#define UT_FSET_EMPTY_NOTRACE "#### no functions disabled ####\n"

enum ut_fcmd_type {
	UT_FCMD_TRACEON,
	UT_FCMD_TRACEOFF,
	UT_FCMD_STACKTRACE,
	UT_FCMD_DUMP,
	UT_FCMD_CPUDUMP,
};

/*
 * A function command ("probe").  As in the kernel, "f:traceon" and
 * "f:traceon:5" are different commands that can coexist; @counted tells
 * which one this is, and only "!f:traceon:N" (any N) removes a counted one.
 * dump and cpudump always act once: counted, count 1, whatever N was given.
 */
struct ut_fcmd {
	size_t func;  /* table index */
	int type;     /* enum ut_fcmd_type */
	bool counted; /* written with ":N" */
	long count;   /* remaining; -1 = unlimited.  The runtime decrements it
		       * only when the command acted (e.g. traceon while on
		       * does not count). */
};

/**
 * ut_fset_new() - an empty set over @t
 * @t: the function table (must outlive the set)
 * @flags: UT_FSET_FILTER, UT_FSET_NOTRACE, UT_FSET_GRAPH... (UT_FSET_F_* bits)
 *
 * Return: the set, or NULL (ENOMEM).
 */
struct ut_fset *ut_fset_new(struct ut_ftable *t, unsigned int flags);

/** ut_fset_free() - free @s (NULL is fine) and detach it from its table. */
void ut_fset_free(struct ut_fset *s);

/**
 * ut_fset_begin() - open the list for writing
 * @s: the set
 * @truncate: true for ">" (O_TRUNC: start from an empty list and drop the
 *            pending ":mod:" entries right away), false for ">>"
 *
 * The writes go to a working copy that ut_fset_commit() installs.  Commands
 * and pending ":mod:" entries are not part of that copy: like the kernel,
 * they change as soon as the word is written, and ">" does not clear
 * commands.
 *
 * Return: 0, -EBUSY if a write is already open, or -ENOMEM.
 */
int ut_fset_begin(struct ut_fset *s, bool truncate);

/**
 * ut_fset_write() - process one write(2) buffer
 * @s: the set, opened with ut_fset_begin()
 * @buf: whitespace-separated words (need not be NUL-terminated)
 * @len: bytes in @buf
 * @badword: if not NULL, receives the word that failed (NUL-terminated,
 *           truncated to @badlen - 1 bytes); set to "" on success
 * @badlen: size of @badword
 *
 * Words, in order:
 *   PAT          add the matches (plain, x*, *x, *x*, or full glob)
 *   !PAT         remove the matches (they must exist in the table)
 *   N            the N-th line of available_filter_functions (1-based)
 *   PAT:mod:MOD  only functions of module MOD ("" = any module, "!MOD" =
 *                all but MOD, MOD may be a glob); ":mod:MOD" = all of
 *                MOD.  MOD may be the object's file name: "lib1.so",
 *                "libz.so.1", "/usr/lib/libz.so.1" name "lib1", "libz";
 *                one that leaves no name (".so") is -EINVAL.  If nothing matches and MOD is not loaded, the
 *                entry is kept pending (UT_FSET_F_MODCACHE) and applied by
 *                ut_fset_apply_pending(); "!PAT:mod:MOD" then removes
 *                pending entries ("!*" or "!" all of MOD's).
 *   PAT:CMD[:N]  CMD = traceon, traceoff, stacktrace, dump, cpudump
 *                (UT_FSET_F_CMDS only); "!PAT:CMD[:N]" removes.
 * A numeric N ignores ":mod:" (as in the kernel).  enable_event and
 * disable_event are not supported yet and give -EINVAL, like any unknown
 * command.  Words before the failing one stay applied.
 *
 * Return: 0, -EINVAL (a pattern matching nothing, a bad index, an unknown or
 * refused command, a bad count, removing a command that is not there),
 * -EBADF if not opened, or -ENOMEM.
 */
int ut_fset_write(struct ut_fset *s, const char *buf, size_t len, char *badword, size_t badlen);

/**
 * ut_fset_commit() - close(2): install the working copy
 * @s: the set
 *
 * Always installs what the successful words built, even after a failed
 * write: a ">" whose first word failed leaves the list empty.
 *
 * Return: 0, or -EBADF if not opened.
 */
int ut_fset_commit(struct ut_fset *s);

/** ut_fset_abort() - drop the working copy without installing it (not a kernel operation). */
void ut_fset_abort(struct ut_fset *s);

/**
 * ut_fset_set() - begin + write + commit, for one-shot callers
 * @s: the set
 * @buf: the words, NUL-terminated
 * @truncate: ">" (true) or ">>" (false)
 * @badword: as in ut_fset_write()
 * @badlen: as in ut_fset_write()
 *
 * Return: ut_fset_write()'s result (or -EBUSY / -ENOMEM from the begin).
 */
int ut_fset_set(struct ut_fset *s, const char *buf, bool truncate, char *badword, size_t badlen);

/**
 * ut_fset_apply_pending() - a module's functions were added to the table
 * @s: the set
 * @module: the module name
 *
 * Each pending entry whose module pattern matches @module is applied to the
 * installed list (and to the working copy of an open write) and dropped.
 *
 * Return: the number of pending entries applied, or -ENOMEM.
 */
int ut_fset_apply_pending(struct ut_fset *s, const char *module);

/** ut_fset_contains() - is live entry @i in the installed list? */
bool ut_fset_contains(const struct ut_fset *s, size_t i);

/** ut_fset_count() - number of functions in the installed list */
size_t ut_fset_count(const struct ut_fset *s);

/** ut_fset_nr_pending() - number of pending ":mod:" entries */
size_t ut_fset_nr_pending(const struct ut_fset *s);

/**
 * ut_fset_active() - does the installed list restrict anything?
 * @s: the set
 *
 * True when it holds a function, or (UT_FSET_F_MODACTIVE) a pending entry.
 */
bool ut_fset_active(const struct ut_fset *s);

/**
 * ut_fset_traced() - the final decision for entry @i
 * @filter: set_ftrace_filter (or set_graph_function); NULL = empty
 * @notrace: set_ftrace_notrace (or set_graph_notrace); NULL = empty
 * @i: table index
 *
 * An inactive filter means every function; notrace beats filter; dead
 * entries are never traced.  O(1).
 */
bool ut_fset_traced(const struct ut_fset *filter, const struct ut_fset *notrace, size_t i);

/**
 * ut_fset_cmds() - the command list
 * @s: the set
 * @n: receives the number of commands
 *
 * The array is owned by @s and valid until the next write or table change;
 * the runtime may update ->count in place.
 */
struct ut_fcmd *ut_fset_cmds(struct ut_fset *s, size_t *n);

/**
 * ut_fset_word_is_cmd() - is @w a function command word?
 * @w: one word of a list ("[!]FUNC:CMD[:N]"), need not be NUL-terminated
 * @len: its length
 *
 * True for "FUNC:CMD..." and "!FUNC:CMD..." with any CMD but "mod": the
 * words a ">" on set_ftrace_filter keeps, since it clears the functions only.
 */
bool ut_fset_word_is_cmd(const char *w, size_t len);

/** ut_fcmd_name() - "traceon", "traceoff", ... for an enum ut_fcmd_type */
const char *ut_fcmd_name(int type);

/**
 * ut_fset_format() - the list as reading the file shows it
 * @s: the set
 * @empty_text: printed first when the list is inactive, e.g.
 *              UT_FSET_EMPTY_FILTER; NULL prints nothing
 * @out: receives a malloc'd NUL-terminated string
 * @lenp: receives strlen(*@out) (may be NULL)
 *
 * Functions in table order ("name" or "name [module]"), then commands
 * ("FUNC:CMD:unlimited" / "FUNC:CMD:count=N"), then pending entries
 * ("FUNC:mod:MOD").
 *
 * Return: 0 or -ENOMEM.
 */
int ut_fset_format(const struct ut_fset *s, const char *empty_text, char **out, size_t *lenp);

#endif
