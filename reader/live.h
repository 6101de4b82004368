/* SPDX-License-Identifier: MIT */
/* trace_pipe inside the library (reader/live.c). */
#ifndef UT_READER_LIVE_H
#define UT_READER_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One trace_pipe read of those sessions, everything flushed: 0 or -errno. */
int ut_live_pipe_once(const char *rundir, int inst, const int32_t *pids, size_t npids, FILE *f,
		      const char *const *words, int nwords);

#endif
