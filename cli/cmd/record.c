// SPDX-License-Identifier: MIT
/*
 * utrace record: run a program with the runtime preloaded, drain its threads'
 * ring buffers while it runs, and write trace.dat when it ends.
 *
 * Sessions of the program and of every process it forks or execs appear in
 * a private run-time directory (UTRACE_DIR, the one setting passed in the
 * environment), whose "config" document configures them as `utrace start`'s
 * template does every process of the user.  Each pass copies new ring data into one
 * spool file per thread (on disk, next to the output, so memory stays
 * bounded).  At the end the spools are decoded, merged in time order and
 * written per CPU into trace.dat (reader/tracedat_write.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cfg_opts.h"
#include "cli/evfilter_opt.h"
#include "cli/cli.h"
#include "cli/plain.h"
#include "cli/ran.h"
#include "common/clock.h"
#include "common/control.h"
#include "common/elfsites.h"
#include "common/pltsyms.h"
#include "common/cxxname.h"
#include "common/demangle.h"
#include "common/whynosite.h"
#include "common/filter.h"
#include "common/names.h"
#include "common/output/output.h"
#include "cli/usdt_words.h"

const char ut_help_record[] =
	"usage: utrace record [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"       utrace record [OPTIONS] -P PID...\n"
	"\n"
	"Run PROGRAM with libutrace.so preloaded and record its trace (and that of\n"
	"every process it starts, however: fork, vfork, posix_spawn, system(), an\n"
	"environment of its own) to a trace-cmd trace.dat file.  PROGRAM is run as\n"
	"the shell would: found in PATH, a script through its #! interpreter.\n"
	"With -P, record running processes (started with libutrace.so) instead,\n"
	"until they exit or utrace gets Ctrl-C; their configuration is put back\n"
	"as it was afterwards.  \"utrace: recording process PID (Ctrl-C to stop)\"\n"
	"on stderr says that every one of them traces as asked from then on.\n"
	"\n"
	"  -P PID           a running process to record (repeatable)\n"
	"  -p TRACER        function_graph, function or nop (default: function; nop\n"
	"                   with -e)\n"
	"  -e EVENT         record USDT probes (<sys/sdt.h>) as events (set_event):\n"
	"                   provider:name, globs in either part, name alone for any\n"
	"                   provider, !EVENT to leave one out; repeatable.  'utrace\n"
	"                   list -e PROGRAM' lists them.  Checked against PROGRAM and\n"
	"                   its libraries before it runs.  An enabled probe costs a\n"
	"                   trap per hit (about 1-2 us); a disabled one its nop.\n"
	"                   The process events too, with the kernel's names and\n"
	"                   fields: sched:sched_process_{fork,exec,exit,free},\n"
	"                   signal:signal_{generate,deliver}, and utrace's own\n"
	"                   utrace:{thread_start,thread_exit,dlopen,dlclose}\n"
	"  --trigger 'PROVIDER:NAME TRIGGER'\n"
	"                   an event trigger, as events/PROVIDER/NAME/trigger takes it:\n"
	"                   traceon, traceoff, stacktrace, enable_event:P:N or\n"
	"                   disable_event:P:N, each with :COUNT ('utest:pair traceoff:1':\n"
	"                   recording stops after the first pair), or hist:keys=..\n"
	"                   with variables and actions ('hist:keys=common_pid:ts0=\n"
	"                   common_timestamp.usecs', onmatch(P.N).trace(SYNTH,$v,F),\n"
	"                   onmax($v).save(F), onchange($v).save(F)); repeatable.  The\n"
	"                   event need not be enabled (-e) for its trigger to act.\n"
	"                   'ftrace:print TRIGGER' (trace_marker's event, fields ip,\n"
	"                   buf, common_pid; no hist variables) fires on the\n"
	"                   program's utrace_marker() and on writes to the mount's\n"
	"                   processes/PID/trace_marker\n"
	"  --synth 'NAME TYPE FIELD[; TYPE FIELD]..'\n"
	"                   a synthetic event (synthetic_events; u64 s32 pid_t ..,\n"
	"                   char name[], char comm[16]: strings),\n"
	"                   written by onmatch(); enable it with -e synthetic:NAME and\n"
	"                   give it triggers with --trigger 'synthetic:NAME ..'.\n"
	"                   Variables match events within one process (its threads),\n"
	"                   not across processes\n"
	"  --event-pid PID[,PID..]\n"
	"                   events only from these pids (set_event_pid; a process id\n"
	"                   stands for all its threads); with -O event-fork the\n"
	"                   processes they fork too; repeatable\n"
	"  --event-notrace-pid PID[,PID..]\n"
	"                   no events from these pids (set_event_notrace_pid); with\n"
	"                   -O event-fork not from the processes they fork either\n"
	"  -f FILTER        after -e EVENT: record its events only when FILTER holds\n"
	"                   (the kernel's event filter: 'arg1 > 3 && comm == \"x\"',\n"
	"                   == != < <= > >= & on numbers, == != ~ (glob) on strings,\n"
	"                   && || ! ( ), common_pid, comm, CPU); judged in the program\n"
	"                   before anything is written; a USDT probe's fields or a\n"
	"                   process event's (-e sched:sched_process_fork -f\n"
	"                   'child_comm ~ \"w*\"')\n"
	"  -l PATTERN       trace only matching functions (set_ftrace_filter); repeatable;\n"
	"                   C++ names as demangled or mangled: 'ns::C::f' (every\n"
	"                   overload), 'ns::C::*', 'ns::f(int)' (see 'utrace help list');\n"
	"                   any name of a function with several (aliases) selects it\n"
	"  -n PATTERN       never trace matching functions (set_ftrace_notrace); repeatable\n"
	"                   patterns: name, x*, *x, *x*, globs, !pat, pat:mod:LIB, :mod:LIB\n"
	"                   checked against PROGRAM and its libraries before it runs; for a\n"
	"                   script, or a program without sites, against what ran, after\n"
	"  -g PATTERN       function_graph: only these functions and what they call\n"
	"                   (set_graph_function); repeatable\n"
	"  --graph-notrace PATTERN\n"
	"                   function_graph: hide these functions and all below them\n"
	"  --max-graph-depth N\n"
	"                   function_graph: only calls at depth < N (0: unlimited)\n"
	"  --thresh US      function_graph: only calls lasting at least US microseconds\n"
	"  --func-stack     function: a <stack trace> after each event\n"
	"                   (options/func_stack_trace); unwinds with .eh_frame\n"
	"  -b KB            ring buffer size per thread in KiB (default 1408)\n"
	"  --buffer-total KB\n"
	"                   buffer_total_size_kb: a process's thread buffers together\n"
	"                   (default 65536; live threads always get one; record never\n"
	"                   overwrites data it has not taken)\n"
	"  -C CLOCK         local (default), global, mono, mono_raw, boot, perf,\n"
	"                   counter, uptime, x86-tsc\n"
	"  -o FILE          output file (default trace.dat); a file there is replaced\n"
	"                   (a hard link to it keeps the old trace); a pipe or\n"
	"                   /dev/stdout gets the whole file when the program ends\n"
	"  --no-compress    write trace.dat version 6, uncompressed (default: version 7\n"
	"                   with zstd-compressed sections, which trace-cmd 3.x reads;\n"
	"                   compressed on the other cores: UTRACE_COMPRESS_THREADS=N)\n"
	"  --compress-level N\n"
	"                   zstd level, -100 to 22 (default -1: about 10 bytes per call\n"
	"                   for function_graph, 2 for function)\n"
	"  --compress-adaptive\n"
	"                   store a chunk uncompressed whenever compressing falls\n"
	"                   behind the program: a third less wall time on a machine\n"
	"                   with no core to spare, files up to 7 times larger\n"
	"  -O OPTION        trace option (see 'utrace list -o'); noOPTION to clear;\n"
	"                   -O overwrite: flight-recorder buffers (default: keep all);\n"
	"                   -O drop: a full buffer drops new events and counts them,\n"
	"                   as the kernel's (default: every event is kept; what\n"
	"                   utrace cannot write yet waits on disk, and the program\n"
	"                   waits only past that backlog's bound);\n"
	"                   -O plt: library calls too, through every object's PLT\n"
	"                   and GOT, as calls of the function in the library that\n"
	"                   defines it (`malloc [libc]`); unlike uftrace, off unless\n"
	"                   a filter word names a library function (-l malloc: then\n"
	"                   on, and said), so the graph stays the program's own;\n"
	"                   -O noplt: off whatever the words (README, Library\n"
	"                   calls; 'utrace list -O plt -f' lists them);\n"
	"                   output options are kept in the file for report.  One\n"
	"                   that would do nothing (another tracer's, the profiler's,\n"
	"                   a flag utrace cannot honour) is refused: exit 2.\n"
	"                   -O patch-prologue: functions without a site (a plain -O2\n"
	"                   build, its libraries, dlopen'ed ones; not libc or the\n"
	"                   loader) are traced by moving their first instructions\n"
	"                   out of line ('utrace list -O patch-prologue -f PROGRAM'\n"
	"                   lists them, 'utrace list -f PROGRAM --untraceable' the\n"
	"                   refused ones and why).  The default for a PROGRAM\n"
	"                   without sites of its own (said in a note; with -P, for\n"
	"                   each process whose program has none); -O\n"
	"                   nopatch-prologue: never\n"
	"                   -O inlined: the copies the compiler inlined are traced\n"
	"                   as calls of the function inlined, from the debug info\n"
	"                   of -g (function_graph: a leaf line marked /* inlined */;\n"
	"                   'utrace list --inlined -f PROGRAM' lists them and which\n"
	"                   cannot be patched, and why)\n"
	"\n"
	"The program's stdin, stdout, stderr, signals and exit status are its own;\n"
	"utrace record exits with the program's status, once every process it\n"
	"started has exited too (after the program itself, Ctrl-C stops the wait).\n"
	"Every event is kept, and the program does not wait for utrace's writer:\n"
	"what it cannot convert and compress yet goes to a spool file next to the\n"
	"output, read back as it goes (and after the program).  A thread waits\n"
	"for room in its buffer only when that backlog reaches its bound (a\n"
	"quarter of the free disk, 4 GiB at most), said on stderr from a second of\n"
	"waits in all; if utrace stops draining for a second, killed or stopped,\n"
	"the program goes on and drops.  Lost events, if any (-O drop, -O overwrite,\n"
	"a signal handler traced inside the tracer), are counted on stderr and in\n"
	"the file; events of a lossless record that utrace failed to read (a bug)\n"
	"are said apart, with the process and thread that wrote them.\n"
	"\n"
	"The file is written while the program runs, by a thread on another core\n"
	"(on one CPU the program is left without, while it is behind or while the\n"
	"program has fewer threads than there are CPUs), and goes\n"
	"on after the program ends (clocks counter, uptime and x86-tsc, and -P,\n"
	"write it after the run).  If writing fails (a full disk, a file\n"
	"size limit), record says so and the program runs on untraced; the file\n"
	"keeps what was written before, which report reads up to its last whole\n"
	"chunk.\n";

