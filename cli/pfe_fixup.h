/* SPDX-License-Identifier: MIT */
/* g++ 12's __patchable_function_entries, fixed between compiler and assembler (cli/pfe_fixup.c). */
#ifndef UT_PFE_FIXUP_H
#define UT_PFE_FIXUP_H

#include <stdio.h>

/* Copy the assembly @in to @out, each entry's directive fixed.  Return: 0, -ENOMEM or -EIO. */
int ut_pfe_fixup(FILE *in, FILE *out);

/* `as` run by gcc -B (utrace called as "as"): fix the input, then run the real assembler. */
int ut_as_main(int argc, char **argv);

#endif
