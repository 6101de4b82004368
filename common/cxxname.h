/* SPDX-License-Identifier: MIT */
/*
 * C++ names as a user types them in a filter.  A demangled name
 * ("int geo::twice<int>(int)", "geo::Point::norm() const") is selected by
 * its whole text, by that text without the return type, by its bare name
 * ("geo::twice<int>", "geo::Point::norm": every overload) and by the bare
 * name without the last template arguments ("geo::twice": every
 * instance).  Pattern words keep C++ punctuation: the blanks of a parameter
 * or template list belong to the word, and "::" is a scope, never the ':'
 * of a function command or of ":mod:".
 *
 * Pure string code (no global state, no I/O): linked into the runtime too.
 */
#ifndef UT_CXXNAME_H
#define UT_CXXNAME_H

#include <stdbool.h>
#include <stddef.h>

/* The forms a demangled name is matched by; one allocation, freed with free(forms). */
struct ut_cxxforms {
	const char *full;         /* as demangled */
	const char *noret;        /* without the return type (== full if it has none) */
	const char *base;         /* without parameters, qualifiers and return type */
	const char *base_notmpl;  /* base without the last template arguments (== base if none) */
};

/*
 * ut_cxxforms_new() - the forms of @demangled
 * Return: a malloc'd struct (free() it), or NULL (ENOMEM).
 */
struct ut_cxxforms *ut_cxxforms_new(const char *demangled);

/*
 * ut_cxx_word_end() - where the filter word starting at @buf[@i] ends
 * @buf: the text (need not be NUL-terminated), @len its length
 *
 * A blank ends a word, except inside a parameter or template list, and
 * except before a trailing "const", "volatile", "&" or "&&" of a parameter
 * list ("geo::Point::norm() const").
 * Return: the index just past the word.
 */
size_t ut_cxx_word_end(const char *buf, size_t i, size_t len);

/*
 * ut_cxx_cmd_colon() - the ':' that starts a word's command or ":mod:" part
 * Return: it, or NULL; a "::" is a C++ scope and is skipped.
 */
char *ut_cxx_cmd_colon(char *word);

/* Does @word use C++ punctuation ("::", "(", "<", "~", a blank), so only demangled names can match it? */
bool ut_cxx_word_is_cxx(const char *word);

/*
 * ut_cxx_structor() - where a constructor's or destructor's variant code is
 * in @mangled ("_ZN3geo5PointC1Eii": the "C1"), or NULL.  The variants of
 * one constructor (C1 complete, C2 base, C3 allocating) or destructor (D0
 * deleting, D1 complete, D2 base) are often one function at one address,
 * of which a symbol table keeps one name: a filter naming another variant
 * names the same function.
 */
const char *ut_cxx_structor(const char *mangled);

/*
 * ut_cxx_word_anchor() - an identifier @word holds that the mangled name of
 * every function it can match as demangled holds too (identifiers are
 * spelled out in mangled names): the longest that is not an abbreviation,
 * operator, builtin type or special name.  A name without it needs no
 * demangling for @word.  Return: false if there is none (into @buf, @len).
 */
bool ut_cxx_word_anchor(const char *word, char *buf, size_t len);

/*
 * ut_cxx_word_hint() - why @word, which matched nothing, may not say what was meant
 * Return: "" or a sentence starting with "; " (a glob class in an operator's
 * name, a return type).
 */
const char *ut_cxx_word_hint(const char *word);

#endif
