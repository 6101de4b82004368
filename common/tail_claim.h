/* SPDX-License-Identifier: MIT */
/*
 * A buffer's consumed position, moved by claims: the pair {tail,
 * tail_records} of struct ut_buf_hdr changes only in one 16-byte
 * compare-and-swap, whoever moves it -- a reader consuming what it copied,
 * a clear (`echo > trace`), the runtime taking an exited thread's buffer
 * back.  So what a reader takes and what the runtime counts as lost never
 * overlap: a reader that copied records and then finds the pair changed
 * under it drops its copy (the runtime counted those records lost, or a
 * clear discarded them), and the runtime counts as lost exactly what lay
 * past the tail it claimed (docs/shm-abi.md, "Consuming").
 *
 * The pair is 16-byte aligned (offset 128 of a page-aligned header), and
 * the runtime's producer keeps reading tail alone with plain 8-byte atomic
 * loads, which the 16-byte instruction never tears.
 */
#ifndef UT_TAIL_CLAIM_H
#define UT_TAIL_CLAIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utrace/abi.h"

_Static_assert(offsetof(struct ut_buf_hdr, tail) % 16 == 0 &&
		       offsetof(struct ut_buf_hdr, tail_records) ==
			       offsetof(struct ut_buf_hdr, tail) + 8,
	       "tail and tail_records: one 16-byte pair");

/* What was consumed: the byte position and the records before it. */
struct ut_tail {
	uint64_t pos;
	uint64_t records;
};

/*
 * Replace the pair @old of @h with @want if it still holds @old.  Returns
 * the pair that was there (equal to @old: done).  @h must be mapped
 * writable: the instruction writes even when it fails.
 */
static inline struct ut_tail ut_tail_cas(struct ut_buf_hdr *h, struct ut_tail old,
					 struct ut_tail want)
{
	unsigned __int128 o = (unsigned __int128)old.records << 64 | old.pos;
	unsigned __int128 w = (unsigned __int128)want.records << 64 | want.pos;
	unsigned __int128 seen = __sync_val_compare_and_swap((unsigned __int128 *)(void *)&h->tail,
							     o, w);

	return (struct ut_tail){.pos = (uint64_t)seen, .records = (uint64_t)(seen >> 64)};
}

static inline bool ut_tail_eq(struct ut_tail a, struct ut_tail b)
{
	return a.pos == b.pos && a.records == b.records;
}

/* The pair as it is now, read in one piece (a writable mapping: see above). */
static inline struct ut_tail ut_tail_load(struct ut_buf_hdr *h)
{
	return ut_tail_cas(h, (struct ut_tail){0, 0}, (struct ut_tail){0, 0});
}

/*
 * Move the pair to @want whatever it holds; returns what it held (what the
 * caller claimed from).
 */
static inline struct ut_tail ut_tail_claim(struct ut_buf_hdr *h, struct ut_tail want)
{
	struct ut_tail t = ut_tail_load(h), seen;

	while (!ut_tail_eq(seen = ut_tail_cas(h, t, want), t))
		t = seen;
	return t;
}

#endif
