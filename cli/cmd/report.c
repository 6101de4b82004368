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
#include "utrace/read.h"

const char ut_help_report[] =
	"usage: utrace report [-i FILE] [-O OPTION]... [--cpu N] [--pid TID]\n"
	"\n"
	"Print a trace file (default trace.dat) exactly as the kernel's `trace` file\n"
	"prints it: for the function tracer a header, then TASK-PID [CPU] flags\n"
	"TIMESTAMP: func <-parent lines; for function_graph the call graph with\n"
	"durations (funcgraph-* options), signal handlers marked as the kernel marks\n"
	"interrupts (==========> / <==========; nofuncgraph-irqs hides them); merged\n"
	"in time order over all threads.\n"
	"\n"
	"  -i FILE          input file (default trace.dat)\n"
	"  -O OPTION        trace option, e.g. noprint-parent, sym-offset, sym-addr,\n"
	"                   noirq-info, nocontext-info, record-tgid, latency-format,\n"
	"                   raw, hex, verbose, funcgraph-proc, funcgraph-abstime,\n"
	"                   funcgraph-tail, funcgraph-retval, nofuncgraph-cpu,\n"
	"                   func-no-repeats ... (see 'utrace list -o'); repeatable.\n"
	"                   Recording options (overwrite, func_stack_trace, ...) and\n"
	"                   flags utrace cannot honour (funcgraph-args, function-fork,\n"
	"                   ...) are refused: exit 2, saying why.  C++ names print\n"
	"                   demangled; nosym-demangle prints them as the symbol\n"
	"                   table holds them (what filters match)\n"
	"  --cpu N          only events of CPU N (repeatable)\n"
	"  --pid TID        only events of thread TID (repeatable)\n";

static void idlist_add(struct ut_idlist *l, const char *s, const char *what)
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

void ut_opt_word(struct ut_opts *opts, const char *w, const char **words, int *nwords)
{
	int id = ut_opt_lookup(strncmp(w, "no", 2) != 0 ? w : w + 2);

	if (ut_opts_parse(opts, "function", w) && ut_opts_parse(opts, "function_graph", w))
		ut_usage_die("-O %s: %s (see 'utrace list -o')", w, ut_opts_why(NULL, w));
	/* what was recorded does not change after the fact */
	if (id >= 0 && ut_opt_info(id)->record)
		ut_usage_die("-O %s: it acts when recording, not on the output: give it to "
			     "record or start", w);
	if (*nwords == UT_MAX_OPT_WORDS)
		ut_usage_die("too many -O options");
	words[(*nwords)++] = w;
}

/*
 * Another tracer's flag does nothing on this file (the kernel's
 * trace_options only takes the current tracer's): exit 2 saying so.  A
 * file that cannot be read is left to ut_report() to tell.
 */
static void check_tracer_options(const char *file, const char *const *words, int nwords)
{
	struct ut_reader *r = nwords ? ut_reader_open_file(file, NULL, NULL, 0) : NULL;
	char tracer[32];

	if (!r)
		return;
	snprintf(tracer, sizeof(tracer), "%s",
		 ut_reader_tracer(r) ? ut_reader_tracer(r) : "function");
	ut_reader_close(r);
	for (int i = 0; i < nwords; i++) {
		const char *w = words[i];
		const struct ut_opt_info *info =
			ut_opt_info(ut_opt_lookup(strncmp(w, "no", 2) != 0 ? w : w + 2));

		if (info && info->tracer && strcmp(info->tracer, tracer) != 0)
			ut_usage_die("-O %s: an option of the %s tracer (%s holds a %s trace)", w,
				     info->tracer, file, tracer);
	}
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {{"cpu", required_argument, NULL, 'c'},
						 {"pid", required_argument, NULL, 'P'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	struct ut_idlist cpus = {0}, pids = {0};
	const char *file = "trace.dat";
	struct ut_opts opts;
	const char *words[UT_MAX_OPT_WORDS];
	char err[256];
	int c, ret, nwords = 0;

	ut_opts_init(&opts, 0);
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:O:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			file = optarg;
			break;
		case 'O':
			ut_opt_word(&opts, optarg, words, &nwords);
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
	check_tracer_options(file, words, nwords);
	ret = ut_report(file, stdout, words, nwords, &cpus, &pids, true, err, sizeof(err));
	if (ret) {
		/* after what was readable */
		fflush(stdout);
		ut_err("%s", err);
		ret = 1;
	}
out:
	free(cpus.v);
	free(pids.v);
	return ret;
}
