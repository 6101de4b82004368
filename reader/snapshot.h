/* SPDX-License-Identifier: MIT */
/*
 * Live snapshots inside the library (reader/snapshot.c), for readers other
 * than the printer: the public reader (reader/reader.c).
 */
#ifndef UT_READER_SNAPSHOT_H
#define UT_READER_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "reader/filed.h"

/*
 * What the buffers of the sessions of @pids (NULL: all) in @rundir hold
 * now, left as they were, into @k once, as the snapshot's trace.dat would
 * give it back (the write-out with the default options, as extract's).
 * The spool is gone when this returns.  0, -ESRCH (none of @pids has a
 * session), -EPERM (a session file was refused) or -errno.
 */
int ut_live_replay_filed(const char *rundir, const int32_t *pids, size_t npids,
			 struct ut_filed_sink *k);

#endif
