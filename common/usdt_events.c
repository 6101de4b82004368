// SPDX-License-Identifier: MIT
/*
 * USDT probes as trace events (common/usdt_events.h): their formats, the
 * table naming a recorded probe address, their printed text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/usdt_events.h"

/*
 * The type the format declares for an argument: the kernel's probe events
 * (uprobe_events, USDT) declare s8..s64 / u8..u64, which trace-cmd sign-
 * extends by.
 */
static const char *c_type(unsigned size, bool is_signed)
{
	static const char *const names[2][4] = {{"u8", "u16", "u32", "u64"},
						{"s8", "s16", "s32", "s64"}};

	return names[is_signed][size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3];
}

/* trace-cmd reads a field zero-extended: the length modifier makes a narrow one signed again */
static const char *conv(unsigned size, bool is_signed)
{
	static const char *const c[2][4] = {{"%hhu", "%hu", "%u", "%lu"},
					    {"%hhd", "%hd", "%d", "%ld"}};

	return c[is_signed][size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3];
}

/* Argument @i's field name: its description's, else "argN" (in @buf). */
static const char *arg_name(const struct ut_evfmt *f, unsigned i, char *buf, size_t len)
{
	if (f->argname[i][0])
		return f->argname[i];
	snprintf(buf, len, "arg%u", i + 1);
	return buf;
}

char *ut_evfmt_text(const struct ut_evfmt *f)
{
	char *text = NULL, fields[4096] = "", fmt[1024] = "", args[1024] = "", nb[16];
	size_t nf = 0, nm = 0, na = 0;

	for (unsigned i = 0; i < f->nargs && i < UT_USDT_MAX_ARGS; i++) {
		const char *name = arg_name(f, i, nb, sizeof(nb));

		if (f->is_string[i]) { /* as the kernel's probe (or synthetic) events declare strings */
			nf += (size_t)snprintf(fields + nf, sizeof(fields) - nf,
					       "\tfield:__data_loc char[] %s;\toffset:%u;\tsize:%u;"
					       "\tsigned:1;\n", name, 8 + 8 * i, f->synthetic ? 8u : 4u);
			nm += (size_t)snprintf(fmt + nm, sizeof(fmt) - nm,
					       f->synthetic ? "%s%s=%%s" : "%s%s=\\\"%%s\\\"",
					       i ? " " : "", name);
			na += (size_t)snprintf(args + na, sizeof(args) - na, ", __get_str(%s)", name);
			continue;
		}
		nf += (size_t)snprintf(fields + nf, sizeof(fields) - nf,
				       "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
				       c_type(f->size[i], f->is_signed[i]), name, 8 + 8 * i,
				       f->size[i], f->is_signed[i] ? 1 : 0);
		nm += (size_t)snprintf(fmt + nm, sizeof(fmt) - nm, "%s%s=%s", i ? " " : "", name,
				       conv(f->size[i], f->is_signed[i]));
		na += (size_t)snprintf(args + na, sizeof(args) - na, ", REC->%s", name);
	}
	if (asprintf(&text,
		     "name: %s\nID: %u\nformat:\n"
		     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		     "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		     "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		     "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		     "\n%s\nprint fmt: \"%s\"%s\n",
		     f->name, f->id, fields, fmt, args) < 0)
		return NULL;
	return text;
}

/*
 * One "field:TYPE NAME;	offset:O;	size:S;	signed:G;" line for argument
 * @i: its slot's offset, an integer type or a __data_loc string.
 */
static int parse_field(struct ut_evfmt *f, const char *line, unsigned i)
{
	const char *decl = line + strlen("\tfield:"), *semi = strchr(decl, ';'), *sp;
	unsigned off, size, sign;
	char nb[16];
	size_t tl;

	if (!semi || semi > strchr(line, '\n') || !(sp = memrchr(decl, ' ', (size_t)(semi - decl))))
		return -EINVAL;
	tl = (size_t)(sp - decl);
	if ((size_t)(semi - sp - 1) >= UT_USDT_NAME_MAX || semi == sp + 1)
		return -EINVAL;
	if (sscanf(semi + 1, "\toffset:%u;\tsize:%u;\tsigned:%u;", &off, &size, &sign) != 3 ||
	    off != 8 + 8 * i || sign > 1)
		return -EINVAL;
	f->is_string[i] = tl == strlen("__data_loc char[]") && !strncmp(decl, "__data_loc char[]", tl);
	if (f->is_string[i] ? size != (f->synthetic ? 8u : 4u)
			    : (size != 1 && size != 2 && size != 4 && size != 8))
		return -EINVAL;
	snprintf(f->argname[i], UT_USDT_NAME_MAX, "%.*s", (int)(semi - sp - 1), sp + 1);
	if (!strcmp(arg_name(&(struct ut_evfmt){0}, i, nb, sizeof(nb)), f->argname[i]))
		f->argname[i][0] = '\0'; /* argN: no name of its own */
	f->size[i] = (uint8_t)(f->is_string[i] ? 8 : size);
	f->is_signed[i] = (uint8_t)sign;
	return 0;
}

