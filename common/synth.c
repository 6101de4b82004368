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

/* The words of @n bytes at @s (blank-separated): their starts and lengths; how many (max + 1: more). */
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
 * The kernel's caret: where a word first occurs in the command (err_pos()
 * searches the command for the word's text, so a word written twice is
 * shown at its first place).
 */
struct cmdtext {
	const char *s;
	size_t b, e; /* the command: s[b..e) */
};

static size_t pos_of(const struct cmdtext *c, const char *w, size_t wl)
{
	for (size_t i = c->b; wl && i + wl <= c->e; i++)
		if (!memcmp(c->s + i, w, wl))
			return i;
	return c->b;
}

/*
 * A string type's array ("char[16]", "char[]"): the kernel's
 * synth_field_string_size(): at most 3 digits, a number kstrtouint takes,
 * at most 256, and nothing after the ']'.  0 with the size in *@size (0:
 * "[]" or "[0]", a string of any length, as the kernel takes both), or -1.
 */
static int string_spec(const char *arr, size_t n, unsigned *size)
{
	const char *close = memchr(arr, ']', n);
	char digits[4];
	char *end;
	unsigned long v;

	*size = 0;
	if (!close || close + 1 != arr + n || close - arr - 1 > 3)
		return -1;
	if (close == arr + 1)
		return 0;
	memcpy(digits, arr + 1, (size_t)(close - arr - 1));
	digits[close - arr - 1] = 0;
	if (digits[0] == '-' || digits[0] == ' ')
		return -1;
	v = strtoul(digits, &end, 0);
	if (*end || v > 256)
		return -1;
	*size = (unsigned)v;
	return 0;
}

/* The size and sign of integer type @t (@tl bytes, "unsigned" if @uns); false if unknown. */
static bool int_type(const char *t, size_t tl, bool uns, uint8_t *size, uint8_t *sgn)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strlen(types[i].name) != tl || memcmp(types[i].name, t, tl) != 0)
			continue;
		if (uns && !strstr(" char short int long ", types[i].name))
			return false; /* "unsigned u64": the kernel knows no such type */
		*size = types[i].size;
		*sgn = uns ? 0 : types[i].is_signed;
		return true;
	}
	return false;
}

/*
 * One field at words @w (@nw of them left in its ';' part): "TYPE NAME",
 * "unsigned TYPE NAME", NAME possibly with a string array ("char comm[16]",
 * "char name[]"), as the kernel's parse_synth_field() reads it, with its
 * errors and carets.  How many words it took, or -EINVAL with @err.
 */
static int add_field(struct ut_synth_def *d, const char **w, const size_t *wl, size_t nw,
		     const struct cmdtext *c, struct ut_synth_err *err)
{
	bool uns = wl[0] == 8 && !memcmp(w[0], "unsigned", 8);
	size_t t = uns ? 1 : 0, k = d->nfields, nl;
	const char *arr;
	uint8_t size = 8, sgn = 1; /* a string: signed, the kernel's (its type has no 'u') */
	unsigned strsize = 0; /* a string's declared length: what its value will be cut to */

	if (uns && nw < 3)
		return fail(err, "Incomplete type", pos_of(c, w[0], wl[0]));
	if (nw < t + 2)
		return fail(err, "Invalid field", pos_of(c, w[0], wl[0]));
	arr = memchr(w[t + 1], '[', wl[t + 1]);
	nl = arr ? (size_t)(arr - w[t + 1]) : wl[t + 1];
	if (!good_name(w[t + 1], nl) || nl >= sizeof(d->field[0]))
		return fail(err, "Illegal name", pos_of(c, w[t + 1], wl[t + 1]));
	if (arr) { /* only strings: char[N], char[] (a "long[]" stacktrace is not built) */
		if (wl[t] != 4 || memcmp(w[t], "char", 4) != 0)
			return fail(err, "Invalid type", pos_of(c, w[t], wl[t]));
		if (string_spec(arr, wl[t + 1] - nl, &strsize))
			return fail(err, "Invalid array specification", pos_of(c, w[t + 1], wl[t + 1]));
	} else if (wl[t] > 4 && !memcmp(w[t], "char[", 5)) {
		/* the listing's own form, "char[16] comm": the kernel reads the array off the type too */
		if (string_spec(w[t] + 4, wl[t] - 4, &strsize))
			return fail(err, "Invalid array specification", pos_of(c, w[t], wl[t]));
		arr = w[t] + 4;
	} else if (!int_type(w[t], wl[t], uns, &size, &sgn)) {
		return fail(err, "Invalid type", pos_of(c, w[t], wl[t]));
	}
	if (k >= UT_SYNTH_MAX_FIELDS)
		return fail(err, "Too many fields", 0);
	snprintf(d->type[k], sizeof(d->type[k]), "%s%.*s%.*s", uns ? "unsigned " : "", (int)wl[t],
		 w[t], arr && nl < wl[t + 1] ? (int)(wl[t + 1] - nl) : 0,
		 arr && nl < wl[t + 1] ? arr : "");
	snprintf(d->field[k], sizeof(d->field[k]), "%.*s", (int)nl, w[t + 1]);
	d->size[k] = size;
	d->is_signed[k] = sgn;
	d->is_string[k] = arr != NULL;
	d->strsize[k] = arr ? (uint16_t)strsize : 0; /* char[N]'s N; 0: char[] */
	d->nfields++;
	return (int)t + 2;
}

