/* SPDX-License-Identifier: MIT */
/* A trace.dat as sources of the merged stream (reader/stream_file.c). */
#ifndef UT_STREAM_FILE_H
#define UT_STREAM_FILE_H

#include <stdbool.h>

#include "reader/tracedat.h"
#include "reader/stream.h"

/* One CPU of the file: its events in the order written (time order). */
struct ut_cpu_src {
	struct ut_stream_src src; /* first */
	struct ut_file_src *file;
	int cpu;
	struct ut_event ev;       /* the record at hand (its text and stack are the reader's) */
};

struct ut_file_src {
	struct ut_tracedat *td;
	struct ut_cpu_src *cpus;  /* one source per CPU of the file */
	int nr_cpus;
	bool tgids;               /* events without a tgid get the file table's (-1: none) */
	bool err;                 /* a CPU ended by a read error: @errmsg says which */
	char errmsg[256];
};

/*
 * Merge every CPU of @td into @st; @tgids: events without a process id get
 * the one the file's tgid table gives (-1 if none).  0, or -ENOMEM.
 */
int ut_file_src_add(struct ut_file_src *f, struct ut_tracedat *td, struct ut_stream *st,
		    bool tgids);
void ut_file_src_free(struct ut_file_src *f);

#endif
