// SPDX-License-Identifier: MIT
/*
 * Event filters in the traced process (events/SYS/EVT/filter, `record -e
 * EVENT -f FILTER`): each event's program follows the configuration's
 * event_filter line, compiled by whoever wrote it (the mount, the CLI)
 * against the event's format (common/evfilter.h), and judges an event laid
 * out as that format says before it is written: USDT probes
 * (libutrace/usdt.c) and process events (libutrace/procevents.c).  As the
 * kernel's, a filter decides whether the event is recorded; the event's
 * triggers run whatever it says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "common/evfilter.h"
#include "libutrace/internal.h"

/*
 * Give event @ev ("provider:name") the filter the configuration has for it:
 * *@f and *@prog (the configuration's word it was decoded from) replaced
 * if it changed.  A filter replaced is not freed: a thread may be
 * evaluating it now (in a SIGTRAP handler, say), and nothing says when it
 * is done.  Filters change at the pace of someone writing to a file, and
 * are a few hundred bytes.  Under ut_rt.lock.
 */
void ut_evf_follow(const char *ev, const struct ut_evf **f, char **prog)
{
	const struct ut_cfg_evf *e = ut_cfg_find_evf(&ut_rt.cfg, ev);
	struct ut_evf *nf = NULL;
	char *np = NULL;

	if (e ? *prog && !strcmp(*prog, e->prog) : !*prog)
		return; /* unchanged */
	if (e && (ut_evf_decode(e->prog, strlen(e->prog), &nf) || !(np = strdup(e->prog)))) {
		ut_evf_free(nf);
		ut_log("the filter of %s could not be used; the event is not filtered", ev);
		nf = NULL;
	}
	__atomic_store_n(f, nf, __ATOMIC_RELEASE);
	free(*prog);
	*prog = np;
}

bool ut_evf_passes(const struct ut_evf *f, uint64_t *rec, size_t len, uint32_t cpu)
{
	char comm[17] = "";
	struct ut_evf_ctx ctx = {.cpu = cpu, .comm = comm};

	if (!ut_self.tid) /* once: a system call a hit otherwise */
		ut_self.tid = (int32_t)gettid();
	rec[0] = (uint64_t)(uint32_t)ut_self.tid << 32; /* common_pid at 4; type, flags: 0 */
	if (ut_evf_uses(f) & UT_EVF_USES_COMM)
		prctl(PR_GET_NAME, comm);
	return ut_evf_match(f, rec, len, &ctx);
}
