// SPDX-License-Identifier: MIT
/*
 * Event triggers (common/evtrigger.h): the parser of a trigger line, the
 * checks against an event's fields, and the texts the kernel prints back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/evtrigger.h"
#include "common/histstr.h"
#include "common/evtrigger_filter.h"
#include "common/usdt_events.h"

const char ut_evtrig_available[] = "# Available triggers:\n"
				   "# traceon traceoff snapshot stacktrace enable_event disable_event hist\n";

static const char *const cmd_names[UT_ET_NR] = {"traceon",      "traceoff",      "stacktrace",
						 "enable_event", "disable_event", "hist",
						 "snapshot"};

/* The kernel's hist error texts (trace_events_hist.c's err_text). */
#define E_FIELD "Couldn't find field"
#define E_MODIFIER "Invalid field modifier"
#define E_SORT_MOD "Invalid sort modifier"
#define E_SORT_EMPTY "Empty sort field"
#define E_SORT_MANY "Too many sort fields (Max = 2)"
#define E_SORT_FIELD "Sort field must be a key or a val"

static int fail(struct ut_evtrig_err *err, const char *msg, size_t pos, bool logged)
{
	err->msg = msg;
	err->pos = pos;
	err->logged = logged;
	err->in_filter = false;
	return -EINVAL;
}

