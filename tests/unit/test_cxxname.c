// SPDX-License-Identifier: MIT
/*
 * C++ names as filters take them (common/cxxname.c, and their use by
 * common/filter.c): the forms of a demangled name, words with C++
 * punctuation, constructor variants, names the demangler refuses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cxxname.h"
#include "common/demangle.h"
#include "common/filter.h"
#include "ut_test.h"

static void forms(const char *dm, const char *noret, const char *base, const char *notmpl)
{
	struct ut_cxxforms *f = ut_cxxforms_new(dm);

	CHECK(f);
	if (!f)
		return;
	CHECK_EQ_STR(f->full, dm);
	CHECK_EQ_STR(f->noret, noret);
	CHECK_EQ_STR(f->base, base);
	CHECK_EQ_STR(f->base_notmpl, notmpl);
	free(f);
}

TEST(forms)
{
	forms("geo::scale(int)", "geo::scale(int)", "geo::scale", "geo::scale");
	forms("int geo::twice<int>(int)", "geo::twice<int>(int)", "geo::twice<int>", "geo::twice");
	forms("geo::Point::norm() const", "geo::Point::norm() const", "geo::Point::norm",
	      "geo::Point::norm");
	forms("geo::Point::operator+(geo::Point const&) const", "geo::Point::operator+(geo::Point const&) const",
	      "geo::Point::operator+", "geo::Point::operator+");
	forms("bool std::operator< <char>(std::string const&, char const*)",
	      "std::operator< <char>(std::string const&, char const*)", "std::operator< <char>",
	      "std::operator< <char>");
	forms("A::operator()(int) const", "A::operator()(int) const", "A::operator()", "A::operator()");
	forms("operator new(unsigned long, void*)", "operator new(unsigned long, void*)", "operator new",
	      "operator new");
	forms("(anonymous namespace)::f(int)", "(anonymous namespace)::f(int)",
	      "(anonymous namespace)::f", "(anonymous namespace)::f");
	forms("main::{lambda(int)#1}::operator()(int) const", "main::{lambda(int)#1}::operator()(int) const",
	      "main::{lambda(int)#1}::operator()", "main::{lambda(int)#1}::operator()");
	forms("unsigned long const& std::min<unsigned long>(unsigned long const&, unsigned long const&)",
	      "std::min<unsigned long>(unsigned long const&, unsigned long const&)",
	      "std::min<unsigned long>", "std::min");
	forms("Foo::~Foo()", "Foo::~Foo()", "Foo::~Foo", "Foo::~Foo");
	forms("vtable for Foo", "vtable for Foo", "vtable for Foo", "vtable for Foo");
}

static void word(const char *text, const char *first)
{
	size_t end = ut_cxx_word_end(text, 0, strlen(text));

	CHECK(end == strlen(first) && !strncmp(text, first, end));
}

TEST(words)
{
	word("a b", "a");
	word("geo::scale(int, int) x", "geo::scale(int, int)");
	word("geo::Point::norm() const x", "geo::Point::norm() const");
	word("f() &&", "f() &&");
	word("std::map<int, int>::find x", "std::map<int, int>::find");
	word("A::operator<(A const&) x", "A::operator<(A const&)");
	word("A::operator<<(int) x", "A::operator<<(int)");
	word("A::operator() x", "A::operator()");
	word("operator new[](unsigned long) x", "operator new[](unsigned long)");
	word("parse_* !x", "parse_*");
	word("f() constx", "f()");
	word("std::operator< <char>(std::string const&) x", "std::operator< <char>(std::string const&)");
}

TEST(cmd_colon)
{
	char a[] = "ns::f:mod:libz", b[] = ":mod:libz", c[] = "ns::f", d[] = "f:traceoff:3",
	     e[] = "f[abi:cxx11]()";

	CHECK(ut_cxx_cmd_colon(a) == a + 5);
	CHECK(ut_cxx_cmd_colon(b) == b);
	CHECK(ut_cxx_cmd_colon(c) == NULL);
	CHECK(ut_cxx_cmd_colon(d) == d + 1);
	CHECK(ut_cxx_cmd_colon(e) == NULL);
}

static void anchor(const char *word, const char *want)
{
	char buf[64];
	bool got = ut_cxx_word_anchor(word, buf, sizeof(buf));

	CHECK(got == (want != NULL));
	if (got && want)
		CHECK_EQ_STR(buf, want);
}

TEST(anchors)
{
	anchor("ManifestParser::ParseEdge", "ManifestParser");
	anchor("geo::twice<int>", "twice");
	anchor("*::Parse*", "Parse");
	anchor("std::string::size", "size");
	anchor("main::{lambda(int)#1}::operator()", "main");
	anchor("operator new", NULL);
	anchor("std::*", NULL);
	anchor("[ab]*", NULL);
	anchor("*", NULL);
}

TEST(structors)
{
	const char *n = "_ZN3geo5PointC1Eii";

	CHECK(ut_cxx_structor(n) == n + 13);
	CHECK(ut_cxx_structor("_ZN3FooD0Ev") != NULL);
	CHECK(ut_cxx_structor("_ZN3FooC2IiEET_") != NULL);
	CHECK(ut_cxx_structor("_Z7catcherv") == NULL);
	CHECK(ut_cxx_structor("main") == NULL);
}

/* What -l selects over a table with C++ names, as the matching lines of available_filter_functions. */
static void selects(struct ut_ftable *t, const char *words, const char *want)
{
	struct ut_fset *s = ut_fset_new(t, UT_FSET_FILTER);
	char *text = NULL;
	int r = s ? ut_fset_set(s, words, true, NULL, 0) : -1;

	CHECK(r == 0);
	if (!r && !ut_fset_format(s, "", &text, NULL))
		CHECK_EQ_STR(text, want);
	free(text);
	ut_fset_free(s);
}