const char ut_help_profile[] =
	"usage: utrace profile [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM with the function profiler (function_profile_enabled) and print\n"
	"its trace_stat/function table when it ends: per function the calls (Hit),\n"
	"their total and average duration and its variance (s^2), sorted by Time;\n"
	"all threads merged, then one table per thread if there are several.  No\n"
	"events are written, so it costs less than function_graph.\n"
	"\n"
	"  -l PATTERN / -n PATTERN   which functions (set_ftrace_filter / notrace)\n"
	"  -O nograph-time           Time excludes time spent in callees\n"
	"  -O nosleep-time           Time counts the thread's CPU time only\n"
	"  --thresh US               hide functions whose average is below US\n"
	"  -o FILE                   write the tables to FILE (default: stdout, after\n"
	"                            the program's own output)\n";

struct rec_opts {
	struct ut_cfg cfg;        /* what the program is to trace (cli/cfg_opts.h) */
	const char *output;
	bool profile;             /* utrace profile */
	bool tracer_given;        /* -p was given */
	bool output_given;
	struct ut_opts opts;      /* -O: the report's options */
	int32_t pids[64];         /* -P */
	size_t npids;
	bool check_after;         /* the words are checked after the run (see check_filters) */
	bool compress;            /* trace.dat version 7, zstd (--no-compress: version 6) */
	int zlevel;               /* --compress-level */
	bool zpace;               /* --compress-adaptive: chunks stored raw while the writer is behind */
	bool plt_said;            /* -O plt or -O noplt given (else words may turn library calls on) */
	bool prologue_said;       /* -O [no]patch-prologue given (else a plain program turns it on) */
	bool plain;               /* it did (cli/plain.c) */
	bool static_prog;         /* linked statically: said, and nothing to check after */
};

