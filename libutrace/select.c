// SPDX-License-Identifier: MIT
/*
 * Which sites are on: the tracer and the filters (set_ftrace_filter,
 * set_ftrace_notrace, through common/filter.c) decide each site's wanted
 * state; ut_patch_apply() then makes the bytes agree.  The filter engine's
 * function table grows in step with ut_rt.funcs (same indexes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config.h"
#include "common/cxxname.h"
#include "common/filter.h"
#include "libutrace/internal.h"

static struct ut_ftable *table;
static struct ut_fset *filter, *notrace, *gfilter, *gnotrace;
static bool configured;
static size_t alias_next; /* the first of ut_rt.aliases not in the table yet */
/* A list of patterns that matched nothing here (lenient mode): trace nothing. */
static bool filter_nothing, graph_nothing;
/* instances/: each one's set_ftrace_filter (with its commands) and set_ftrace_notrace */
static struct ut_fset *ifilter[UT_MAX_INST], *inotrace[UT_MAX_INST];
static bool inothing[UT_MAX_INST];

/*
 * The configuration changed: parse the lists again at the next apply, from
 * new sets (the old ones' function commands are not part of the new text).
 */
void ut_select_reconfigure(void)
{
	configured = false;
	if (!table)
		return;
	ut_fset_free(filter);
	ut_fset_free(notrace);
	ut_fset_free(gfilter);
	ut_fset_free(gnotrace);
	filter = ut_fset_new(table, UT_FSET_FILTER);
	notrace = ut_fset_new(table, UT_FSET_NOTRACE);
	gfilter = ut_fset_new(table, UT_FSET_GRAPH);
	gnotrace = ut_fset_new(table, UT_FSET_GRAPH_NOTRACE);
	for (int k = 1; k < UT_MAX_INST; k++) {
		ut_fset_free(ifilter[k]);
		ut_fset_free(inotrace[k]);
		ifilter[k] = ut_fset_new(table, UT_FSET_FILTER);
		inotrace[k] = ut_fset_new(table, UT_FSET_NOTRACE);
	}
}

/*
 * Test hook: with UTRACE_TEST_FUNCS=PATH, the process writes the functions
 * it found at start (its available_filter_functions then, with each one's
 * other names as `list -f -O nosym-demangle` lists them) to PATH.PID, so
 * that tests can compare the runtime's site finder with what the tools
 * list (tests/record/602); an exec'ed image keeps the file of the first.
 */
static void test_dump_table(void)
{
	const char *base = getenv("UTRACE_TEST_FUNCS");
	char path[4096], *text = NULL;
	static bool done;
	size_t len = 0;
	int fd;

	if (done || !base || !*base || ut_ftable_format_listing(table, &text, &len))
		return;
	done = true;
	snprintf(path, sizeof(path), "%s.%d", base, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, text, len) != (ssize_t)len)
			ut_log("test hook: short write to %s", path);
		close(fd);
	}
	free(text);
}

/*
 * Bring the filter table up to date with ut_rt.funcs: functions of unloaded
 * modules leave it (before new ones come, which may carry the same module
 * name after a dlclose/dlopen cycle), new functions join it.  Returns 1 if
 * the table changed, 0 if not, or -ENOMEM.
 */
static int sync_table(void)
{
	size_t have;
	int changed = 0;

	if (!table) {
		table = ut_ftable_new();
		if (table && ut_ftable_set_demangle(table, ut_rt_demangle))
			return -ENOMEM;
		filter = table ? ut_fset_new(table, UT_FSET_FILTER) : NULL;
		notrace = table ? ut_fset_new(table, UT_FSET_NOTRACE) : NULL;
		gfilter = table ? ut_fset_new(table, UT_FSET_GRAPH) : NULL;
		gnotrace = table ? ut_fset_new(table, UT_FSET_GRAPH_NOTRACE) : NULL;
		if (!filter || !notrace || !gfilter || !gnotrace)
			return -ENOMEM;
		for (int k = 1; k < UT_MAX_INST; k++) {
			ifilter[k] = ut_fset_new(table, UT_FSET_FILTER);
			inotrace[k] = ut_fset_new(table, UT_FSET_NOTRACE);
			if (!ifilter[k] || !inotrace[k])
				return -ENOMEM;
		}
	}
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		struct ut_module *m = ut_rt.mods[i];

		if (!m->alive && !m->unlisted && m->nr_sites) {
			ut_ftable_remove_module(table, m->name);
			changed = 1;
		}
		m->unlisted = !m->alive;
	}
	for (have = ut_ftable_size(table); have < ut_rt.nr_funcs; have++) {
		const struct ut_func *f = &ut_rt.funcs[have];

		if (ut_ftable_add_kept(table, f->name, f->module) < 0)
			return -ENOMEM;
		/* its other names: aliases come in the order their functions were named */
		for (; alias_next < ut_rt.nr_aliases && ut_rt.aliases[alias_next].func == have;
		     alias_next++)
			if (ut_ftable_add_alias_kept(table, have, ut_rt.aliases[alias_next].name))
				return -ENOMEM;
		ut_ftable_set_kind(table, have, ut_rt.mods[f->mod]->kind);
		changed = 1;
	}
	return changed;
}

