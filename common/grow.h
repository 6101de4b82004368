/* SPDX-License-Identifier: MIT */
/*
 * Growing an array that fills one element at a time (common/grow.c): the
 * one doubling realloc the reader's vectors share.
 */
#ifndef UT_GROW_H
#define UT_GROW_H

#include <stddef.h>

/*
 * Make the array *@arrayp (a pointer to the array's pointer) of *@cap
 * elements of @size bytes twice as large, or @first elements if it has
 * none.  0, or -ENOMEM with the array and *@cap as they were.
 */
int ut_grow(void *arrayp, size_t *cap, size_t size, size_t first);

#endif
