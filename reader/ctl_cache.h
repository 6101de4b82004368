/* SPDX-License-Identifier: MIT */
#ifndef UT_READER_CTL_CACHE_H
#define UT_READER_CTL_CACHE_H
/*
 * Sessions' control blocks, each mapped once and shared while used
 * (reader/ctl_cache.c): what ut_live_map_ctl() gives and takes back.
 */
#include <stddef.h>

#include "utrace/read.h"

/* The block of @sessdir (read-write), as ut_sess_map_ctl(): 0 or -errno with @err. */
int ut_ctl_cache_get(const char *sessdir, struct ut_ctl **out, char *err, size_t errlen);
/* Done with a block from ut_ctl_cache_get(). */
void ut_ctl_cache_put(struct ut_ctl *ctl);

#endif