/* PROGRAM as execvp would find it, for the checks made before running it. */
static int find_program(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/')) {
		snprintf(out, len, "%s", prog);
		return access(out, X_OK) ? -errno : 0;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		snprintf(out, len, "%.*s/%s", (int)n, p, prog);
		if (!access(out, X_OK))
			return 0;
		p += n + (e ? 1 : 0);
	}
	return -ENOENT;
}

enum { LIST_OK, LIST_NOMATCH, LIST_PENDING };

/*
 * One list's words against @t: LIST_NOMATCH with the first word matching
 * nothing in @bad; LIST_PENDING if ":mod:" words name modules @t does not
 * have (their "FUNC:mod:MOD" lines in @bad); else LIST_OK.
 */
static int list_matches(struct ut_ftable *t, unsigned flags, const char *words, char *bad,
			size_t len)
{
	struct ut_fset *s;
	char *text = NULL;
	int ret = LIST_OK;

	if (!words)
		return LIST_OK;
	s = ut_fset_new(t, flags);
	if (s && ut_fset_set(s, words, true, bad, len) == -EINVAL) {
		ret = LIST_NOMATCH;
	} else if (s && ut_fset_nr_pending(s) && !ut_fset_format(s, NULL, &text, NULL)) {
		/* the pending entries are the listing's last lines */
		size_t n = ut_fset_nr_pending(s), at = strlen(text);

		while (at > 0 && n) {
			at--;
			n -= at == 0 || text[at - 1] == '\n';
		}
		snprintf(bad, len, "%s", text + at);
		for (char *nl = strchr(bad, '\n'); nl; nl = strchr(nl, '\n'))
			*nl = nl[1] ? ' ' : '\0';
		ret = LIST_PENDING;
	}
	free(text);
	ut_fset_free(s);
	return ret;
}

/*
 * Why @bad matches nothing, from the program's and its libraries' symbols
 * and debug info (common/whynosite.h): the lines told after the error.
 */
static bool patching_prologues; /* -O patch-prologue: say why a function is refused */

static char *why_no_site(const char *bad, const char *prog)
{
	struct ut_objlist l;
	char *why = NULL;

	if (!ut_elfsites_objects(prog, true, true, &l)) {
		why = ut_why_untraced(bad, l.v, l.n, patching_prologues);
	}
	ut_objlist_free(&l);
	if (why && why[0])
		why[strlen(why) - 1] = '\0'; /* ut_usage_die ends the line */
	return why;
}

/*
 * A word that names nothing may be a C++ member's name without its class
 * or namespace ("ParseEdge" for ManifestParser::ParseEdge): if "*::WORD"
 * selects functions, a sentence saying so in @buf, else "".
 */
static const char *member_hint(struct ut_ftable *t, const char *word, char *buf, size_t len)
{
	struct ut_fset *s;
	char alt[300];
	size_t n = 0;

	if (strchr(word, ':') || strchr(word, '!') || (word[0] == '_' && word[1] == 'Z'))
		return "";
	snprintf(alt, sizeof(alt), "*::%s", word);
	s = ut_fset_new(t, UT_FSET_FILTER);
	if (s && !ut_fset_set(s, alt, true, NULL, 0))
		n = ut_fset_count(s);
	ut_fset_free(s);
	if (!n)
		return "";
	snprintf(buf, len, "; C++ members are named with their class or namespace: '%s' selects %zu",
		 alt, n);
	return buf;
}

/*
 * One list's words against the program's functions: exit 2 naming a word
 * that matches none, and why; a ":mod:" naming no library the program
 * loads does nothing unless it dlopen()s one: say so.
 */
static void check_list(struct ut_ftable *t, unsigned flags, const char *words, const char *file,
		       const char *prog)
{
	char bad[256], hint[400];
	int r = list_matches(t, flags, words, bad, sizeof(bad));

	if (r == LIST_NOMATCH) {
		const char *h = *ut_cxx_word_hint(bad) ? ut_cxx_word_hint(bad)
						       : member_hint(t, bad, hint, sizeof(hint));
		char *why = why_no_site(bad, prog);

		ut_usage_die("%s: '%s' matches no traceable function of %s%s%s%s", file, bad, prog,
			     h, why ? "\n" : "", why ? why : "");
	}
	if (r == LIST_PENDING)
		ut_err("warning: %s: '%s' names no library %s loads at start: it takes "
		       "effect only if the program dlopen()s one",
		       file, bad, prog);
}

/*
 * The silent trap made one line: a list that selects functions the
 * compiler also inlined elsewhere does not trace those copies.  The debug
 * info is read only here, when a list has words.
 */
/*
 * Keep the objects that have a function with a site among @t's first
 * @nsites rows: a library call's copies inlined inside its library were
 * never calls through the PLT, and reading libc's debug info for them
 * cost 0.2 s per record.
 */
static void keep_sited_objects(const struct ut_ftable *t, size_t nsites, struct ut_objlist *l)
{
	size_t out = 0;

	for (size_t i = 0; i < l->n; i++) {
		bool sited = false;

		for (size_t k = 0; k < nsites && !sited; k++) {
			const struct ut_filter_func *f = ut_ftable_get(t, k);

			sited = f && (f->module ? !strcmp(f->module, l->v[i].module) : !l->v[i].module[0]);
		}
		if (sited)
			l->v[out++] = l->v[i];
		else
			free(l->v[i].path);
	}
	l->n = out;
}

static bool inlined_on; /* -O inlined: only the copies it cannot trace are missed */

