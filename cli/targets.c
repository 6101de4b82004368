// SPDX-License-Identifier: MIT
/*
 * What the live commands act on (cli/targets.h): -P PID... (each must have
 * a session) or every traced process of the user, -B NAME an instance.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/targets.h"
#include "common/control.h"

void ut_tgt_add(struct ut_targets *t, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v <= 0 || v > 0x7fffffff)
		ut_usage_die("bad pid '%s'", arg);
	if (t->n == sizeof(t->pids) / sizeof(t->pids[0]))
		ut_usage_die("too many -P");
	t->pids[t->n++] = (int32_t)v;
}

/* The sessions of -P (each must exist), or of every live process. */
long ut_tgt_resolve(const char *rundir, const struct ut_targets *t, struct ut_live_sess **out,
		    bool include_dead)
{
	struct ut_live_sess *v = NULL;
	long n = 0;

	*out = NULL;
	if (t->n) {
		v = calloc(t->n, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < t->n; i++) {
			int r = ut_live_find(rundir, t->pids[i], &v[n]);

			if (r == -EACCES) {
				ut_err("process %d: permission denied (another user's process)",
				       t->pids[i]);
				free(v);
				return r;
			}
			if (r == -EPERM) {
				ut_err("%s", ut_live_strerror(r));
				free(v);
				return r;
			}
			if (r) {
				ut_err("process %d: no utrace session (not running with libutrace?)",
				       t->pids[i]);
				free(v);
				return r;
			}
			n++;
		}
	} else {
		struct ut_live_sess *all;
		long m = ut_live_list(rundir, &all);

		if (m < 0) {
			ut_err("%s", ut_live_strerror((int)m));
			return m;
		}
		v = calloc((size_t)m + 1, sizeof(*v));
		for (long i = 0; v && i < m; i++)
			if ((all[i].alive || include_dead) && !all[i].markers)
				v[n++] = all[i];
		free(all);
		if (!v)
			return -ENOMEM;
	}
	*out = v;
	return n;
}

/* -B NAME: the instance's number; dies if there is none. */
int ut_tgt_instance(const char *rundir, const char *name)
{
	int k = ut_inst_find(rundir, name);

	if (k < 0)
		ut_usage_die("no instance '%s' (make one with 'utrace start -B %s')", name, name);
	return k;
}

/* stop/restart -B: an instance's tracing_on, in every process and its template. */
static int toggle_instance(const char *rundir, const char *name, bool on)
{
	int k = ut_tgt_instance(rundir, name), ret;

	ret = ut_inst_set_tracing_on(rundir, k, on);
	if (ret)
		ut_err("instance %s: %s", name, ut_live_strerror(ret));
	return ret ? 1 : 0;
}

int ut_tgt_exit_for(int err)
{
	return err == -EINVAL ? UT_EXIT_USAGE : 1;
}

/* -P PID... and -B NAME; true if -h printed the help. */
bool ut_tgt_parse(int argc, char **argv, const char *help, struct ut_targets *t, const char **inst)
{
	int opt;

	optind = 1;
	while ((opt = getopt(argc, argv, "P:B:h")) != -1) {
		if (opt == 'P') {
			ut_tgt_add(t, optarg);
		} else if (opt == 'B') {
			*inst = optarg;
		} else if (opt == 'h') {
			fputs(help, stdout);
			return true;
		} else {
			ut_usage_die("bad usage (see 'utrace help %s')", argv[0]);
		}
	}
	if (optind < argc)
		ut_usage_die("unexpected argument '%s'", argv[optind]);
	return false;
}

/* tracing_on of the targets (and of the template, without -P). */
int ut_tgt_toggle(int argc, char **argv, const char *help, bool on)
{
	char rundir[PATH_MAX];
	struct ut_targets t = {0};
	struct ut_live_sess *v;
	struct ut_cfg c;
	const char *inst = NULL;
	long n;
	int ret = 0;

	if (ut_tgt_parse(argc, argv, help, &t, &inst))
		return 0;
	ut_cli_rundir(rundir, sizeof(rundir));
	if (inst)
		return toggle_instance(rundir, inst, on);
	n = ut_tgt_resolve(rundir, &t, &v, false);
	if (n < 0)
		return ut_tgt_exit_for((int)n);
	for (long i = 0; v && i < n; i++) {
		int r = ut_live_set_tracing_on(v[i].dir, on);

		if (r) {
			ut_err("process %d: %s", v[i].pid, ut_live_strerror(r));
			ret = 1;
		}
	}
	if (!t.n) {
		int r = ut_live_get_config(rundir, 0, &c);

		c.tracing_on = on;
		if (r != -EPERM) /* a template we may not trust is not edited */
			r = ut_live_set_template(rundir, 0, &c);
		if (r == -EPERM) {
			ut_err("%s", ut_live_strerror(r));
			ret = 1;
		}
		ut_cfg_free(&c);
	}
	free(v);
	return ret;
}

unsigned long ut_tgt_number(const char *arg, const char *what)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (!*arg || *end || *arg == '-')
		ut_usage_die("bad %s '%s'", what, arg);
	return v;
}
