/* SPDX-License-Identifier: MIT */
/*
 * Why a filter word names no traceable function, and what a filter misses:
 * the explanations record, start, list and the mount give instead of
 * staying silent (the function was inlined into every caller, a compiler
 * clone has the code, the object was built without sites, the function
 * lives in a library without sites, or there is no debug info to tell).
 * Tools only: it reads symbol tables and DWARF (common/inlined.h).
 */
#ifndef UT_WHYNOSITE_H
#define UT_WHYNOSITE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/elfsites.h"
#include "common/filter.h"

/*
 * Why the filter word @word ("PAT", "PAT:mod:MOD", "FUNC:CMD[:N]") selects
 * no traceable function of the objects @objs (@objs[0] the program, or any
 * order): one reason a line, each line starting with two spaces and ending
 * in a newline; malloc'd, NULL if nothing can be said (or ENOMEM).
 */
char *ut_why_no_site(const char *word, const struct ut_obj *objs, size_t n);

/*
 * The same for processes that patch prologues when @prologues (-O
 * patch-prologue): a function without a site is then refused for a reason
 * of its own (common/prologue_why.c: "shorter than the 5 bytes a patch
 * needs"), said first; else, or when that says nothing, ut_why_no_site().
 */
char *ut_why_untraced(const char *word, const struct ut_obj *objs, size_t n, bool prologues);

/*
 * The inlined copies a set does not trace: the functions @s selects (over
 * @t, whose modules are those of @objs) that the compiler also inlined
 * somewhere; with @traced (-O inlined in force), only the copies the option
 * cannot make sites.  Returns one line for @file ("set_ftrace_filter"),
 * without a newline, malloc'd; NULL if none (or ENOMEM).
 */
char *ut_inlined_missed(const struct ut_ftable *t, const struct ut_fset *s,
			const struct ut_obj *objs, size_t n, const char *file, bool traced);

#endif
