// SPDX-License-Identifier: MIT
/*
 * Hist variables and actions (common/histvar.h): the parser of the
 * attributes "NAME=EXPR", "onmatch(..).ACTION(..)", "onmax(..)..",
 * "onchange(..).." of a hist trigger, with the kernel's error messages,
 * and their texts as the kernel prints them back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/evtrigger.h"
#include "common/histvar.h"

static int fail(struct ut_evtrig_err *err, const char *msg, size_t pos)
{
	err->msg = msg;
	err->pos = pos;
	err->logged = true;
	err->in_filter = false;
	return -EINVAL;
}

static bool ident_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static bool ident(const char *s, size_t n, size_t max)
{
	if (!n || n >= max || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ident_char(s[i]))
			return false;
	return true;
}

/* One operand of @n bytes at @s into @o. */
static int operand(struct ut_hist_operand *o, const char *s, size_t n, size_t pos,
		   struct ut_evtrig_err *err)
{
	if (n && s[0] >= '0' && s[0] <= '9') {
		o->kind = UT_HO_CONST;
		for (size_t i = 0; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return fail(err, "Expecting numeric literal", pos);
			o->k = o->k * 10 + (uint64_t)(s[i] - '0');
		}
		return 0;
	}
	if (n && s[0] == '$') {
		o->kind = UT_HO_VAR;
		s++;
		n--;
		pos++;
	} else if (n >= 16 && !memcmp(s, "common_timestamp", 16)) {
		o->kind = UT_HO_TS;
		if (n == 22 && !memcmp(s + 16, ".usecs", 6))
			o->usecs = true;
		else if (n != 16)
			return fail(err, "Invalid field modifier", pos);
	}
	if (o->kind != UT_HO_TS && !ident(s, n, sizeof(o->name)))
		return fail(err,
			    o->kind == UT_HO_VAR ? "Couldn't find variable" : "Couldn't find field",
			    pos);
	snprintf(o->name, sizeof(o->name), "%.*s", (int)n, s);
	return 0;
}

uint64_t ut_histvar_eval(const struct ut_hist_operand *o, const uint64_t *x, uint8_t n)
{
	uint64_t sum = 0, term = n ? x[0] : 0;
	char sign = '+';

	for (uint8_t j = 1; j < n; j++) {
		if (o[j].op == '*') {
			term *= x[j];
		} else if (o[j].op == '/') {
			term = x[j] ? term / x[j] : (uint64_t)-1;
		} else {
			sum = sign == '-' ? sum - term : sum + term;
			sign = o[j].op;
			term = x[j];
		}
	}
	return sign == '-' ? sum - term : sum + term;
}

/* An expression's parse: its variable, the operators met so far (the kernel's n_subexprs). */
struct expr {
	struct ut_hist_var *v;
	unsigned nsub;
	struct ut_evtrig_err *err;
};

/*
 * The root operator of @s (@n bytes), as the kernel splits: the rightmost
 * + or - (a - in front: the unary minus), else the rightmost * or /;
 * @n if none.
 */
static size_t root_op(const char *s, size_t n)
{
	size_t minus = n, plus = n, mul = n;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '-')
			minus = i;
		else if (s[i] == '+')
			plus = i;
		else if (s[i] == '*' || s[i] == '/')
			mul = i;
	}
	if (minus == 0)
		return 0;
	if (minus < n || plus < n)
		return minus < n && (plus == n || minus > plus) ? minus : plus;
	return mul;
}

static int subexpr(struct expr *x, const char *s, size_t n, size_t pos, char op, bool top);

/* A constant subtree: its operands since @from become one, as the kernel folds it. */
static void fold(struct ut_hist_var *v, uint8_t from, char op)
{
	uint64_t k[UT_HIST_MAX_OPS] = {0};

	for (uint8_t j = from; j < v->nops; j++)
		k[j - from] = v->op[j].k;
	k[0] = ut_histvar_eval(&v->op[from], k, (uint8_t)(v->nops - from));
	v->op[from] = (struct ut_hist_operand){.kind = UT_HO_CONST, .op = op, .k = k[0]};
	v->nops = (uint8_t)(from + 1);
}