int ut_evfmt_parse(struct ut_evfmt *f, const char *system, const char *text)
{
	const char *p, *id = strstr(text, "\nID: ");
	long v;

	memset(f, 0, sizeof(*f));
	if (strncmp(text, "name: ", 6) != 0 || !id || strlen(system) >= sizeof(f->system))
		return -EINVAL;
	snprintf(f->system, sizeof(f->system), "%s", system);
	snprintf(f->name, sizeof(f->name), "%.*s", (int)strcspn(text + 6, "\n"), text + 6);
	f->synthetic = !strcmp(system, "synthetic"); /* common/synth.h's UT_SYNTH_SYSTEM */
	v = strtol(id + 5, NULL, 10);
	if (v < UT_EV_PROBE_FIRST_ID || v >= UT_EV_PROBE_FIRST_ID + UT_EV_PROBE_MAX_IDS)
		return -EINVAL;
	f->id = (uint16_t)v;
	/* the fields after the common ones: arg1, arg2, ... in their slots */
	p = strstr(text, "common_pid;");
	while (p && (p = strstr(p, "\tfield:")) && f->nargs < UT_USDT_MAX_ARGS) {
		if (parse_field(f, p, f->nargs))
			return -EINVAL;
		f->nargs++;
		p++;
	}
	return p && strstr(p, "\tfield:") ? -EINVAL : 0;
}

/* String argument @i's text from its __data_loc in slot @loc: *@s, its length; -1: (fault). */
static int str_arg(const uint64_t *args, size_t argbytes, uint64_t loc, const char **s)
{
	size_t off = loc & 0xffff, len = (loc >> 16) & 0xffff, n = 0;

	if (!len || off < 8 || off - 8 + len > argbytes)
		return -1;
	*s = (const char *)args + off - 8;
	while (n < len && (*s)[n])
		n++;
	return (int)n;
}

void ut_evfmt_print(char *buf, size_t len, const struct ut_evfmt *f, const uint64_t *args,
		    size_t argbytes)
{
	size_t n = 0;
	char nb[16];

	buf[0] = '\0';
	if (argbytes < (size_t)8 * f->nargs)
		argbytes = (size_t)8 * f->nargs;
	for (unsigned i = 0; i < f->nargs && n < len; i++) {
		const char *name = arg_name(f, i, nb, sizeof(nb)), *s;
		unsigned bits = f->size[i] * 8u;
		uint64_t v = args[i];
		int sl;

		if (f->is_string[i]) {
			sl = str_arg(args, argbytes, v, &s);
			n += (size_t)(sl < 0 ? snprintf(buf + n, len - n, "%s%s=(fault)", i ? " " : "",
							name)
					     : snprintf(buf + n, len - n,
							f->synthetic ? "%s%s=%.*s" : "%s%s=\"%.*s\"",
							i ? " " : "", name, sl, s));
			continue;
		}
		if (bits < 64) {
			v &= (1ULL << bits) - 1;
			if (f->is_signed[i] && (v >> (bits - 1)) & 1)
				v |= ~0ULL << bits;
		}
		if (f->is_signed[i])
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%" PRId64, i ? " " : "", name,
					      (int64_t)v);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%" PRIu64, i ? " " : "", name, v);
	}
}

void ut_evfmt_from_probe(struct ut_evfmt *f, const struct ut_usdt_probe *p)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->system, sizeof(f->system), "%s", p->provider);
	snprintf(f->name, sizeof(f->name), "%s", p->name);
	f->nargs = (uint8_t)(p->nargs > 0 ? p->nargs : 0);
	for (int k = 0; k < p->nargs && k < UT_USDT_MAX_ARGS; k++) {
		f->size[k] = p->arg[k].size;
		f->is_signed[k] = p->arg[k].is_signed;
		f->is_string[k] = p->arg[k].is_string;
		snprintf(f->argname[k], sizeof(f->argname[k]), "%s", p->arg[k].name);
	}
}

size_t ut_evfmt_fields(const struct ut_evfmt *f, struct ut_evf_field *out)
{
	static const char *const names[UT_USDT_MAX_ARGS] = {
		"arg1", "arg2", "arg3", "arg4", "arg5", "arg6",
		"arg7", "arg8", "arg9", "arg10", "arg11", "arg12"};
	size_t n = 0;

	for (unsigned i = 0; i < f->nargs && i < UT_USDT_MAX_ARGS; i++, n++) {
		out[n].name = f->argname[i][0] ? f->argname[i] : names[i];
		out[n].offset = (uint16_t)(8 + 8 * i);
		out[n].size = f->is_string[i] ? 4 : f->size[i];
		out[n].is_signed = f->is_signed[i];
		out[n].kind = f->is_string[i] ? UT_EVF_STRLOC : UT_EVF_NUM;
	}
	return n;
}

int ut_probetab_add_object(struct ut_probetab *t, const char *path, uint64_t bias)
{
	struct ut_usdt_list l = {0};
	int ret = ut_usdt_read_file(path, &l);
	struct ut_probetab_ent *v;

	if (ret <= 0) {
		ut_usdt_list_free(&l);
		return ret;
	}
	v = realloc(t->v, (t->n + l.n) * sizeof(*v));
	if (!v) {
		ut_usdt_list_free(&l);
		return -ENOMEM;
	}
	t->v = v;
	for (size_t i = 0; i < l.n; i++) {
		const struct ut_usdt_probe *p = &l.v[i];
		struct ut_probetab_ent *e = &t->v[t->n];

		if (p->nargs < 0)
			continue; /* never enabled */
		memset(e, 0, sizeof(*e));
		e->pc = p->pc + bias;
		ut_evfmt_from_probe(&e->f, p);
		t->n++;
	}
	ut_usdt_list_free(&l);
	return 0;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ut_probetab_ent *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

void ut_probetab_finish(struct ut_probetab *t)
{
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_ent);
}

const struct ut_evfmt *ut_probetab_find(const struct ut_probetab *t, uint64_t pc)
{
	size_t lo = 0, hi = t ? t->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].pc == pc)
			return &t->v[mid].f;
		if (t->v[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void ut_probetab_free(struct ut_probetab *t)
{
	if (!t)
		return;
	free(t->v);
	free(t);
}
