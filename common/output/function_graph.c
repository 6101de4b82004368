// SPDX-License-Identifier: MIT
/*
 * The function_graph tracer's output (SPEC §13): call graphs drawn from
 * funcgraph_entry / funcgraph_exit pairs, with the optional time, CPU, task
 * and duration columns, task-switch blocks and other events shown as
 * comments.  Written from the behaviour of the kernel's
 * trace_functions_graph.c printer; see graph.h for the interface.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/demangle.h"
#include "common/output/graph.h"

#define GRAPH_INDENT 2	       /* spaces per depth level */
#define GRAPH_RETFUNC_DEPTH 50 /* open calls remembered per CPU (FTRACE_RETFUNC_DEPTH) */
#define GRAPH_PROCINFO_LEN 14  /* the comm-pid field */
#define GRAPH_MAX_CPUS 65536   /* CPU numbers beyond this get no state */
#define GRAPH_MAX_INDENT 4096  /* a corrupt depth must not print gigabytes */
#define GRAPH_MAX_ERRNO 4095   /* return values in [-4095, -1] print in decimal */

/* What the kernel's iterator remembers about each CPU while printing. */
struct graph_cpu {
	int32_t last_pid;			   /* task of the last line, -1: none yet */
	int depth;				   /* depth comments are indented below */
	uint64_t enter_funcs[GRAPH_RETFUNC_DEPTH]; /* open call at each depth */
	/* funcgraph-irqs=0: hiding a signal handler's calls at and below this depth */
	int sig_depth;				   /* -1: not hiding */
	int sig_nest;				   /* handlers entered while hiding */
	bool sig_entered;			   /* the outer handler's entry was seen */
};

struct ut_graph_out {
	struct ut_out *o;
	struct graph_cpu *cpus;
	unsigned nr_cpus; /* allocated entries of cpus[] */
};

static void cpu_reset(struct graph_cpu *c)
{
	memset(c, 0, sizeof(*c));
	c->last_pid = -1;
	c->sig_depth = -1;
}

/*
 * The state of @cpu, allocated on first use.  NULL (no memory, absurd CPU
 * number) makes the printer behave as the kernel's does without its
 * private data: no task-switch blocks, no lost-entry detection.
 */
static struct graph_cpu *cpu_state(struct ut_graph_out *g, uint32_t cpu)
{
	struct graph_cpu *p;
	unsigned i, n;

	if (cpu < g->nr_cpus)
		return &g->cpus[cpu];
	if (cpu >= GRAPH_MAX_CPUS)
		return NULL;
	n = cpu + 1;
	if (n < (unsigned)g->o->cfg.nr_cpus && g->o->cfg.nr_cpus <= GRAPH_MAX_CPUS)
		n = (unsigned)g->o->cfg.nr_cpus;
	p = realloc(g->cpus, n * sizeof(*p));
	if (!p)
		return NULL;
	for (i = g->nr_cpus; i < n; i++)
		cpu_reset(&p[i]);
	g->cpus = p;
	g->nr_cpus = n;
	return &g->cpus[cpu];
}

struct ut_graph_out *ut_graph_out_new(struct ut_out *o)
{
	struct ut_graph_out *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->o = o;
	return g;
}

void ut_graph_out_free(struct ut_graph_out *g)
{
	if (!g)
		return;
	free(g->cpus);
	free(g);
}

void ut_graph_start(struct ut_graph_out *g)
{
	unsigned i;

	for (i = 0; i < g->nr_cpus; i++)
		cpu_reset(&g->cpus[i]);
}

static int opt(const struct ut_graph_out *g, int id)
{
	return ut_out_opt(g->o, id);
}

/* ------------------------------------------------------------------ */
/* Header                                                             */
/* ------------------------------------------------------------------ */

/*
 * latency-format's flags help.  The graph tracer has its own 5-line version
 * (older than the function tracer's, no migrate-disable line), indented to
 * sit over the flags column that follows the enabled context columns.
 * Trailing spaces are the kernel's.
 */
