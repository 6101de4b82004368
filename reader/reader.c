// SPDX-License-Identifier: MIT
/*
 * The public event reader (include/utrace/read.h: ut_reader_*): a trace.dat,
 * or a snapshot of running processes, read through the merged stream and
 * handed out as plain records with function names -- what tools built on
 * the library (examples/read_trace.c, exports, scripting) read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/control.h"
#include "common/symbols.h"
#include "reader/tracedat.h"
#include "reader/stream_file.h"

struct ut_reader {
	struct ut_tracedat *td;
	struct ut_file_src file;
	struct ut_stream *st;
	char tmp[4096]; /* a live snapshot's file, removed on close */
};

struct ut_reader *ut_reader_open_file(const char *path, const struct ut_stream_filter *f,
				      char *err, size_t errlen)
{
	struct ut_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->td = ut_tracedat_open(path, err, errlen);
	if (!r->td) {
		free(r);
		return NULL;
	}
	r->st = ut_stream_new(f);
	if (!r->st || ut_file_src_add(&r->file, r->td, r->st, true)) {
		snprintf(err, errlen, "out of memory");
		ut_reader_close(r);
		return NULL;
	}
	return r;
}

const char *ut_reader_tracer(struct ut_reader *r)
{
	return r->td ? ut_tracedat_tracer(r->td) : NULL;
}

struct ut_reader *ut_reader_open_live(const char *rundir, const int32_t *pids, size_t npids,
				      const struct ut_stream_filter *f, char *err, size_t errlen)
{
	const char *tmpdir = getenv("TMPDIR");
	struct ut_reader *r;
	char tmp[4096];
	int fd, ret;

	snprintf(tmp, sizeof(tmp), "%s/utrace-read.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return NULL;
	}
	close(fd);
	/* a snapshot: the buffers are left as they were */
	ret = ut_live_snapshot(rundir, 0, pids, npids, false, tmp, 0);
	if (ret) {
		snprintf(err, errlen, "%s: %s", rundir,
			 ret == -ESRCH ? "no traced process" : ut_live_strerror(ret));
		unlink(tmp);
		return NULL;
	}
	r = ut_reader_open_file(tmp, f, err, errlen);
	if (!r)
		unlink(tmp);
	else
		memcpy(r->tmp, tmp, sizeof(tmp));
	return r;
}

static unsigned kind_of(uint16_t type)
{
	switch (type) {
	case UT_EV_FUNCTION:
	case UT_EV_FUNCGRAPH_ENTRY:
		return UT_RECORD_CALL;
	case UT_EV_FUNCGRAPH_EXIT:
		return UT_RECORD_RETURN;
	default:
		return UT_RECORD_OTHER;
	}
}

int ut_reader_next(struct ut_reader *r, struct ut_record *rec, char *err, size_t errlen)
{
	struct ut_stream_item it;
	const struct ut_sym *sym;

	if (ut_stream_next(r->st, &it) != 1) {
		if (!r->file.err)
			return 0;
		snprintf(err, errlen, "%s", r->file.errmsg);
		return -EIO;
	}
	*rec = (struct ut_record){.lost = it.lost, .cpu = it.cpu, .kind = UT_RECORD_LOST};
	if (!it.ev)
		return 1;
	rec->kind = kind_of(it.ev->type);
	rec->ts = it.ev->ts;
	rec->tid = it.ev->pid;
	rec->pid = it.ev->tgid;
	rec->ip = it.ev->ip;
	rec->parent_ip = it.ev->parent_ip;
	rec->depth = it.ev->depth;
	sym = rec->kind != UT_RECORD_OTHER ? ut_symtab_lookup(ut_tracedat_symbols(r->td), rec->ip)
					   : NULL;
	rec->func = sym ? sym->name : NULL;
	return 1;
}

void ut_reader_close(struct ut_reader *r)
{
	if (!r)
		return;
	ut_stream_free(r->st);
	ut_file_src_free(&r->file);
	if (r->td)
		ut_tracedat_close_reader(r->td);
	if (r->tmp[0])
		unlink(r->tmp);
	free(r);
}
