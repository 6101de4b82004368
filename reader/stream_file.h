/* SPDX-License-Identifier: MIT */
/* A trace.dat as a source of the merged stream (reader/stream_file.c). */
#ifndef UT_STREAM_FILE_H
#define UT_STREAM_FILE_H

#include <stdbool.h>

#include "reader/tracedat.h"
#include "reader/stream.h"

struct ut_file_src {
	struct ut_stream_src src; /* first */
	struct ut_tracedat *td;
	struct ut_event ev;       /* the record at hand (its text and stack are the reader's) */
	bool end;
	bool err;                 /* ended by a read error: @errmsg says which */
	char errmsg[256];
};

void ut_file_src_init(struct ut_file_src *f, struct ut_tracedat *td);

#endif
