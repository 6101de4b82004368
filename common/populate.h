/* SPDX-License-Identifier: MIT */
/*
 * Pages present at once (common/populate.c): a large fresh allocation that
 * is about to be filled from end to end (100,000 sites' addresses, their
 * table) takes one system call to be mapped instead of a page fault for
 * each of its pages.
 */
#ifndef UT_POPULATE_H
#define UT_POPULATE_H

#include <stddef.h>

/*
 * Make the whole pages of [@p, @p + @len) present and writable now.  Only
 * worth it for large ranges: smaller ones, and kernels without
 * MADV_POPULATE_WRITE, are left to fault as usual; past 64 MiB pages fault
 * as used (a size from a damaged file commits no more).  Changes no byte.
 */
void ut_populate(void *p, size_t len);

#endif
