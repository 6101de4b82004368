// SPDX-License-Identifier: MIT
/*
 * An instance's state that is not its configuration document (see
 * common/control.h, instances/): its tracing_on, a bit of each process's
 * control block (ctl->inst_off, bit K), which writers set directly as they
 * set the top level's flag, so that changing a filter does not undo a
 * traceoff command and a traceoff that fired in a process can be read back;
 * and the clock of its timestamps, which readers take from its document.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/control.h"
#include "utrace/abi.h"
#include "utrace/read.h"

/* Set or clear bit @inst of the inst_off word of session @sessdir. */
static void set_bit(const char *sessdir, int inst, bool on)
{
	struct ut_ctl *ctl = ut_live_map_ctl(sessdir);
	uint32_t bit = 1u << inst;

	if (!ctl)
		return;
	if (on)
		__atomic_and_fetch(&ctl->inst_off, ~bit, __ATOMIC_RELEASE);
	else
		__atomic_or_fetch(&ctl->inst_off, bit, __ATOMIC_RELEASE);
	ut_live_unmap_ctl(ctl);
}

int ut_inst_set_tracing_on(const char *rundir, int inst, bool on)
{
	struct ut_live_sess *v;
	struct ut_cfg c;
	long n;
	int ret;

	if (inst < 1 || inst > UT_MAX_INSTANCES)
		return -EINVAL;
	n = ut_live_list(rundir, &v);
	for (long i = 0; v && i < n; i++)
		if (v[i].alive)
			set_bit(v[i].dir, inst, on);
	if (n > 0)
		free(v);
	/* processes started from now on take it from the template */
	ret = ut_live_get_config(rundir, inst, &c);
	if (!ret) {
		c.tracing_on = on;
		ret = ut_live_set_template(rundir, inst, &c);
	}
	ut_cfg_free(&c);
	return ret;
}

int ut_inst_tracing_on(const char *rundir, int inst)
{
	struct ut_live_sess *v;
	struct ut_cfg c;
	long n = ut_live_list(rundir, &v);
	int on = -1;

	/* off as soon as one process has it off: a traceoff command fired there */
	for (long i = 0; v && i < n && on != 0; i++) {
		struct ut_ctl *ctl;

		if (!v[i].alive || v[i].markers || !(ctl = ut_live_map_ctl(v[i].dir)))
			continue;
		on = !(__atomic_load_n(&ctl->inst_off, __ATOMIC_ACQUIRE) & (1u << inst));
		ut_live_unmap_ctl(ctl);
	}
	if (n > 0)
		free(v);
	if (on >= 0)
		return on;
	/* no process: what new ones will start with */
	ut_live_get_config(rundir, inst, &c);
	on = c.tracing_on;
	ut_cfg_free(&c);
	return on;
}

uint32_t ut_inst_clock(const char *rundir, const char *sessdir, int inst)
{
	struct ut_cfg c;
	char path[PATH_MAX];
	uint32_t clock;

	snprintf(path, sizeof(path), "%s/config.i%d", sessdir, inst);
	/* a process that was never told otherwise runs with the template's */
	if (access(path, F_OK))
		sessdir = rundir;
	ut_live_get_config(sessdir, inst, &c);
	clock = c.clock < UT_CLOCK_NR ? c.clock : UT_CLOCK_LOCAL;
	ut_cfg_free(&c);
	return clock;
}