static void print_lat_help(struct ut_graph_out *g, FILE *f)
{
	int n = 0;

	if (opt(g, UT_OPT_FUNCGRAPH_ABSTIME))
		n += 16;
	if (opt(g, UT_OPT_FUNCGRAPH_CPU))
		n += 4;
	if (opt(g, UT_OPT_FUNCGRAPH_PROC))
		n += 17;
	fprintf(f, "#%*s  _-----=> irqs-off        \n", n, "");
	fprintf(f, "#%*s / _----=> need-resched    \n", n, "");
	fprintf(f, "#%*s| / _---=> hardirq/softirq \n", n, "");
	fprintf(f, "#%*s|| / _--=> preempt-depth   \n", n, "");
	fprintf(f, "#%*s||| /                      \n", n, "");
}

void ut_graph_print_header(struct ut_graph_out *g, FILE *f, uint64_t entries, uint64_t written)
{
	int lat = opt(g, UT_OPT_LATENCY_FORMAT);
	int abstime = opt(g, UT_OPT_FUNCGRAPH_ABSTIME), cpu = opt(g, UT_OPT_FUNCGRAPH_CPU);
	int proc = opt(g, UT_OPT_FUNCGRAPH_PROC), dur = opt(g, UT_OPT_FUNCGRAPH_DURATION);

	if (!opt(g, UT_OPT_CONTEXT_INFO)) {
		fputs("# tracer: function_graph\n#\n", f);
		return;
	}
	if (lat) {
		/*
		 * The latency banner is the common one.  header.c prints
		 * "# tracer:", "#" and, for a non-empty buffer, just the
		 * banner when verbose is set: borrow that on a copy of the
		 * formatter that says verbose and function_graph.
		 */
		struct ut_out tmp = *g->o;

		tmp.opts.bits |= 1ULL << UT_OPT_VERBOSE;
		snprintf(tmp.tracer, sizeof(tmp.tracer), "%s", "function_graph");
		ut_out_print_header(&tmp, f, entries, written);
		if (!entries)
			return;
		print_lat_help(g, f);
	} else {
		fputs("# tracer: function_graph\n#\n", f);
	}

	fputc('#', f);
	if (abstime)
		fputs("     TIME       ", f);
	if (cpu)
		fputs(" CPU", f);
	if (proc)
		fputs("  TASK/PID       ", f);
	if (lat)
		fputs("||||   ", f);
	if (dur)
		fputs("  DURATION   ", f);
	fputs("               FUNCTION CALLS\n", f);

	fputc('#', f);
	if (abstime)
		fputs("      |         ", f);
	if (cpu)
		fputs(" |  ", f);
	if (proc)
		fputs("   |    |        ", f);
	if (lat)
		fputs("||||   ", f);
	if (dur)
		fputs("   |   |      ", f);
	fputs("               |   |   |   |\n", f);
}

/* ------------------------------------------------------------------ */
/* Columns                                                            */
/* ------------------------------------------------------------------ */

/* " N) ", N right-aligned in as many digits as the highest CPU number has */
static void print_cpu(struct ut_graph_out *g, FILE *f, uint32_t cpu)
{
	int nr = g->o->cfg.nr_cpus > 0 ? g->o->cfg.nr_cpus : 1;
	int width = snprintf(NULL, 0, "%d", nr - 1);

	fprintf(f, " %*" PRIu32 ") ", width, cpu);
}

/* "comm-pid", comm cut to 7 characters, centred in 14 (extra space right) */
static void print_proc(struct ut_graph_out *g, FILE *f, int32_t pid)
{
	char buf[16], comm[8], pid_str[12];
	int len, spaces = 0;

	snprintf(comm, sizeof(comm), "%s", ut_out_comm(g->o, pid, buf));
	snprintf(pid_str, sizeof(pid_str), "%" PRId32, pid);
	len = (int)(strlen(comm) + strlen(pid_str) + 1);
	if (len < GRAPH_PROCINFO_LEN)
		spaces = GRAPH_PROCINFO_LEN - len;
	fprintf(f, "%*s%s-%s%*s", spaces / 2, "", comm, pid_str, spaces - spaces / 2, "");
}

/* The block shown when a CPU's lines move from one task to another. */
static void check_task_switch(struct ut_graph_out *g, FILE *f, struct graph_cpu *c,
			      const struct ut_event *ev)
{
	int32_t prev;

	if (!c || c->last_pid == ev->pid)
		return;
	prev = c->last_pid;
	c->last_pid = ev->pid;
	if (prev == -1)
		return;
	fputs(" ------------------------------------------\n", f);
	print_cpu(g, f, ev->cpu);
	print_proc(g, f, prev);
	fputs(" => ", f);
	print_proc(g, f, ev->pid);
	fputs("\n ------------------------------------------\n\n", f);
}

