// SPDX-License-Identifier: MIT
/*
 * The parts of a demangled C++ name, and C++-aware filter words (cxxname.h).
 * Demangled names nest: template and parameter lists, "(anonymous
 * namespace)", "{lambda(int)#1}", "[abi:cxx11]"; a blank or a '(' means
 * something only at nesting depth 0.  Operators are the exception, their
 * names being punctuation: "operator()", "operator<<", "operator[]",
 * "operator->" are skipped as a whole.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cxxname.h"

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The length of the operator name at @s[@i] ("operator<<" -> 10), or 0 if none starts there. */
static size_t op_len(const char *s, size_t i, size_t len)
{
	size_t k = i + 8;

	if (len - i < 8 || memcmp(s + i, "operator", 8) != 0 || (i && is_ident(s[i - 1])) ||
	    (k < len && is_ident(s[k])))
		return 0;
	if (k + 1 < len && ((s[k] == '(' && s[k + 1] == ')') || (s[k] == '[' && s[k + 1] == ']')))
		return 10;
	if (k + 1 < len && s[k] == ' ' && is_ident(s[k + 1])) {
		/* "operator new", "operator delete[]", "operator bool": the word is in the name */
		for (k++; k < len && is_ident(s[k]); k++)
			;
		if (k + 1 < len && s[k] == '[' && s[k + 1] == ']')
			k += 2;
		return k - i;
	}
	while (k < len && s[k] && strchr("<>=!+-*/%^&|~,", s[k]))
		k++;
	return k - i;
}

static int nesting(char c)
{
	if (c == '(' || c == '<' || c == '{' || c == '[')
		return 1;
	if (c == ')' || c == '>' || c == '}' || c == ']')
		return -1;
	return 0;
}

/* Where the name of @s starts (after a return type), and its parameter list's '(' (or strlen). */
static void name_bounds(const char *s, size_t *start, size_t *paren)
{
	size_t n = strlen(s), last_space = 0, k, op_end = SIZE_MAX;
	int depth = 0;
	bool space = false;

	*paren = n;
	for (size_t i = 0; i < n; i++) {
		k = op_len(s, i, n);
		if (k) {
			i += k - 1;
			op_end = i + 1;
			continue;
		}
		if (depth == 0 && s[i] == '(')
			*paren = i;
		/* "std::operator< <char>(...)": that blank is in the name */
		if (depth == 0 && s[i] == ' ' && i != op_end && (*paren == n || i < *paren)) {
			last_space = i;
			space = true;
		}
		depth += nesting(s[i]);
		if (depth < 0)
			depth = 0;
	}
	*start = space && *paren != n && last_space < *paren ? last_space + 1 : 0;
}

/* The length of @base without its last template arguments ("a::f<int>" -> 4). */
static size_t strip_template(const char *base, size_t len)
{
	int depth = 0;
	size_t i = len;
	const char *last = base;

	for (const char *p = base; (p = strstr(p, "::")) && p < base + len; p += 2)
		last = p + 2;
	if (!len || base[len - 1] != '>' || strstr(last, "operator"))
		return len;
	while (i-- > 0) {
		depth += nesting(base[i]);
		if (depth == 0)
			return i;
	}
	return len;
}

struct ut_cxxforms *ut_cxxforms_new(const char *demangled)
{
	size_t n = strlen(demangled), start, paren, blen, tlen;
	struct ut_cxxforms *f;
	char *text;

	name_bounds(demangled, &start, &paren);
	blen = paren - start;
	while (blen && demangled[start + blen - 1] == ' ')
		blen--;
	tlen = strip_template(demangled + start, blen);
	f = malloc(sizeof(*f) + n + 1 + (blen + 1) + (tlen < blen ? tlen + 1 : 0));
	if (!f)
		return NULL;
	text = (char *)(f + 1);
	memcpy(text, demangled, n + 1);
	f->full = text;
	f->noret = text + start;
	text += n + 1;
	memcpy(text, demangled + start, blen);
	text[blen] = '\0';
	f->base = text;
	f->base_notmpl = text;
	if (tlen < blen) {
		text += blen + 1;
		memcpy(text, demangled + start, tlen);
		text[tlen] = '\0';
		f->base_notmpl = text;
	}
	return f;
}

