// SPDX-License-Identifier: MIT
/* utrace list -t | -o | -f PROGRAM | -e PROGRAM */
#include <errno.h>
#include <getopt.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cfg_opts.h"
#include "cli/cli.h"
#include "cli/plain.h"
#include "cli/unsited.h"
#include "common/demangle.h"
#include "common/elfsites.h"
#include "common/filter.h"
#include "common/inlined.h"
#include "common/symbols.h"
#include "common/procevents.h"
#include "common/usdt.h"
#include "common/names.h"
#include "common/pltsyms.h"
#include "common/output/output.h"

const char ut_help_list[] =
	"usage: utrace list -t | -o | -e PROGRAM [--jumps] | [-O nosym-demangle] [-O plt]\n"
	"                   [-O [no]patch-prologue] -f [--inlined | --untraceable] PROGRAM\n"
	"\n"
	"  -t            available tracers (available_tracers)\n"
	"  -o            trace options and their defaults (trace_options)\n"
	"  -f PROGRAM    PROGRAM's traceable functions and those of the shared\n"
	"                objects it loads (available_filter_functions: `name` for the\n"
	"                program, `name [lib]` for a shared object; `[+N inlined]`:\n"
	"                the compiler also inlined N copies of it, which have no\n"
	"                site, as the debug info says).  C++ names are\n"
	"                demangled (geo::scale(int)); -O nosym-demangle lists them as\n"
	"                the symbol table holds them (_ZN3geo5scaleEi).  Filters take\n"
	"                either form: 'geo::scale' selects every overload,\n"
	"                'geo::twice' every template instance, 'geo::Point::*' every\n"
	"                member, 'geo::scale(int)' one; any variant of a constructor\n"
	"                or destructor (C1/C2, D0/D1/D2) names it.  A return type is\n"
	"                not part of the name; write operator\\[\\] for operator[]\n"
	"                ('[' starts a glob class).\n"
	"                A function with other names (symbols at its address: alias\n"
	"                attributes, weak aliases, __internal names, folded code)\n"
	"                is one line, `name [= other, names]`: any of them selects\n"
	"                it, and it prints as `name` (a sized symbol, fewest leading\n"
	"                underscores, global over weak over local, the shortest,\n"
	"                then byte order; the mount's available_filter_functions\n"
	"                has the name alone, as the kernel's does).\n"
	"  --inlined     with -f: every inlined copy instead (the function, where it\n"
	"                sits, file:line, entry address, whether it can be traced:\n"
	"                `traceable: with -O inlined`, or why not)\n"
	"  -O plt        with -f: also the library calls `record -O plt` traces, after\n"
	"                the functions with sites, marked `[plt]`: each function the\n"
	"                program or a library calls through its PLT or GOT, with the\n"
	"                module that defines it (`malloc [libc] [plt]`); a function\n"
	"                with a site of its own is listed once, without the mark (its\n"
	"                site records every call)\n"
	"  -e PROGRAM    the USDT probes (<sys/sdt.h>) of PROGRAM and of the shared\n"
	"                objects it loads (available_events): `provider:name`, then\n"
	"                ` [lib]` for a shared object, then the note's argument\n"
	"                descriptions (`-4@%edi`: a signed 4-byte value in %edi;\n"
	"                `8@-16(%rbp)`, `4@$5`, `8@foo(%rip)`), `(semaphore)` when\n"
	"                the probe has one, `fields: NAME NAME:string ...` when a\n"
	"                description names its arguments (docs/usdt-descriptions.md),\n"
	"                `(N sites)` when the name has several\n"
	"                locations, and why a probe whose arguments cannot be\n"
	"                decoded cannot be enabled; then the process events every\n"
	"                traced program has: sched:sched_process_{fork,exec,exit,free},\n"
	"                signal:signal_{generate,deliver} (the kernel's names and\n"
	"                fields), utrace:{thread_start,thread_exit,dlopen,dlclose}\n"
	"  --jumps       with -e: after each probe, how enabling it patches it:\n"
	"                `[jump]` (its nop and the instructions around it move to a\n"
	"                slot: a few ns a hit) or `[int3: REASON]` (a signal a hit,\n"
	"                ~2 us: the code around it cannot move); `[int3 at K of N\n"
	"                sites: REASON]` when a name's sites differ\n"
	"  -O patch-prologue  with -f: also the functions without a site that a\n"
	"                patched prologue makes traceable (record/start -O\n"
	"                patch-prologue), marked `[prologue]` (the default for a\n"
	"                PROGRAM without sites, as record's; -O nopatch-prologue:\n"
	"                not); of a stripped object,\n"
	"                those .dynsym names (the ones only .eh_frame knows have no\n"
	"                name and are left out), and none without .eh_frame\n"
	"  --untraceable with -f: the functions without a site that no patched\n"
	"                prologue can trace either, each with the reason\n";

