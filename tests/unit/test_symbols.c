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
	CHECK_EQ_INT(ut_symtab_count(st), 2); /* one symbol per address: the sized name */
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

/* The names at one address: one is the function's, the others its aliases. */
TEST(aliases)
{
	struct ut_symtab *st = ut_symtab_new();
	const struct ut_sym *a;
	size_t n;

	CHECK(st);
	/* as glibc: strong __libc_malloc and malloc, internal __GI names */
	ut_symtab_add_bound(st, 0x1000, 0x40, "__libc_malloc", NULL, UT_SYM_GLOBAL);
	ut_symtab_add_bound(st, 0x1000, 0x40, "__GI___libc_malloc", NULL, UT_SYM_LOCAL);
	ut_symtab_add_bound(st, 0x1000, 0x40, "malloc", NULL, UT_SYM_GLOBAL);
	/* weak public name, strong internal one (glibc's open / __open) */
	ut_symtab_add_bound(st, 0x2000, 0x40, "__open", NULL, UT_SYM_GLOBAL);
	ut_symtab_add_bound(st, 0x2000, 0x40, "open64", NULL, UT_SYM_WEAK);
	ut_symtab_add_bound(st, 0x2000, 0x40, "open", NULL, UT_SYM_WEAK);
	/* global over weak over local, then the shortest, then byte order */
	ut_symtab_add_bound(st, 0x3000, 0x40, "impl", NULL, UT_SYM_LOCAL);
	ut_symtab_add_bound(st, 0x3000, 0x40, "api_entry", NULL, UT_SYM_GLOBAL);
	ut_symtab_add_bound(st, 0x3000, 0x40, "apiw", NULL, UT_SYM_WEAK);
	ut_symtab_add_bound(st, 0x4000, 0x40, "_ZN1AC2Ev", NULL, UT_SYM_WEAK);
	ut_symtab_add_bound(st, 0x4000, 0x40, "_ZN1AC1Ev", NULL, UT_SYM_WEAK);
	ut_symtab_add_bound(st, 0x4000, 0x40, "_ZN1AC1Ev", NULL, UT_SYM_WEAK); /* listed twice */
	/* a label inside a function never names it */
	ut_symtab_add_bound(st, 0x5000, 0, "a", NULL, UT_SYM_GLOBAL);
	ut_symtab_add_bound(st, 0x5000, 0x40, "long_function_name", NULL, UT_SYM_LOCAL);
	ut_symtab_add(st, 0x6000, 0x40, "alone", NULL);
	ut_symtab_finish(st);
	CHECK_EQ_INT(ut_symtab_count(st), 6);
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x1008)->name, "malloc");
	a = ut_symtab_aliases(st, 0x1000, &n);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_STR(a[0].name, "__libc_malloc");
	CHECK_EQ_STR(a[1].name, "__GI___libc_malloc");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x2000)->name, "open");
	a = ut_symtab_aliases(st, 0x2000, &n);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_STR(a[0].name, "open64");
	CHECK_EQ_STR(a[1].name, "__open");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x3000)->name, "api_entry");
	a = ut_symtab_aliases(st, 0x3000, &n);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_STR(a[0].name, "apiw");
	CHECK_EQ_STR(a[1].name, "impl");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x4000)->name, "_ZN1AC1Ev");
	a = ut_symtab_aliases(st, 0x4000, &n);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_STR(a[0].name, "_ZN1AC2Ev");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x5000)->name, "long_function_name");
	CHECK_EQ_INT(ut_symtab_aliases(st, 0x5000, &n) != NULL, 1);
	CHECK_EQ_INT(ut_symtab_aliases(st, 0x6000, &n) == NULL && n == 0, 1);
	CHECK_EQ_INT(ut_symtab_aliases(st, 0x1008, &n) == NULL, 1); /* by the function's address only */
	/* a second finish (gap markers) keeps them */
	ut_symtab_mark_gaps(st);
	ut_symtab_aliases(st, 0x2000, &n);
	CHECK_EQ_INT(n, 2);
	ut_symtab_free(st);
}

/*
 * Tables that come as sorted runs (objects one after the other, gap markers
 * appended to a sorted table) are ordered as any other: by address, the
 * same function and aliases at an address whatever run they came in.
 */