static void note_inlined(struct ut_ftable *t, unsigned flags, const char *words, const char *file,
			 const char *prog, bool libs, size_t nsites)
{
	struct ut_fset *s = words ? ut_fset_new(t, flags) : NULL;
	struct ut_objlist l;
	char bad[256], *note = NULL;

	if (!s)
		return;
	if (!ut_fset_set(s, words, true, bad, sizeof(bad)) &&
	    !ut_elfsites_objects(prog, true, libs, &l)) {
		keep_sited_objects(t, nsites, &l);
		note = ut_inlined_missed(t, s, l.v, l.n, file, inlined_on);
		ut_objlist_free(&l);
	}
	if (note)
		ut_err("note: %s", note);
	free(note);
	ut_fset_free(s);
}

/* @nsites: @t's first rows, the functions with sites (library calls follow) */
static void note_lists(struct ut_ftable *t, const struct rec_opts *o, const char *prog, bool libs,
		       size_t nsites)
{
	note_inlined(t, UT_FSET_FILTER, o->cfg.filter, "set_ftrace_filter", prog, libs, nsites);
	note_inlined(t, UT_FSET_GRAPH, o->cfg.graph_function, "set_graph_function", prog, libs,
		     nsites);
}

/* Every filter word matches a function of @t (which word does not is told later). */
static bool lists_match(struct ut_ftable *t, const struct rec_opts *o)
{
	char bad[256];

	return list_matches(t, UT_FSET_FILTER, o->cfg.filter, bad, sizeof(bad)) == LIST_OK &&
	       list_matches(t, UT_FSET_NOTRACE, o->cfg.notrace, bad, sizeof(bad)) == LIST_OK &&
	       list_matches(t, UT_FSET_GRAPH, o->cfg.graph_function, bad, sizeof(bad)) ==
		       LIST_OK &&
	       list_matches(t, UT_FSET_GRAPH_NOTRACE, o->cfg.graph_notrace, bad, sizeof(bad)) ==
		       LIST_OK;
}

/* -O plt: the library calls of the program and its libraries are functions words may name. */
static long add_library_calls(struct ut_ftable *t, const char *prog)
{
	char rt[PATH_MAX];
	struct ut_objlist l;
	long n;

	if (ut_elfsites_objects(prog, true, true, &l))
		return -ENOMEM;
	n = ut_pltsyms_add(t, &l, ut_find_runtime(rt, sizeof(rt)) ? NULL : rt);
	ut_objlist_free(&l);
	return n;
}

/*
 * Whether library calls are among the functions words may name: with
 * -O plt; and, unless -O noplt, when the words name functions only library
 * calls have (`-l malloc`, `:mod:libc`): then record traces library calls
 * as -O plt would, and says so.  Words that all match functions with sites
 * never turn them on, so a glob meant for the program (`-l 'parse_*'`)
 * does not pull in a library's functions too.
 */
static bool want_library_calls(struct ut_ftable *t, struct rec_opts *o, const char *prog)
{
	if (o->plt_said && !o->cfg.plt)
		return false;
	if (!o->cfg.plt && lists_match(t, o))
		return false;
	if (add_library_calls(t, prog) <= 0)
		return false;
	if (!o->cfg.plt && lists_match(t, o)) {
		o->cfg.plt = true;
		ut_err("note: tracing library calls (-O plt): the filter words name some");
	}
	return o->cfg.plt;
}

/*
 * Check the filters against the program's functions before running anything.
 * The program's libraries are only looked at (a run of the dynamic loader: a
 * dozen ms here) when the program alone is not enough: no named sites of
 * its own, or a filter word that matches none of them.
 */
static void check_filters(const char *prog, struct rec_opts *o)
{
	struct ut_ftable *t = ut_ftable_new();
	int nobj = 0, ret;

	ut_elfsites_with_prologues(o->cfg.patch_prologue);
	ut_elfsites_with_inlined(o->cfg.inlined);
	inlined_on = o->cfg.inlined;
	patching_prologues = o->cfg.patch_prologue;
	if (!t || ut_ftable_set_demangle(t, ut_demangle_alloc)) {
		ut_ftable_free(t);
		return;
	}
	/*
	 * No words to check: that the program has a site of its own is
	 * enough, or that it is a plain program patched by default (its
	 * functions were looked for: planning them all here too took half a
	 * second for python3).
	 */
	if (!o->cfg.filter && !o->cfg.notrace && !o->cfg.graph_function && !o->cfg.graph_notrace &&
	    !o->cfg.inlined && (o->plain || (!o->cfg.patch_prologue && ut_elfsites_any(prog) > 0))) {
		ut_ftable_free(t);
		return;
	}
	ret = ut_elfsites_file(t, prog, NULL);
	if (ret == -ENOEXEC) {
		/*
		 * A script, run as the shell would (its #! interpreter, else
		 * /bin/sh): which programs it runs is known only as they start,
		 * so each takes the words that match its functions.
		 */
		o->check_after = true;
		ut_ftable_free(t);
		return;
	}
	if (ret > 0 && ut_ftable_size(t) > 0 && lists_match(t, o)) {
		note_lists(t, o, prog, false, ut_ftable_size(t));
		ut_ftable_free(t);
		return;
	}
	nobj = ret > 0;
	if (ret >= 0)
		ut_elfsites_libraries(t, prog, &nobj);
	size_t nsites = ut_ftable_size(t);

	if (ret >= 0 && want_library_calls(t, o, prog))
		nobj++;
	size_t nmain = 0;

	for (size_t i = 0; i < ut_ftable_size(t); i++)
		nmain += ut_ftable_get(t, i) && !ut_ftable_get(t, i)->module;
	bool stripped = !nmain && ut_elfsites_instrumented(prog);

	if (stripped)
		ut_err("warning: %s is stripped: its functions have sites but no names "
		       "(no symbol table), so none can be traced; trace an unstripped build",
		       prog);
	/*
	 * A program without sites (a shell, env, an interpreter) can only be
	 * here to run others: the words are for them, matched as they start,
	 * and whether anything could be traced is known after the run.  A
	 * stripped one is the program meant, whose names are missing.
	 */
	o->check_after = !nobj && !stripped && !o->static_prog;
	if (!nobj && stripped && (o->cfg.filter || o->cfg.graph_function))
		ut_usage_die("'%s' matches no traceable function of %s",
			     o->cfg.filter ? o->cfg.filter : o->cfg.graph_function, prog);
	if (nobj) {
		check_list(t, UT_FSET_FILTER, o->cfg.filter, "set_ftrace_filter", prog);
		check_list(t, UT_FSET_NOTRACE, o->cfg.notrace, "set_ftrace_notrace", prog);
		check_list(t, UT_FSET_GRAPH, o->cfg.graph_function, "set_graph_function", prog);
		check_list(t, UT_FSET_GRAPH_NOTRACE, o->cfg.graph_notrace, "set_graph_notrace",
			   prog);
		note_lists(t, o, prog, true, nsites);
	}
	ut_ftable_free(t);
}

