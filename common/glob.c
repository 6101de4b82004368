// SPDX-License-Identifier: MIT
/*
 * Function-name patterns with set_ftrace_filter's classification (see glob.h).
 * No allocation happens while matching and nothing here touches stdio, since
 * the runtime library links this file too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/glob.h"

int ut_glob_classify(const char *pat, size_t len)
{
	int type = UT_GLOB_EXACT;
	size_t i;

	for (i = 0; i < len; i++) {
		switch (pat[i]) {
		case '*':
			if (i == 0) {
				type = UT_GLOB_SUFFIX;
			} else if (i == len - 1) {
				/* "*x*" was a suffix until its closing star */
				type = type == UT_GLOB_SUFFIX ? UT_GLOB_SUBSTR : UT_GLOB_PREFIX;
			} else {
				/* a star in the middle needs real globbing */
				return UT_GLOB_FULL;
			}
			break;
		case '?':
		case '[':
		case '\\':
			return UT_GLOB_FULL;
		}
	}
	return type;
}

int ut_glob_compile_n(struct ut_glob *g, const char *pat, size_t len)
{
	size_t start = 0, end = len;

	g->type = ut_glob_classify(pat, len);
	switch (g->type) {
	case UT_GLOB_PREFIX:
		end--;
		break;
	case UT_GLOB_SUFFIX:
		start++;
		break;
	case UT_GLOB_SUBSTR:
		start++;
		end--;
		break;
	}
	g->len = end - start;
	g->text = malloc(g->len + 1);
	if (!g->text) {
		g->len = 0;
		return -ENOMEM;
	}
	memcpy(g->text, pat + start, g->len);
	g->text[g->len] = '\0';
	return 0;
}

int ut_glob_compile(struct ut_glob *g, const char *pat)
{
	return ut_glob_compile_n(g, pat, strlen(pat));
}

void ut_glob_free(struct ut_glob *g)
{
	free(g->text);
	g->text = NULL;
	g->len = 0;
}

bool ut_glob_match(const struct ut_glob *g, const char *name)
{
	size_t nlen;

	switch (g->type) {
	case UT_GLOB_EXACT:
		return strcmp(name, g->text) == 0;
	case UT_GLOB_PREFIX:
		return strncmp(name, g->text, g->len) == 0;
	case UT_GLOB_SUFFIX:
		nlen = strlen(name);
		return nlen >= g->len && memcmp(name + nlen - g->len, g->text, g->len) == 0;
	case UT_GLOB_SUBSTR:
		return strstr(name, g->text) != NULL;
	default:
		return ut_glob_fnmatch(g->text, name);
	}
}

/* One possibly escaped character of a class; advances *pp past it. */
static unsigned char class_char(const char **pp)
{
	const char *p = *pp;

	if (p[0] == '\\' && p[1])
		p++;
	*pp = p + 1;
	return (unsigned char)*p;
}

/*
 * Match @c against the class whose text starts right after its '['.  Returns
 * 1 or 0 and sets *@next past the closing ']', or -1 if there is no closing
 * ']' (the caller then takes the '[' literally, as shells do).
 */
static int class_match(const char *p, unsigned char c, const char **next)
{
	bool neg = false, hit = false, first = true;
	unsigned char lo, hi;

	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	/* a ']' right after the opening bracket is a member, not the end */
	while (*p && (first || *p != ']')) {
		first = false;
		lo = class_char(&p);
		hi = lo;
		if (p[0] == '-' && p[1] && p[1] != ']') {
			p++;
			hi = class_char(&p);
		}
		if (lo <= c && c <= hi)
			hit = true;
	}
	if (*p != ']')
		return -1;
	*next = p + 1;
	return hit != neg;
}

/*
 * Match the single pattern element at @p (not '*', not the end) against the
 * byte @c; on success set *@next to the following element.
 */
static bool match_one(const char *p, unsigned char c, const char **next)
{
	int r;

	switch (*p) {
	case '?':
		*next = p + 1;
		return true;
	case '[':
		r = class_match(p + 1, c, next);
		if (r >= 0)
			return r;
		break; /* unterminated: a literal '[' */
	case '\\':
		if (p[1]) {
			*next = p + 2;
			return (unsigned char)p[1] == c;
		}
		break; /* trailing backslash: literal */
	}
	*next = p + 1;
	return (unsigned char)*p == c;
}

/*
 * Classic greedy matching: remember the last '*' and, on a mismatch, let it
 * swallow one more byte.  Every other element consumes exactly one byte, so
 * one backtrack point is enough and the cost stays O(len(pat) * len(str)).
 */
bool ut_glob_fnmatch(const char *pat, const char *str)
{
	const char *p = pat, *s = str, *star_p = NULL, *star_s = NULL, *np;

	for (;;) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (!*p)
				return true;
			star_p = p;
			star_s = s;
			continue;
		}
		if (!*s)
			return !*p;
		if (*p && match_one(p, (unsigned char)*s, &np)) {
			p = np;
			s++;
			continue;
		}
		if (!star_p)
			return false;
		p = star_p;
		s = ++star_s;
	}
}