TEST(filter)
{
	struct ut_ftable *t = ut_ftable_new();
	static const char *const names[] = {"main",
					    "_ZN3geo5PointC1Eii",
					    "_ZNK3geo5Point4normEv",
					    "_ZN3geo5scaleEi",
					    "_ZN3geo5scaleEd",
					    "_ZN3geo5twiceIiEET_S1_",
					    "_ZN3geo5twiceIdEET_S1_",
					    "_ZNK3geo5PointixEi",
					    "_Zbroken",
					    "_ZN3FooD2Ev",
					    "_ZNK3FooclEv",
					    "_ZN3FooltERKS_"};

	CHECK(t);
	if (!t)
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK(ut_ftable_add(t, names[i], NULL) >= 0);
	{
		/* without a demangler, mangled names only */
		struct ut_fset *s = ut_fset_new(t, UT_FSET_FILTER);

		CHECK(s && ut_fset_set(s, "geo::scale", true, NULL, 0) == -EINVAL);
		ut_fset_free(s);
	}
	CHECK(ut_ftable_set_demangle(t, ut_demangle_alloc) == 0);
	selects(t, "geo::scale", "_ZN3geo5scaleEi\n_ZN3geo5scaleEd\n");
	selects(t, "geo::scale(double)", "_ZN3geo5scaleEd\n");
	selects(t, "geo::twice", "_ZN3geo5twiceIiEET_S1_\n_ZN3geo5twiceIdEET_S1_\n");
	selects(t, "_ZN3geo5PointC2Eii", "_ZN3geo5PointC1Eii\n");
	selects(t, "geo::Point::operator\\[\\]", "_ZNK3geo5PointixEi\n");
	selects(t, "geo::Point::norm() const main", "main\n_ZNK3geo5Point4normEv\n");
	selects(t, "_Zbroken", "_Zbroken\n");
	selects(t, "Foo::~Foo", "_ZN3FooD2Ev\n");
	selects(t, "_ZN3FooD1Ev", "_ZN3FooD2Ev\n");
	selects(t, "Foo::operator()", "_ZNK3FooclEv\n");
	selects(t, "Foo::operator<", "_ZN3FooltERKS_\n");
	selects(t, "Foo::operator<(Foo const&)", "_ZN3FooltERKS_\n");
	selects(t, "Foo::operator?? !Foo::operator<", "_ZNK3FooclEv\n");
	{
		/* another name of a function: demangled, mangled or a pattern over it */
		long i = ut_ftable_add(t, "_ZN6shapes5scaleEi", NULL);
		long c = ut_ftable_add(t, "_ZN1AC1Ev", NULL);
		char *note;

		CHECK(ut_ftable_add_alias(t, (size_t)i, "_ZN6shapes6resizeEi") == 0);
		CHECK(ut_ftable_add_alias(t, (size_t)c, "_ZN1AC2Ev") == 0);
		selects(t, "shapes::resize", "_ZN6shapes5scaleEi\n");
		selects(t, "shapes::resize(int)", "_ZN6shapes5scaleEi\n");
		selects(t, "_ZN6shapes6resizeEi", "_ZN6shapes5scaleEi\n");
		selects(t, "*::res*", "_ZN6shapes5scaleEi\n");
		note = ut_ftable_alias_note(t, (size_t)c);
		CHECK_EQ_STR(note, " [= _ZN1AC2Ev]");
		free(note);
		CHECK(ut_ftable_list_demangled(t, true) == 0);
		note = ut_ftable_alias_note(t, (size_t)i);
		CHECK_EQ_STR(note, " [= shapes::resize(int)]");
		free(note);
		/* C1 and C2 demangle alike: no other name to show */
		CHECK(ut_ftable_alias_note(t, (size_t)c) == NULL);
		/* forgotten demangled forms are made again */
		ut_ftable_forget_demangled(t);
		selects(t, "shapes::resize", "shapes::scale(int)\n");
		CHECK(ut_ftable_list_demangled(t, false) == 0);
	}
	CHECK(ut_ftable_list_demangled(t, true) == 0);
	selects(t, "geo::Point::* _Z*broken",
		"geo::Point::Point(int, int)\ngeo::Point::norm() const\ngeo::Point::operator[](int) const\n"
		"_Zbroken\n");
	ut_ftable_free(t);
}

int main(void)
{
	RUN(forms);
	RUN(words);
	RUN(cmd_colon);
	RUN(anchors);
	RUN(structors);
	RUN(filter);
	TEST_EXIT();
}