/*
 * -e words: each must name a probe of the program or of a library it
 * loads (a script's programs are known only as they run: not checked); a
 * provider none of them has may come with a dlopen: said, not refused.
 */
/* --trigger: the events named and their fields there, as -e's words. */
static void check_triggers(const char *prog, struct ut_objlist *objs, const char *triggers)
{
	char why[256];
	int r = ut_usdt_check_triggers(objs, triggers, why, sizeof(why));

	if (r < 0) {
		ut_objlist_free(objs);
		if (r == -2)
			ut_usage_die("--trigger %s", why);
		ut_usage_die("--trigger: %s of %s or of its libraries", why, prog);
	}
	if (r > 0)
		ut_err("warning: --trigger: %s of %s or of the libraries it loads at start; it "
		       "applies if the program dlopen()s one that has it",
		       why, prog);
}

static void check_events(const char *prog, struct rec_opts *o)
{
	struct ut_objlist objs;
	char word[256], why[512];

	if (ut_usdt_check_synth(o->cfg.triggers, o->cfg.synth, why, sizeof(why)))
		ut_usage_die("--trigger %s", why);

	if ((!o->cfg.events && !o->cfg.triggers) || (o->check_after && !ut_evf_opt_pending()) ||
	    ut_elfsites_objects(prog, true, true, &objs)) {
		if (ut_evf_opt_pending())
			ut_usage_die("-f: the events' formats come from %s's probes, which "
				     "cannot be read before it runs", prog);
		return;
	}
	if (!o->check_after)
		check_triggers(prog, &objs, o->cfg.triggers);
	/* -f: a program checked after it ran (no sites) still has its probes read now */
	switch (o->check_after || !o->cfg.events
			? UT_USDT_WORD_OK
			: ut_usdt_check_words(&objs, o->cfg.events, word, sizeof(word))) {
	case UT_USDT_WORD_UNKNOWN:
		ut_objlist_free(&objs);
		ut_usage_die("-e %s: no USDT probe of %s or of its libraries is named so "
			     "('utrace list -e %s' lists them)",
			     word, prog, prog);
	case UT_USDT_WORD_ELSEWHERE:
		ut_err("warning: -e %s: no provider of that name in %s or the libraries it "
		       "loads at start; it applies if the program dlopen()s one that has it",
		       word, prog);
		break;
	case UT_USDT_WORD_OK:
		break;
	}
	if (o->cfg.events)
		ut_evf_opt_compile(&o->cfg, &objs);
	ut_objlist_free(&objs);
}

/*
 * After a run whose words could not be checked before: warn about each
 * list's first word that matched no function of any program that ran (it
 * recorded nothing; a typo, or a program that did not run), or that
 * nothing that ran had sites at all.
 */
static void check_after_run(const char *dir, const char *prog, const struct rec_opts *o)
{
	const struct {
		unsigned flags;
		const char *words, *file;
	} lists[] = {
		{UT_FSET_FILTER, o->cfg.filter, "set_ftrace_filter"},
		{UT_FSET_NOTRACE, o->cfg.notrace, "set_ftrace_notrace"},
		{UT_FSET_GRAPH, o->cfg.graph_function, "set_graph_function"},
		{UT_FSET_GRAPH_NOTRACE, o->cfg.graph_notrace, "set_graph_notrace"},
	};
	struct ut_ftable *t = ut_ran_functions(dir);
	char bad[256];

	if (t && !ut_ftable_size(t)) {
		if (o->cfg.tracer != UT_TRACER_NOP)
			ut_err("warning: %s has no patchable functions, nor has any program it "
			       "ran: build them with -fpatchable-function-entry=5 or -pg -mfentry%s",
			       prog, o->cfg.patch_prologue ? "" : ", or try -O patch-prologue");
		ut_ftable_free(t);
		return; /* every word matched nothing: said in one line */
	}
	for (size_t i = 0; t && i < sizeof(lists) / sizeof(lists[0]); i++)
		if (list_matches(t, lists[i].flags, lists[i].words, bad, sizeof(bad)) != LIST_OK)
			ut_err("warning: %s: '%s' matched no traceable function of the programs "
			       "that ran",
			       lists[i].file, bad);
	ut_ftable_free(t);
}

/* libutrace.so next to the utrace binary, or in ../lib/utrace/ (cli/cli.h). */
int ut_find_runtime(char *out, size_t len)
{
	static const char *const rel[] = {"libutrace.so", "../lib/utrace/libutrace.so",
					  "../lib/libutrace.so"};
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *env = getenv("UTRACE_LIB");
	char *slash;

	if (env && !access(env, R_OK)) {
		snprintf(out, len, "%s", env);
		return 0;
	}
	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		slash[1] = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(out, len, "%s%s", exe, rel[i]);
		if (!access(out, R_OK))
			return 0;
	}
	return -ENOENT;
}

static pid_t child_pid;
static volatile sig_atomic_t child_done, stop_waiting;

/*
 * SIGTERM and SIGHUP go to the program (SIGINT and SIGQUIT reach it from the
 * terminal).  Once it has exited, any of them ends the wait for the
 * processes it left running.
 */
static void on_signal(int sig)
{
	if (child_done)
		stop_waiting = 1;
	else if (child_pid > 0 && (sig == SIGTERM || sig == SIGHUP))
		kill(child_pid, sig);
}

/*
 * Drain until the program and every process it started have exited: record
 * is their subreaper, so children the program left behind (a script's
 * `prog &`, a parent that did not wait) come back to it.  Returns the
 * program's wait status.
 */
