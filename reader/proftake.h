/* SPDX-License-Identifier: MIT */
/*
 * The profiler's tables of exited threads, taken while the program runs
 * (reader/proftake.c): `record`'s profile copies an exited thread's table
 * and marks it taken, so the runtime may empty it for a new thread.
 */
#ifndef UT_READER_PROFTAKE_H
#define UT_READER_PROFTAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utrace/abi.h"

/* One exited thread's counts, copied out of its slot's table. */
struct ut_proftab {
	int32_t tid;
	char comm[17];
	uint32_t slot;
	uint64_t gen;                /* the slot's incarnation it was */
	bool cpu_time;               /* times are ns of CPU time (the table's cpu_time) */
	uint64_t overflow;
	struct ut_prof_entry *e;     /* its used rows (malloc'ed) */
	size_t n;
};

/*
 * Take the table (file @path) of slot @ts if its thread has exited and the
 * table is not taken yet: its used rows into @out, then the table marked
 * taken (ut_prof_hdr.taken = gen + 1).  *@gen_seen: the gen looked at (the
 * caller looks again only once it changes).  Return: 1 taken, 0 nothing
 * to take (yet), or -errno (@err says why).
 */
int ut_prof_take(const char *path, const struct ut_thread_slot *ts, uint32_t slot,
		 uint64_t *gen_seen, struct ut_proftab *out, char *err, size_t errlen);

/*
 * Copy the table (file @path) as it is (a live reader, or the end of a
 * record): its used rows into @out, its ut_prof_hdr.taken into *@taken.
 * Return: 1 copied, 0 not a table (yet), or -errno (@err says why).
 */
int ut_prof_copy(const char *path, struct ut_proftab *out, uint64_t *taken, char *err,
		 size_t errlen);

#endif
