// SPDX-License-Identifier: MIT
/*
 * A trace.dat as a source of the merged stream (reader/stream.h): its
 * reader already merges the file's CPUs, so the stream adds the filters and
 * the loss reporting every reader shares.  A read error ends the source;
 * the message is kept for the caller.
 */
#include "reader/stream_file.h"

#include <stdio.h>

static bool file_refill(struct ut_stream_src *src)
{
	struct ut_file_src *f = (struct ut_file_src *)src;
	uint64_t lost = 0;
	int ret = f->end ? 0 : ut_tracedat_next(f->td, &f->ev, &lost, f->errmsg, sizeof(f->errmsg));

	if (ret != 1) {
		f->end = true;
		f->err |= ret < 0;
		return false;
	}
	if (!f->ev.tgid)
		f->ev.tgid = ut_tracedat_tgid(f->td, f->ev.pid);
	src->lost += lost;
	src->cur = &f->ev;
	src->end = &f->ev + 1;
	return true;
}

void ut_file_src_init(struct ut_file_src *f, struct ut_tracedat *td)
{
	*f = (struct ut_file_src){.src = {.refill = file_refill}, .td = td};
}