TEST(sorted_runs)
{
	struct ut_symtab *st = ut_symtab_new();
	static const uint64_t want[] = {0x1000, 0x1100, 0x5000, 0x5100, 0x9000, 0x9100};
	const struct ut_sym *a;
	size_t n;

	CHECK(st);
	/* three objects, each in order, loaded out of address order */
	ut_symtab_add(st, 0x5000, 0x80, "lib_a", "lib");
	ut_symtab_add(st, 0x5100, 0x80, "lib_b", "lib");
	ut_symtab_add(st, 0x9000, 0x80, "ld_a", "ld");
	ut_symtab_add(st, 0x9100, 0x80, "ld_b", "ld");
	ut_symtab_add(st, 0x1000, 0x80, "main", NULL);
	ut_symtab_add(st, 0x1100, 0x80, "f", NULL);
	ut_symtab_finish(st);
	CHECK_EQ_INT(ut_symtab_count(st), 6);
	for (size_t i = 0; i < 6; i++)
		CHECK_EQ_INT(ut_symtab_at(st, i)->addr, want[i]);
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x5150)->name, "lib_b");
	/* gap markers: a second run interleaved with the first */
	ut_symtab_mark_gaps(st);
	CHECK_EQ_INT(ut_symtab_count(st), 12);
	for (size_t i = 1; i < ut_symtab_count(st); i++)
		CHECK(ut_symtab_at(st, i - 1)->addr < ut_symtab_at(st, i)->addr);
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x1090)->name, "[unknown]");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x5190)->name, "[lib]");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x9120)->name, "ld_b");
	ut_symtab_free(st);

	/* runs that meet at an address: the names there are one function's */
	st = ut_symtab_new();
	CHECK(st);
	ut_symtab_add_bound(st, 0x2000, 0x40, "zzz", NULL, UT_SYM_GLOBAL);
	ut_symtab_add_bound(st, 0x3000, 0x40, "other", NULL, UT_SYM_GLOBAL);
	ut_symtab_add_bound(st, 0x1000, 0x40, "first", NULL, UT_SYM_GLOBAL);
	ut_symtab_add_bound(st, 0x2000, 0x40, "__zzz", NULL, UT_SYM_LOCAL);
	ut_symtab_add_bound(st, 0x2800, 0x40, "mid", NULL, UT_SYM_GLOBAL);
	ut_symtab_finish(st);
	CHECK_EQ_INT(ut_symtab_count(st), 4);
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x2000)->name, "zzz");
	a = ut_symtab_aliases(st, 0x2000, &n);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_STR(a[0].name, "__zzz");
	CHECK_EQ_STR(ut_symtab_lookup(st, 0x2810)->name, "mid");
	ut_symtab_free(st);
}

/* Aliases in an ELF file: this binary's own alias attribute and weak alias. */
__attribute__((noinline)) int ut_probe_aliased(int x);
__attribute__((noinline)) int ut_probe_aliased(int x)
{
	return x * 3;
}
int ut_probe_alias(int x) __attribute__((alias("ut_probe_aliased")));
int ut_probe_weak(int x) __attribute__((weak, alias("ut_probe_aliased")));

TEST(elf_aliases)
{
	struct ut_symtab *st = ut_symtab_new();
	const struct ut_sym *a = NULL;
	size_t n = 0;

	CHECK(ut_symtab_load_elf(st, "/proc/self/exe", 0, NULL) > 10);
	ut_symtab_finish(st);
	for (size_t i = 0; i < ut_symtab_count(st); i++) {
		const struct ut_sym *s = ut_symtab_at(st, i);

		if (!strcmp(s->name, "ut_probe_alias")) /* global, shorter than ut_probe_aliased */
			a = ut_symtab_aliases(st, s->addr, &n);
	}
	CHECK(a != NULL);
	CHECK_EQ_INT(n, 2);
	if (n == 2) {
		CHECK_EQ_STR(a[0].name, "ut_probe_aliased"); /* global */
		CHECK_EQ_STR(a[1].name, "ut_probe_weak");     /* weak, though shorter */
	}
	CHECK_EQ_INT(ut_probe_alias(2) + ut_probe_weak(1), 9);
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
	RUN(aliases);
	RUN(sorted_runs);
	RUN(elf_aliases);
	RUN(load_own_elf);
	RUN(load_errors);
	RUN(module_names);
	TEST_EXIT();
}
