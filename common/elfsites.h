/* SPDX-License-Identifier: MIT */
/*
 * Traceable functions of a program on disk, before it runs: what
 * `utrace list -f` prints, what `utrace record` checks filters against and
 * what the mount lists.  The runtime finds its set in memory with the same
 * site finder (common/sitefind.h) run here over the files: the same
 * sections, the same byte test, the same names, so the sets are one.
 */
#ifndef UT_ELFSITES_H
#define UT_ELFSITES_H

#include "common/filter.h"
#include "common/prologue.h"

/*
 * Append to @t the traceable functions of @prog and of the shared objects it
 * loads at start (as the dynamic loader resolves them), in load order, each
 * object's functions by address.  @nr_objects receives how many objects
 * had at least one.  Return: 0 or a negative errno (-ENOENT, -ENOEXEC).
 */
int ut_elfsites_program(struct ut_ftable *t, const char *prog, int *nr_objects);

/*
 * The second half of ut_elfsites_program(): append the functions of the
 * shared objects @prog loads, adding to *@nr_objects those that had some.
 */
void ut_elfsites_libraries(struct ut_ftable *t, const char *prog, int *nr_objects);

/*
 * With @on, ut_elfsites_file() (and what calls it) also lists the functions
 * without a site that can get a patched prologue (-O patch-prologue), of
 * kind UT_KIND_PROLOGUE.
 */
void ut_elfsites_with_prologues(bool on);

/*
 * With @on, ut_elfsites_file() also lists the inlined instances that
 * -O inlined makes sites (ut_elfsites_inlined), one row each, named after
 * the function inlined, of kind UT_KIND_INLINED.
 */
void ut_elfsites_with_inlined(bool on);

/*
 * Every function of the file @path without a compiler site, and whether a
 * prologue patch can give it one (common/prologue.h: ut_pro_walk's @cb,
 * with link-time addresses).  Return: 0 or a negative errno.
 */
int ut_elfsites_prologues(const char *path, const char *module, ut_pro_found_fn cb, void *ctx);

/*
 * What -O inlined makes of each inlined instance of @t, the table of the
 * object at @path (common/inlined.h): @why[i] for t->v[i], UT_PRO_OK when
 * it becomes a site, else the reason, judged as the runtime judges it
 * (common/prologue.h: ut_pro_walk_at) over the file's code.  The runtime
 * also refuses an instance whose bytes a patched prologue or a USDT probe
 * holds, which this does not know.  Return: 0 or a negative errno.
 */
struct ut_inltab;
int ut_elfsites_inlined(const char *path, const struct ut_inltab *t, enum ut_pro_why *why);

/*
 * How enabling each USDT probe of @l, the probes of the object at @path
 * (common/usdt.h), patches it: @why[i] UT_PRO_OK for a jump to a slot,
 * else the reason it stays an int3 (common/prologue.h:
 * ut_pro_why_text_probe), judged as the runtime judges it
 * (ut_pro_walk_probes) over the file's code; UT_PRO_NOFRAMES for a
 * stripped object.  The runtime also refuses a window that a patched
 * prologue or an inlined instance holds.  Return: 0 or a negative errno.
 */
struct ut_usdt_list;
int ut_elfsites_probes(const char *path, const struct ut_usdt_list *l, enum ut_pro_why *why);

/* An object a program loads at start: its file and module name ("" for the program). */
struct ut_obj {
	char *path;
	char module[64];
};

/*
 * The functions of @objs a filter @word names that no patched prologue can
 * trace, one line each with the reason (common/prologue_why.c); NULL if
 * none.  Malloc'd.
 */
char *ut_pro_why_word(const char *word, const struct ut_obj *objs, size_t n);

struct ut_objlist {
	struct ut_obj *v;
	size_t n;
};

/*
 * The objects @prog loads at start (as the dynamic loader resolves them;
 * no program code runs) if @with_libs, @prog itself first if @with_prog.
 * Free with ut_objlist_free().  Return: 0 or -ENOMEM.
 */
int ut_elfsites_objects(const char *prog, bool with_prog, bool with_libs, struct ut_objlist *l);
void ut_objlist_free(struct ut_objlist *l);
/* Append one object (strings copied; @mod NULL for a program).  Return: 0 or -ENOMEM. */
int ut_objlist_add(struct ut_objlist *l, const char *path, const char *mod);

/* The same for one ELF file; @module is NULL for a main program. */
int ut_elfsites_file(struct ut_ftable *t, const char *path, const char *module);

/*
 * Only the functions of @path a patched prologue can trace, of kind
 * UT_KIND_PROLOGUE (a process's table lists them after every object's
 * compiler sites).  Return: how many, or a negative errno.
 */
int ut_elfsites_file_prologues(struct ut_ftable *t, const char *path, const char *module);

/*
 * Whether @path (a main program) has a traceable function: 1 if it has, 0
 * if not, or a negative errno as ut_elfsites_file().  Cheaper than listing
 * them all.
 */
int ut_elfsites_any(const char *path);

/* True if @path was built with sites (pfe section, or imports __fentry__). */
bool ut_elfsites_instrumented(const char *path);

#endif
