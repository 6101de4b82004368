// SPDX-License-Identifier: MIT
/* utrace list -t | -o | -f PROGRAM */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/unsited.h"
#include "common/demangle.h"
#include "common/elfsites.h"
#include "common/filter.h"
#include "common/names.h"
#include "common/output/output.h"

const char ut_help_list[] =
	"usage: utrace list -t | -o | [-O nosym-demangle] -f PROGRAM\n"
	"\n"
	"  -t            available tracers (available_tracers)\n"
	"  -o            trace options and their defaults (trace_options)\n"
	"  -f PROGRAM    PROGRAM's traceable functions and those of the shared\n"
	"                objects it loads (available_filter_functions: `name` for the\n"
	"                program, `name [lib]` for a shared object).  C++ names are\n"
	"                demangled (geo::scale(int)); -O nosym-demangle lists them as\n"
	"                the symbol table holds them (_ZN3geo5scaleEi).  Filters take\n"
	"                either form: 'geo::scale' selects every overload,\n"
	"                'geo::twice' every template instance, 'geo::Point::*' every\n"
	"                member, 'geo::scale(int)' one; any variant of a constructor\n"
	"                or destructor (C1/C2, D0/D1/D2) names it.  A return type is\n"
	"                not part of the name; write operator\\[\\] for operator[]\n"
	"                ('[' starts a glob class).\n";

static int list_functions(const char *prog, bool demangled)
{
	struct ut_ftable *t = ut_ftable_new();
	char *text = NULL;
	size_t len = 0;
	int nobj, ret;

	if (!t || ut_ftable_set_demangle(t, ut_demangle_alloc) || ut_ftable_list_demangled(t, demangled))
		return 1;
	ret = ut_elfsites_program(t, prog, &nobj);
	if (ret) {
		ut_ftable_free(t);
		ut_usage_die("%s: %s", prog, ret == -ENOEXEC ? "not an ELF file" : strerror(-ret));
	}
	if (!nobj && ut_elfsites_instrumented(prog))
		ut_err("warning: %s is stripped: its functions have sites but no names", prog);
	else if (!nobj)
		ut_err("warning: %s has no patchable functions: build it with "
		       "-fpatchable-function-entry=5 or -pg -mfentry ('utrace cflags CC' says which, "
		       "'utrace help cflags' why)",
		       prog);
	else
		ut_say_unsited(stderr, prog, t);
	if (!ut_ftable_format_available(t, &text, &len))
		fwrite(text, 1, len, stdout);
	free(text);
	ut_ftable_free(t);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct ut_opts opts;
	char list[128];
	bool demangled = true;
	int c;

	optind = 1;
	while ((c = getopt(argc, argv, "tof:hO:")) != -1) {
		switch (c) {
		case 't':
			printf("%s\n", ut_tracer_list(list, sizeof(list)));
			return 0;
		case 'o':
			ut_opts_init(&opts, 0);
			ut_opts_print(&opts, stdout, "function", 0);
			return 0;
		case 'f':
			return list_functions(optarg, demangled);
		case 'O':
			if (strcmp(optarg, "sym-demangle") != 0 && strcmp(optarg, "nosym-demangle") != 0)
				ut_usage_die("-O %s: list -f takes -O [no]sym-demangle only", optarg);
			demangled = optarg[0] != 'n';
			break;
		case 'h':
			fputs(ut_help_list, stdout);
			return 0;
		default:
			ut_usage_die("bad usage (see 'utrace help list')");
		}
	}
	ut_usage_die("list what? -t, -o or -f PROGRAM (see 'utrace help list')");
}