/* One object's traceable functions, each marked with the copies the compiler inlined. */
static void print_object(const struct ut_obj *o, struct ut_ftable *t, size_t from)
{
	const struct ut_inltab *tab = ut_inlined_of(o->path);

	for (size_t i = from; i < ut_ftable_size(t); i++) {
		const struct ut_filter_func *f = ut_ftable_get(t, i);
		const struct ut_inl *first;
		size_t k = tab ? ut_inlined_find(tab, f->name, &first) : 0;
		char *aliases = ut_ftable_alias_note(t, i);

		fputs(ut_ftable_listed_name(t, i), stdout);
		if (f->module)
			printf(" [%s]", f->module);
		if (aliases)
			fputs(aliases, stdout);
		free(aliases);
		if (k)
			printf(" [+%zu inlined]", k);
		if (f->kind != UT_KIND_COMPILER)
			printf(" [%s]", ut_kind_name(f->kind));
		putchar('\n');
	}
}

/* Where an instance sits: the function symbol around its entry, else DWARF's name. */
static const char *sits_in(const struct ut_symtab *st, const struct ut_inl *v)
{
	const struct ut_sym *s = v->entry ? ut_symtab_lookup(st, v->entry) : NULL;

	return s && (!s->size || v->entry < s->addr + s->size) ? s->name : v->in;
}

/* `list -f --inlined`: every inlined instance of one object's functions. */
static void print_inlined(const struct ut_obj *o)
{
	const struct ut_inltab *tab = ut_inlined_of(o->path);
	struct ut_symtab *st = ut_symtab_new();
	enum ut_pro_why *why = tab ? calloc(tab->n + 1, sizeof(*why)) : NULL;

	if (!tab || !st || !why || ut_elfsites_inlined(o->path, tab, why) < 0) {
		ut_symtab_free(st);
		free(why);
		return;
	}
	if (ut_symtab_load_elf(st, o->path, 0, NULL) >= 0)
		ut_symtab_finish(st);
	if (tab->note[0])
		ut_err("warning: %s: %s", o->path, tab->note);
	if (tab->status == UT_INL_NODEBUG && ut_elfsites_instrumented(o->path))
		ut_err("warning: %s has no debug info: what was inlined is unknown (build with -g, "
		       "or install its -dbgsym package)",
		       o->path);
	for (size_t i = 0; i < tab->n; i++) {
		const struct ut_inl *v = &tab->v[i];

		printf("%s%s%s%s in %s", v->func, o->module[0] ? " [" : "", o->module,
		       o->module[0] ? "]" : "", sits_in(st, v));
		if (v->via)
			printf(" via %s", v->via);
		const char *file = ut_inlined_file(tab, v);

		printf(" at %s:%u", file ? file : "?", v->line);
		if (v->nr_ranges > 1) /* e.g. an unrolled loop's copies of one call */
			printf(" (%u ranges)", v->nr_ranges);
		if (!v->entry)
			printf(" no entry  traceable: no -- no code of its own left\n");
		else if (why[i] == UT_PRO_OK)
			printf(" entry %#llx  traceable: with -O inlined\n",
			       (unsigned long long)v->entry);
		else
			printf(" entry %#llx  traceable: no -- %s\n", (unsigned long long)v->entry,
			       ut_pro_why_text_at(why[i]));
	}
	ut_symtab_free(st);
	free(why);
}