static int drain_until_all_exit(struct ut_recorder *rec)
{
	int status = 0, st;

	while (!(child_done && stop_waiting)) {
		pid_t p;

		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == child_pid) {
				status = st;
				child_done = 1;
			}
		if (p < 0 && errno == ECHILD)
			break;
		/* Keep passes apart so the reader does not fight the writers
		 * for cache lines; hurry when a pass found much to do. */
		long got = ut_recorder_drain(rec);
		struct timespec ts = {0, got > 64L * 1024 ? 100 * 1000 : 1000 * 1000};

		if (got < 1024L * 1024 && !ut_recorder_pressed(rec))
			ut_recorder_nap(rec, ts.tv_nsec);
	}
	return status;
}

/*
 * The program's configuration, handed over as every traced process takes
 * one: the document (common/config.h) the run-time directory's "config"
 * holds, written as `utrace start` writes it.  The words were checked here
 * (check_filters), so they are taken leniently; and what the program execs
 * is traced whatever environment it gives (libutrace/follow.c).
 */
static int write_config(const char *dir, const struct rec_opts *o)
{
	struct ut_cfg c;
	int ret = ut_cfg_copy(&c, &o->cfg);

	if (ret)
		return ret;
	c.profile = o->profile;
	c.sleep_time = !o->profile || ut_opts_get(&o->opts, UT_OPT_SLEEP_TIME);
	c.lenient = true;
	c.follow = true;
	c.tracing_on = true;
	ret = ut_live_set_template(dir, 0, &c);
	ut_cfg_free(&c);
	return ret;
}

/* The program, with the runtime preloaded and the run-time directory its own. */
static pid_t spawn(char **argv, const char *lib, const char *dir, const char *clock_env)
{
	char preload[PATH_MAX * 2];
	const char *old = getenv("LD_PRELOAD");
	pid_t pid;

	snprintf(preload, sizeof(preload), "%s%s%s", lib, old && *old ? ":" : "",
		 old ? old : "");
	pid = fork();
	if (pid != 0)
		return pid;
	setenv("LD_PRELOAD", preload, 1);
	setenv("UTRACE_DIR", dir, 1);
	setenv(UT_CLOCK_ENV, clock_env, 1);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	execvp(argv[0], argv);
	ut_err("cannot run %s: %s", argv[0], strerror(errno));
	_exit(127);
}

enum { OPT_NO_COMPRESS = UT_CFG_OPT_NEXT, OPT_ZLEVEL, OPT_ZPACE };

static void parse_args(int argc, char **argv, struct rec_opts *o)
{
	static const struct option longopts[] = {
		UT_CFG_LONGOPTS,
		{"help", no_argument, NULL, 'h'},
		{"no-compress", no_argument, NULL, OPT_NO_COMPRESS},
		{"compress-level", required_argument, NULL, OPT_ZLEVEL},
		{"compress-adaptive", no_argument, NULL, OPT_ZPACE},
		{NULL, 0, NULL, 0},
	};
	int c;

	ut_cfg_init(&o->cfg);
	o->cfg.tracer = UT_TRACER_FUNCTION;
	o->cfg.overwrite = false; /* recording: producer/consumer, nothing overwritten */
	o->cfg.lossless = true;   /* and nothing dropped: full buffers wait (-O drop: they drop) */
	o->cfg.lossless_pid = (int32_t)getpid(); /* for whom (libutrace/backpressure.c) */
	o->output = "trace.dat";
	o->compress = true;
	o->zlevel = -1; /* measured: see docs/file-format.md, section 7 */
	ut_opts_init(&o->opts, 0);
	optind = 1;
	while ((c = getopt_long(argc, argv, "+" UT_CFG_SHORTOPTS "o:P:h", longopts, NULL)) != -1) {
		char *end;

		o->plt_said |= ut_cfg_opt_given(c, optarg, "plt");
		o->prologue_said |= ut_cfg_opt_given(c, optarg, "patch-prologue");
		o->tracer_given |= c == 'p';
		if (ut_cfg_opt(&o->cfg, &o->opts, c, optarg))
			continue;
		switch (c) {
		case 'o':
			o->output = optarg;
			o->output_given = true;
			break;
		case 'P': {
			long v = strtol(optarg, &end, 10);

			if (*end || v <= 0 || v > 0x7fffffff || o->profile)
				ut_usage_die("bad -P '%s'", optarg);
			if (o->npids == sizeof(o->pids) / sizeof(o->pids[0]))
				ut_usage_die("too many -P");
			o->pids[o->npids++] = (int32_t)v;
			break;
		}
		case OPT_ZPACE:
			o->zpace = true;
			break;
		case OPT_NO_COMPRESS:
			o->compress = false;
			break;
		case OPT_ZLEVEL: {
			long v = strtol(optarg, &end, 10);

			if (*end || !*optarg || v < -100 || v > 22)
				ut_usage_die("bad --compress-level '%s' (-100 to 22)", optarg);
			o->zlevel = (int)v;
			break;
		}
		case 'h':
			fputs(o->profile ? ut_help_profile : ut_help_record, stdout);
			exit(0);
		default:
			ut_usage_die("bad usage (see 'utrace help record')");
		}
	}
	if (o->profile && o->cfg.events)
		ut_usage_die("-e: the profiler records no events");
	if (o->cfg.events && !o->tracer_given)
		o->cfg.tracer = UT_TRACER_NOP; /* events alone, as trace-cmd record -e */
	if (o->npids && optind < argc)
		ut_usage_die("-P records running processes: no program to run");
	if (!o->npids && optind >= argc)
		ut_usage_die("no program given (see 'utrace help record')");
}

/*
 * -O options that would do nothing here are refused: another tracer's
 * flags, trace_marker's switch (markers: the mount's), and the profiler's
 * when not profiling; the profiler takes its own two and sym-demangle (its
 * table prints names) only.
 */