/* A decimal count (":N") of @n bytes at @s; false if not one. */
static bool parse_count(const char *s, size_t n, int64_t *out)
{
	int64_t v = 0;

	if (!n || n > 18)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

static bool name_ok(const char *s, size_t n, size_t max)
{
	if (!n || n >= max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || s[i] == '-' || (s[i] >= '0' && s[i] <= '9') ||
		      ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')))
			return false;
	return true;
}

/* One modifier word (@n bytes at @m) onto @f; false if unknown. */
static bool modifier(struct ut_hist_field *f, const char *m, size_t n, bool sortkey)
{
	static const struct {
		const char *name;
		uint32_t flag;
	} mods[] = {{"hex", UT_HF_HEX},	      {"sym", UT_HF_SYM}, {"sym-offset", UT_HF_SYM_OFFSET},
		    {"execname", UT_HF_EXECNAME}, {"log2", UT_HF_LOG2}};
	int64_t b;

	if (sortkey) {
		if (n == 10 && !memcmp(m, "descending", 10))
			f->flags |= UT_HF_DESCENDING;
		else if (!(n == 9 && !memcmp(m, "ascending", 9)))
			return false;
		return true;
	}
	if (f->flags)
		return false; /* one modifier per field */
	if (n > 8 && !memcmp(m, "buckets=", 8)) {
		if (!parse_count(m + 8, n - 8, &b) || !b)
			return false;
		f->flags = UT_HF_BUCKETS;
		f->buckets = (uint64_t)b;
		return true;
	}
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		if (strlen(mods[i].name) == n && !memcmp(mods[i].name, m, n)) {
			f->flags = mods[i].flag;
			return true;
		}
	return false;
}

/* One field "name[.mod]" of @n bytes at @s (offset @pos in the text) into @f. */
static int parse_field(struct ut_hist_field *f, const char *s, size_t n, size_t pos, bool sortkey,
		       struct ut_evtrig_err *err)
{
	const char *dot = memchr(s, '.', n);
	size_t k = dot ? (size_t)(dot - s) : n;

	memset(f, 0, sizeof(*f));
	if (!n)
		return fail(err, sortkey ? E_SORT_EMPTY : E_FIELD, pos, true);
	if (!name_ok(s, k, sizeof(f->name)))
		return fail(err, E_FIELD, pos, true);
	memcpy(f->name, s, k);
	if (dot && !modifier(f, dot + 1, n - k - 1, sortkey))
		return fail(err, sortkey ? E_SORT_MOD : E_MODIFIER, pos, true);
	return 0;
}

/* A comma list of fields (@n bytes at @s, offset @pos) into @v; how many in *@nr. */
static int parse_fields(struct ut_hist_field *v, unsigned max, uint8_t *nr, const char *s,
			size_t n, size_t pos, struct ut_evtrig_err *err)
{
	size_t i = 0;

	while (i <= n) {
		size_t k = i;

		while (k < n && s[k] != ',')
			k++;
		if (*nr >= max)
			return fail(err, "Too many fields", pos + i, false);
		if (parse_field(&v[*nr], s + i, k - i, pos + i, false, err))
			return -EINVAL;
		(*nr)++;
		i = k + 1;
	}
	return 0;
}

/* vals=: "hitcount" is always first and implied; the others are sums. */
static int parse_vals(struct ut_evtrig *t, const char *s, size_t n, size_t pos,
		      struct ut_evtrig_err *err)
{
	struct ut_hist_field v[UT_HIST_MAX_VALS + 1];
	uint8_t nr = 0;

	if (parse_fields(v, UT_HIST_MAX_VALS + 1, &nr, s, n, pos, err))
		return -EINVAL;
	for (uint8_t i = 0; i < nr; i++) {
		if (!strcmp(v[i].name, "hitcount") && !v[i].flags)
			continue;
		if (t->nvals >= UT_HIST_MAX_VALS)
			return fail(err, "Too many fields", pos, false);
		if (v[i].flags & ~(uint32_t)UT_HF_HEX)
			return fail(err, E_MODIFIER, pos + (size_t)(strstr(s, v[i].name) - s), true);
		t->vals[t->nvals++] = v[i];
	}
	return 0;
}

/* sort=: names resolved to hitcount/values/keys by ut_evtrig_check(), kept in sortf. */
static int parse_sort(struct ut_hist_field *sortf, uint8_t *nsort, const char *s, size_t n,
		      size_t pos, struct ut_evtrig_err *err)
{
	size_t i = 0;

	while (i <= n) {
		size_t k = i;

		while (k < n && s[k] != ',')
			k++;
		if (*nsort >= UT_HIST_MAX_SORT)
			return fail(err, E_SORT_MANY, pos + i, true);
		if (parse_field(&sortf[*nsort], s + i, k - i, pos + i, true, err))
			return -EINVAL;
		(*nsort)++;
		i = k + 1;
	}
	return 0;
}

/* Where the sort field @f is among hitcount, the values and the keys (0 if none). */
static bool resolve_sort(const struct ut_evtrig *t, const struct ut_hist_field *f,
			 struct ut_hist_sort *out)
{
	out->descending = f->flags & UT_HF_DESCENDING;
	if (!strcmp(f->name, "hitcount")) {
		out->what = 0;
		return true;
	}
	for (uint8_t i = 0; i < t->nvals; i++)
		if (!strcmp(t->vals[i].name, f->name)) {
			out->what = (int16_t)(i + 1);
			return true;
		}
	for (uint8_t i = 0; i < t->nkeys; i++)
		if (!strcmp(t->keys[i].name, f->name)) {
			out->what = (int16_t)-(i + 1);
			return true;
		}
	return false;
}

/* One ":"-separated hist attribute (@n bytes at @s, offset @pos). */
static int hist_attr(struct ut_evtrig *t, struct ut_hist_field *sortf, const char *s, size_t n,
		     size_t pos, struct ut_evtrig_err *err)
{
	const char *eq = memchr(s, '=', n);
	size_t k = eq ? (size_t)(eq - s) : n, vpos = pos + k + 1;
	const char *v = s + k + 1;
	size_t vn = eq ? n - k - 1 : 0;
	int64_t size;

#define IS(word) (k == strlen(word) && !memcmp(s, word, k))
	if (eq && (IS("keys") || IS("key")))
		return t->nkeys ? fail(err, "Duplicate keys", pos, false)
				: parse_fields(t->keys, UT_HIST_MAX_KEYS, &t->nkeys, v, vn, vpos, err);
	if (eq && (IS("vals") || IS("values") || IS("val")))
		return parse_vals(t, v, vn, vpos, err);
	if (eq && IS("sort"))
		return parse_sort(sortf, &t->nsort, v, vn, vpos, err);
	if (eq && IS("size")) {
		if (!parse_count(v, vn, &size) || size < 1 || size > UT_HIST_SIZE_MAX)
			return fail(err, "Invalid size", vpos, false);
		for (t->size = UT_HIST_SIZE_MIN; t->size < (uint64_t)size; t->size <<= 1)
			;
		return 0;
	}
	if (!eq && (IS("pause") || IS("paused")))
		t->pause = true;
	else if (!eq && (IS("continue") || IS("cont")))
		t->cont = true;
	else if (!eq && IS("clear"))
		t->clear = true;
	else if (eq && IS("clock"))
		return 0; /* the trace's clock is the only one here */
	else if (eq && IS("name")) {
		if (!vn || vn >= sizeof(t->name) || memchr(v, ',', vn))
			return fail(err, "Unknown hist attribute", pos, false);
		snprintf(t->name, sizeof(t->name), "%.*s", (int)vn, v);
	}
	else {
		int r = ut_histvar_attr(&t->hv, s, n, pos, err);

		if (r < 0)
			return -EINVAL;
		if (!r)
			return fail(err, "Unknown hist attribute", pos, false);
	}
#undef IS
	return 0;
}

/* "hist:..." (the part before " if "), @n bytes at @s. */
static int parse_hist(struct ut_evtrig *t, const char *s, size_t n, size_t pos,
		      struct ut_evtrig_err *err)
{
	struct ut_hist_field sortf[UT_HIST_MAX_SORT];
	size_t i = 5; /* after "hist:" */

	memset(sortf, 0, sizeof(sortf));
	t->size = UT_HIST_SIZE_DEFAULT;
	while (i <= n) {
		size_t k = i;

		while (k < n && s[k] != ':')
			k++;
		if (k > i && hist_attr(t, sortf, s + i, k - i, pos + i, err))
			return -EINVAL;
		i = k + 1;
	}
	if (!t->nkeys)
		return fail(err, "No keys", pos, false);
	for (uint8_t i2 = 0; i2 < t->nsort; i2++)
		if (!resolve_sort(t, &sortf[i2], &t->sort[i2]))
			return fail(err, E_SORT_FIELD, pos + (size_t)(strstr(s, sortf[i2].name) - s), true);
	if (!t->nsort) { /* the kernel's default: hitcount, ascending */
		t->nsort = 1;
		t->sort[0].what = 0;
		t->sort[0].descending = false;
	}
	return 0;
}

/* CMD[:N] or enable_event:SYS:EVT[:N], @n bytes at @s. */
static int parse_plain(struct ut_evtrig *t, const char *s, size_t n, struct ut_evtrig_err *err)
{
	const char *part[4];
	size_t len[4], np = 0, i = 0;

	while (i <= n && np < 4) {
		size_t k = i;

		while (k < n && s[k] != ':')
			k++;
		part[np] = s + i;
		len[np++] = k - i;
		i = k + 1;
	}
	if (i <= n)
		return fail(err, "Too many fields", 0, false);
	for (t->cmd = 0; t->cmd < UT_ET_NR; t->cmd++)
		if (t->cmd != UT_ET_HIST && len[0] == strlen(cmd_names[t->cmd]) &&
		    !memcmp(part[0], cmd_names[t->cmd], len[0]))
			break;
	if (t->cmd == UT_ET_NR)
		return fail(err, "Unknown trigger", 0, false);
	if (t->cmd == UT_ET_ENABLE || t->cmd == UT_ET_DISABLE) {
		if (np < 3 || !name_ok(part[1], len[1], sizeof(t->sys)) ||
		    !name_ok(part[2], len[2], sizeof(t->evt)))
			return fail(err, "Invalid subsystem or event name", 0, false);
		memcpy(t->sys, part[1], len[1]);
		memcpy(t->evt, part[2], len[2]);
		memmove(part + 1, part + 3, sizeof(part[0]));
		memmove(len + 1, len + 3, sizeof(len[0]));
		np -= 2;
	}
	if (np > 2)
		return fail(err, "Too many fields", 0, false);
	if (np == 2 && !t->remove && !parse_count(part[1], len[1], &t->count))
		return fail(err, "Invalid count", (size_t)(part[1] - s), false);
	t->counted = np == 2 && !t->remove;
	return 0;
}

int ut_evtrig_parse(const char *text, size_t len, struct ut_evtrig *t, struct ut_evtrig_err *err)
{
	size_t b = 0, e = len, cmd_end;
	const char *s, *sp;

	memset(t, 0, sizeof(*t));
	t->count = -1;
	while (b < e && (text[b] == ' ' || text[b] == '\t' || text[b] == '\n'))
		b++;
	while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\n'))
		e--;
	if (b == e || memchr(text + b, '\0', e - b))
		return fail(err, "Empty trigger", 0, false);
	s = text + b;
	if (*s == '!') {
		t->remove = true;
		s++;
	}
	/* the command ends at the first blank: " if FILTER" may follow */
	sp = memchr(s, ' ', (size_t)(text + e - s));
	cmd_end = sp ? (size_t)(sp - s) : (size_t)(text + e - s);
	if (sp) {
		const char *f = sp + strspn(sp, " \t");
		size_t fn = (size_t)(text + e - f);

		if (fn < 3 || memcmp(f, "if", 2) != 0 || (f[2] != ' ' && f[2] != '\t'))
			return fail(err, "Expected 'if'", (size_t)(f - text), false);
		f += 2 + strspn(f + 2, " \t");
		fn = (size_t)(text + e - f);
		if (!fn || fn >= sizeof(t->filter))
			return fail(err, "Bad filter", (size_t)(f - text), false);
		memcpy(t->filter, f, fn);
	}
	if (cmd_end >= 5 && !memcmp(s, "hist:", 5)) {
		t->cmd = UT_ET_HIST;
		return parse_hist(t, s, cmd_end, (size_t)(s - text), err);
	}
	return parse_plain(t, s, cmd_end, err);
}

/* The trigger's filter, checked where filters are (common/evtrigger_filter.h). */
static int check_filter(const struct ut_evtrig *t, const struct ut_evfmt *fmt, const char *text,
			struct ut_evtrig_err *err)
{
	const char *at = strstr(text, t->filter), *msg = NULL;
	size_t pos = 0;

	if (!ut_evtrig_filter_check(t->filter, fmt, &msg, &pos))
		return 0;
	fail(err, msg, (at ? (size_t)(at - text) : 0) + pos, true);
	err->in_filter = true;
	return -EINVAL;
}

int ut_hist_field_slot(const struct ut_evfmt *fmt, const char *name)
{
	char *end;
	unsigned long n;

	if (!strcmp(name, "common_pid"))
		return UT_HIST_SLOT_PID;
	for (unsigned i = 0; fmt && i < fmt->nargs; i++)
		if (fmt->argname[i][0] && !strcmp(fmt->argname[i], name))
			return (int)i;
	if (strncmp(name, "arg", 3) != 0 || name[3] < '1' || name[3] > '9')
		return -1;
	n = strtoul(name + 3, &end, 10);
	if (*end || n < 1 || n > (fmt ? fmt->nargs : UT_USDT_MAX_ARGS))
		return -1;
	return (int)n - 1;
}

static bool is_field(const char *name, const struct ut_evfmt *fmt)
{
	return ut_hist_field_slot(fmt, name) >= 0;
}

static size_t where(const char *text, const char *name)
{
	const char *at = strstr(text, name);

	return at ? (size_t)(at - text) : 0;
}

/* The fields and variables @t's variables and actions read: on @fmt, or its own. */
static int check_vars(const struct ut_evtrig *t, const struct ut_evfmt *fmt, const char *text,
		      struct ut_evtrig_err *err)
{
	const struct ut_hist_defs *d = &t->hv;

	for (uint8_t i = 0; i < d->nvars; i++)
		for (uint8_t j = 0; j < d->vars[i].nops; j++) {
			const struct ut_hist_operand *o = &d->vars[i].op[j];

			if (o->kind == UT_HO_FIELD && !is_field(o->name, fmt))
				return fail(err, E_FIELD, where(text, o->name), true);
		}
	for (uint8_t i = 0; i < d->nactions; i++) {
		const struct ut_hist_action *a = &d->act[i];

		if (a->handler != UT_HH_ONMATCH && !ut_histvar_find(d, a->var))
			return fail(err, "Couldn't find onmax or onchange variable",
				    where(text, a->var), true);
		for (uint8_t j = 0; j < a->nparams; j++) {
			const char *p = a->param[j];

			/* onmatch's $VAR may be the matched event's: resolved in the process */
			if (p[0] == '$' ? !ut_histvar_find(d, p + 1) && a->handler != UT_HH_ONMATCH
					: !is_field(p, fmt))
				return fail(err, "Couldn't find param", where(text, p), true);
		}
	}
	return 0;
}

int ut_evtrig_check(const struct ut_evtrig *t, const struct ut_evfmt *fmt, const char *text,
		    struct ut_evtrig_err *err)
{
	for (uint8_t i = 0; fmt && t->cmd == UT_ET_HIST && i < t->nkeys; i++) {
		const struct ut_hist_field *f = &t->keys[i];

		if (!is_field(f->name, fmt))
			return fail(err, E_FIELD, where(text, f->name), true);
		if ((f->flags & UT_HF_EXECNAME) && strcmp(f->name, "common_pid") != 0)
			return fail(err, E_MODIFIER, where(text, f->name), true);
	}
	for (uint8_t i = 0; fmt && t->cmd == UT_ET_HIST && i < t->nvals; i++)
		if (!is_field(t->vals[i].name, fmt))
			return fail(err, E_FIELD, where(text, t->vals[i].name), true);
	if (fmt && t->cmd == UT_ET_HIST) {
		struct ut_hist_strs l;

		/* the kernel's key size: two string keys of 256 bytes do not fit, a bare EINVAL */
		ut_hist_strs_layout(t, fmt, &l);
		if (l.key_bytes > UT_HIST_KEY_BYTES_MAX)
			return fail(err, "", 0, false);
	}
	if (fmt && t->cmd == UT_ET_HIST && check_vars(t, fmt, text, err))
		return -EINVAL;
	if (t->filter[0] && !t->remove)
		return check_filter(t, fmt, text, err);
	return 0;
}

/* "name[.mod]" of a field into @buf at *@n. */
static void put_field(char *buf, size_t len, size_t *n, const struct ut_hist_field *f)
{
	static const struct {
		uint32_t flag;
		const char *name;
	} mods[] = {{UT_HF_HEX, ".hex"},	     {UT_HF_SYM, ".sym"}, {UT_HF_SYM_OFFSET, ".sym-offset"},
		    {UT_HF_EXECNAME, ".execname"}, {UT_HF_LOG2, ".log2"}};

	if (*n >= len)
		return;
	*n += (size_t)snprintf(buf + *n, len - *n, "%s", f->name);
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]) && *n < len; i++)
		if (f->flags & mods[i].flag)
			*n += (size_t)snprintf(buf + *n, len - *n, "%s", mods[i].name);
	if ((f->flags & UT_HF_BUCKETS) && *n < len)
		*n += (size_t)snprintf(buf + *n, len - *n, ".buckets=%" PRIu64, f->buckets);
}

