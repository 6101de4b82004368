// SPDX-License-Identifier: MIT
/*
 * Event filters, the parser (common/evfilter.h): the kernel's grammar and
 * its error reports, position for position (SPEC §9.3, sample 34), into the
 * postfix program evfilter.c evaluates.
 *
 * The kernel reports a position as follows, and so do we: problems found
 * before parsing (quotes, parentheses) at the character's index; a
 * predicate's problems at the index of what is wrong plus one; junk after
 * a predicate at its index.  A trailing && or || is accepted, as the
 * kernel accepts it ([Q] in SPEC §15).  Unlike the kernel, a missing ')'
 * is EINVAL like every other error (the kernel's ENOENT is an accident of
 * its return codes).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/evfilter_prog.h"
#include "common/glob.h"

#define MAX_OPS (4 * UT_EVF_MAX_PREDS)

struct parser {
	const char *s;
	size_t i;
	const struct ut_evf_field *fields;
	size_t nf;
	struct ut_evf *f;
	struct ut_evf_error *err;
	unsigned preds;
};

static const char *const err_texts[UT_EVF_E_NR] = {
	[UT_EVF_OK] = "No error",
	[UT_EVF_E_INVALID_OP] = "Invalid operator",
	[UT_EVF_E_TOO_MANY_OPEN] = "Too many '('",
	[UT_EVF_E_TOO_MANY_CLOSE] = "Too few '('",
	[UT_EVF_E_MISSING_QUOTE] = "Missing matching quote",
	[UT_EVF_E_OPERAND_TOO_LONG] = "Operand too long",
	[UT_EVF_E_EXPECT_STRING] = "Expecting string field",
	[UT_EVF_E_EXPECT_DIGIT] = "Expecting numeric field",
	[UT_EVF_E_ILLEGAL_FIELD_OP] = "Illegal operation for field type",
	[UT_EVF_E_FIELD_NOT_FOUND] = "Field not found",
	[UT_EVF_E_ILLEGAL_INTVAL] = "Illegal integer value",
	[UT_EVF_E_BAD_SUBSYS_FILTER] = "Couldn't find or set field in one of a subsystem's events",
	[UT_EVF_E_TOO_MANY_PREDS] = "Too many terms in predicate expression",
	[UT_EVF_E_INVALID_FILTER] = "Meaningless filter expression",
	[UT_EVF_E_INVALID_VALUE] = "Invalid value (did you forget quotes)?",
	[UT_EVF_E_NO_FILTER] = "No filter found",
	[UT_EVF_E_NOMEM] = "Out of memory",
};

const char *ut_evf_errtext(int code)
{
	return code >= 0 && code < UT_EVF_E_NR ? err_texts[code] : "Error";
}

static int fail(struct parser *p, int code, size_t pos)
{
	p->err->code = code;
	p->err->pos = (int)pos;
	return -EINVAL;
}

/* The fields every event has (the kernel's common and generic fields). */
static const struct ut_evf_field implicit[] = {
	{"common_type", 0, 2, 0, UT_EVF_NUM},
	{"common_flags", 2, 1, 0, UT_EVF_NUM},
	{"common_preempt_count", 3, 1, 0, UT_EVF_NUM},
	{"common_pid", 4, 4, 1, UT_EVF_NUM},
	{"CPU", 0, 4, 1, UT_EVF_CPU},
	{"cpu", 0, 4, 1, UT_EVF_CPU},
	{"common_cpu", 0, 4, 1, UT_EVF_CPU},
	{"COMM", 0, 16, 0, UT_EVF_COMM},
	{"comm", 0, 16, 0, UT_EVF_COMM},
};

static const struct ut_evf_field *find_field(const struct parser *p, const char *name, size_t n)
{
	for (size_t i = 0; i < p->nf + sizeof(implicit) / sizeof(implicit[0]); i++) {
		const struct ut_evf_field *f = i < p->nf ? &p->fields[i] : &implicit[i - p->nf];

		if (strlen(f->name) == n && !memcmp(f->name, name, n))
			return f;
	}
	return NULL;
}