/* Seconds and truncated microseconds of the event's timestamp. */
static void print_abstime(FILE *f, uint64_t ts)
{
	const uint64_t sec = UINT64_C(1000000000);

	fprintf(f, "%5" PRIu64 ".%06" PRIu64 " |  ", ts / sec, ts % sec / 1000);
}

/* Everything left of the duration column, task-switch block included. */
static void print_prologue(struct ut_graph_out *g, FILE *f, struct graph_cpu *c,
			   const struct ut_event *ev)
{
	check_task_switch(g, f, c, ev);
	if (!opt(g, UT_OPT_CONTEXT_INFO))
		return;
	if (opt(g, UT_OPT_FUNCGRAPH_ABSTIME))
		print_abstime(f, ev->ts);
	if (opt(g, UT_OPT_FUNCGRAPH_CPU))
		print_cpu(g, f, ev->cpu);
	if (opt(g, UT_OPT_FUNCGRAPH_PROC)) {
		print_proc(g, f, ev->pid);
		fputs(" | ", f);
	}
	if (opt(g, UT_OPT_LATENCY_FORMAT)) {
		fputc(' ', f);
		ut_out_print_flags(f, ev);
		fputs(" | ", f);
	}
}

void ut_graph_print_duration(FILE *f, uint64_t ns)
{
	char us[24];
	int len = snprintf(us, sizeof(us), "%" PRIu64, ns / 1000);

	fputs(us, f);
	/* at most 7 digits in all: the fraction gets what is left, max 3 */
	if (len < 7) {
		int digits = 7 - len < 3 ? 7 - len : 3;
		char frac[4];

		snprintf(frac, sizeof(frac), "%03u", (unsigned)(ns % 1000));
		fprintf(f, ".%.*s", digits, frac);
		len += digits + 1;
	}
	fputs(" us ", f);
	for (; len < 8; len++)
		fputc(' ', f);
}

/*
 * The 17-column duration field: "M TIME us |  " for a leaf or a return (M
 * the delay mark, a space without funcgraph-overhead), blank for anything
 * else (@ns == NULL).  Absent without funcgraph-duration or context-info.
 */
static void print_duration_col(struct ut_graph_out *g, FILE *f, const uint64_t *ns)
{
	if (!opt(g, UT_OPT_FUNCGRAPH_DURATION) || !opt(g, UT_OPT_CONTEXT_INFO))
		return;
	if (!ns) {
		fputs("              |  ", f);
		return;
	}
	if (opt(g, UT_OPT_FUNCGRAPH_OVERHEAD))
		fprintf(f, "%c ", ut_out_delay_mark(*ns));
	else
		fputs("  ", f);
	ut_graph_print_duration(f, *ns);
	fputs("|  ", f);
}

static void print_indent(FILE *f, int levels)
{
	int n;

	if (levels <= 0)
		return;
	n = levels > GRAPH_MAX_INDENT / GRAPH_INDENT ? GRAPH_MAX_INDENT : levels * GRAPH_INDENT;
	fprintf(f, "%*s", n, "");
}

/*
 * A function name the way the kernel's "%ps" prints it: the bare name, with
 * " [module]" for a module (here: shared object) symbol, or 0x%lx when
 * unknown.  Unlike the function tracer's symbols it ignores sym-offset and
 * sym-addr.  The "[module]" gap markers of the symbol table print as is.
 * @call adds the "()" of a call ("%ps()"), except after a demangled C++
 * name, which has its parameter list already: "ns::f(int) {".
 */
static void print_func(struct ut_graph_out *g, FILE *f, uint64_t addr, int call)
{
	const struct ut_sym *sym = NULL;
	const char *name;

	if (g->o->cfg.syms)
		sym = ut_symtab_lookup(g->o->cfg.syms, addr);
	if (!sym || !sym->name || !*sym->name) {
		fprintf(f, call ? "0x%" PRIx64 "()" : "0x%" PRIx64, addr);
		return;
	}
	name = ut_out_sym_name(g->o, sym);
	fputs(name, f);
	if (sym->module && sym->name[0] != '[')
		fprintf(f, " [%s]", sym->module);
	if (call && !ut_demangled_has_params(sym->name, name))
		fputs("()", f);
}