/*
 * Lenient mode (a configuration meant for every process, each with its own
 * functions): words that match nothing here are skipped, the rest apply.
 * Returns -EINVAL if any word was skipped; *@nothing tells whether positive
 * patterns were given but none matched (then the list must select nothing,
 * not fall back to "all functions" as an empty list would).
 */
static int set_list_lenient(struct ut_fset *s, const char *text, bool *nothing, size_t carry_at)
{
	bool positive = false;
	int ret = 0, r;
	size_t i = 0;

	*nothing = false;
	r = ut_fset_begin(s, true);
	if (r)
		return r;
	size_t n = 0;

	for (const char *p = ut_cfg_word(text, &n); p; p = ut_cfg_word(p + n, &n)) {
		if (i++ == carry_at)
			ut_cmds_carry(s);
		/* a command ("f:traceoff") selects no function: alone, all are traced */
		positive |= *p != '!' && !ut_fset_word_is_cmd(p, n);
		r = ut_fset_write(s, p, n, NULL, 0);
		if (r == -EINVAL)
			ret = -EINVAL;
		else if (r)
			ret = r;
	}
	if (i == carry_at)
		ut_cmds_carry(s);
	ut_fset_commit(s);
	*nothing = positive && !ut_fset_active(s);
	return ret;
}

/*
 * Strict mode: the words, in one write, but the function commands that
 * exist after the first @carry_at words (SIZE_MAX: none) take the counts
 * they have left (cmds.c).
 */
static int set_list_strict(struct ut_fset *s, const char *text, size_t carry_at, char *bad,
			   size_t badlen)
{
	const char *rest = text;
	size_t n = 0, i = 0;
	int ret = ut_fset_begin(s, true);

	if (ret)
		return ret;
	if (carry_at != SIZE_MAX) {
		for (const char *p = ut_cfg_word(text, &n); p && i < carry_at;
		     p = ut_cfg_word(p + n, &n), i++)
			rest = p + n;
		ret = ut_fset_write(s, text, (size_t)(rest - text), bad, badlen);
		ut_cmds_carry(s);
	}
	if (!ret)
		ret = ut_fset_write(s, rest, strlen(rest), bad, badlen);
	ut_fset_commit(s);
	return ret;
}

/*
 * What to add to "matches no traceable function" in a process whose own
 * program has no compiler site and that patches no prologue: how it can.
 */
static const char *plain_hint(void)
{
	if (ut_rt.cfg.patch_prologue)
		return "";
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		const struct ut_module *m = ut_rt.mods[i];

		if (m->alive && !m->name[0] && m->kind == UT_KIND_COMPILER && m->nr_sites)
			return "";
	}
	return " (a plain program: see options/patch-prologue)"; /* cfg_errmsg is short */
}

static int set_list(struct ut_fset *s, const char *text, const char *what, char *err,
		    size_t errlen, bool *nothing, size_t carry_at)
{
	char bad[128];
	int ret;

	if (nothing)
		*nothing = false;
	if (!text) {
		/* an empty list: clear what a previous configuration left */
		ret = ut_fset_set(s, "", true, NULL, 0);
		return ret == -EINVAL ? 0 : ret;
	}
	if (ut_rt.cfg.lenient) {
		bool dummy;

		ret = set_list_lenient(s, text, nothing ? nothing : &dummy, carry_at);
		if (ret == -EINVAL)
			snprintf(err, errlen, "%s: some words match no traceable function here%s",
				 what, plain_hint());
		return ret;
	}
	ret = set_list_strict(s, text, carry_at, bad, sizeof(bad));
	if (ret == -EINVAL)
		snprintf(err, errlen, "%s: '%s' matches no traceable function%s%s", what, bad,
			 ut_cxx_word_hint(bad), plain_hint());
	else if (ret)
		snprintf(err, errlen, "%s: %s", what, strerror(-ret));
	return ret;
}

