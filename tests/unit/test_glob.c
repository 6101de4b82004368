// SPDX-License-Identifier: MIT
/* Pattern classification and glob matching (common/glob.c). */
#include <stdbool.h>

#include "common/glob.h"
#include "ut_test.h"

static bool m(const char *pat, const char *name)
{
	struct ut_glob g;
	bool r;

	CHECK(ut_glob_compile(&g, pat) == 0);
	r = ut_glob_match(&g, name);
	ut_glob_free(&g);
	return r;
}

static int type_of(const char *pat)
{
	struct ut_glob g;
	int t;

	CHECK(ut_glob_compile(&g, pat) == 0);
	t = g.type;
	ut_glob_free(&g);
	return t;
}

TEST(classify)
{
	CHECK_EQ_INT(type_of("foo"), UT_GLOB_EXACT);
	CHECK_EQ_INT(type_of("foo*"), UT_GLOB_PREFIX);
	CHECK_EQ_INT(type_of("*foo"), UT_GLOB_SUFFIX);
	CHECK_EQ_INT(type_of("*foo*"), UT_GLOB_SUBSTR);
	CHECK_EQ_INT(type_of("*"), UT_GLOB_SUFFIX);
	CHECK_EQ_INT(type_of("**"), UT_GLOB_SUBSTR);
	CHECK_EQ_INT(type_of("f*o"), UT_GLOB_FULL);
	CHECK_EQ_INT(type_of("*f*o"), UT_GLOB_FULL);
	CHECK_EQ_INT(type_of("f?o"), UT_GLOB_FULL);
	CHECK_EQ_INT(type_of("f[ab]"), UT_GLOB_FULL);
	CHECK_EQ_INT(type_of("f\\o"), UT_GLOB_FULL);
	CHECK_EQ_INT(type_of("*fo?"), UT_GLOB_FULL);
	CHECK_EQ_INT(type_of(""), UT_GLOB_EXACT);
	CHECK_EQ_INT(ut_glob_classify("foo*bar", 4), UT_GLOB_PREFIX);
}

TEST(search_text)
{
	struct ut_glob g;

	CHECK(ut_glob_compile(&g, "*mid*") == 0);
	CHECK_EQ_STR(g.text, "mid");
	CHECK_EQ_INT(g.len, 3);
	ut_glob_free(&g);
	CHECK(ut_glob_compile(&g, "a*b") == 0);
	CHECK_EQ_STR(g.text, "a*b");
	ut_glob_free(&g);
	CHECK(ut_glob_compile_n(&g, "pre*xyz", 4) == 0);
	CHECK_EQ_INT(g.type, UT_GLOB_PREFIX);
	CHECK_EQ_STR(g.text, "pre");
	ut_glob_free(&g);
	ut_glob_free(&g); /* twice is harmless */
}

TEST(simple_classes)
{
	CHECK(m("schedule", "schedule"));
	CHECK(!m("schedule", "schedule_tail"));
	CHECK(!m("schedule", "schedul"));
	CHECK(m("sched*", "schedule"));
	CHECK(m("sched*", "sched"));
	CHECK(!m("sched*", "xsched"));
	CHECK(m("*lock", "spin_lock"));
	CHECK(m("*lock", "lock"));
	CHECK(!m("*lock", "spin_lock_irq"));
	CHECK(m("*lock*", "spin_lock_irq"));
	CHECK(m("*lock*", "lock"));
	CHECK(!m("*lock*", "loc"));
	CHECK(m("*", "anything"));
	CHECK(m("*", ""));
	CHECK(m("**", "anything"));
	CHECK(!m("", "x"));
}

TEST(full_glob)
{
	CHECK(m("do_*_work", "do_some_work"));
	CHECK(m("do_*_work", "do__work"));
	CHECK(!m("do_*_work", "do_work"));
	CHECK(m("a*b*c", "aXXbYYc"));
	CHECK(m("a*b*c", "abc"));
	CHECK(m("a*b*c", "abcbc"));
	CHECK(!m("a*b*c", "abcb"));
	CHECK(m("*a*b", "xxaxxb"));
	CHECK(m("f?o", "foo"));
	CHECK(m("f?o", "fxo"));
	CHECK(!m("f?o", "fo"));
	CHECK(!m("f?o", "fooo"));
	CHECK(m("a**b", "ab"));
	CHECK(m("????", "abcd"));
	CHECK(!m("????", "abc"));
	CHECK(m("*?", "a"));
	CHECK(!m("*?", ""));
}

TEST(brackets)
{
	CHECK(m("f[abc]o", "fbo"));
	CHECK(!m("f[abc]o", "fdo"));
	CHECK(m("f[a-c]o", "fco"));
	CHECK(!m("f[a-c]o", "fdo"));
	CHECK(m("f[!a-c]o", "fdo"));
	CHECK(!m("f[!a-c]o", "fbo"));
	CHECK(m("f[^x]o", "foo"));
	CHECK(!m("f[^x]o", "fxo"));
	CHECK(m("v[0-9a-f]", "v7"));
	CHECK(m("v[0-9a-f]", "ve"));
	CHECK(!m("v[0-9a-f]", "vg"));
	/* ']' first is a member; '-' last is literal */
	CHECK(m("x[]]", "x]"));
	CHECK(m("x[!]]", "xa"));
	CHECK(!m("x[!]]", "x]"));
	CHECK(m("x[a-]", "x-"));
	/* an unterminated class is a literal '[' */
	CHECK(m("x[ab", "x[ab"));
	CHECK(!m("x[ab", "xa"));
	/* a class consumes exactly one character */
	CHECK(!m("[ab]", "ab"));
	CHECK(m("*[ab]", "xxb"));
}

TEST(escapes)
{
	CHECK(m("foo\\*", "foo*"));
	CHECK(!m("foo\\*", "foobar"));
	CHECK(m("\\?x", "?x"));
	CHECK(!m("\\?x", "ax"));
	CHECK(m("a\\[b]", "a[b]"));
	CHECK(m("do\\_work", "do_work"));
	CHECK(m("[\\]]x", "]x"));
	CHECK(m("[a\\-z]", "-"));
	CHECK(!m("[a\\-z]", "m"));
	/* a trailing backslash stands for itself */
	CHECK(m("x\\", "x\\"));
	CHECK(!m("x\\", "x"));
	/* escaped star is no wildcard even after a real one */
	CHECK(m("*\\*", "abc*"));
	CHECK(!m("*\\*", "abc"));
}

TEST(fnmatch_raw)
{
	CHECK(ut_glob_fnmatch("*", ""));
	CHECK(ut_glob_fnmatch("", ""));
	CHECK(!ut_glob_fnmatch("", "a"));
	CHECK(ut_glob_fnmatch("*x*y*z*", "..x..y..z.."));
	CHECK(!ut_glob_fnmatch("*x*y*z*", "..x..z..y.."));
	CHECK(ut_glob_fnmatch("\xe9*", "\xe9t\xe9"));
	CHECK(ut_glob_fnmatch("[\x80-\xff]", "\xe9"));
}

int main(void)
{
	RUN(classify);
	RUN(search_text);
	RUN(simple_classes);
	RUN(full_glob);
	RUN(brackets);
	RUN(escapes);
	RUN(fnmatch_raw);
	TEST_EXIT();
}