/* " <-caller+0xOFF/0xSIZE": a return address always shows its offset. */
static void print_retaddr(struct ut_graph_out *g, FILE *f, uint64_t addr)
{
	struct ut_out tmp = *g->o;

	tmp.opts.bits |= 1ULL << UT_OPT_SYM_OFFSET;
	fputs(" <-", f);
	ut_out_print_sym(&tmp, f, addr);
}

/* The graph depth is a signed int in the kernel's records. */
static int ev_depth(const struct ut_event *ev)
{
	return (int)(int32_t)ev->depth;
}

/*
 * funcgraph-retval / funcgraph-retaddr text.  @entry is the entry of a
 * leaf: "func();" and a comment holding " <-caller" and " ret=V"; NULL for
 * a return: "}" and a comment holding "func ret=V".  Values that look like
 * an errno (-4095..-1, also as a sign-extended 32-bit int) print in decimal
 * unless funcgraph-retval-hex; everything else in hex.
 */
static void print_retval(struct ut_graph_out *g, FILE *f, const struct ut_event *entry,
			 const struct ut_event *ret)
{
	int want_retval = opt(g, UT_OPT_FUNCGRAPH_RETVAL);
	int want_retaddr = opt(g, UT_OPT_FUNCGRAPH_RETADDR);
	int hex = opt(g, UT_OPT_FUNCGRAPH_RETVAL_HEX);
	uint64_t retval = ret->retval;
	int64_t err = 0;

	if (want_retval && retval && !hex) {
		if ((retval & (1ULL << 31)) && !(retval >> 32))
			err = (int32_t)(uint32_t)retval;
		else
			err = (int64_t)retval;
		if (err < -GRAPH_MAX_ERRNO || err >= 0)
			err = 0;
	}

	if (entry) {
		if (!entry->parent_ip)
			want_retaddr = 0;
		print_func(g, f, ret->ip, 1);
		fputc(';', f);
		if (want_retval || want_retaddr)
			fputs(" /*", f);
	} else {
		want_retaddr = 0;
		fputs("} /* ", f);
		print_func(g, f, ret->ip, 0);
	}
	if (want_retaddr)
		print_retaddr(g, f, entry->parent_ip);
	if (want_retval) {
		if (hex || !err)
			fprintf(f, " ret=0x%" PRIx64, retval);
		else
			fprintf(f, " ret=%" PRId64, err);
	}
	if (!entry || want_retval || want_retaddr)
		fputs(" */", f);
}

/* ------------------------------------------------------------------ */
/* Events                                                             */
/* ------------------------------------------------------------------ */

/* The kernel's leaf test: the CPU's next record returns from this call. */
static int is_leaf(const struct ut_event *ev, const struct ut_event *next)
{
	return next && next->type == UT_EV_FUNCGRAPH_EXIT && next->pid == ev->pid &&
	       next->cpu == ev->cpu && next->ip == ev->ip;
}

static void print_leaf(struct ut_graph_out *g, FILE *f, struct graph_cpu *c,
		       const struct ut_event *ev, const struct ut_event *ret)
{
	uint64_t duration = ret->rettime - ret->calltime;
	int depth = ev_depth(ev);

	if (c) {
		/* comments after a leaf sit at the leaf's own depth */
		c->depth = depth - 1;
		if (depth >= 0 && depth < GRAPH_RETFUNC_DEPTH)
			c->enter_funcs[depth] = 0;
	}
	print_duration_col(g, f, &duration);
	print_indent(f, depth);
	if (opt(g, UT_OPT_FUNCGRAPH_RETVAL) || opt(g, UT_OPT_FUNCGRAPH_RETADDR)) {
		print_retval(g, f, ev, ret);
	} else {
		print_func(g, f, ret->ip, 1);
		fputc(';', f);
	}
	fputc('\n', f);
}

static void print_nested(struct ut_graph_out *g, FILE *f, struct graph_cpu *c,
			 const struct ut_event *ev)
{
	int depth = ev_depth(ev);

	if (c) {
		c->depth = depth;
		if (depth >= 0 && depth < GRAPH_RETFUNC_DEPTH)
			c->enter_funcs[depth] = ev->ip;
	}
	print_duration_col(g, f, NULL);
	print_indent(f, depth);
	print_func(g, f, ev->ip, 1);
	fputs(" {", f);
	if (opt(g, UT_OPT_FUNCGRAPH_RETADDR) && ev->parent_ip) {
		fputs(" /*", f);
		print_retaddr(g, f, ev->parent_ip);
		fputs(" */", f);
	}
	fputc('\n', f);
}