static void put(char *buf, size_t len, size_t *n, const char *s)
{
	if (*n < len)
		*n += (size_t)snprintf(buf + *n, len - *n, "%s", s);
}

/*
 * The kernel's "hist:keys=..:vals=hitcount,..:sort=..:size=N".  The kernel
 * prints a sort key with its field's modifier (sort=arg1.log2) but takes
 * none back: @parsable leaves them out.
 */
static size_t hist_text(const struct ut_evtrig *t, char *buf, size_t len, bool parsable)
{
	size_t n = 0;

	put(buf, len, &n, "hist:");
	if (t->name[0]) { /* as the kernel prints it: "hist:name=NAME:keys=..." */
		put(buf, len, &n, "name=");
		put(buf, len, &n, t->name);
		put(buf, len, &n, ":");
	}
	put(buf, len, &n, "keys=");
	for (uint8_t i = 0; i < t->nkeys; i++) {
		if (i)
			put(buf, len, &n, ",");
		put_field(buf, len, &n, &t->keys[i]);
	}
	put(buf, len, &n, ":vals=hitcount");
	for (uint8_t i = 0; i < t->nvals; i++) {
		put(buf, len, &n, ",");
		put_field(buf, len, &n, &t->vals[i]);
	}
	ut_histvar_print_vars(&t->hv, buf, len, &n);
	put(buf, len, &n, ":sort=");
	for (uint8_t i = 0; i < t->nsort; i++) {
		int w = t->sort[i].what;

		if (i)
			put(buf, len, &n, ",");
		if (!w)
			put(buf, len, &n, "hitcount");
		else if (parsable)
			put(buf, len, &n, w > 0 ? t->vals[w - 1].name : t->keys[-w - 1].name);
		else
			put_field(buf, len, &n, w > 0 ? &t->vals[w - 1] : &t->keys[-w - 1]);
		if (t->sort[i].descending)
			put(buf, len, &n, ".descending");
	}
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, ":size=%u", t->size);
	if (t->hv.timestamps)
		put(buf, len, &n, ":clock=global");
	ut_histvar_print_actions(&t->hv, buf, len, &n);
	return n;
}

