/* SPDX-License-Identifier: MIT */
/*
 * The kinds of site: what makes a function traceable, and so what turning
 * it on changes.  One concept for the runtime (a module's sites are all of
 * one kind: struct ut_module.kind in libutrace/internal.h), the filter
 * table (struct ut_filter_func.kind) and the listings that show it
 * (`utrace list -f`, the mount's available_filter_functions).
 *
 *   UT_KIND_COMPILER  a site the compiler left at the function's entry
 *                     (-fpatchable-function-entry, -pg -mfentry): bytes
 *                     the patcher rewrites between a nop and a call;
 *   UT_KIND_PROLOGUE  a patched prologue (common/prologue.h): the first
 *                     instructions moved out of line to make such a site
 *                     (-O patch-prologue); toggled as a compiler's once
 *                     installed;
 *   UT_KIND_LIBCALL   a library call (libutrace/plthook.c, -O plt): the
 *                     function's GOT slots in every object calling it,
 *                     pointed at a stub; never the bytes at its address,
 *                     which the SIGTRAP handler and the text patcher leave
 *                     alone;
 *   UT_KIND_INLINED   an inlined instance (libutrace/inlined.c, -O
 *                     inlined): a jump at its entry to a slot that holds
 *                     the site, named after the function inlined.
 */
#ifndef UT_KIND_H
#define UT_KIND_H

enum ut_kind { UT_KIND_COMPILER = 0, UT_KIND_PROLOGUE, UT_KIND_LIBCALL, UT_KIND_INLINED, UT_KIND_NR };

/*
 * The kind as listings mark a function with it, last on its line
 * (`work [prologue]`, `malloc [libc] [plt]`); a compiler site is unmarked.
 */
static inline const char *ut_kind_name(unsigned kind)
{
	static const char *const names[UT_KIND_NR] = {"compiler", "prologue", "plt", "inlined"};

	return kind < UT_KIND_NR ? names[kind] : "?";
}

#endif