static int print_entry(struct ut_graph_out *g, FILE *f, const struct ut_event *ev,
		       const struct ut_event *next)
{
	struct graph_cpu *c = cpu_state(g, ev->cpu);

	print_prologue(g, f, c, ev);
	if (is_leaf(ev, next)) {
		print_leaf(g, f, c, ev, next);
		return UT_GRAPH_CONSUMED;
	}
	print_nested(g, f, c, ev);
	return UT_GRAPH_PRINTED;
}

/*
 * An inlined instance entered (-O inlined): a leaf line at the depth of a
 * call from the function holding it, with no duration (it has no return),
 * marked in the kernel's comment style: inl_scale(); followed by the comment
 * "inlined".
 */
static void print_inlined(struct ut_graph_out *g, FILE *f, const struct ut_event *ev)
{
	struct graph_cpu *c = cpu_state(g, ev->cpu);
	int depth = ev_depth(ev);

	if (c)
		c->depth = depth - 1; /* comments after it sit at its depth, as after a leaf */
	print_prologue(g, f, c, ev);
	print_duration_col(g, f, NULL);
	print_indent(f, depth);
	print_func(g, f, ev->ip, 1);
	fputs("; /* inlined */\n", f);
}

static void print_return(struct ut_graph_out *g, FILE *f, const struct ut_event *ev)
{
	struct graph_cpu *c = cpu_state(g, ev->cpu);
	uint64_t duration = ev->rettime - ev->calltime;
	int depth = ev_depth(ev);
	int func_match = 1;

	if (c) {
		/* comments after a return line up with its brace */
		c->depth = depth - 1;
		if (depth >= 0 && depth < GRAPH_RETFUNC_DEPTH) {
			if (c->enter_funcs[depth] != ev->ip)
				func_match = 0;
			c->enter_funcs[depth] = 0;
		}
	}
	print_prologue(g, f, c, ev);
	print_duration_col(g, f, &duration);
	print_indent(f, depth);
	if (opt(g, UT_OPT_FUNCGRAPH_RETVAL)) {
		print_retval(g, f, NULL, ev);
	} else if (func_match && !opt(g, UT_OPT_FUNCGRAPH_TAIL)) {
		fputc('}', f);
	} else {
		/* the entry was lost or filtered: say what closes */
		fputs("} /* ", f);
		print_func(g, f, ev->ip, 0);
		fputs(" */", f);
	}
	fputc('\n', f);
	if (opt(g, UT_OPT_FUNCGRAPH_OVERRUN))
		fprintf(f, " (Overruns: %" PRIu32 ")\n", ev->overrun);
}

/* Write @len bytes of @s, less one trailing newline. */
static void put_chomped(FILE *f, const char *s, size_t len)
{
	if (len && s[len - 1] == '\n')
		len--;
	fwrite(s, 1, len, f);
}

/*
 * Any other event: a C comment holding its text in the function column,
 * indented one level deeper than the current call, except that inside an
 * outermost call (depth 0) it is not indented at all: the kernel only
 * indents for a current depth above 0.  A trace_marker write shows only its
 * text, other events their usual body; one trailing newline is dropped.
 */
static int print_comment(struct ut_graph_out *g, FILE *f, const struct ut_event *ev)
{
	const struct ut_out_event_ops *ops = NULL;
	struct graph_cpu *c;
	int depth;

	if (ev->type != UT_EV_PRINT) {
		ops = ut_out_function_ops(ev->type);
		if (!ops || !ops->trace)
			return UT_GRAPH_UNHANDLED;
	}
	c = cpu_state(g, ev->cpu);
	depth = c ? c->depth : 0;

	print_prologue(g, f, c, ev);
	print_duration_col(g, f, NULL);
	if (depth > 0)
		print_indent(f, depth + 1);
	fputs("/* ", f);
	if (!ops) {
		const char *s = ev->str ? ev->str : "";

		put_chomped(f, s, strlen(s));
	} else {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		if (m) {
			ops->trace(g->o, m, ev);
			if (fclose(m) == 0 && buf)
				put_chomped(f, buf, len);
		} else {
			ops->trace(g->o, f, ev);
		}
		free(buf);
	}
	fputs(" */\n", f);
	return UT_GRAPH_PRINTED;
}