static void check_options(const struct rec_opts *o)
{
	const char *tracer = ut_tracer_names[o->cfg.tracer];
	struct ut_opts def;

	ut_opts_init(&def, 0);
	for (int id = 0; id < UT_OPT_NR; id++) {
		const struct ut_opt_info *info = ut_opt_info(id);
		bool prof = id == UT_OPT_SLEEP_TIME || id == UT_OPT_GRAPH_TIME;

		if (ut_opts_get(&o->opts, id) == ut_opts_get(&def, id))
			continue;
		if (o->profile && !prof && id != UT_OPT_SYM_DEMANGLE)
			ut_usage_die("-O %s: utrace profile takes -O [no]graph-time, "
				     "-O [no]sleep-time and -O [no]sym-demangle only", info->name);
		if (!o->profile && prof)
			ut_usage_die("-O %s: only 'utrace profile' uses it", info->name);
		if (id == UT_OPT_MARKERS)
			ut_usage_die("-O %s: it switches the mount's trace_marker, not recording",
				     info->name);
		if (!o->profile && info->tracer && strcmp(info->tracer, tracer) != 0)
			ut_usage_die("-O %s: an option of the %s tracer (this records %s)",
				     info->name, info->tracer, tracer);
	}
}

static volatile sig_atomic_t stop_recording;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_recording = 1;
}

/*
 * record -P: once every process applied the configuration (ut_live_set_config
 * waits for that), say so, as trace-cmd's "Hit Ctrl^C to stop recording": from
 * here on their calls are in the file (a script may wait for this line).
 */
static void say_recording(const struct rec_opts *o)
{
	fprintf(stderr, "utrace: recording process%s", o->npids > 1 ? "es" : "");
	for (size_t i = 0; i < o->npids; i++)
		fprintf(stderr, " %d", (int)o->pids[i]);
	fprintf(stderr, " (Ctrl-C to stop)\n");
}

/* record -P: the processes' configuration becomes @o's until the end. */
static int record_running(struct rec_opts *o)
{
	struct sigaction act = {.sa_handler = on_stop_signal};
	struct ut_live_sess sess[64];
	struct ut_cfg old[64];
	char rundir[PATH_MAX], err[256];
	struct ut_recorder *rec;
	int ret = 0;

	ut_cli_rundir(rundir, sizeof(rundir));
	for (size_t i = 0; i < o->npids; i++) {
		ret = ut_live_find(rundir, o->pids[i], &sess[i]);
		if (ret || !sess[i].alive) {
			ut_err("process %d: %s", o->pids[i],
			       ret == -EACCES  ? "permission denied (another user's process)"
			       : ret == -EPERM ? ut_live_strerror(ret)
					       : "not running with libutrace");
			return 1;
		}
	}
	if (ut_evf_opt_pending()) { /* -f: against the probes the processes loaded */
		struct ut_objlist l;

		ut_ran_objects(rundir, &l);
		ut_evf_opt_compile(&o->cfg, &l);
		ut_objlist_free(&l);
	}
	for (size_t i = 0; i < o->npids; i++) {
		struct ut_cfg buf;

		ut_live_get_config(sess[i].dir, 0, &old[i]);
		ret = ut_live_set_config(sess[i].dir,
					 ut_plain_for_process(o->pids[i], &o->cfg, o->prologue_said, &buf),
					 err, sizeof(err));
		if (ret) {
			ut_err("process %d: %s", o->pids[i], err);
			for (size_t k = 0; k <= i; k++) {
				if (k < i)
					ut_live_set_config(sess[k].dir, &old[k], err, sizeof(err));
				ut_cfg_free(&old[k]);
			}
			return ret == -EINVAL ? UT_EXIT_USAGE : 1;
		}
		ut_live_clear(sess[i].dir, 0);
	}
	rec = ut_recorder_new(rundir, o->output, ut_tracer_names[o->cfg.tracer], (int)o->cfg.clock,
			      &o->opts);
	if (!rec)
		ut_usage_die("out of memory");
	ut_recorder_set_compress(rec, o->compress, o->zlevel);
	ut_recorder_set_compress_pace(rec, o->zpace);
	ut_recorder_set_live(rec, o->pids, o->npids, true);
	ut_recorder_set_lossless(rec, o->cfg.lossless && !o->cfg.overwrite);
	say_recording(o);
	ut_drain_realtime(true); /* passes are short and it naps: no spinning */
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGHUP, &act, NULL);
	while (!stop_recording) {
		struct timespec ts = {0, 1000L * 1000};
		bool any = false;

		for (size_t i = 0; i < o->npids; i++) {
			struct ut_live_sess now;

			any |= !ut_live_find(rundir, o->pids[i], &now) && now.alive;
		}
		if (!any)
			break;
		if (ut_recorder_drain(rec) < 1024L * 1024 && !ut_recorder_pressed(rec))
			ut_recorder_nap(rec, ts.tv_nsec);
	}
	for (size_t i = 0; i < o->npids; i++) {
		ut_live_set_config(sess[i].dir, &old[i], err, sizeof(err));
		ut_cfg_free(&old[i]);
	}
	ut_drain_realtime(false); /* the write-out is long: a normal thread again */
	ret = ut_recorder_finish(rec);
	ut_recorder_free(rec);
	if (ret)
		ut_err("writing %s failed: %s", o->output, strerror(-ret));
	return ret ? 1 : 0;
}

/*
 * "recorder" in the run's directory: who records (pid, CLOCK_MONOTONIC ns
 * now), so that `utrace reset` can tell a recording whose recorder was
 * killed (common/orphans.c).
 */
static int write_recorder(const char *dir)
{
	char path[PATH_MAX];
	struct timespec now;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &now);
	snprintf(path, sizeof(path), "%s/recorder", dir);
	f = fopen(path, "wx");
	if (!f)
		return -errno;
	fprintf(f, "%d %llu\n", (int)getpid(),
		(unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec);
	return fclose(f) ? -EIO : 0;
}

/*
 * The run's private directory, made in /dev/shm/utrace-<uid> once that is
 * known to be ours (common/safedir.h): nobody else can then reach it.  Its
 * "config" is @o's (write_config).
 */
static int mkdirs_session(char *dir, size_t len, const struct rec_opts *o)
{
	char base[64];
	int fd, ret;

	snprintf(base, sizeof(base), "/dev/shm/utrace-%u", (unsigned)getuid());
	fd = ut_live_root(base, true);
	if (fd < 0)
		return fd;
	close(fd);
	snprintf(dir, len, "%s/rec.XXXXXX", base);
	if (!mkdtemp(dir))
		return -errno;
	ret = write_recorder(dir);
	if (!ret)
		ret = write_config(dir, o);
	if (ret)
		ut_live_remove(dir);
	return ret;
}