/* The fields after the name: ';'-separated parts, each one or more fields (the old format). */
static int parse_fields(struct ut_synth_def *d, const struct cmdtext *c, size_t i,
			struct ut_synth_err *err)
{
	enum { MAXW = 3 * UT_SYNTH_MAX_FIELDS + 1 };
	const char *w[MAXW];
	size_t wl[MAXW];

	while (i < c->e) {
		size_t k = i, nw, used = 0;

		while (k < c->e && c->s[k] != ';')
			k++;
		nw = split(c->s + i, k - i, w, wl, MAXW);
		if (nw > MAXW)
			return fail(err, "Too many fields", 0);
		while (used < nw) {
			int n = add_field(d, w + used, wl + used, nw - used, c, err);

			if (n < 0)
				return n;
			used += (size_t)n;
		}
		i = k + 1;
	}
	return d->nfields ? 0 : fail(err, E_CMD, 0);
}

/* The kernel's check_command(): the part before the first ';' has three words at least. */
static bool short_command(const struct cmdtext *c)
{
	const char *w[3];
	size_t wl[3], k = c->b;

	while (k < c->e && c->s[k] != ';')
		k++;
	return c->s[c->b] != '!' && split(c->s + c->b, k - c->b, w, wl, 3) < 3;
}

int ut_synth_parse(const char *text, size_t len, struct ut_synth_def *d, bool *remove,
		   struct ut_synth_err *err)
{
	struct cmdtext c = {.s = text, .b = 0, .e = len};
	size_t nl;

	memset(d, 0, sizeof(*d));
	*remove = false;
	while (c.b < c.e && (text[c.b] == ' ' || text[c.b] == '\t' || text[c.b] == '\n'))
		c.b++;
	while (c.e > c.b && (text[c.e - 1] == ' ' || text[c.e - 1] == '\t' || text[c.e - 1] == '\n'))
		c.e--;
	if (c.b == c.e || memchr(text + c.b, '\0', c.e - c.b) ||
	    memchr(text + c.b, '\n', c.e - c.b) || short_command(&c))
		return fail(err, E_CMD, 0);
	nl = strcspn(text + c.b, " \t");
	if (c.b + nl > c.e)
		nl = c.e - c.b;
	if (text[c.b] == '!') { /* removal: by name, the fields (if any) are not read */
		*remove = true;
		if (!good_name(text + c.b + 1, nl - 1) || nl - 1 >= sizeof(d->name))
			return fail(err, nl > 1 ? "Illegal name" : E_CMD, nl > 1 ? c.b : 0);
		memcpy(d->name, text + c.b + 1, nl - 1);
		return 0;
	}
	if (!good_name(text + c.b, nl) || nl >= sizeof(d->name))
		return fail(err, "Illegal name", c.b);
	memcpy(d->name, text + c.b, nl);
	return parse_fields(d, &c, c.b + nl, err);
}

void ut_synth_print(const struct ut_synth_def *d, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s\t", d->name);

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