/*
 * A signal handler starts or returns: the kernel's interrupt marks,
 * " N)   ==========> |" and " N)   <========== |" (the duration column's
 * fill around the arrow).  A handler whose start is followed at once by its
 * end ran no traced function: nothing to show.
 */
static int print_signal(struct ut_graph_out *g, FILE *f, const struct ut_event *ev,
			const struct ut_event *next)
{
	struct graph_cpu *c = cpu_state(g, ev->cpu);
	int dur = opt(g, UT_OPT_FUNCGRAPH_DURATION) && opt(g, UT_OPT_CONTEXT_INFO);

	if (ev->type == UT_EV_SIGNAL_ENTER && next && next->type == UT_EV_SIGNAL_EXIT &&
	    next->pid == ev->pid)
		return UT_GRAPH_CONSUMED;
	print_prologue(g, f, c, ev);
	fputs(dur ? "  " : "", f);
	fputs(ev->type == UT_EV_SIGNAL_ENTER ? "==========>" : "<==========", f);
	fputs(dur ? " |\n" : "\n", f);
	return UT_GRAPH_PRINTED;
}

/*
 * funcgraph-irqs=0 hides signal handlers as the kernel hides interrupts:
 * their marks and every call from the handler's depth down, until its end.
 * A handler left by siglongjmp has no end: hiding also stops at a call
 * above the handler's depth, or at the second call at its depth (the first
 * is the handler's own).  True if @ev is hidden.
 */
static bool sig_hidden(struct ut_graph_out *g, const struct ut_event *ev)
{
	struct graph_cpu *c;

	if (opt(g, UT_OPT_FUNCGRAPH_IRQS))
		return false;
	c = cpu_state(g, ev->cpu);
	if (!c)
		return ev->type == UT_EV_SIGNAL_ENTER || ev->type == UT_EV_SIGNAL_EXIT;
	switch (ev->type) {
	case UT_EV_SIGNAL_ENTER:
		if (c->sig_depth < 0) {
			c->sig_depth = ev_depth(ev);
			c->sig_nest = 0;
			c->sig_entered = false;
		}
		c->sig_nest++;
		return true;
	case UT_EV_SIGNAL_EXIT:
		if (c->sig_depth >= 0 && --c->sig_nest <= 0)
			c->sig_depth = -1;
		return true;
	case UT_EV_FUNCGRAPH_ENTRY:
		if (c->sig_depth >= 0 && ev_depth(ev) == c->sig_depth) {
			if (c->sig_entered)
				c->sig_depth = -1;
			c->sig_entered = true;
		}
		/* fall through */
	case UT_EV_FUNCGRAPH_EXIT:
		if (c->sig_depth >= 0 && ev_depth(ev) < c->sig_depth)
			c->sig_depth = -1;
		return c->sig_depth >= 0;
	default:
		return false;
	}
}

int ut_graph_print_event(struct ut_graph_out *g, FILE *f, const struct ut_event *ev,
			 const struct ut_event *next)
{
	if (sig_hidden(g, ev))
		return ev->type == UT_EV_FUNCGRAPH_ENTRY && is_leaf(ev, next) ? UT_GRAPH_CONSUMED
									: UT_GRAPH_PRINTED;
	switch (ev->type) {
	case UT_EV_FUNCGRAPH_ENTRY:
		return print_entry(g, f, ev, next);
	case UT_EV_FUNCGRAPH_EXIT:
		print_return(g, f, ev);
		return UT_GRAPH_PRINTED;
	case UT_EV_SIGNAL_ENTER:
	case UT_EV_SIGNAL_EXIT:
		return print_signal(g, f, ev, next);
	case UT_EV_FUNCGRAPH_INLINED:
		print_inlined(g, f, ev);
		return UT_GRAPH_PRINTED;
	case UT_EV_FUNCTION:
	case UT_EV_KERNEL_STACK:
		/* the kernel leaves these to the normal line printer */
		return UT_GRAPH_UNHANDLED;
	default:
		return print_comment(g, f, ev);
	}
}
