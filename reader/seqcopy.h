/* SPDX-License-Identifier: MIT */
/*
 * Copying a table another process rewrites under a sequence count (the
 * session's "cmds" and "evtrig" tables, include/utrace/abi.h): an odd
 * count is a rewrite under way, a count that changed during the copy a
 * rewrite that happened meanwhile.
 */
#ifndef UT_SEQCOPY_H
#define UT_SEQCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Copy the first *@nr_at entries (at most @max, @esize bytes each) of
 * @src to @out once; their count in *@nr.  False if a rewrite was under
 * way or happened meanwhile (the caller tries again).
 */
bool ut_seq_copy(const uint64_t *gen_at, const uint32_t *nr_at, uint32_t max, const void *src,
		 size_t esize, void *out, uint32_t *nr);

#endif