/* Does a qualifier of a parameter list follow the blanks at @buf[@i]? */
static bool qualifier_follows(const char *buf, size_t i, size_t len)
{
	static const char *const quals[] = {"const", "volatile", "&&", "&", "noexcept"};

	while (i < len && buf[i] == ' ')
		i++;
	for (size_t q = 0; q < sizeof(quals) / sizeof(quals[0]); q++) {
		size_t l = strlen(quals[q]);

		if (len - i >= l && !memcmp(buf + i, quals[q], l) &&
		    (i + l == len || !is_ident(buf[i + l])))
			return true;
	}
	return false;
}

size_t ut_cxx_word_end(const char *buf, size_t i, size_t len)
{
	int depth = 0;
	char prev = '\0';

	while (i < len && buf[i]) {
		size_t k = op_len(buf, i, len);

		if (k) {
			i += k;
			prev = buf[i - 1];
			if (i + 1 < len && buf[i] == ' ' && buf[i + 1] == '<')
				i++; /* "operator< <char>" */
			continue;
		}
		if (isspace((unsigned char)buf[i]) && depth <= 0 &&
		    !(prev == ')' && buf[i] == ' ' && qualifier_follows(buf, i, len)))
			break;
		depth += nesting(buf[i]);
		if (!isspace((unsigned char)buf[i]))
			prev = buf[i];
		i++;
	}
	return i;
}

char *ut_cxx_cmd_colon(char *word)
{
	int depth = 0;

	for (char *p = word; *p; p++) {
		if (p[0] == ':' && p[1] == ':') {
			p++;
			continue;
		}
		if (*p == ':' && depth <= 0)
			return p;
		depth += nesting(*p);
	}
	return NULL;
}

const char *ut_cxx_structor(const char *mangled)
{
	if (mangled[0] != '_' || mangled[1] != 'Z')
		return NULL;
	for (const char *p = mangled + 2; *p; p++) {
		bool code = (p[0] == 'C' && p[1] >= '1' && p[1] <= '3') ||
			    (p[0] == 'D' && p[1] >= '0' && p[1] <= '2');

		/* after a name (its last character), before the parameters or template arguments */
		if (code && (p[2] == 'E' || p[2] == 'I') && (is_ident(p[-1]) || p[-1] == '_'))
			return p;
	}
	return NULL;
}

/*
 * Words of demangled names that are not spelled out in the mangled name
 * (abbreviations, operators, builtin types, special names): a word that
 * holds only these gets no anchor.
 */
static bool unspelled(const char *id, size_t n)
{
	static const char *const words[] = {
		"std", "allocator", "basic_string", "string", "istream", "ostream", "iostream",
		"char_traits", "operator", "lambda", "anonymous", "namespace", "clone", "cold",
		"thunk", "virtual", "non", "covariant", "return", "transaction", "TLS", "init",
		"function", "wrapper", "reference", "temporary", "vtable", "typeinfo", "for", "name",
		"construction", "guard", "variable", "unnamed", "type", "decltype", "sizeof",
		"alignof", "noexcept", "const", "volatile", "unsigned", "signed", "long", "short",
		"int", "char", "bool", "void", "double", "float", "wchar_t", "char8_t", "char16_t",
		"char32_t", "auto", "nullptr", "__int128", "__float128", "abi", "restrict", "new",
		"delete", "false", "true"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !memcmp(words[i], id, n))
			return true;
	return false;
}

bool ut_cxx_word_anchor(const char *word, char *buf, size_t len)
{
	size_t best = 0, at = 0;

	if (strpbrk(word, "[\\"))
		return false; /* classes and escapes: no literal text to rely on */
	for (size_t i = 0; word[i];) {
		size_t n = 0;

		while (is_ident(word[i + n]))
			n++;
		if (n > best && !unspelled(word + i, n) && !isdigit((unsigned char)word[i])) {
			best = n;
			at = i;
		}
		i += n ? n : 1;
	}
	if (best < 2 || best >= len)
		return false;
	memcpy(buf, word + at, best);
	buf[best] = '\0';
	return true;
}

const char *ut_cxx_word_hint(const char *word)
{
	static const char *const types[] = {"void", "bool", "char", "int", "long", "short", "unsigned",
					    "signed", "float", "double", "auto", "const"};

	if (strstr(word, "operator[") || strstr(word, "[]"))
		return "; '[' starts a glob class: write operator\\[\\] (or operator?]) for the "
		       "subscript operator";
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(word, types[i]))
			return "; a blank ends a word: name a C++ function without its return type "
			       "(geo::twice<int>(int), geo::twice<int>, geo::twice)";
	return "";
}

bool ut_cxx_word_is_cxx(const char *word)
{
	return strstr(word, "::") || strpbrk(word, "(<~ ");
}