static bool is_string(const struct ut_evf_field *f)
{
	return f->kind == UT_EVF_STRLOC || f->kind == UT_EVF_STRFIX || f->kind == UT_EVF_COMM;
}

static struct ut_evf_op *emit(struct parser *p, int code)
{
	struct ut_evf_op *o;

	if (p->f->n >= MAX_OPS)
		return NULL;
	o = &p->f->op[p->f->n++];
	memset(o, 0, sizeof(*o));
	o->code = (uint8_t)code;
	return o;
}

static void skip_blanks(struct parser *p)
{
	while (isspace((unsigned char)p->s[p->i]))
		p->i++;
}

/*
 * Before parsing, as the kernel checks: quotes closed (else the last
 * opening quote), no ')' without its '(' (that ')'), every '(' closed (the
 * innermost unclosed one; 0 when it is the first).  Counts the predicates.
 */
static int precheck(struct parser *p, int *preds)
{
	const char *s = p->s;
	int open = 0;
	char quote = 0;
	size_t i, last_quote = 0;
	bool in_pred = false;

	*preds = 0;
	for (i = 0; s[i]; i++) {
		if (isspace((unsigned char)s[i]))
			continue;
		if (quote) {
			if (s[i] == quote)
				quote = 0;
			continue;
		}
		if (s[i] == '"' || s[i] == '\'') {
			quote = s[i];
			last_quote = i;
		} else if ((s[i] == '&' || s[i] == '|') && s[i + 1] == s[i]) {
			in_pred = false;
			i++;
			continue;
		} else if (s[i] == '(' || s[i] == ')') {
			in_pred = false;
			if (s[i] == ')' && !open)
				return fail(p, UT_EVF_E_TOO_MANY_CLOSE, i);
			open += s[i] == '(' ? 1 : -1;
			continue;
		}
		*preds += !in_pred;
		in_pred = true;
	}
	if (quote)
		return fail(p, UT_EVF_E_MISSING_QUOTE, last_quote);
	if (open) {
		int level = 0;

		/* the '(' left open: walking back, the first one not closed after it */
		while (i-- > 1) {
			if (quote) {
				if (s[i] == quote)
					quote = 0;
				continue;
			}
			if (s[i] == '"' || s[i] == '\'')
				quote = s[i];
			else if (s[i] == ')')
				level++;
			else if (s[i] == '(' && level-- == 0)
				return fail(p, UT_EVF_E_TOO_MANY_OPEN, i);
		}
		return fail(p, UT_EVF_E_TOO_MANY_OPEN, 0);
	}
	return 0;
}

/* The operator at the cursor: its enum ut_evf_cmp and length, 0 if none. */
static int read_op(const char *s, size_t *len)
{
	static const struct {
		const char *text;
		int cmp;
	} ops[] = {{"==", UT_EVF_EQ}, {"!=", UT_EVF_NE}, {"<=", UT_EVF_LE}, {"<", UT_EVF_LT},
		   {">=", UT_EVF_GE}, {">", UT_EVF_GT},	 {"&", UT_EVF_BAND}, {"~", UT_EVF_GLOB}};

	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		*len = strlen(ops[k].text);
		if (!strncmp(s, ops[k].text, *len))
			return ops[k].cmp;
	}
	return 0;
}

