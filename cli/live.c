// SPDX-License-Identifier: MIT
/* Live traces as trace.dat and as text (cli/live.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/live.h"
#include "cli/record.h"
#include "common/control.h"
#include "common/names.h"
#include "common/output/output.h"

/* The tracer the sessions run (the newest wanted one): names the file's format. */
static const char *live_tracer(const char *rundir, const int32_t *pids, size_t npids,
			       bool *found, int *clock)
{
	struct ut_live_sess *v;
	long n = ut_live_list(rundir, &v);
	const char *name = "nop";

	*found = false;
	for (long i = 0; i < n; i++) {
		size_t k = 0;

		while (pids && k < npids && pids[k] != v[i].pid)
			k++;
		if (pids && k == npids)
			continue;
		*found = true;
		*clock = (int)v[i].clock;
		if (v[i].tracer < (uint32_t)UT_NR_TRACERS && (v[i].tracer || !strcmp(name, "nop")))
			name = ut_tracer_names[v[i].tracer];
	}
	if (n > 0)
		free(v);
	return name;
}

int ut_live_snapshot(const char *rundir, const int32_t *pids, size_t npids, bool consume,
		     const char *output, uint64_t opts_bits)
{
	struct ut_opts opts = {.bits = opts_bits};
	struct ut_recorder *r;
	bool found;
	int clock = UT_CLOCK_LOCAL;
	const char *tracer = live_tracer(rundir, pids, npids, &found, &clock);
	int ret;

	if (pids && !found)
		return -ESRCH;
	r = ut_recorder_new(rundir, output, tracer, clock, &opts);
	if (!r)
		return -errno ? -errno : -ENOMEM;
	ut_recorder_set_live(r, pids, npids, consume);
	ret = ut_recorder_finish(r);
	ut_recorder_free(r);
	return ret;
}

int ut_live_print(const char *rundir, const int32_t *pids, size_t npids, bool consume,
		  FILE *f, const char *const *words, int nwords, bool header)
{
	char tmp[PATH_MAX];
	struct ut_opts opts;
	int fd, ret;

	snprintf(tmp, sizeof(tmp), "%s/utrace-show.XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	close(fd);
	ut_opts_init(&opts, 0);
	ret = ut_live_snapshot(rundir, pids, npids, consume, tmp, opts.bits);
	if (!ret)
		ret = ut_report(tmp, f, words, nwords, NULL, NULL, header) ? -EIO : 0;
	unlink(tmp);
	return ret;
}
