// SPDX-License-Identifier: MIT
/*
 * A process event's fields as the triggers see an event (common/evtrigger.h,
 * common/evtrigger_filter.h): one 8-byte slot per field, named as the
 * kernel names it (parent_pid, child_pid, comm...), numbers sign- or
 * zero-extended from their size; a string (__data_loc char[] or a char
 * array) is a string field whose slot holds the address of its text in
 * the record (valid while the event's triggers run: they read it as the
 * kernel's read the record), 0 if the record has none.
 * Read from the format's own field lines, so the two cannot disagree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/procev_fields.h"

/* The decimal after @key in the line at @s (no locale, no allocation: signal-safe). */
static unsigned number_after(const char *s, const char *key)
{
	const char *end = strchr(s, '\n'), *k = strstr(s, key);
	unsigned v = 0;

	if (!k || (end && k > end))
		return 0;
	for (k += strlen(key); *k >= '0' && *k <= '9'; k++)
		v = v * 10 + (unsigned)(*k - '0');
	return v;
}

/* One "\tfield:TYPE NAME;\toffset:O;\tsize:S;\tsigned:G;\n" line at *@p; false at the end. */
static bool next_field(const char **p, char name[UT_USDT_NAME_MAX], unsigned *off,
		       unsigned *size, bool *is_signed, bool *is_str)
{
	const char *l = strstr(*p, "field:"), *semi, *sp, *br;
	unsigned sg = 0;

	if (!l || !(semi = strchr(l, ';')))
		return false;
	for (sp = semi; sp > l && sp[-1] != ' '; sp--)
		;
	br = memchr(sp, '[', (size_t)(semi - sp));
	snprintf(name, UT_USDT_NAME_MAX, "%.*s", (int)((br ? br : semi) - sp), sp);
	sp = strstr(l, "__data_loc");
	*is_str = br || (sp && sp < semi);
	*off = number_after(semi, "offset:");
	*size = number_after(semi, "size:");
	sg = number_after(semi, "signed:");
	*is_signed = sg != 0;
	*p = strchr(semi, '\n') ? strchr(semi, '\n') + 1 : semi + strlen(semi);
	return true;
}

bool ut_procev_evfmt(const struct ut_procev *e, struct ut_evfmt *f)
{
	const char *p = e->fields;
	char name[UT_USDT_NAME_MAX];
	unsigned off, size;
	bool sg, str;

	memset(f, 0, sizeof(*f));
	snprintf(f->system, sizeof(f->system), "%s", e->system);
	snprintf(f->name, sizeof(f->name), "%s", e->name);
	f->id = e->id;
	while (f->nargs < UT_USDT_MAX_ARGS && next_field(&p, name, &off, &size, &sg, &str)) {
		unsigned i = f->nargs++;

		memcpy(f->argname[i], name, sizeof(f->argname[i]));
		f->size[i] = (uint8_t)(str || size > 8 ? 8 : size);
		f->is_signed[i] = sg && !str;
		f->is_string[i] = str;
		f->strsize[i] = (uint16_t)(str && size != 4 ? size : 0); /* char[16]: 16 */
	}
	return true;
}

bool ut_procev_evfmt_named(const char *sys, const char *evt, struct ut_evfmt *f)
{
	const struct ut_procev *e = ut_procev_find(sys, evt);

	return e && e->id != UT_PEV_PRINT && ut_procev_evfmt(e, f);
}

/*
 * The address of the string field at @off (@size bytes: 4 a __data_loc,
 * 0 a trailing char[], else a char array) of record @rec (@len bytes); 0
 * if it lies outside.
 * A __data_loc's text ends with its NUL inside the record (as written).
 */
static uint64_t str_at(const uint8_t *rec, size_t len, unsigned off, unsigned size)
{
	uint32_t loc = 0;
	size_t at, n;

	if (!size) /* a trailing char NAME[] (ftrace:print's buf): its NUL inside the record */
		return off < len && memchr(rec + off, '\0', len - off) ? (uint64_t)(uintptr_t)(rec + off)
									: 0;
	if (size != 4)
		return off + size <= len ? (uint64_t)(uintptr_t)(rec + off) : 0;
	if (off + 4 > len)
		return 0;
	memcpy(&loc, rec + off, 4);
	at = loc & 0xffff;
	n = loc >> 16;
	if (!n || at + n > len || rec[at + n - 1] != '\0')
		return 0;
	return (uint64_t)(uintptr_t)(rec + at);
}

unsigned ut_procev_slots(const struct ut_procev *e, const uint8_t *rec, size_t len,
			 uint64_t *slots)
{
	const char *p = e->fields;
	char name[UT_USDT_NAME_MAX];
	unsigned off, size, n = 0;
	bool sg, str;

	while (n < UT_USDT_MAX_ARGS && next_field(&p, name, &off, &size, &sg, &str)) {
		uint64_t v = 0;

		if (str)
			v = str_at(rec, len, off, size);
		else if (size && size <= 8 && off + size <= len) {
			memcpy(&v, rec + off, size);
			if (sg && size < 8 && (v >> (8 * size - 1) & 1))
				v |= ~0ull << (8 * size);
		}
		slots[n++] = v;
	}
	return n;
}
