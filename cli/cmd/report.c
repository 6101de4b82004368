// SPDX-License-Identifier: MIT
/*
 * utrace report: print a trace.dat in the kernel's `trace` format.  The
 * events of all CPUs come out merged in time order, as the kernel's trace
 * file prints them.  A corrupt file prints what is readable, then an error
 * naming the offset.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/names.h"
#include "common/output/output.h"
#include "common/tracedat.h"

const char ut_help_report[] =
	"usage: utrace report [-i FILE] [-O OPTION]... [--cpu N] [--pid TID]\n"
	"\n"
	"Print a trace file (default trace.dat) exactly as the kernel's `trace` file\n"
	"prints the function tracer: header, then TASK-PID [CPU] flags TIMESTAMP: func\n"
	"<-parent lines, merged in time order over all threads.\n"
	"\n"
	"  -i FILE          input file (default trace.dat)\n"
	"  -O OPTION        trace option, e.g. noprint-parent, sym-offset, sym-addr,\n"
	"                   noirq-info, nocontext-info, record-tgid, latency-format,\n"
	"                   raw, hex, verbose (see 'utrace list -o'); repeatable\n"
	"  --cpu N          only events of CPU N (repeatable)\n"
	"  --pid TID        only events of thread TID (repeatable)\n";

struct report_ctx {
	struct ut_tracedat *td;
};

static const char *comm_cb(void *ctx, int32_t pid)
{
	return ut_tracedat_comm(((struct report_ctx *)ctx)->td, pid);
}

static int32_t tgid_cb(void *ctx, int32_t pid)
{
	return ut_tracedat_tgid(((struct report_ctx *)ctx)->td, pid);
}

struct idlist {
	long *v;
	size_t n;
};

static void idlist_add(struct idlist *l, const char *s, const char *what)
{
	char *end;
	long v;
	long *n;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0)
		ut_usage_die("invalid %s '%s'", what, s);
	n = realloc(l->v, (l->n + 1) * sizeof(*n));
	if (!n)
		ut_usage_die("out of memory");
	l->v = n;
	l->v[l->n++] = v;
}

static bool idlist_has(const struct idlist *l, long v)
{
	if (!l->n)
		return true;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return true;
	return false;
}

struct pass {
	uint64_t entries, lost;
	bool overrun;
};

/* One read of the file: counts (for the header) or printing. */
static int read_events(const char *file, struct report_ctx *ctx, struct ut_out *out,
		       const struct idlist *cpus, const struct idlist *pids, struct pass *p,
		       bool print)
{
	struct ut_event ev[2];
	uint64_t lost[2];
	char err[256];
	char *strs[2] = {NULL, NULL};
	int cur = 0, ret, have = 0;
	struct ut_tracedat *td = ctx->td;

	/* One event of look-ahead: latency-format marks depend on the next one. */
	for (;;) {
		ret = ut_tracedat_next(td, &ev[cur], &lost[cur], err, sizeof(err));
		if (ret == 1 && (!idlist_has(cpus, ev[cur].cpu) || !idlist_has(pids, ev[cur].pid)))
			continue;
		if (ret == 1 && ev[cur].str) {
			free(strs[cur]);
			strs[cur] = strdup(ev[cur].str);
			ev[cur].str = strs[cur];
		}
		if (have) {
			int prev = cur ^ 1;

			if (print) {
				if (lost[prev])
					ut_out_print_lost(out, stdout, ev[prev].cpu, lost[prev]);
				ut_out_print_event(out, stdout, &ev[prev], ret == 1 ? &ev[cur] : NULL);
			} else {
				p->entries++;
				if (lost[prev]) {
					p->overrun = true;
					if (lost[prev] != UT_TRACEDAT_LOST_UNKNOWN)
						p->lost += lost[prev];
				}
			}
		}
		if (ret != 1)
			break;
		have = 1;
		cur ^= 1;
	}
	free(strs[0]);
	free(strs[1]);
	if (ret < 0) {
		/* The counting pass stays quiet: the printing pass reports it. */
		if (print) {
			fflush(stdout);
			ut_err("%s", err);
		}
		return -1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {{"cpu", required_argument, NULL, 'c'},
						 {"pid", required_argument, NULL, 'P'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	struct idlist cpus = {0}, pids = {0};
	const char *file = "trace.dat";
	struct ut_out_cfg cfg = {0};
	struct report_ctx ctx = {0};
	struct ut_opts opts;
	struct ut_out *out;
	struct pass p = {0};
	char err[256], tracer[32];
	int c, ret, clock;

	ut_opts_init(&opts, 0);
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:O:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			file = optarg;
			break;
		case 'O':
			if (ut_opts_parse(&opts, "function", optarg))
				ut_usage_die("unknown option '%s' (see 'utrace list -o')", optarg);
			break;
		case 'c':
			idlist_add(&cpus, optarg, "cpu");
			break;
		case 'P':
			idlist_add(&pids, optarg, "pid");
			break;
		case 'h':
			fputs(ut_help_report, stdout);
			ret = 0;
			goto out;
		default:
			ut_usage_die("bad usage (see 'utrace help report')");
		}
	}
	if (optind < argc)
		ut_usage_die("unexpected argument '%s'", argv[optind]);

	/* First pass: the header's entries/written counts. */
	ctx.td = ut_tracedat_open(file, err, sizeof(err));
	if (!ctx.td) {
		ut_err("%s", err);
		ret = 1;
		goto out;
	}
	clock = ut_name_index(ut_clock_names, UT_CLOCK_NR, ut_tracedat_clock(ctx.td));
	snprintf(tracer, sizeof(tracer), "%s",
		 ut_tracedat_tracer(ctx.td) ? ut_tracedat_tracer(ctx.td) : "function");
	cfg.tracer = tracer;
	cfg.syms = ut_tracedat_symbols(ctx.td);
	cfg.comm = comm_cb;
	cfg.tgid = tgid_cb;
	cfg.ctx = &ctx;
	cfg.nr_cpus = ut_tracedat_nr_cpus(ctx.td);
	cfg.clock_is_counter = ut_clock_is_counter(clock);
	cfg.opts = &opts;
	read_events(file, &ctx, NULL, &cpus, &pids, &p, false);
	ut_tracedat_close_reader(ctx.td);

	ctx.td = ut_tracedat_open(file, err, sizeof(err));
	if (!ctx.td) {
		ut_err("%s", err);
		ret = 1;
		goto out;
	}
	cfg.syms = ut_tracedat_symbols(ctx.td);
	out = ut_out_new(&cfg);
	if (!out)
		ut_usage_die("out of memory");
	ut_out_start(out, p.overrun);
	/* Losses no page could carry (at the very end) are in the file's total. */
	if (ut_tracedat_lost_total(ctx.td) > p.lost && !cpus.n && !pids.n)
		p.lost = ut_tracedat_lost_total(ctx.td);
	ut_out_print_header(out, stdout, p.entries, p.entries + p.lost);
	ret = read_events(file, &ctx, out, &cpus, &pids, &p, true) ? 1 : 0;
	ut_out_free(out);
	ut_tracedat_close_reader(ctx.td);
out:
	free(cpus.v);
	free(pids.v);
	return ret;
}
