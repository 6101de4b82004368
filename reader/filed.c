// SPDX-License-Identifier: MIT
/*
 * What a trace.dat keeps (reader/filed.h): an event, the symbol table and
 * the clock as the file's reader would give them back, for the printers
 * that print a trace straight from the buffers as its file would print.
 */
#include "reader/filed.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/names.h"
#include "common/usdt_events.h"
#include "reader/tracedat_format.h"

/* The clock the trace_clock line selects ("[name]"), as the file's reader finds it. */
int ut_filed_clock(const char *line)
{
	const char *open = line ? strchr(line, '[') : NULL;
	const char *close = open ? strchr(open, ']') : NULL;
	char name[64];

	if (!close || close - open - 1 >= (long)sizeof(name))
		return -1;
	memcpy(name, open + 1, (size_t)(close - open - 1));
	name[close - open - 1] = 0;
	return ut_name_index(ut_clock_names, UT_CLOCK_NR, name);
}

/*
 * The symbols as the file's kallsyms section gives them back: no sizes
 * (the distance to the next symbol instead), a newline or tab in a name a
 * space, a module name the line format cannot hold dropped.
 */
struct ut_symtab *ut_filed_symbols(const struct ut_symtab *st)
{
	struct ut_symtab *out = ut_symtab_new();
	size_t n = st ? ut_symtab_count(st) : 0;

	for (size_t i = 0; out && i < n; i++) {
		const struct ut_sym *s = ut_symtab_at(st, i);
		const char *mod = s->module;
		char *name;

		if (!s->name || !*s->name)
			continue;
		if (mod && (!*mod || strpbrk(mod, "\n\t]")))
			mod = NULL;
		if (!mod && !strcmp(s->name, TD_END_SYM))
			continue; /* the file's end marker has this name: the reader drops it */
		name = strdup(s->name);
		for (char *c = name; c && *c; c++)
			if (*c == '\n' || *c == '\t')
				*c = ' ';
		if (!name || ut_symtab_add(out, s->addr, 0, name, mod)) {
			free(name);
			ut_symtab_free(out);
			return NULL;
		}
		free(name);
	}
	if (out)
		ut_symtab_finish(out);
	return out;
}

/* A stack trace's callers as the file keeps them (@user: user_stack's 8 slots). */
static void stack_as_filed(const struct ut_event *ev, struct ut_event *out, bool user)
{
	uint32_t n = ev->callers ? ev->nr_callers : 0, i;

	if (n > (user ? TD_USER_STACK_SLOTS : TD_MAX_CALLERS))
		n = user ? TD_USER_STACK_SLOTS : TD_MAX_CALLERS;
	for (i = 0; i < n && ev->callers[i] != UINT64_MAX; i++)
		;
	while (user && i && !ev->callers[i - 1]) /* unused slots are zero */
		i--;
	out->callers = i ? ev->callers : NULL;
	out->nr_callers = i;
	if (user && ev->tgid)
		out->tgid = ev->tgid;
}

/*
 * @ev as the trace.dat reader would give it back: the common fields, the
 * tgid from the file's table (@tgid), and only the fields its event
 * format has, cut as the format cuts them.
 */
void ut_filed_event(const struct ut_event *ev, int32_t tgid, struct ut_event *out)
{
	uint64_t delta;

	*out = (struct ut_event){.ts = ev->ts, .pid = ev->pid, .tgid = tgid,
				 .cpu = ev->cpu, .type = ev->type, .flags = ev->flags,
				 .preempt = ev->preempt, .ip = ev->ip};
	switch (ev->type) {
	case UT_EV_FUNCTION:
		out->parent_ip = ev->parent_ip;
		break;
	case UT_EV_FUNC_REPEATS: /* 16 bits of count, 48 of time back to the last call */
		out->parent_ip = ev->parent_ip;
		out->repeats = ev->repeats > 0xffff ? 0xffff : ev->repeats;
		delta = (ev->ts > ev->last_ts ? ev->ts - ev->last_ts : 0) & 0xffffffffffffull;
		out->last_ts = delta < ev->ts ? ev->ts - delta : 0;
		break;
	case UT_EV_FUNCGRAPH_EXIT:
		out->retval = ev->retval;
		out->overrun = ev->overrun;
		out->calltime = ev->calltime;
		out->rettime = ev->rettime;
		out->depth = ev->depth;
		break;
	case UT_EV_FUNCGRAPH_ENTRY:
	case UT_EV_FUNCGRAPH_INLINED:
		out->depth = ev->depth;
		break;
	case UT_EV_SIGNAL_ENTER:
	case UT_EV_SIGNAL_EXIT:
		out->ip = 0;
		out->sig = ev->sig;
		out->depth = ev->depth;
		break;
	case UT_EV_PRINT:
		out->str = ev->str ? ev->str : "";
		break;
	case UT_EV_STATIC: /* a process event: its fields as recorded */
		out->evid = ev->evid;
		out->raw = ev->raw;
		out->raw_len = ev->raw_len;
		break;
	case UT_EV_PROBE: /* its format is found by the sink (ut_filed_sink.probes) */
		out->args = ev->args;
		out->nargs = ev->nargs;
		out->argbytes = ev->argbytes;
		break;
	case UT_EV_KERNEL_STACK:
	case UT_EV_USER_STACK:
		out->ip = 0;
		stack_as_filed(ev, out, ev->type == UT_EV_USER_STACK);
		break;
	}
}

