/* SPDX-License-Identifier: MIT */
/*
 * Function-name patterns as set_ftrace_filter understands them.  A pattern is
 * classified the way the kernel does it, so that the cheap cases (exact name,
 * prefix, suffix, substring) never go through the glob matcher:
 *
 *   foo       exact            foo*      prefix "foo"
 *   *foo      suffix "foo"     *foo*     substring "foo"
 *
 * Any other use of '*', or any '?', '[' or '\', makes the whole pattern a
 * shell-style glob: '*', '?', classes "[abc]", "[a-z]", "[!x]" / "[^x]" and
 * backslash escapes ("\*" is a literal star).  A lone "*" is the empty suffix
 * and so matches every name.
 *
 * Everything here is reentrant, keeps no global state and does no I/O: it is
 * linked into the injected runtime as well as into the CLI.
 */
#ifndef UT_GLOB_H
#define UT_GLOB_H

#include <stdbool.h>
#include <stddef.h>

enum ut_glob_type {
	UT_GLOB_EXACT,  /* foo */
	UT_GLOB_PREFIX, /* foo* */
	UT_GLOB_SUFFIX, /* *foo */
	UT_GLOB_SUBSTR, /* *foo* */
	UT_GLOB_FULL,   /* anything else with * ? [ \ */
};

struct ut_glob {
	int type;   /* enum ut_glob_type */
	char *text; /* the search text without the classifying stars; FULL: the whole pattern */
	size_t len; /* strlen(text) */
};

/**
 * ut_glob_classify() - how a pattern of @len bytes would be matched
 * @pat: the pattern (need not be NUL-terminated)
 * @len: its length
 *
 * Return: an enum ut_glob_type.
 */
int ut_glob_classify(const char *pat, size_t len);

/**
 * ut_glob_compile_n() - compile the first @len bytes of @pat into @g
 * @g: the pattern to fill; release it with ut_glob_free()
 * @pat: the pattern text
 * @len: its length
 *
 * Return: 0, or -ENOMEM (then @g holds nothing to free).
 */
int ut_glob_compile_n(struct ut_glob *g, const char *pat, size_t len);

/**
 * ut_glob_compile() - compile the NUL-terminated pattern @pat into @g
 * @g: the pattern to fill; release it with ut_glob_free()
 * @pat: the pattern text
 *
 * Return: 0, or -ENOMEM.
 */
int ut_glob_compile(struct ut_glob *g, const char *pat);

/**
 * ut_glob_match() - does @name match the compiled pattern @g?
 * @g: a pattern from ut_glob_compile()
 * @name: the NUL-terminated candidate
 */
bool ut_glob_match(const struct ut_glob *g, const char *name);

/**
 * ut_glob_free() - release what ut_glob_compile() allocated
 * @g: the pattern; may be zero-filled or already freed
 */
void ut_glob_free(struct ut_glob *g);

/**
 * ut_glob_fnmatch() - raw shell-glob match of @str against @pat
 * @pat: NUL-terminated glob: * ? [...] [!...] [^...] and \ escapes
 * @str: NUL-terminated candidate
 *
 * An unterminated '[' is a literal '['; a trailing lone '\' is a literal '\'.
 * Bytes are compared as unsigned values, so ranges work on raw bytes.
 */
bool ut_glob_fnmatch(const char *pat, const char *str);

#endif
