/* SPDX-License-Identifier: MIT */
/* A program's functions without a site, said (cli/unsited.c). */
#ifndef UT_UNSITED_H
#define UT_UNSITED_H

#include <stdio.h>

#include "common/filter.h"

/* Name on @out the functions of @prog's own symbol table that @t (its traceable functions) lacks. */
void ut_say_unsited(FILE *out, const char *prog, const struct ut_ftable *t);

#endif