/* -O plt: the library calls, after the functions with sites (marked with their kind). */
static void print_library_calls(struct ut_ftable *t, const struct ut_objlist *l)
{
	size_t from = ut_ftable_size(t);
	char rt[4096];

	if (ut_pltsyms_add(t, l, ut_find_runtime(rt, sizeof(rt)) ? NULL : rt) < 0)
		ut_usage_die("out of memory");
	for (size_t i = from; i < ut_ftable_size(t); i++) {
		const struct ut_filter_func *f = ut_ftable_get(t, i);

		fputs(ut_ftable_listed_name(t, i), stdout);
		if (f->module)
			printf(" [%s]", f->module);
		printf(" [%s]\n", ut_kind_name(f->kind));
	}
}


/* `list -f --untraceable`: one object's refused functions, with the reason. */
static void print_refused(void *ctx, const struct ut_sym *s, enum ut_pro_why why,
			  const struct ut_pro_plan *p)
{
	const struct ut_obj *o = ctx;
	char *name = ut_demangle_alloc(s->name);

	(void)p;
	if (why == UT_PRO_OK)
		return;
	printf("%s%s%s%s  %s\n", name ? name : s->name, o->module[0] ? " [" : "", o->module,
	       o->module[0] ? "]" : "", ut_pro_why_text(why));
	free(name);
}

static int list_untraceable(const char *prog)
{
	struct ut_objlist l;

	elf_version(EV_CURRENT);
	if (ut_elfsites_objects(prog, true, true, &l))
		ut_usage_die("out of memory");
	for (size_t i = 0; i < l.n; i++) {
		int ret = ut_elfsites_prologues(l.v[i].path, l.v[i].module[0] ? l.v[i].module : NULL,
						print_refused, &l.v[i]);

		if (!i && ret < 0)
			ut_usage_die("%s: %s", prog,
				     ret == -ENOEXEC ? "not an ELF file" : strerror(-ret));
	}
	ut_objlist_free(&l);
	return 0;
}

static bool prologues; /* -O patch-prologue */

static int list_functions(const char *prog, bool inlined, bool demangled, bool plt)
{
	struct ut_ftable *t = ut_ftable_new();
	struct ut_objlist l;
	int nobj = 0, ret;

	if (!t || ut_ftable_set_demangle(t, ut_demangle_alloc) || ut_ftable_list_demangled(t, demangled))
		return 1;
	elf_version(EV_CURRENT);
	ret = ut_elfsites_file(t, prog, NULL);
	if (ret < 0) {
		ut_ftable_free(t);
		ut_usage_die("%s: %s", prog, ret == -ENOEXEC ? "not an ELF file" : strerror(-ret));
	}
	if (ut_elfsites_objects(prog, true, true, &l))
		ut_usage_die("out of memory");
	for (size_t i = 0; i < l.n; i++) {
		size_t from = ut_ftable_size(t);

		if (i && ut_elfsites_file(t, l.v[i].path, l.v[i].module) <= 0)
			continue;
		nobj += ut_ftable_size(t) > from || (!i && ret > 0);
		if (inlined)
			print_inlined(&l.v[i]);
		else
			print_object(&l.v[i], t, i ? from : 0);
	}
	if (plt && !inlined) {
		size_t before = ut_ftable_size(t);

		print_library_calls(t, &l);
		nobj += ut_ftable_size(t) > before;
	}
	if (!nobj && ut_elfsites_instrumented(prog))
		ut_err("warning: %s is stripped: its functions have sites but no names", prog);
	else if (!nobj)
		ut_err("warning: %s has no patchable functions: build it with "
		       "-fpatchable-function-entry=5 or -pg -mfentry ('utrace cflags CC' says which, "
		       "'utrace help cflags' why)%s",
		       prog, prologues ? "" : ", or list what -O patch-prologue traces as it is built");
	else if (prologues && !inlined)
		ut_err("note: the functions no patched prologue can trace: "
		       "'utrace list -f %s --untraceable'",
		       prog);
	else if (!inlined)
		ut_say_unsited(stderr, prog, t);
	ut_objlist_free(&l);
	ut_ftable_free(t);
	return 0;
}

