/* SPDX-License-Identifier: MIT */
/*
 * Library calls, the functions a program reaches through its objects' GOT
 * slots (the PLT, -fno-plt): which of them the runtime hooks
 * (libutrace/plthook.c, `-O plt`) and, for the tools, which a program will
 * have before it runs (`utrace list -f -O plt`, record's filter check).
 */
#ifndef UT_PLTSYMS_H
#define UT_PLTSYMS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/elfsites.h"
#include "common/filter.h"

/*
 * Functions never hooked: those that return twice (gcc's returns_twice
 * list: they save their return address and return through it again) and
 * the start and exit glue (__libc_start_main never returns and would nest
 * every trace one level deeper; __cxa_finalize runs in every object's
 * destructor).
 */
bool ut_plt_never_hooked(const char *name);

/*
 * Append to @t the library calls of the objects @l lists (the program
 * first, then its libraries in load order): each function one of them calls
 * through a GOT slot, named as the object that defines it names it (the
 * first in @l exporting it, as the dynamic loader binds), with that
 * object's module, of kind UT_KIND_LIBCALL.  Left out: functions already in @t with their module
 * (they have a site, which sees every call), the dynamic loader's, the ones
 * the runtime @runtime (libutrace.so's path, or NULL) defines itself, and
 * ut_plt_never_hooked().  Return: how many were added, or -ENOMEM.
 */
long ut_pltsyms_add(struct ut_ftable *t, const struct ut_objlist *l, const char *runtime);

/* --- the architecture's relocations (arch/<arch>/pltreloc.c) ------------- */

enum { UT_PLT_JUMP_SLOT = 1, UT_PLT_GLOB_DAT = 2 };

/* A relocation type that fills a GOT slot calls go through: which kind, or 0. */
unsigned ut_plt_reloc_kind(uint32_t type);

#endif
