// SPDX-License-Identifier: MIT
/*
 * Synthetic event definitions (common/synth.h): the parser of a
 * synthetic_events line with the kernel's error messages, the listing, and
 * the event format the readers and the runtime give the event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/synth.h"

#define E_CMD "Command must be of the form: <name> field[;field] ..."

static const struct {
	const char *name;
	uint8_t size, is_signed;
} types[] = {
    {"s64", 8, 1}, {"u64", 8, 0},  {"s32", 4, 1},  {"u32", 4, 0},   {"s16", 2, 1},
    {"u16", 2, 0}, {"s8", 1, 1},   {"u8", 1, 0},   {"char", 1, 1},  {"short", 2, 1},
    {"int", 4, 1}, {"long", 8, 1}, {"bool", 1, 0}, {"pid_t", 4, 1}, {"gfp_t", 4, 0},
};

static int fail(struct ut_synth_err *err, const char *msg, size_t pos)
{
	err->msg = msg;
	err->pos = pos;
	return -EINVAL;
}

/* The kernel's is_good_name(): a letter or '_', then letters, digits, '_'. */
static bool good_name(const char *s, size_t n)
{
	if (!n || !(s[0] == '_' || ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
		      ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')))
			return false;
	return true;
}

/* The words of @n bytes at @s (blank-separated): their starts and lengths; how many. */
static size_t split(const char *s, size_t n, const char **w, size_t *wl, size_t max)
{
	size_t nw = 0, i = 0;

	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= n)
			break;
		if (nw == max)
			return max + 1;
		w[nw] = s + i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		wl[nw] = (size_t)(s + i - w[nw]);
		nw++;
	}
	return nw;
}

/*
 * A string field "char NAME[]" / "char NAME[N]" (@t: the type's word, @w
 * the name's, @wl its length, with the brackets) as field @k of @d.
 */
static int add_string(struct ut_synth_def *d, const char *t, size_t tl, const char *w, size_t wl,
		      const char *text, struct ut_synth_err *err)
{
	const char *br = memchr(w, '[', wl);
	size_t nl = (size_t)(br - w), al = wl - nl - 2, k = d->nfields;
	unsigned n = 0;

	if (tl != 4 || memcmp(t, "char", 4) != 0)
		return fail(err, "Invalid type", (size_t)(t - text)); /* int x[4]: no such type */
	if (!good_name(w, nl) || nl >= sizeof(d->field[0]))
		return fail(err, "Illegal name", (size_t)(w - text));
	if (w[wl - 1] != ']' || al > 3)
		return fail(err, "Invalid array specification", (size_t)(w - text));
	for (size_t i = 0; i < al; i++) {
		if (br[1 + i] < '0' || br[1 + i] > '9')
			return fail(err, "Invalid array specification", (size_t)(w - text));
		n = n * 10 + (unsigned)(br[1 + i] - '0');
	}
	if (n > 256 || (al && !n))
		return fail(err, "Invalid array specification", (size_t)(w - text));
	snprintf(d->type[k], sizeof(d->type[k]), "char%.*s", (int)(al + 2), br);
	snprintf(d->field[k], sizeof(d->field[k]), "%.*s", (int)nl, w);
	d->size[k] = 8;
	d->is_signed[k] = 1; /* the kernel's: a type not starting with 'u' */
	d->is_string[k] = 1;
	d->strsize[k] = (uint16_t)n;
	d->nfields++;
	return 0;
}

/* Field "TYPE NAME" or "unsigned TYPE NAME" (@w words) as field @k of @d. */
static int add_field(struct ut_synth_def *d, const char **w, const size_t *wl, size_t nw,
		     const char *text, struct ut_synth_err *err)
{
	bool uns = wl[0] == 8 && !memcmp(w[0], "unsigned", 8);
	size_t t = uns ? 1 : 0, k = d->nfields;

	if (uns && nw < 3)
		return fail(err, "Incomplete type", (size_t)(w[0] - text));
	if (nw != t + 2)
		return fail(err, nw < t + 2 ? "Invalid field" : E_CMD,
			    nw < t + 2 ? (size_t)(w[0] - text) : 0);
	if (k >= UT_SYNTH_MAX_FIELDS)
		return fail(err, "Too many fields", 0);
	if (!uns && memchr(w[t + 1], '[', wl[t + 1]))
		return add_string(d, w[t], wl[t], w[t + 1], wl[t + 1], text, err);
	if (memchr(w[t + 1], '[', wl[t + 1]) || !good_name(w[t + 1], wl[t + 1]) ||
	    wl[t + 1] >= sizeof(d->field[0]))
		return fail(err, memchr(w[t + 1], '[', wl[t + 1]) ? "Invalid type" : "Illegal name",
			    (size_t)(w[memchr(w[t + 1], '[', wl[t + 1]) ? t : t + 1] - text));
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strlen(types[i].name) != wl[t] || memcmp(types[i].name, w[t], wl[t]) != 0)
			continue;
		if (uns && !strstr(" char short int long ", types[i].name))
			break; /* "unsigned u64": the kernel knows no such type */
		snprintf(d->type[k], sizeof(d->type[k]), "%s%.*s", uns ? "unsigned " : "",
			 (int)wl[t], w[t]);
		snprintf(d->field[k], sizeof(d->field[k]), "%.*s", (int)wl[t + 1], w[t + 1]);
		d->size[k] = types[i].size;
		d->is_signed[k] = uns ? 0 : types[i].is_signed;
		d->nfields++;
		return 0;
	}
	return fail(err, "Invalid type", (size_t)(w[t] - text));
}

