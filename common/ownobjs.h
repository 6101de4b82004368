/* SPDX-License-Identifier: MIT */
/*
 * The objects a traced process loaded for itself.  Its session's module
 * list also names those libutrace.so brought in (libelf, libz...) and
 * capstone, which the runtime opens to patch prologues: the runtime hooks
 * no library call of theirs (libutrace/plthook.c), so the tools that list
 * a process's functions from its module list leave them out too.
 */
#ifndef UT_OWNOBJS_H
#define UT_OWNOBJS_H

#include "common/elfsites.h"

/*
 * Copy to @out the objects of @loaded (a process's, in load order, its
 * program first) but those only @runtime (libutrace.so's path; NULL: none
 * left out but capstone) needs, as the runtime tells them: needed by the
 * runtime, directly or not, and not by the program (DT_NEEDED, matched by
 * soname or file name among @loaded).  Return: 0 or -ENOMEM.
 */
int ut_own_objects(const struct ut_objlist *loaded, const char *runtime, struct ut_objlist *out);

#endif