/* "-(EXPR)": the kernel's unary minus, which we take for a whole variable only. */
static int unary(struct expr *x, const char *s, size_t n, size_t pos, bool top)
{
	if (++x->nsub > 3)
		return fail(x->err, "Too many subexpressions (3 max)", pos);
	if (n < 2 || s[1] != '(')
		return fail(x->err, "Unary minus not supported in sub-expressions", pos);
	if (s[n - 1] != ')' || !top) /* not the last: -(a)+b; nested: ours */
		return fail(x->err, "Unary minus not supported in sub-expressions", pos + 2);
	x->v->neg = true;
	return subexpr(x, s + 2, n - 3, pos + 2, '+', false);
}

/* Subexpression @s (@n bytes, at @pos) joined by @op to what is before it. */
static int subexpr(struct expr *x, const char *s, size_t n, size_t pos, char op, bool top)
{
	struct ut_hist_var *v = x->v;
	size_t r;
	uint8_t from = v->nops;

	if (x->nsub > 3)
		return fail(x->err, "Too many subexpressions (3 max)", pos);
	r = root_op(s, n);
	if (r == n) {
		if (v->nops >= UT_HIST_MAX_OPS)
			return fail(x->err, "Too many subexpressions (3 max)", pos);
		memset(&v->op[v->nops], 0, sizeof(v->op[0]));
		v->op[v->nops].op = op;
		if (operand(&v->op[v->nops], s, n, pos, x->err))
			return -EINVAL;
		v->nops++;
		return 0;
	}
	if (r == 0 && s[0] == '-')
		return unary(x, s, n, pos, top);
	x->nsub++;
	if (r == 0 || r + 1 >= n) /* an operand missing: the kernel logs nothing, we say so */
		return fail(x->err, "Invalid expression", pos);
	if (subexpr(x, s, r, pos, op, false) || subexpr(x, s + r + 1, n - r - 1, pos + r + 1, s[r], false))
		return -EINVAL;
	if (s[r] == '/' && v->op[v->nops - 1].kind == UT_HO_CONST && !v->op[v->nops - 1].k)
		return fail(x->err, "Division by zero", pos + r + 1);
	for (uint8_t j = from; j < v->nops; j++)
		if (v->op[j].kind != UT_HO_CONST)
			return 0;
	fold(v, from, op);
	return 0;
}

/* "NAME=EXPR" (common/histvar.h). */
static int variable(struct ut_hist_defs *d, const char *s, size_t n, size_t k, size_t pos,
		    struct ut_evtrig_err *err)
{
	struct ut_hist_var *v = &d->vars[d->nvars];
	struct expr x = {.v = v, .err = err};

	if (!ident(s, k, sizeof(v->name)))
		return fail(err, "Malformed assignment", pos);
	if (k + 1 >= n)
		return fail(err, "Empty assignment", pos);
	for (uint8_t j = 0; j < d->nvars; j++)
		if (strlen(d->vars[j].name) == k && !memcmp(d->vars[j].name, s, k))
			return fail(err, "Variable already defined", pos);
	if (d->nvars >= UT_HIST_MAX_VARS)
		return fail(err, "Too many variables defined", pos);
	memset(v, 0, sizeof(*v));
	memcpy(v->name, s, k);
	if (subexpr(&x, s + k + 1, n - k - 1, pos + k + 1, '+', true))
		return -EINVAL;
	for (uint8_t j = 0; j < v->nops; j++)
		if (v->op[j].kind == UT_HO_TS)
			d->timestamps = true;
	for (uint8_t j = 1; j < v->nops; j++) /* common_timestamp - $ts0: both in one unit */
		if (v->op[j].kind == UT_HO_TS && v->op[0].kind == UT_HO_TS &&
		    v->op[j].usecs != v->op[0].usecs)
			return fail(err, "Timestamp units in expression don't match", pos);
	d->nvars++;
	return 0;
}

/* The comma-separated params of @n bytes at @s into @a. */
static int params(struct ut_hist_action *a, const char *s, size_t n, size_t pos,
		  struct ut_evtrig_err *err)
{
	size_t i = 0;

	while (n && i <= n) {
		size_t e = i, b;

		while (e < n && s[e] != ',')
			e++;
		b = s[i] == '$' ? 1 : 0;
		if (a->nparams >= UT_HIST_MAX_PARAMS)
			return fail(err, "Too many action params", pos + i);
		if (!ident(s + i + b, e - i - b, sizeof(a->param[0]) - 1))
			return fail(err, "Invalid action param", pos + i);
		snprintf(a->param[a->nparams++], sizeof(a->param[0]), "%.*s", (int)(e - i), s + i);
		i = e + 1;
	}
	return 0;
}