/* Whether probe @i of @l repeats the name of an earlier one. */
static bool seen_before(const struct ut_usdt_list *l, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (!strcmp(l->v[k].provider, l->v[i].provider) && !strcmp(l->v[k].name, l->v[i].name))
			return true;
	return false;
}

/* "  fields: filename:string funcname:string arg3" when a description names some argument. */
static void print_fields(const struct ut_usdt_probe *p)
{
	bool named = false;

	for (int k = 0; k < p->nargs; k++)
		named |= p->arg[k].name[0] != '\0';
	if (!named)
		return;
	fputs("  fields:", stdout);
	for (int k = 0; k < p->nargs; k++) {
		if (p->arg[k].name[0])
			printf(" %s", p->arg[k].name);
		else
			printf(" arg%d", k + 1);
		if (p->arg[k].is_string)
			fputs(":string", stdout);
	}
}

/* "  [jump]" or "  [int3...: REASON]" for the sites of probe @i's name (--jumps). */
static void print_mode(const struct ut_usdt_list *l, size_t i, const enum ut_pro_why *why)
{
	size_t sites = 0, int3 = 0, first = 0;

	for (size_t k = i; k < l->n; k++) {
		if (strcmp(l->v[k].provider, l->v[i].provider) != 0 ||
		    strcmp(l->v[k].name, l->v[i].name) != 0)
			continue;
		sites++;
		if (why[k] != UT_PRO_OK && !int3++)
			first = k;
	}
	if (!int3)
		fputs("  [jump]", stdout);
	else if (int3 == sites && sites == 1)
		printf("  [int3: %s]", ut_pro_why_text_probe(why[first]));
	else
		printf("  [int3 at %zu of %zu sites: %s]", int3, sites, ut_pro_why_text_probe(why[first]));
}

/* One object's probes, each name once (its first location's arguments); @why: --jumps. */
static void print_probes(const struct ut_obj *o, const struct ut_usdt_list *l,
			 const enum ut_pro_why *why)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct ut_usdt_probe *p = &l->v[i];
		size_t sites = 1;

		if (seen_before(l, i))
			continue;
		for (size_t k = i + 1; k < l->n; k++)
			sites += !strcmp(l->v[k].provider, p->provider) && !strcmp(l->v[k].name, p->name);
		printf("%s:%s", p->provider, p->name);
		if (o->module[0])
			printf(" [%s]", o->module);
		if (p->args[0])
			printf("  %s", p->args);
		if (p->semaphore)
			fputs("  (semaphore)", stdout);
		print_fields(p);
		if (sites > 1)
			printf("  (%zu sites)", sites);
		if (p->nargs < 0)
			printf("  -- cannot be enabled: %s", p->why);
		else if (why)
			print_mode(l, i, why);
		putchar('\n');
	}
}

/* The process events (common/procevents.h), as available_events lists them. */
static void print_procevents(void)
{
	size_t n;
	const struct ut_procev *v = ut_procev_all(&n);

	for (size_t i = 0; i < n; i++)
		if (v[i].id >= UT_PEV_FIRST)
			printf("%s:%s\n", v[i].system, v[i].name);
}