int ut_synth_parse(const char *text, size_t len, struct ut_synth_def *d, bool *remove,
		   struct ut_synth_err *err)
{
	const char *w[8];
	size_t wl[8], b = 0, e = len, nl;

	memset(d, 0, sizeof(*d));
	*remove = false;
	while (b < e && (text[b] == ' ' || text[b] == '\t' || text[b] == '\n'))
		b++;
	while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\n'))
		e--;
	if (b == e || memchr(text + b, '\0', e - b) || memchr(text + b, '\n', e - b))
		return fail(err, E_CMD, 0);
	if (text[b] == '!') {
		*remove = true;
		b++;
	}
	nl = strcspn(text + b, " \t");
	if (b + nl > e)
		nl = e - b;
	if (!good_name(text + b, nl) || nl >= sizeof(d->name))
		return fail(err, nl ? "Illegal name" : E_CMD, nl ? b : 0);
	memcpy(d->name, text + b, nl);
	for (size_t i = b + nl; i < e;) {
		size_t k = i, nw;

		while (k < e && text[k] != ';')
			k++;
		nw = split(text + i, k - i, w, wl, 3);
		if (nw > 3)
			return fail(err, E_CMD, (size_t)(w[0] - text));
		if (nw && add_field(d, w, wl, nw, text, err))
			return -EINVAL;
		i = k + 1;
	}
	if (!d->nfields && !*remove)
		return fail(err, E_CMD, 0);
	return 0;
}

void ut_synth_print(const struct ut_synth_def *d, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s\t", d->name);

	/* as the kernel lists them: "u64 lat; char[] name; char[16] comm" */
	for (unsigned i = 0; i < d->nfields && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s %s%s", d->type[i], d->field[i],
				      i + 1 == d->nfields ? "" : "; ");
}

bool ut_synth_find(const char *defs, const char *name, struct ut_synth_def *d)
{
	struct ut_synth_err err;
	bool rm;

	for (const char *p = defs; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
		if (!ut_synth_parse(p, strcspn(p, "\n"), d, &rm, &err) && !rm &&
		    !strcmp(d->name, name))
			return true;
	return false;
}

void ut_synth_evfmt(const struct ut_synth_def *d, struct ut_evfmt *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->system, sizeof(f->system), "%s", UT_SYNTH_SYSTEM);
	f->synthetic = 1;
	snprintf(f->name, sizeof(f->name), "%s", d->name);
	f->nargs = d->nfields;
	for (unsigned i = 0; i < d->nfields; i++) {
		f->size[i] = d->size[i];
		f->is_signed[i] = d->is_signed[i];
		f->is_string[i] = d->is_string[i];
		f->strsize[i] = d->strsize[i];
		snprintf(f->argname[i], sizeof(f->argname[i]), "%s", d->field[i]);
	}
}

uint64_t ut_synth_pc(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 0x100000001b3ULL;
	return UT_SYNTH_PC_BASE | (h & UT_SYNTH_PC_MASK & ~0xfULL);
}

int ut_synth_add_all(struct ut_probetab *t, const char *defs)
{
	for (const char *p = defs; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		struct ut_synth_def d;
		struct ut_synth_err err;
		struct ut_probetab_ent *v;
		bool rm;

		if (ut_synth_parse(p, strcspn(p, "\n"), &d, &rm, &err) || rm)
			continue;
		v = realloc(t->v, (t->n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		v[t->n].pc = ut_synth_pc(d.name);
		ut_synth_evfmt(&d, &v[t->n++].f);
	}
	return 0;
}