/* ".ACTION(PARAMS)" at @s (@n bytes, offset @pos) into @a. */
static int action(struct ut_hist_action *a, const char *s, size_t n, size_t pos,
		  struct ut_evtrig_err *err)
{
	const char *open, *close;
	size_t an;

	if (!n || s[0] != '.' || !(open = memchr(s, '(', n)))
		return fail(err, "No action found", 0);
	close = memchr(open, ')', n - (size_t)(open - s));
	if (!close || close != s + n - 1)
		return fail(err, "No closing paren found", pos + (size_t)(open + 1 - s));
	an = (size_t)(open - s - 1);
	if (an == 4 && !memcmp(s + 1, "save", 4)) {
		a->action = UT_HA_SAVE;
		if (a->handler == UT_HH_ONMATCH)
			return fail(err, "Handler doesn't support action", pos + 1);
		if (close == open + 1)
			return fail(err, "No params found for save()", 0);
	} else if (an == 8 && !memcmp(s + 1, "snapshot", 8)) {
		/* onmax/onchange only; its parens' content is not read (the kernel's) */
		if (a->handler == UT_HH_ONMATCH)
			return fail(err, "Handler doesn't support action", pos + 1);
		a->action = UT_HA_SNAPSHOT;
		return 0;
	} else {
		a->action = UT_HA_TRACE;
		a->trace_kw = an == 5 && !memcmp(s + 1, "trace", 5);
		if (!a->trace_kw && !ident(s + 1, an, sizeof(a->synth)))
			return fail(err, "No action found", 0);
		if (!a->trace_kw)
			snprintf(a->synth, sizeof(a->synth), "%.*s", (int)an, s + 1);
	}
	if (params(a, open + 1, (size_t)(close - open - 1), pos + (size_t)(open + 1 - s), err))
		return -EINVAL;
	if (a->trace_kw) { /* trace(SYNTH,params): the first is the event */
		if (!a->nparams || a->param[0][0] == '$')
			return fail(err, "Couldn't find synthetic event", pos);
		memcpy(a->synth, a->param[0], sizeof(a->param[0]));
		memmove(a->param[0], a->param[1], sizeof(a->param[0]) * (size_t)(a->nparams - 1));
		a->nparams--;
	}
	return 0;
}

/* "onmatch(SYS.EVT)" / "onmax($v)" / "onchange($v)": the handler, then the action. */
static int handler(struct ut_hist_defs *d, const char *s, size_t n, size_t pos, size_t hn,
		   struct ut_evtrig_err *err)
{
	struct ut_hist_action *a = &d->act[d->nactions < UT_HIST_MAX_ACTIONS ? d->nactions : 0];
	const char *arg = s + hn + 1, *close = memchr(arg, ')', n - hn - 1), *dot;
	size_t argn;

	if (d->nactions >= UT_HIST_MAX_ACTIONS)
		return fail(err, "Too many actions", pos);
	memset(a, 0, sizeof(*a));
	a->handler = hn == 7 && s[2] == 'm' ? UT_HH_ONMATCH
		     : hn == 5		    ? UT_HH_ONMAX
					    : UT_HH_ONCHANGE;
	if (!close)
		return fail(err, "No closing paren found", pos + hn + 1);
	argn = (size_t)(close - arg);
	if (a->handler == UT_HH_ONMATCH) {
		dot = memchr(arg, '.', argn);
		if (!dot)
			return fail(err, "Missing subsystem", pos + hn + 1);
		if (!ident(arg, (size_t)(dot - arg), sizeof(a->sys)) ||
		    !ident(dot + 1, (size_t)(close - dot - 1), sizeof(a->evt)))
			return fail(err, "Invalid subsystem or event name", pos + hn + 1);
		snprintf(a->sys, sizeof(a->sys), "%.*s", (int)(dot - arg), arg);
		snprintf(a->evt, sizeof(a->evt), "%.*s", (int)(close - dot - 1), dot + 1);
	} else {
		if (!argn || arg[0] != '$')
			return fail(err, "For onmax(x) or onchange(x), x must be a variable",
				    pos + hn + 1);
		if (!ident(arg + 1, argn - 1, sizeof(a->var)))
			return fail(err, "Couldn't find onmax or onchange variable", pos + hn + 1);
		snprintf(a->var, sizeof(a->var), "%.*s", (int)(argn - 1), arg + 1);
	}
	if (action(a, close + 1, n - (size_t)(close + 1 - s), pos + (size_t)(close + 1 - s), err))
		return -EINVAL;
	d->nactions++;
	return 0;
}