/* `list -e`: the USDT probes of @prog and of the libraries it loads, then the process events. */
static int list_events(const char *prog, bool jumps)
{
	struct ut_objlist objs;
	int ret;

	if (ut_elfsites_objects(prog, true, true, &objs))
		ut_usage_die("out of memory");
	for (size_t i = 0; i < objs.n; i++) {
		struct ut_usdt_list l = {0};

		ret = ut_usdt_read_file(objs.v[i].path, &l);
		if (ret < 0 && !i) {
			ut_objlist_free(&objs);
			ut_usage_die("%s: %s", prog, ret == -ENOEXEC ? "not an ELF file" : strerror(-ret));
		}
		enum ut_pro_why *why = jumps ? calloc(l.n + 1, sizeof(*why)) : NULL;

		if (why && ut_elfsites_probes(objs.v[i].path, &l, why) < 0)
			for (size_t k = 0; k < l.n; k++)
				why[k] = UT_PRO_UNDECODABLE;
		print_probes(&objs.v[i], &l, why);
		free(why);
		ut_usdt_list_free(&l);
	}
	ut_objlist_free(&objs);
	print_procevents();
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct ut_opts opts;
	char list[128];
	int c;

	static const struct option longopts[] = {{"inlined", no_argument, NULL, 'I'},
						 {"untraceable", no_argument, NULL, 'U'},
						 {"jumps", no_argument, NULL, 'J'},
						 {0}};
	const char *prog = NULL, *events = NULL;
	bool inlined = false, demangled = true, plt = false, untraceable = false, jumps = false;
	bool functions = false, prologue_said = false;

	optind = 1;
	while ((c = getopt_long(argc, argv, "tof:e:hO:", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			printf("%s\n", ut_tracer_list(list, sizeof(list)));
			return 0;
		case 'o':
			ut_opts_init(&opts, 0);
			ut_opts_print(&opts, stdout, "function", 0);
			return 0;
		case 'f':
			functions = true;
			if (optarg[0] == '-' && optarg[1] == '-')
				optind--; /* `-f --untraceable PROGRAM`: an option, the program follows */
			else
				prog = optarg;
			break;
		case 'e':
			events = optarg;
			break;
		case 'I':
			inlined = true;
			break;
		case 'U':
			untraceable = true;
			break;
		case 'J':
			jumps = true;
			break;
		case 'O':
			if (ut_cfg_opt_given(c, optarg, "plt")) {
				plt = optarg[0] == 'p';
				break;
			}
			if (ut_cfg_opt_given(c, optarg, "patch-prologue")) {
				prologues = optarg[0] == 'p';
				prologue_said = true;
				break;
			}
			if (strcmp(optarg, "sym-demangle") != 0 && strcmp(optarg, "nosym-demangle") != 0)
				ut_usage_die("-O %s: list -f takes -O [no]sym-demangle, [no]plt and "
					     "[no]patch-prologue only",
					     optarg);
			demangled = optarg[0] != 'n';
			break;
		case 'h':
			fputs(ut_help_list, stdout);
			return 0;
		default:
			ut_usage_die("bad usage (see 'utrace help list')");
		}
	}
	if (events && (prog || inlined))
		ut_usage_die("-e lists events only (see 'utrace help list')");
	if (events)
		return list_events(events, jumps);
	if (jumps)
		ut_usage_die("--jumps goes with -e PROGRAM (see 'utrace help list')");
	if (functions && !prog && optind < argc)
		prog = argv[optind++];
	if (functions && !prog)
		ut_usage_die("-f lists a program's functions: which program? (see 'utrace help list')");
	if (optind < argc)
		ut_usage_die("%s: one program at a time (see 'utrace help list')", argv[optind]);
	/* a plain program's functions are those its patched prologues trace (cli/plain.c) */
	if (prog && !prologue_said && !inlined)
		prologues = ut_plain_traceable(prog);
	ut_elfsites_with_prologues(prologues);
	if (prog && untraceable)
		return list_untraceable(prog);
	if (prog)
		return list_functions(prog, inlined, demangled, plt);
	if (inlined)
		ut_usage_die("--inlined goes with -f PROGRAM (see 'utrace help list')");
	ut_usage_die("list what? -t, -o, -e PROGRAM or -f PROGRAM (see 'utrace help list')");
}