static int run(int argc, char **argv, bool profile);

int cmd_record(int argc, char **argv)
{
	return run(argc, argv, false);
}

int cmd_profile(int argc, char **argv)
{
	return run(argc, argv, true);
}

/* The profile's stream (stdout or -o), or, recording, -o checked writable (NULL). */
static FILE *open_output(const struct rec_opts *o)
{
	FILE *stats = NULL;
	struct stat st;
	int fd;

	if (o->profile) {
		stats = o->output_given ? fopen(o->output, "w") : stdout;
		if (!stats)
			ut_usage_die("cannot write %s: %s", o->output, strerror(errno));
		return stats;
	}
	/* a pipe is not opened: a reader would see its end */
	if (stat(o->output, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		if (access(o->output, W_OK))
			ut_usage_die("cannot write %s: %s", o->output, strerror(errno));
		return NULL;
	}
	fd = open(o->output, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		ut_usage_die("cannot write %s: %s", o->output, strerror(errno));
	close(fd);
	return NULL;
}

/* The session directory (in @dir) with its config document, and its recorder. */
static struct ut_recorder *new_recorder(const struct rec_opts *o, FILE *stats, char *dir,
					size_t dirlen)
{
	char spool[PATH_MAX];
	struct ut_recorder *rec;
	int ret = mkdirs_session(dir, dirlen, o);

	if (ret)
		ut_usage_die("cannot create a session directory: %s", ut_live_strerror(ret));
	if (o->profile) /* no trace file: spool (empty) inside the session dir */
		snprintf(spool, sizeof(spool), "%s/profile", dir);
	rec = ut_recorder_new(dir, o->profile ? spool : o->output, ut_tracer_names[o->cfg.tracer],
			      (int)o->cfg.clock, &o->opts);
	if (!rec)
		ut_usage_die("out of memory");
	ut_recorder_set_lossless(rec, o->cfg.lossless && !o->cfg.overwrite);
	ut_recorder_set_compress(rec, o->compress, o->zlevel);
	ut_recorder_set_compress_pace(rec, o->zpace);
	ut_recorder_set_streaming(rec, !o->profile);
	if (o->profile)
		ut_recorder_set_profile(rec, stats, ut_opts_get(&o->opts, UT_OPT_GRAPH_TIME) > 0,
					UT_STAT_WIDE | (ut_opts_get(&o->opts, UT_OPT_SYM_DEMANGLE) > 0 ?
							UT_STAT_DEMANGLE : 0),
					o->cfg.thresh_us * 1000);
	return rec;
}

/* record's exit: the program's status, or death by its signal. */
static int exit_as(int status)
{
	if (WIFSIGNALED(status)) {
		struct sigaction dfl = {.sa_handler = SIG_DFL};

		sigaction(WTERMSIG(status), &dfl, NULL);
		kill(getpid(), WTERMSIG(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int run(int argc, char **argv, bool profile)
{
	struct rec_opts o = {.profile = profile};
	FILE *stats;
	char prog[PATH_MAX], lib[PATH_MAX], dir[PATH_MAX / 2], clock_env[128];
	struct ut_recorder *rec;
	static const int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
	struct sigaction act = {.sa_handler = on_signal};
	int status = 0, ret;

	parse_args(argc, argv, &o);
	check_options(&o);
	o.cfg.profile = o.profile;
	o.cfg.func_stack |= ut_opts_get(&o.opts, UT_OPT_FUNC_STACK_TRACE) > 0;
	ut_cfg_check(&o.cfg);
	o.cfg.profile = false;
	if (o.npids) {
		ret = record_running(&o);
		ut_cfg_free(&o.cfg);
		return ret;
	}
	if (o.profile && o.cfg.tracer != UT_TRACER_FUNCTION)
		ut_usage_die("profile takes no tracer: the profiler runs on its own");
	if (o.profile)
		o.cfg.tracer = UT_TRACER_NOP;
	ret = find_program(argv[optind], prog, sizeof(prog));
	if (ret)
		ut_usage_die("%s: %s", argv[optind], strerror(-ret));
	o.static_prog = ut_static_program(prog);
	if (o.static_prog)
		ut_err("warning: %s is linked statically: libutrace.so cannot be loaded into it, "
		       "so nothing it runs itself is traced (link it dynamically)",
		       prog);
	if (ut_plain_wanted(&o.cfg, o.profile))
		o.plain = ut_plain_default(&o.cfg, o.prologue_said, prog, prog);
	check_filters(prog, &o);
	check_events(prog, &o);
	if (ut_find_runtime(lib, sizeof(lib)))
		ut_usage_die("cannot find libutrace.so (set UTRACE_LIB)");
	stats = open_output(&o);
	rec = new_recorder(&o, stats, dir, sizeof(dir));

	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); /* wake up on time: buffers fill in ms */
	prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0, 0, 0); /* see drain_until_all_exit */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &act, NULL);
	ut_recorder_clock_env(rec, clock_env, sizeof(clock_env));
	child_pid = spawn(argv + optind, lib, dir, clock_env);
	if (child_pid < 0)
		ut_usage_die("fork: %s", strerror(errno));
	/* a file-size limit is a write error to report (and keep what fits), not death */
	signal(SIGXFSZ, SIG_IGN);
	ut_drain_realtime(true); /* passes are short and it naps: no spinning */
	status = drain_until_all_exit(rec);
	fflush(stdout); /* the program's output (if shared) comes before the tables */
	ut_drain_realtime(false); /* the write-out is long: a normal thread again */
	if (o.check_after)
		check_after_run(dir, prog, &o); /* before the sessions are removed */
	ret = ut_recorder_finish(rec);
	ut_recorder_free(rec);
	if (ret)
		ut_err("writing %s failed: %s", o.profile ? "the profile" : o.output,
		       strerror(-ret));
	if (stats && stats != stdout)
		fclose(stats);
	ut_cfg_free(&o.cfg);
	return exit_as(status);
}