/* A quoted operand at the cursor for string field @fl. */
static int string_value(struct parser *p, struct ut_evf_op *o, const struct ut_evf_field *fl)
{
	size_t v = p->i, e;
	const char *text;
	char q = p->s[v];

	if (o->cmp != UT_EVF_EQ && o->cmp != UT_EVF_NE && o->cmp != UT_EVF_GLOB)
		return fail(p, UT_EVF_E_ILLEGAL_FIELD_OP, v + 1);
	if (!is_string(fl))
		return fail(p, UT_EVF_E_EXPECT_DIGIT, v + 1);
	for (e = v + 1; p->s[e] && p->s[e] != q; e++)
		;
	if (!p->s[e])
		return fail(p, UT_EVF_E_MISSING_QUOTE, e + 1);
	if (e - v - 1 > UT_EVF_MAX_STR - 1)
		return fail(p, UT_EVF_E_OPERAND_TOO_LONG, e + 1);
	text = p->s + v + 1;
	o->slen = (uint16_t)(e - v - 1);
	o->gtype = UT_GLOB_EXACT;
	o->negate = o->cmp == UT_EVF_NE;
	if (o->cmp == UT_EVF_GLOB) { /* "!pat" negates; stars at the ends make the cheap kinds */
		if (o->slen && *text == '!') {
			o->negate = 1;
			text++;
			o->slen--;
		}
		o->gtype = (uint8_t)ut_glob_classify(text, o->slen);
		if (o->gtype == UT_GLOB_SUFFIX || o->gtype == UT_GLOB_SUBSTR) {
			text++;
			o->slen--;
		}
		if (o->gtype == UT_GLOB_PREFIX || o->gtype == UT_GLOB_SUBSTR)
			o->slen--;
	}
	memcpy(o->str, text, o->slen);
	o->str[o->slen] = '\0';
	p->i = e + 1;
	return 0;
}

/* A number at the cursor for numeric field @fl. */
static int number_value(struct parser *p, struct ut_evf_op *o, const struct ut_evf_field *fl)
{
	size_t v = p->i, e = v + (p->s[v] == '-');
	char buf[24], *end = buf;
	unsigned long long u;

	if (is_string(fl))
		return fail(p, UT_EVF_E_EXPECT_STRING, v + 1);
	if (o->cmp == UT_EVF_GLOB)
		return fail(p, UT_EVF_E_ILLEGAL_FIELD_OP, v + 1);
	while (isalnum((unsigned char)p->s[e]))
		e++;
	if (e - v >= sizeof(buf))
		return fail(p, UT_EVF_E_OPERAND_TOO_LONG, e + 1);
	memcpy(buf, p->s + v, e - v);
	buf[e - v] = '\0';
	errno = 0;
	if (fl->is_signed)
		u = (unsigned long long)strtoll(buf, &end, 0);
	else
		u = *buf == '-' ? (errno = EINVAL, 0) : strtoull(buf, &end, 0);
	if (errno || *end || end == buf)
		return fail(p, UT_EVF_E_ILLEGAL_INTVAL, v + 1);
	o->val = u;
	p->i = e;
	return 0;
}

/* One FIELD OP VALUE at the cursor (after blanks). */
static int predicate(struct parser *p)
{
	size_t st = p->i, len;
	const struct ut_evf_field *fl;
	struct ut_evf_op *o;
	int cmp;

	while (isalnum((unsigned char)p->s[p->i]) || p->s[p->i] == '_')
		p->i++;
	fl = find_field(p, p->s + st, p->i - st);
	if (!fl || p->i == st)
		return fail(p, UT_EVF_E_FIELD_NOT_FOUND, p->i + 1);
	skip_blanks(p);
	cmp = read_op(p->s + p->i, &len);
	if (!cmp)
		return fail(p, UT_EVF_E_INVALID_OP, p->i + 1);
	p->i += len;
	skip_blanks(p);
	if (++p->preds > UT_EVF_MAX_PREDS)
		return fail(p, UT_EVF_E_TOO_MANY_PREDS, st);
	o = emit(p, UT_EVF_PRED);
	if (!o)
		return fail(p, UT_EVF_E_TOO_MANY_PREDS, st);
	o->cmp = (uint8_t)cmp;
	o->kind = fl->kind;
	o->size = (uint8_t)(fl->size > 255 ? 255 : fl->size);
	o->is_signed = fl->is_signed;
	o->offset = fl->offset;
	p->f->uses |= fl->kind == UT_EVF_COMM ? UT_EVF_USES_COMM
		      : fl->kind == UT_EVF_CPU ? UT_EVF_USES_CPU
					       : 0;
	if (p->s[p->i] == '"' || p->s[p->i] == '\'')
		return string_value(p, o, fl);
	if (isdigit((unsigned char)p->s[p->i]) || p->s[p->i] == '-')
		return number_value(p, o, fl);
	return fail(p, UT_EVF_E_INVALID_VALUE, p->i + 1);
}