void ut_evtrig_ident(const struct ut_evtrig *t, char *buf, size_t len)
{
	if (t->cmd == UT_ET_HIST)
		hist_text(t, buf, len, false);
	else if (t->cmd == UT_ET_ENABLE || t->cmd == UT_ET_DISABLE)
		snprintf(buf, len, "%s:%s:%s", cmd_names[t->cmd], t->sys, t->evt);
	else
		snprintf(buf, len, "%s", t->cmd >= 0 && t->cmd < UT_ET_NR ? cmd_names[t->cmd] : "?");
}

void ut_evtrig_print(const struct ut_evtrig *t, int64_t count, char *buf, size_t len)
{
	size_t n;

	ut_evtrig_ident(t, buf, len);
	n = strlen(buf);
	if (t->cmd != UT_ET_HIST && n < len) {
		if (count < 0)
			n += (size_t)snprintf(buf + n, len - n, ":unlimited");
		else
			n += (size_t)snprintf(buf + n, len - n, ":count=%" PRId64, count);
	}
	if (t->filter[0] && n < len)
		n += (size_t)snprintf(buf + n, len - n, " if %s", t->filter);
	if (t->cmd == UT_ET_HIST && n < len)
		snprintf(buf + n, len - n, " %s", t->pause ? "[paused]" : "[active]");
}

void ut_evtrig_config_text(const struct ut_evtrig *t, char *buf, size_t len)
{
	size_t n;

	if (t->cmd == UT_ET_HIST)
		hist_text(t, buf, len, true);
	else
		ut_evtrig_ident(t, buf, len);
	n = strlen(buf);
	if (t->cmd == UT_ET_HIST && t->pause && n < len)
		n += (size_t)snprintf(buf + n, len - n, ":pause");
	if (t->cmd != UT_ET_HIST && t->counted && n < len)
		n += (size_t)snprintf(buf + n, len - n, ":%" PRId64, t->count);
	if (t->filter[0] && n < len)
		snprintf(buf + n, len - n, " if %s", t->filter);
}

uint64_t ut_hist_key_value(const struct ut_hist_field *f, uint64_t v)
{
	uint64_t p = 0;

	if (f->flags & UT_HF_LOG2) { /* ilog2(roundup_pow_of_two(v)) */
		while (p < 63 && (1ULL << p) < v)
			p++;
		return p;
	}
	if ((f->flags & UT_HF_BUCKETS) && f->buckets)
		return v / f->buckets * f->buckets;
	return v;
}
