// SPDX-License-Identifier: MIT
/*
 * A trace.dat as sources of the merged stream (reader/stream.h): each CPU
 * of the file is a source (ut_tracedat_cpu_next), so the file's CPUs are
 * merged by the one k-way merge every reader shares, with its filters and
 * its loss reporting.  A read error ends that CPU's source; the other CPUs
 * are read to their ends, and the message is kept for the caller (the
 * file's first error, as the reader reports it).
 */
#include "reader/stream_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static bool cpu_refill(struct ut_stream_src *src)
{
	struct ut_cpu_src *c = (struct ut_cpu_src *)src;
	struct ut_file_src *f = c->file;
	uint64_t lost = 0;
	char err[256];
	int ret = ut_tracedat_cpu_next(f->td, c->cpu, &c->ev, &lost, err, sizeof(err));

	if (ret != 1) {
		if (ret < 0 && !f->err) {
			const char *first = ut_tracedat_errmsg(f->td);

			snprintf(f->errmsg, sizeof(f->errmsg), "%s", first ? first : err);
		}
		f->err |= ret < 0;
		return false;
	}
	if (f->tgids && !c->ev.tgid)
		c->ev.tgid = ut_tracedat_tgid(f->td, c->ev.pid);
	src->lost += lost;
	src->cur = &c->ev;
	src->end = &c->ev + 1;
	return true;
}

int ut_file_src_add(struct ut_file_src *f, struct ut_tracedat *td, struct ut_stream *st,
		    bool tgids)
{
	int n = ut_tracedat_nr_cpus(td);

	*f = (struct ut_file_src){.td = td, .tgids = tgids};
	f->cpus = calloc(n > 0 ? (size_t)n : 1, sizeof(*f->cpus));
	if (!f->cpus)
		return -ENOMEM;
	f->nr_cpus = n;
	for (int i = 0; i < n; i++) {
		f->cpus[i] = (struct ut_cpu_src){.src = {.refill = cpu_refill}, .file = f, .cpu = i};
		if (ut_stream_add(st, &f->cpus[i].src))
			return -ENOMEM;
	}
	return 0;
}

void ut_file_src_free(struct ut_file_src *f)
{
	free(f->cpus);
	f->cpus = NULL;
}
