// SPDX-License-Identifier: MIT
/*
 * Which functions of a program have no site: a program linked from objects
 * built with utrace's flags and objects built without (a vendored library,
 * a forgotten CFLAGS) is traced where it can be, and `list -f` says what is
 * not, so that a missing function is not taken for a filter's fault.  The
 * C runtime's start files and libc_nonshared.a are never built with sites:
 * their functions are not named, nor the cold parts gcc splits off a
 * function (f.cold: its entry is in f) or compiler helpers without
 * sites (__clang_call_terminate).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/unsited.h"
#include "common/demangle.h"
#include "common/symbols.h"

static bool crt_function(const char *name)
{
	static const char *const crt[] = {"_start", "_init", "_fini", "deregister_tm_clones",
					  "register_tm_clones", "__do_global_dtors_aux", "frame_dummy",
					  "__libc_csu_init", "__libc_csu_fini", "_dl_relocate_static_pie",
					  "__gmon_start__", "atexit", "at_quick_exit", "pthread_atfork",
					  "__stack_chk_fail_local", "__libc_start_call_main",
					  "__clang_call_terminate"};

	if (strstr(name, ".cold"))
		return true;
	for (size_t i = 0; i < sizeof(crt) / sizeof(crt[0]); i++)
		if (!strcmp(name, crt[i]))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of the program's own functions in @t, sorted; NULL if none or no memory. */
static const char **program_names(const struct ut_ftable *t, size_t *n)
{
	const char **v = malloc((ut_ftable_size(t) + 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < ut_ftable_size(t); i++) {
		const struct ut_filter_func *f = ut_ftable_get(t, i);

		if (f && !f->module)
			v[(*n)++] = f->name;
	}
	if (v)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

void ut_say_unsited(FILE *out, const char *prog, const struct ut_ftable *t)
{
	struct ut_symtab *st = ut_symtab_new();
	struct ut_demangler *dm = ut_demangler_new();
	size_t n = 0, nnames = 0;
	const char **names = program_names(t, &nnames);

	if (st && dm && names && ut_symtab_load_elf(st, prog, 0, NULL) > 0) {
		ut_symtab_finish(st);
		for (size_t i = 0; i < ut_symtab_count(st); i++) {
			const char *name = ut_symtab_at(st, i)->name;

			if (crt_function(name) || bsearch(&name, names, nnames, sizeof(*names), cmp_str))
				continue;
			if (!n++)
				fprintf(out, "utrace: note: functions of %s without a site (built without "
					"utrace's flags: 'utrace help cflags'), not traced: %s",
					prog, ut_demangle(dm, name));
			else
				fprintf(out, ", %s", ut_demangle(dm, name));
		}
		if (n)
			fputc('\n', out);
	}
	free(names);
	ut_demangler_free(dm);
	ut_symtab_free(st);
}