/*
 * set_ftrace_filter is replayed into a new set every time: commands (which
 * a ">" does not clear) must come from the words alone, their counts from
 * the table in force (cmds.c).
 */
static int new_filter_set(void)
{
	struct ut_fset *s = ut_fset_new(table, UT_FSET_FILTER);

	if (!s)
		return -ENOMEM;
	ut_fset_free(filter);
	filter = s;
	return 0;
}

/* The hot-path copy of the graph settings, and each module's trampoline. */
static void set_graph_config(void)
{
	uint64_t target = ut_rt.cfg.tracer == UT_TRACER_FUNCTION_GRAPH || ut_rt.cfg.profile
				  ? (uint64_t)utrace_graph_caller
				  : (uint64_t)utrace_func_caller;
	struct ut_graph_cfg *g = &ut_rt.graph;
	const struct ut_ctl *ctl = ut_rt.ctl;

	g->roots = ut_fset_active(gfilter) || graph_nothing;
	g->filtered = g->roots || ut_fset_active(gnotrace);
	g->max_depth = ut_rt.cfg.max_graph_depth;
	g->thresh = ut_rt.cfg.thresh_us * 1000;
	/* TSC-based clocks count cycles: convert with the session's rate. */
	if (ctl && ctl->tsc_mult &&
	    (ut_rt.cfg.clock == UT_CLOCK_LOCAL || ut_rt.cfg.clock == UT_CLOCK_X86_TSC))
		g->thresh = (uint64_t)(((unsigned __int128)g->thresh << ctl->tsc_shift) / ctl->tsc_mult);
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++)
		if (ut_rt.mods[i]->stub_slot && ut_rt.mods[i]->kind != UT_KIND_INLINED)
			__atomic_store_n(ut_rt.mods[i]->stub_slot, target, __ATOMIC_RELEASE);
	ut_fast_gate_update();
}

/**
 * ut_select_idle - whether the configuration can enable no site at all
 *
 * No tracer, no profiler, no list of functions, no instance: nothing needs
 * a function's name, so sites.c leaves the symbols unread until this
 * changes.
 */
bool ut_select_idle(void)
{
	const struct ut_cfg *c = &ut_rt.cfg;

	if (c->tracer != UT_TRACER_NOP || c->profile || c->filter || c->notrace ||
	    c->graph_function || c->graph_notrace)
		return false;
	for (int k = 1; k < UT_MAX_INST; k++)
		if (ut_rt.inst[k].active || ut_rt.inst[k].filter || ut_rt.inst[k].notrace)
			return false;
	return true;
}

/* Function @i's site: wanted on or off, its instances and its graph flags. */
static void decide(uint32_t i)
{
	struct ut_func *f = &ut_rt.funcs[i];
	struct ut_module *m = ut_rt.mods[f->mod];
	unsigned inst = 0;
	bool on, cmd, off;

	if (!m || !m->alive || !m->sites)
		return;
	for (int k = 1; k < UT_MAX_INST && !ut_rt.sites_off; k++)
		if (ut_rt.inst[k].active && !inothing[k] && ut_fset_traced(ifilter[k], inotrace[k], i))
			inst |= 1u << k;
	/* a library call is hooked only while -O plt says so, whoever wants it */
	off = ut_rt.sites_off || (m->kind == UT_KIND_LIBCALL && !ut_rt.cfg.plt);
	if (off)
		inst = 0;
	on = (ut_rt.cfg.tracer != UT_TRACER_NOP || ut_rt.cfg.profile) && !off && !filter_nothing &&
	     ut_fset_traced(filter, notrace, i);
	cmd = !off && ut_cmds_has(m->sites[f->site].addr);
	if ((m->kind == UT_KIND_PROLOGUE && !ut_rt.cfg.patch_prologue) ||
	    (m->kind == UT_KIND_INLINED && !ut_rt.cfg.inlined)) {
		on = cmd = false; /* the option turned off: the patches stay, off */
		inst = 0;
	}
	m->sites[f->site].want = on || cmd || inst ? UT_SITE_FUNC : UT_SITE_OFF;
	m->sites[f->site].inst = (uint8_t)inst;
	m->sites[f->site].graph = (uint8_t)((ut_fset_contains(gfilter, i) ? UT_GRAPH_ROOT : 0) |
					    (ut_fset_contains(gnotrace, i) ? UT_GRAPH_NOTRACE : 0) |
					    (cmd ? UT_GRAPH_CMD : 0) | (inst ? UT_GRAPH_INST : 0) |
					    ((cmd || inst) && !on ? UT_GRAPH_UNTRACED : 0));
}