/* --- the filed sink: the write-out's events as the file gives them back --- */

struct ut_filed_task {
	int32_t pid, tgid;
	const char *comm; /* NULL: none the file would keep */
};

static int cmp_task(const void *a, const void *b)
{
	const struct ut_filed_task *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct ut_filed_task *find_task(const struct ut_filed_sink *k, int32_t pid)
{
	struct ut_filed_task key = {.pid = pid};

	return k->nr_tasks ? bsearch(&key, k->tasks, k->nr_tasks, sizeof(key), cmp_task) : NULL;
}

const char *ut_filed_comm(const struct ut_filed_sink *k, int32_t pid)
{
	const struct ut_filed_task *t = find_task(k, pid);

	return t ? t->comm : NULL;
}

int32_t ut_filed_tgid(const struct ut_filed_sink *k, int32_t pid)
{
	const struct ut_filed_task *t = find_task(k, pid);

	return t ? t->tgid : -1;
}

/* This replay's tables, dropped (at its end, or when it cannot start). */
static void drop_tasks(struct ut_filed_sink *k)
{
	free(k->tasks);
	free(k->pending);
	k->tasks = NULL;
	k->pending = NULL;
	k->nr_tasks = 0;
}

/* The tables of this replay (@m's point into the recorder's, valid until end()). */
static int make_tasks(struct ut_filed_sink *k, const struct ut_tracedat_meta *m)
{
	k->tasks = calloc(m->nr_tgids + 1, sizeof(*k->tasks));
	k->pending = calloc((size_t)m->nr_cpus, sizeof(*k->pending));
	if (!k->tasks || !k->pending)
		return -ENOMEM;
	k->nr_cpus = m->nr_cpus;
	for (size_t i = 0; i < m->nr_tgids; i++)
		k->tasks[i] = (struct ut_filed_task){.pid = m->tgid_pids[i], .tgid = m->tgid_tgids[i]};
	k->nr_tasks = m->nr_tgids;
	qsort(k->tasks, k->nr_tasks, sizeof(*k->tasks), cmp_task);
	/* the names the file's saved cmdlines would keep: not empty, one line */
	for (size_t i = 0; i < m->nr_cmdlines; i++) {
		struct ut_filed_task *t = find_task(k, m->cmd_pids[i]);
		const char *comm = m->cmd_comms[i];

		if (t && comm && *comm && !strchr(comm, '\n'))
			t->comm = comm;
	}
	return 0;
}

static int filed_begin(struct ut_write_sink *sink, const struct ut_tracedat_meta *m)
{
	struct ut_filed_sink *k = (struct ut_filed_sink *)sink;
	int ret = make_tasks(k, m);

	k->probes = m->probes;
	if (!ret && !k->syms && !(k->syms = ut_filed_symbols(m->syms)))
		ret = -ENOMEM;
	if (!ret)
		ret = k->begin(k, m);
	if (ret)
		drop_tasks(k);
	return ret;
}

static int filed_event(struct ut_write_sink *sink, const struct ut_event *ev)
{
	struct ut_filed_sink *k = (struct ut_filed_sink *)sink;
	struct ut_event fe;
	uint64_t lost;

	ut_filed_event(ev, ut_filed_tgid(k, ev->pid), &fe);
	if (fe.type == UT_EV_PROBE) {
		/* the file names it after its probe, or probe_<address> with 8-byte values */
		fe.probe = ut_probetab_find(k->probes, fe.ip);
		if (fe.probe && fe.probe->nargs != fe.nargs)
			fe.probe = NULL;
	}
	/* a loss goes with its CPU's next event, as a page's missed-events count */
	lost = k->pending[fe.cpu];
	k->pending[fe.cpu] = 0;
	return k->event(k, &fe, lost);
}

static int filed_lost(struct ut_write_sink *sink, unsigned cpu, uint64_t nr)
{
	struct ut_filed_sink *k = (struct ut_filed_sink *)sink;

	if (cpu >= (unsigned)k->nr_cpus)
		return -EINVAL;
	/* the writer's saturation: a count that overflows is "very many" */
	if (k->pending[cpu] + nr < nr)
		k->pending[cpu] = UINT64_MAX - 1;
	else
		k->pending[cpu] += nr;
	return 0;
}

static int filed_end(struct ut_write_sink *sink, const struct ut_tracedat_meta *m)
{
	struct ut_filed_sink *k = (struct ut_filed_sink *)sink;
	int ret = k->end ? k->end(k, m) : 0;

	drop_tasks(k);
	return ret;
}

void ut_filed_sink_init(struct ut_filed_sink *k)
{
	k->sink = (struct ut_write_sink){.begin = filed_begin, .event = filed_event,
					 .lost = filed_lost, .end = filed_end};
}
