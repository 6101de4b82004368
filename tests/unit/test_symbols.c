// SPDX-License-Identifier: MIT
/* Symbol tables (common/symbols.c): ELF loading, lookup, gaps, module names. */
#include <errno.h>
#include <stdint.h>

#include "common/symbols.h"
#include "ut_test.h"

__attribute__((noinline)) int ut_probe_function(int x);
__attribute__((noinline)) int ut_probe_function(int x)
{
	return x * 3;
}

TEST(lookup_rules)
{
	struct ut_symtab *st = ut_symtab_new();
	const struct ut_sym *s;

	CHECK(st);
	ut_symtab_add(st, 0x2000, 0x10, "b", NULL);
	ut_symtab_add(st, 0x1000, 0x20, "a", "libz");
	ut_symtab_add(st, 0x1000, 0, "_a_alias", "libz");
	ut_symtab_finish(st);
	CHECK_EQ_INT(ut_symtab_count(st), 2); /* the alias is dropped: sized name wins */
	CHECK(ut_symtab_lookup(st, 0xfff) == NULL);
	s = ut_symtab_lookup(st, 0x1005);
	CHECK_EQ_STR(s->name, "a");
	CHECK_EQ_STR(s->module, "libz");
	/* nearest preceding symbol, like trace-cmd, until gaps are marked */
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x1800)->name, "a");
	ut_symtab_mark_gaps(st);
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x1800)->name, "[libz]");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x1010)->name, "a");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x2005)->name, "b");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x9000)->name, "[unknown]");
	ut_symtab_free(st);
}

TEST(load_own_elf)
{
	struct ut_symtab *st = ut_symtab_new();
	uint64_t addr = (uint64_t)(uintptr_t)ut_probe_function;
	const struct ut_sym *s;
	int n;

	n = ut_symtab_load_elf(st, "/proc/self/exe", 0, NULL);
	CHECK(n > 10);
	ut_symtab_finish(st);
	/* the file has link-time addresses; find the symbol by name instead */
	for (size_t i = 0; i < ut_symtab_count(st); i++) {
		s = ut_symtab_at(st, i);
		if (!strcmp(s->name, "ut_probe_function")) {
			CHECK(s->size > 0);
			CHECK(s->module == NULL);
			(void)addr;
			ut_symtab_free(st);
			return;
		}
	}
	CHECK(!"ut_probe_function not found");
}

TEST(load_errors)
{
	struct ut_symtab *st = ut_symtab_new();

	CHECK_EQ_INT(ut_symtab_load_elf(st, "/nonexistent/file", 0, NULL), -ENOENT);
	CHECK_EQ_INT(ut_symtab_load_elf(st, "/etc/passwd", 0, NULL), -ENOEXEC);
	ut_symtab_free(st);
}

TEST(module_names)
{
	char m[64];

	ut_module_name("/usr/lib/x86_64-linux-gnu/libz.so.1.2.13", m, sizeof(m));
	CHECK_EQ_STR(m, "libz");
	ut_module_name("libtlib.gcc-pfe.so", m, sizeof(m));
	CHECK_EQ_STR(m, "libtlib");
	ut_module_name("/opt/plugin", m, sizeof(m));
	CHECK_EQ_STR(m, "plugin");
	ut_module_name("/x/averyveryverylongname.so", m, 5);
	CHECK_EQ_STR(m, "aver");
}

int main(void)
{
	RUN(lookup_rules);
	RUN(load_own_elf);
	RUN(load_errors);
	RUN(module_names);
	TEST_EXIT();
}