int ut_histvar_attr(struct ut_hist_defs *d, const char *s, size_t n, size_t pos,
		    struct ut_evtrig_err *err)
{
	const char *eq = memchr(s, '=', n), *paren = memchr(s, '(', n);

	if (paren && (!eq || paren < eq)) {
		size_t hn = (size_t)(paren - s);

		if ((hn == 7 && !memcmp(s, "onmatch", 7)) || (hn == 5 && !memcmp(s, "onmax", 5)) ||
		    (hn == 8 && !memcmp(s, "onchange", 8)))
			return handler(d, s, n, pos, hn, err) ? -EINVAL : 1;
		return 0;
	}
	if (!eq)
		return 0;
	/* "a=EXPR,b=EXPR": the kernel's several assignments in one attribute */
	for (size_t i = 0; i <= n;) {
		size_t e = i;
		const char *q;

		while (e < n && s[e] != ',')
			e++;
		q = memchr(s + i, '=', e - i);
		if (!q)
			return fail(err, "Malformed assignment", pos + i);
		if (variable(d, s + i, e - i, (size_t)(q - s - i), pos + i, err))
			return -EINVAL;
		i = e + 1;
	}
	return 1;
}

const struct ut_hist_var *ut_histvar_find(const struct ut_hist_defs *d, const char *name)
{
	for (uint8_t i = 0; i < d->nvars; i++)
		if (!strcmp(d->vars[i].name, name))
			return &d->vars[i];
	return NULL;
}

static void put(char *buf, size_t len, size_t *n, const char *fmt, const char *s)
{
	if (*n < len)
		*n += (size_t)snprintf(buf + *n, len - *n, fmt, s);
}

void ut_histvar_print_vars(const struct ut_hist_defs *d, char *buf, size_t len, size_t *n)
{
	for (uint8_t i = 0; i < d->nvars; i++) {
		const struct ut_hist_var *v = &d->vars[i];

		put(buf, len, n, i ? ",%s=" : ":%s=", v->name);
		if (v->neg)
			put(buf, len, n, "%s", "-(");
		for (uint8_t j = 0; j < v->nops; j++) {
			const struct ut_hist_operand *o = &v->op[j];
			char k[24], op[2] = {o->op, 0};

			if (j)
				put(buf, len, n, "%s", op);
			if (o->kind == UT_HO_TS)
				put(buf, len, n, "%s",
				    o->usecs ? "common_timestamp.usecs" : "common_timestamp");
			else if (o->kind == UT_HO_CONST) {
				snprintf(k, sizeof(k), "%" PRIu64, o->k);
				put(buf, len, n, "%s", k);
			} else
				put(buf, len, n, o->kind == UT_HO_VAR ? "$%s" : "%s", o->name);
		}
		if (v->neg)
			put(buf, len, n, "%s", ")");
	}
}

void ut_histvar_print_actions(const struct ut_hist_defs *d, char *buf, size_t len, size_t *n)
{
	for (uint8_t i = 0; i < d->nactions; i++) {
		const struct ut_hist_action *a = &d->act[i];

		if (a->handler == UT_HH_ONMATCH) {
			put(buf, len, n, ":onmatch(%s", a->sys);
			put(buf, len, n, ".%s).", a->evt);
		} else {
			put(buf, len, n,
			    a->handler == UT_HH_ONMAX ? ":onmax($%s)." : ":onchange($%s).", a->var);
		}
		if (a->action == UT_HA_SAVE || a->action == UT_HA_SNAPSHOT)
			put(buf, len, n, "%s(", a->action == UT_HA_SAVE ? "save" : "snapshot");
		else if (a->trace_kw)
			put(buf, len, n, "trace(%s", a->synth);
		else
			put(buf, len, n, "%s(", a->synth);
		for (uint8_t j = 0; j < a->nparams; j++)
			put(buf, len, n, j || a->trace_kw ? ",%s" : "%s", a->param[j]);
		put(buf, len, n, "%s", ")");
	}
}
