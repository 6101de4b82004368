// SPDX-License-Identifier: MIT
/*
 * A trace.dat as a source of the merged stream (reader/stream.h): its
 * reader already merges the file's CPUs, so the stream adds the filters and
 * the loss reporting every reader shares.  A read error ends the source;
 * the message is kept for the caller.
 */
#include "reader/stream_file.h"

#include <stdio.h>

static const struct ut_event *file_peek(struct ut_stream_src *src, uint64_t *lost)
{
	struct ut_file_src *f = (struct ut_file_src *)src;

	if (!f->have && !f->end) {
		int ret = ut_tracedat_next(f->td, &f->ev, &f->lost, f->errmsg, sizeof(f->errmsg));

		if (ret != 1) {
			f->end = true;
			f->err = ret < 0;
			return NULL;
		}
		if (!f->ev.tgid)
			f->ev.tgid = ut_tracedat_tgid(f->td, f->ev.pid);
		f->have = true;
	}
	if (!f->have)
		return NULL;
	*lost = f->lost;
	return &f->ev;
}

static void file_pop(struct ut_stream_src *src)
{
	((struct ut_file_src *)src)->have = false;
}

void ut_file_src_init(struct ut_file_src *f, struct ut_tracedat *td)
{
	*f = (struct ut_file_src){.src = {.peek = file_peek, .pop = file_pop}, .td = td};
}