static int or_expr(struct parser *p);

/* After a term: the end, ')', && or ||; anything else is the kernel's "too many terms". */
static int after_term(struct parser *p)
{
	const char *s;

	skip_blanks(p);
	s = p->s + p->i;
	if (!*s || *s == ')' || !strncmp(s, "&&", 2) || !strncmp(s, "||", 2))
		return 0;
	return fail(p, UT_EVF_E_TOO_MANY_PREDS, p->i);
}

static int unary(struct parser *p)
{
	int ret;

	skip_blanks(p);
	if (p->s[p->i] == '!' && p->s[p->i + 1] != '=') {
		p->i++;
		ret = unary(p);
		if (ret)
			return ret;
		if (p->f->n && p->f->op[p->f->n - 1].code == UT_EVF_NOT)
			p->f->n--; /* !!x is x */
		else if (!emit(p, UT_EVF_NOT))
			return fail(p, UT_EVF_E_TOO_MANY_PREDS, p->i);
		return 0;
	}
	if (p->s[p->i] == '(') {
		p->i++;
		ret = or_expr(p);
		if (ret)
			return ret;
		skip_blanks(p);
		if (p->s[p->i] != ')')
			return fail(p, UT_EVF_E_TOO_MANY_OPEN, p->i);
		p->i++;
		return after_term(p);
	}
	ret = predicate(p);
	return ret ? ret : after_term(p);
}

/* TERM { @op TERM }: @op "&&" over unary terms, "||" over && chains. */
static int chain(struct parser *p, const char *op, int code, int (*term)(struct parser *))
{
	int ret = term(p);

	while (!ret) {
		skip_blanks(p);
		if (strncmp(p->s + p->i, op, 2) != 0)
			return 0;
		p->i += 2;
		skip_blanks(p);
		if (!p->s[p->i])
			return 0; /* a trailing && or ||: the kernel ignores it */
		ret = term(p);
		if (!ret && !emit(p, code))
			ret = fail(p, UT_EVF_E_TOO_MANY_PREDS, p->i);
	}
	return ret;
}

static int and_expr(struct parser *p)
{
	return chain(p, "&&", UT_EVF_AND, unary);
}

static int or_expr(struct parser *p)
{
	return chain(p, "||", UT_EVF_OR, and_expr);
}

int ut_evf_parse(const char *text, const struct ut_evf_field *fields, size_t n,
		 struct ut_evf **out, struct ut_evf_error *err)
{
	struct parser p = {.s = text, .fields = fields, .nf = n, .err = err};
	int preds, ret;

	*out = NULL;
	err->code = UT_EVF_OK;
	err->pos = 0;
	ret = precheck(&p, &preds);
	if (ret)
		return ret;
	if (!preds)
		return fail(&p, UT_EVF_E_NO_FILTER, 0);
	p.f = calloc(1, sizeof(*p.f) + (size_t)MAX_OPS * sizeof(p.f->op[0]));
	if (!p.f) {
		err->code = UT_EVF_E_NOMEM;
		return -ENOMEM;
	}
	ret = or_expr(&p);
	skip_blanks(&p);
	if (!ret && p.s[p.i])
		ret = fail(&p, UT_EVF_E_TOO_MANY_CLOSE, p.i + 1);
	if (ret) {
		free(p.f);
		return ret;
	}
	*out = p.f;
	return 0;
}

void ut_evf_error_file(char *buf, size_t len, const char *text, const struct ut_evf_error *e)
{
	size_t tl = strlen(text), pos = e->pos < 0 ? 0 : (size_t)e->pos;

	if (pos > tl)
		pos = tl;
	snprintf(buf, len, "%s\n%*s^\nparse_error: %s\n\n", text, (int)pos, "",
		 ut_evf_errtext(e->code));
}

bool ut_evf_is_clear(const char *text)
{
	while (isspace((unsigned char)*text))
		text++;
	if (*text++ != '0')
		return false;
	while (isspace((unsigned char)*text))
		text++;
	return !*text;
}
