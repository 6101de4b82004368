/* SPDX-License-Identifier: MIT */
#ifndef UT_RAN_H
#define UT_RAN_H

#include "common/elfsites.h"
#include "common/filter.h"

/*
 * The traceable functions of every object loaded by the processes whose
 * sessions are under @dir (a recording's directory, before it is removed).
 * NULL if out of memory.
 */
struct ut_ftable *ut_ran_functions(const char *dir);

/* The objects those sessions loaded, each once (for common/whynosite.h). */
void ut_ran_objects(const char *dir, struct ut_objlist *l);

#endif