/**
 * ut_select_apply - recompute every site's wanted state
 *
 * The filter texts of the configuration are parsed once (at start-up);
 * later calls (after dlopen) only extend the table and re-decide.
 * Return: 0, or a negative errno with a message in @err.
 */
int ut_select_apply(char *err, size_t errlen)
{
	char ignored[256];
	int ret;

	if (!ut_select_idle()) {
		ut_sites_name_all(); /* the names tracing was started without */
		ut_prologue_sync();  /* -O patch-prologue: functions without a site */
		ut_inlined_sync();   /* -O inlined: inlined instances (after prologues: their bytes) */
	}
	if (ut_rt.cfg.plt && !ut_select_idle() && ut_plt_scan())
		ut_log("library calls: out of memory, some not traced");
	ret = sync_table();
	if (ret > 0)
		test_dump_table();
	if (ret < 0) {
		snprintf(err, errlen, "filters: %s", strerror(-ret));
		return ret;
	}
	/*
	 * The filters are the configured texts applied to the functions there
	 * are now: re-applying them after every dlopen/dlclose traces a plugin
	 * matched by pattern or by :mod: each time it is loaded again, which a
	 * one-shot pending :mod: entry would not.  Errors count the first time
	 * only (later, a word may match nothing because its module is gone).
	 */
	if (ret > 0 || !configured) {
		char *e = configured ? ignored : err;
		size_t elen = configured ? sizeof(ignored) : errlen;
		int r1 = new_filter_set();
		int r2, r3, r4;

		if (!r1)
			r1 = set_list(filter, ut_rt.cfg.filter, "set_ftrace_filter", e, elen,
				      &filter_nothing, ut_cmds_retained(ut_rt.cfg.filter));
		r2 = set_list(notrace, ut_rt.cfg.notrace, "set_ftrace_notrace", e, elen, NULL,
			      SIZE_MAX);
		r3 = set_list(gfilter, ut_rt.cfg.graph_function, "set_graph_function", e, elen,
			      &graph_nothing, SIZE_MAX);
		r4 = set_list(gnotrace, ut_rt.cfg.graph_notrace, "set_graph_notrace", e, elen, NULL,
			      SIZE_MAX);
		ret = configured ? 0 : (r1 ? r1 : r2 ? r2 : r3 ? r3 : r4);
		configured = true;
		/* a refused document is put back: counts go on from the text before it */
		if (ret >= 0 || ut_rt.cfg.lenient)
			ut_cmds_applied(ut_rt.cfg.filter);
		/* instances: always lenient (they act on every process) */
		for (int k = 1; k < UT_MAX_INST; k++) {
			bool dummy;

			inothing[k] = false;
			if (ut_rt.inst[k].filter)
				set_list_lenient(ifilter[k], ut_rt.inst[k].filter, &inothing[k],
						 SIZE_MAX);
			else
				ut_fset_set(ifilter[k], "", true, NULL, 0);
			if (ut_rt.inst[k].notrace)
				set_list_lenient(inotrace[k], ut_rt.inst[k].notrace, &dummy,
						 SIZE_MAX);
			else
				ut_fset_set(inotrace[k], "", true, NULL, 0);
		}
	} else {
		/* the same commands: the table's counts are the ones left */
		ut_cmds_carry(filter);
		ret = 0;
	}
	/* the program's memory: C++ names demangled for these words are not kept */
	ut_ftable_forget_demangled(table);
	ut_cmds_publish(filter, ifilter);
	for (uint32_t i = 0; i < ut_rt.nr_funcs; i++)
		decide(i);
	set_graph_config();
	return ret;
}
